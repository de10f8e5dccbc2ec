"""The vector index of a store, whichever backend it runs on.

    index = ann.open_index(store, hnsw.EFFECTIVE, snapshots=directory)
    index.search(vector, k)                       # [(node rowid, cosine)], best first

On SQLite it is the in-process HNSW index (worlddb.vectors.hnsw.AnnIndex), kept current
from SQL and snapshotted beside the file; on PostgreSQL it is pgvector's HNSW index in the
database (worlddb.vectors.pgvector.PgVectorIndex), which needs neither. Both offer the
same methods; callers hold either without asking which.
"""

from __future__ import annotations

from pathlib import Path

from worlddb.core.store import Store
from worlddb.vectors.hnsw import AnnIndex
from worlddb.vectors.pgvector import PgVectorIndex


def open_index(store: Store, kind: int, *, snapshots: Path | None = None) -> AnnIndex | PgVectorIndex:
    """The index over `store`'s stored vectors of `kind`."""
    if store.backend.name == "postgresql":
        return PgVectorIndex(store, kind)
    return AnnIndex(store, kind, snapshots=snapshots)
