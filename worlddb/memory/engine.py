"""The memory API: what the MCP tools call, one method per tool.

    engine = Engine.open("memory.db", default_user="alice")
    res = engine.write_memory("I live in Austin", ScopeSet(...))
    engine.recall("where do I live", scopes)

Contract
- Writes go extract -> resolve -> reconcile -> commit: the model work (embedding, name
  vectors) happens before the write lock is taken; resolution, nodes, edges (through
  their handlers), index rows and vectors then land in one transaction.
- Content is immutable: amend writes a new memory that supersedes the old one.
- Every operation is scoped. A memory is reachable through a scope only if that scope
  contains it; reading, amending or retiring it through another scope is NotFound.
- Amend replaces a memory (Memory, Turn, Summary); retire closes one of those or a fact.
  Any other id in scope (an entity, a session) is InvalidInput: closing an entity would
  hide it from every memory that names it.
- Bad input raises InvalidInput/NotFound before anything is written.
The engine is synchronous and single-threaded per instance; worlddb.memory.aio gives it a
thread of its own for async callers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from worlddb.vectors import hnsw

from worlddb.graph import text_index
from worlddb.graph.database import WorldDB
from worlddb.core.errors import InvalidInput, NotFound
from worlddb.memory.write import WriteRequest, write, write_many
from worlddb.core.records import MAX_TEXT_CHARS
from worlddb.memory.results import (
    AmendResult, Page, PurgeResult, RecallResult, RetireAllResult, RetireResult, ScopeInfo, ScopeList,
    WriteResult,
)
from worlddb.memory.scopes import ScopeSet, scope_key
from worlddb.core.timeutil import now_us, parse_time, to_iso


class Engine:
    def __init__(self, db: WorldDB, *, embedder, extractor=None, tiebreaker=None,
                 default_scopes: ScopeSet | None = None, functional: Sequence[str] = (),
                 query_model: bool = False, encoder=None, reembed: bool = False):
        from worlddb.extract.builtin import BuiltinExtractor
        from worlddb.resolver import Resolver
        from worlddb.vectors.static_query import StaticEncoder

        self.db = db
        self.store = db.store
        self.embedder = embedder
        #: the static table lives in the embedding model's space; other embedders get no
        #: model-free query vectors (their vector lanes then need query_model=True)
        self.encoder = encoder if encoder is not None else (
            StaticEncoder() if embedder.model_id == MINILM_ID and embedder.dim == 384 else None)
        try:
            text_index.check_model(db.store, embedder.model_id, embedder.dim)
        except text_index.EmbeddingMismatch:
            if not reembed:
                raise
            from worlddb.memory.reembed import reembed as run_reembed

            run_reembed(db, embedder, self.encoder)
        # indexes are built after any re-embedding, from the vectors that now exist
        self.extractor = extractor if extractor is not None else BuiltinExtractor()
        self.resolver = Resolver(db, embedder, tiebreaker=tiebreaker)
        self.default_scopes = default_scopes
        self.functional = frozenset(functional)
        self.index = db.ann(hnsw.EFFECTIVE)
        self.units = db.ann(hnsw.UNIT)
        self.query_model = query_model
        self._consolidator = None

    @classmethod
    def open(cls, path: str | Path, *, embedder=None, extractor=None, default_user: str | None = None,
             functional: Sequence[str] = (), registry=None, synchronous: str = "FULL",
             query_model: bool = False, reembed: bool = False) -> "Engine":
        if embedder is None:
            from worlddb.vectors.embedder import default_embedder

            embedder = default_embedder()
        if extractor is None:
            # the Anthropic-backed extractor and tiebreaker only when a key is configured;
            # otherwise (and on any failure of theirs) the deterministic built-ins
            from worlddb.extract.anthropic import configured_extractor, configured_tiebreaker

            extractor = configured_extractor()
            tiebreaker = configured_tiebreaker()
        else:
            tiebreaker = None
        db = WorldDB.open(path, registry=registry, synchronous=synchronous)
        default = ScopeSet((("user", default_user),)) if default_user else None
        try:
            return cls(db, embedder=embedder, extractor=extractor, tiebreaker=tiebreaker, default_scopes=default,
                       functional=functional, query_model=query_model, reembed=reembed)
        except BaseException:
            db.close()
            raise

    def start_background(self, *, recluster: bool = True, consolidate_every: float | None = None,
                         min_age_secs: float = 3600.0) -> None:
        """Start the background work that never blocks a write: re-resolution of each write's
        2-hop neighbourhood, and (if an interval is given) the consolidator. Each runs on its
        own thread with its own connection to the same file."""
        from worlddb.consolidator import ConsolidatorTask
        from worlddb.resolver import Reclusterer

        if recluster and self.resolver.reclusterer is None and self.store.path != ":memory:":
            self.resolver.reclusterer = Reclusterer.for_resolver(self.resolver)
        if consolidate_every and self._consolidator is None:
            self._consolidator = ConsolidatorTask(self.store.path, interval_secs=consolidate_every,
                                                  registry=self.db.registry, min_age_secs=min_age_secs,
                                                  functional=tuple(self.functional))
            self._consolidator.start()

    def warm(self) -> None:
        """Bring every in-memory index up to date with the file now: the whole-text and
        sentence HNSW indexes, and the resolver's names. On a large store their first build
        takes seconds to minutes unless a snapshot of them is on disk (worlddb.vectors.hnsw_snapshots),
        and they are saved once built; a server calls this at start, so that the first tool call
        does not pay for it (a call that arrives meanwhile waits only for the rest)."""
        self.index.sync()
        self.units.sync()
        self.resolver.index.catch_up(vectors=self.resolver.embedder is not None)
        # what took minutes to build is saved now, not only at a close that may never come
        # (a stdio server is often ended by a signal)
        self.db.save_ann_snapshots()
        self.resolver.index.save_snapshot()

    def stop_background(self) -> None:
        if self.resolver.reclusterer is not None:
            self.resolver.reclusterer.stop()
            self.resolver.reclusterer = None
        if self._consolidator is not None:
            self._consolidator.stop()
            self._consolidator = None

    def close(self) -> None:
        self.stop_background()
        self.resolver.close()
        self.db.close()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ writing
    def write_memory(self, text: str, scopes: ScopeSet, *, metadata: dict | None = None,
                     valid_from: str | None = None, entities: list[dict] | None = None,
                     facts: list[dict] | None = None) -> WriteResult:
        request = WriteRequest(text=check_text(text), scopes=scopes, metadata=metadata or {},
                               valid_from=parse_time(valid_from, field="valid_from") if valid_from else None,
                               entities=entities, facts=facts, tool="memory_write")
        return write(self, request)

    def write_memories(self, items: Sequence[dict], scopes: ScopeSet) -> list[WriteResult]:
        """Write many memories in one transaction (all or none), for imports: each item takes
        the arguments of write_memory (text, metadata, valid_from, entities, facts)."""
        if not isinstance(items, (list, tuple)) or not items:
            raise InvalidInput("items must be a non-empty list of memories")
        requests = []
        for item in items:
            if not isinstance(item, dict) or set(item) - {"text", "metadata", "valid_from", "entities", "facts"}:
                raise InvalidInput("each item is an object with text and optionally metadata, valid_from, "
                                   "entities, facts")
            valid_from = item.get("valid_from")
            requests.append(WriteRequest(
                text=check_text(item.get("text")), scopes=scopes, metadata=item.get("metadata") or {},
                valid_from=parse_time(valid_from, field="valid_from") if valid_from else None,
                entities=item.get("entities"), facts=item.get("facts"), tool="memory_write"))
        return write_many(self, requests)

    def amend(self, memory_id: str, text: str, scopes: ScopeSet, *, reason: str | None = None) -> AmendResult:
        old = self.require_memory(memory_id, scopes, AMENDABLE, "amended")
        view = self.store.get(old)
        if view.valid_to is not None:
            raise InvalidInput(f"memory {old} is no longer current (it was retired or superseded); "
                               "amend the memory that replaced it")
        keys = self.scope_keys_of(old)
        # the amendment starts now - or, for a memory about the future, when that one starts
        request = WriteRequest(text=check_text(text), scopes=ScopeSet(tuple(tuple(k.split(":", 1)) for k in keys)),
                               metadata=dict(view.meta), valid_from=max(now_us(), view.valid_from), entities=None,
                               facts=None, tool="memory_amend", supersedes=old, reason=reason)
        result = write(self, request)
        return AmendResult(id=result.id, supersedes=old, scopes=result.scopes, valid_from=result.valid_from)

    def retire(self, memory_id: str, scopes: ScopeSet, *, reason: str | None = None) -> RetireResult:
        anchor = self.require_memory(memory_id, scopes, RETIRABLE, "retired")
        with self.db.write("retire") as w:
            changed = w.retire(anchor, reason)
            if changed:
                self._retire_derived(w, anchor, reason)
        view = self.store.get(anchor)
        return RetireResult(id=anchor, retired=True, valid_to=to_iso(view.valid_to), already_retired=not changed)

    def retire_all(self, scopes: ScopeSet) -> RetireAllResult:
        anchors = [self.store.scope_anchor(kind, sid) for kind, sid in scopes]
        count = 0
        with self.db.write("retire_all") as w:
            for node in self._open_members([a for a in anchors if a]):
                count += int(w.retire(node, "retire_all"))
        return RetireAllResult(scopes=scopes.keys, retired=count)

    def purge_scope(self, scopes: ScopeSet, confirm: str, *, erase: bool = False) -> PurgeResult:
        from worlddb.memory.purge import purge

        if len(scopes) != 1:
            raise InvalidInput("purge one scope at a time: name exactly one of user_id, agent_id, app_id, run_id")
        kind, sid = scopes.pairs[0]
        key = scope_key(kind, sid)
        if confirm != key:
            raise InvalidInput(f"confirm must equal the scope key {key!r} to purge it")
        return purge(self, kind, sid, erase=erase)

    def ingest_conversation(self, sessions, scopes: ScopeSet, *, source: str = "conversation"):
        """Bulk-ingest sessions of turns (worlddb.memory.ingest) into the given scopes."""
        from worlddb.memory.ingest import ingest_conversation

        return ingest_conversation(self, scopes, sessions, source=source)

    # ------------------------------------------------------------------ reading
    def recall(self, query: str, scopes: ScopeSet, *, limit: int = 10, as_of: str | None = None,
               known_at: str | None = None, include_retired: bool = False) -> RecallResult:
        from worlddb.retrieval.recall import recall

        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be non-empty text")
        if len(query) > MAX_TEXT_CHARS:
            raise InvalidInput(f"query is longer than {MAX_TEXT_CHARS} characters")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 100:
            raise InvalidInput("limit must be an integer from 1 to 100")
        return recall(self, query, scopes, limit=limit,
                      as_of=parse_time(as_of, field="as_of") if as_of else None,
                      known_at=parse_time(known_at, field="known_at") if known_at else None,
                      include_retired=include_retired)

    def list_memories(self, scopes: ScopeSet, *, limit: int = 50, cursor: str | None = None,
                      include_retired: bool = False) -> Page:
        from worlddb.memory.reading import list_memories

        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 500:
            raise InvalidInput("limit must be an integer from 1 to 500")
        return list_memories(self, scopes, limit=limit, cursor=cursor, include_retired=include_retired)

    def read_memory(self, memory_id: str, scopes: ScopeSet):
        from worlddb.memory.reading import read_memory

        return read_memory(self, self.require_in_scope(memory_id, scopes), self.scope_anchors(scopes))

    def list_scopes(self, kind: str | None = None) -> ScopeList:
        from worlddb.graph.database import SCOPE_KINDS

        if kind is not None and kind not in SCOPE_KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(SCOPE_KINDS)}")
        rows = self.store.conn.execute(
            "SELECT s.kind, s.sid, s.anchor, "
            " (SELECT count(*) FROM closure c JOIN nodes n ON n.anchor = c.node WHERE c.world = s.anchor "
            f"  AND n.type IN ({_TEXT}) AND n.valid_to IS NULL), "
            " (SELECT count(*) FROM closure c JOIN nodes n ON n.anchor = c.node WHERE c.world = s.anchor "
            f"  AND n.type IN ({_TEXT}) AND n.valid_to IS NOT NULL) "
            "FROM scopes s WHERE (? IS NULL OR s.kind = ?) ORDER BY s.kind, s.sid",
            (*text_index.TEXT_TYPES, *text_index.TEXT_TYPES, kind, kind),
        )
        return ScopeList([ScopeInfo(kind=k, id=sid, key=scope_key(k, sid), memories=live, retired=closed)
                          for k, sid, _, live, closed in rows])

    def query_vector(self, query: str):
        """The query's vector: model-free (static wordpiece table, IDF-weighted by the store's
        own document frequencies); with query_model the model's embedding is added to it."""
        static = None
        if self.encoder is not None:
            pieces = self.encoder.pieces(query)
            df, n_docs = text_index.document_frequencies(self.store, pieces)
            static = self.encoder.encode(query, df, n_docs)
        if not self.query_model:
            return static
        model = self.embedder.embed([query])[0]
        if static is None:
            return model
        mixed = model + static
        return mixed / float(np.linalg.norm(mixed))

    # ------------------------------------------------------------------ helpers
    def scope_anchors(self, scopes: ScopeSet) -> list[str]:
        """Anchors of the named scopes that exist (a scope never written to has none)."""
        return [a for a in (self.store.scope_anchor(kind, sid) for kind, sid in scopes) if a]

    def require_in_scope(self, memory_id: str, scopes: ScopeSet) -> str:
        missing = NotFound(f"no memory with id {memory_id} in scope {', '.join(scopes.keys)}")
        try:
            # only ids inside the scopes count, so a prefix shared with another scope's
            # memory is neither ambiguous nor answered with that memory's id; a miss reads
            # like an id that does not exist: scopes do not leak existence
            return self.store.resolve_id(memory_id, within=self.scope_anchors(scopes))
        except NotFound:
            raise missing from None

    def require_memory(self, memory_id: str, scopes: ScopeSet, types: Sequence[str], done: str) -> str:
        """require_in_scope, and the node must be one of `types` (see AMENDABLE)."""
        anchor = self.require_in_scope(memory_id, scopes)
        kind = self.store.require(anchor).type
        if kind not in types:
            raise InvalidInput(f"{anchor} is a{'n' if kind[:1] in 'AEIOU' else ''} {kind}, not a memory; "
                               f"only a {', '.join(types[:-1])} or {types[-1]} can be {done}")
        return anchor

    def scope_keys_of(self, anchor: str) -> list[str]:
        rows = self.store.conn.execute(
            "SELECT s.kind, s.sid FROM closure c JOIN scopes s ON s.anchor = c.world WHERE c.node=? "
            "ORDER BY s.kind, s.sid", (anchor,))
        return [scope_key(k, sid) for k, sid in rows]

    def _open_members(self, worlds: list[str]) -> list[str]:
        if not worlds:
            return []
        rows = self.store.conn.execute(
            f"SELECT DISTINCT n.anchor FROM closure c JOIN nodes n ON n.anchor = c.node "
            f"WHERE c.world IN ({','.join('?' * len(worlds))}) AND n.type IN ({_TEXT}, 'Fact') "
            f"AND n.retired_at IS NULL ORDER BY n.rowid",
            (*worlds, *text_index.TEXT_TYPES),
        )
        return [row[0] for row in rows]

    def _retire_derived(self, w, anchor: str, reason: str | None) -> None:
        """Facts drawn only from a retired memory are retired with it."""
        for edge in self.store.edges(dst=anchor, type="derived_from"):
            sources = [e.dst for e in self.store.edges(src=edge.src, type="derived_from")]
            still_open = [s for s in sources if s != anchor and self.store.get(s).valid_to is None]
            if not still_open:
                w.retire(edge.src, reason or "source retired")


_TEXT = ",".join("?" * len(text_index.TEXT_TYPES))
#: what memory_amend replaces: the texts recall and memory_list return. memory_retire also
#: closes a fact (an extracted fact can be wrong while its memory is right). An entity or
#: a session is not one memory: closing it would hide it from everything that names it.
AMENDABLE = text_index.TEXT_TYPES
RETIRABLE = (*text_index.TEXT_TYPES, "Fact")
#: the model whose static wordpiece table ships with WorldDB (worlddb.vectors.static_query)
MINILM_ID = "all-MiniLM-L6-v2-onnx-int8"


def check_text(text: str) -> str:
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    if not text.strip():
        raise InvalidInput("text is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(f"text is {len(text)} characters; the limit is {MAX_TEXT_CHARS}")
    return text
