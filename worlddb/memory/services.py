"""The services every memory operation works with, in one frozen object.

Operations (write, ingest, recall, read, amend, retire, purge) are functions of a
`Services` and their arguments: they never see the `Engine`, which only validates
arguments, builds the services once and calls the operations. So an operation states
what it depends on, and tests can hand it exactly that.

    services.db         the graph (worlddb.graph.database.WorldDB): every write goes
                        through services.db.write()
    services.store      the same graph's store, for reads
    services.embedder   texts -> vectors, run before the write lock is taken
    services.extractor  text -> candidate entities and facts
    services.resolver   mentions -> entities (never merging silently)
    services.sources    what recall searches (worlddb.retrieval.sources)
    services.functional relations that hold one current value per subject
    services.judge      what a new memory means for current ones (worlddb.memory.updates)
    services.vector_text the form of the texts this store's text vectors are made from
                        (worlddb.graph.text_index.vector_form), read when the engine opened
"""

from __future__ import annotations

from dataclasses import dataclass, field

from worlddb.core.store import Store
from worlddb.extract.judge import BuiltinJudge
from worlddb.graph import text_index
from worlddb.graph.database import WorldDB
from worlddb.protocols import Embedder, Extractor, UpdateJudge
from worlddb.resolver import Resolver
from worlddb.retrieval.sources import Sources
from worlddb.vectors.hnsw import AnnIndex
from worlddb.vectors.static_query import StaticEncoder

from .scopes import ScopeSet


@dataclass(frozen=True)
class Services:
    db: WorldDB
    embedder: Embedder
    #: the static wordpiece table for model-free query vectors; None for other embedders
    encoder: StaticEncoder | None
    extractor: Extractor
    resolver: Resolver
    sources: Sources
    functional: frozenset[str] = frozenset()
    #: the scope a call that names none falls back to (None: such calls are refused)
    default_scopes: ScopeSet | None = None
    #: decides what a memory_write means for current memories (update, conflict, duplicate, ...)
    judge: UpdateJudge = field(default_factory=BuiltinJudge)
    #: the store's text-vector form: what prepare embeds, and each write checks (text_index)
    vector_text: str = text_index.CURRENT

    @property
    def store(self) -> Store:
        return self.db.store

    @property
    def whole(self) -> AnnIndex:
        """The HNSW index of whole-text (effective) vectors."""
        return self.sources.whole

    @property
    def units(self) -> AnnIndex:
        """The HNSW index of sentence-unit vectors."""
        return self.sources.units
