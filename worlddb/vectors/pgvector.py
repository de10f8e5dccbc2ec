"""Vector search on PostgreSQL: pgvector's HNSW index in the database, nothing in memory.

`PgVectorIndex` answers what `AnnIndex` (worlddb.vectors.hnsw) answers - the nodes whose
stored vectors of one kind are nearest a query, optionally among given nodes only - for a
store on PostgreSQL (worlddb.core.backends.postgres). The vectors and their HNSW index
live in the database (`vector_data.vec`, cosine, made when the store's model is claimed),
so a server holds no per-store index: every replica searches the same one, which every
commit keeps current, and there is nothing to build, load, snapshot or catch up on.

- `search(vector, k)`: the HNSW index ordered by cosine distance, joined to the vector
  rows of this kind, k rows, best first, one per node (its best vector). pgvector's
  iterative scan (hnsw.iterative_scan = relaxed_order, set per connection) goes on past
  ef_search candidates while rows of other kinds are filtered out; ef_search is
  max(EF_SEARCH, k), as the HNSW index of worlddb.vectors.hnsw sets its ef; the rows are
  re-sorted by exact distance afterwards. The kind is checked in a LATERAL subquery the
  planner cannot flatten (OFFSET 0), so the index scan always drives the join and the
  LIMIT stops it: as a plain join, the planner may hash the whole index scan for a rare
  kind (17 ms instead of 0.9 ms at 2,000 nodes, and every vector at any size). Each row
  is looked up by its vector id alone (`kind + 0` is no index condition): with the
  statistics of a table just bulk-loaded, the planner would otherwise intersect the
  kind's whole index with every row's lookup.
- Dead entries. pgvector keeps a deleted row's vector in the HNSW graph until VACUUM
  repairs the graph, and a search spends its ef_search candidates on such entries as on
  live ones (the executor drops them afterwards). A topic pass that wrote each topic's
  vector once per member left 59k of them at 30k nodes, and a search found 73% of the
  exact top 10 at ef_search 96; the composer (worlddb.vectors.composer) now writes a
  world's vector once per transaction, and the same search finds 96%. VACUUM (or a
  rebuild) brings it to 99% either way: the graph inserts leave is not the graph a build
  makes (docs/postgresql.md, Speed; bench.pg_hnsw_recall measures it).
- `search(vector, k, allowed=...)`: among the given node rowids only, by exact distance
  over their vectors (the callers pass a scope's members, at most tens of thousands).
- `nearest_among(vector, nodes, k)`: the same, as AnnIndex names its exact read of a few
  nodes.
- The rest of AnnIndex's surface is there so that callers need not ask which they hold:
  sync/advance apply nothing (0), snapshots are never due and never written.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import numpy as np

from worlddb.core.store import Store

#: pgvector's largest hnsw.ef_search; a search of k nodes sets max(EF_SEARCH, k)
EF_MAX = 1000
EF_SEARCH = 96


class PgVectorIndex:
    source = "database"

    def __init__(self, store: Store, kind: int, **_options):
        self.store = store
        self.kind = kind

    # ------------------------------------------------------------------ AnnIndex's surface
    def sync(self, progress: Callable[[int, int], None] | None = None) -> int:
        return 0

    def advance(self) -> int:
        return 0

    def load_snapshot(self) -> bool:
        return False

    def snapshot_due(self) -> bool:
        return False

    def save_snapshot(self, force: bool = False) -> bool:
        return False

    @property
    def model(self) -> str | None:
        return self.store.meta_get("embed_model")

    def nodes(self) -> set[int]:
        """Rowids of the nodes that have at least one stored vector of this kind."""
        return {row[0] for row in self.store.conn.execute(
            "SELECT DISTINCT node FROM vectors WHERE kind=? AND data IS NOT NULL", (self.kind,))}

    def __len__(self) -> int:
        return self.store.conn.execute("SELECT count(*) FROM vectors WHERE kind=? AND data IS NOT NULL",
                                       (self.kind,)).fetchone()[0]

    # ------------------------------------------------------------------ reading
    def search(self, vector: np.ndarray, k: int, allowed: Collection[int] | Callable | None = None
               ) -> list[tuple[int, float]]:
        """Up to k (node rowid, cosine similarity) pairs, best first, one per node; with
        `allowed` (a collection of node rowids), among those nodes only."""
        if k < 1:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        dim = len(query)
        param = self.store.backend.vector_param(query.astype("<f4").tobytes())
        conn = self.store.conn
        if allowed is not None:
            members = list(getattr(allowed, "__self__", allowed))  # a set's __contains__ names its set
            if not members:
                return []
            rows = conn.execute(
                f"SELECT v.node, min(d.vec::vector({dim}) <=> ?::vector({dim})) AS dist FROM vectors v "
                f"JOIN vector_data d ON d.id = v.data WHERE v.kind = ? AND v.node = ANY(?) "
                f"AND vector_dims(d.vec) = {dim} "
                "GROUP BY v.node ORDER BY dist, v.node LIMIT ?", (param, self.kind, members, k))
            return [(node, 1.0 - float(dist)) for node, dist in rows]
        conn.setting("hnsw.ef_search", str(min(EF_MAX, max(k, EF_SEARCH))))
        rows = conn.execute(
            f"WITH near AS MATERIALIZED (SELECT v.node, d.vec::vector({dim}) <=> ?::vector({dim}) AS dist "
            f"FROM vector_data d JOIN LATERAL (SELECT v.node FROM vectors v WHERE v.data = d.id AND v.kind + 0 = ? "
            f"OFFSET 0) v ON true WHERE vector_dims(d.vec) = {dim} "
            f"ORDER BY d.vec::vector({dim}) <=> ?::vector({dim}) LIMIT ?) "
            "SELECT node, dist FROM near ORDER BY dist, node", (param, self.kind, param, k)).fetchall()
        best: dict[int, float] = {}
        for node, dist in rows:
            if node not in best:
                best[node] = 1.0 - float(dist)
        return list(best.items())

    def nearest_among(self, vector: np.ndarray, nodes: Collection[int], k: int) -> list[tuple[int, float]]:
        """Up to k (node rowid, cosine similarity) pairs among `nodes` only, best first: the
        exact read `search` makes with `allowed`."""
        return self.search(vector, k, allowed=set(nodes))
