"""What recall searches, in one frozen object: the store, the two HNSW indexes, the
resolver (the entity lane's name lookup) and the query vectoriser.

Recall takes a `Sources`, never the memory engine: it reads and ranks, and needs
nothing else. The memory layer builds one per engine (worlddb.memory.services).

The query vector is model-free by default: a lookup in the static wordpiece table
(worlddb.vectors.static_query), weighted by the store's own document frequencies.
With `query_model` the embedding model's vector for the query is added to it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from worlddb.core.store import Store
from worlddb.graph import text_index
from worlddb.protocols import Embedder
from worlddb.resolver import Resolver
from worlddb.vectors.hnsw import AnnIndex
from worlddb.vectors.static_query import StaticEncoder


@dataclass(frozen=True)
class Sources:
    store: Store
    #: whole-text (effective) vectors of text nodes and worlds
    whole: AnnIndex
    #: sentence-unit vectors of text nodes
    units: AnnIndex
    resolver: Resolver
    embedder: Embedder
    #: the static wordpiece table, or None when the embedder is not the model it was made from
    encoder: StaticEncoder | None
    query_model: bool = False

    def query_vector(self, query: str) -> np.ndarray | None:
        """The query's vector: model-free (static wordpiece table, IDF-weighted by the
        store's own document frequencies); with query_model the model's embedding is
        added to it. None when neither is available (the vector lanes are then skipped)."""
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
