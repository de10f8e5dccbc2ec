"""The in-memory HNSW index (hnswlib), always rebuildable from SQL and never stale.

One `AnnIndex` serves one kind of stored vector (effective embeddings, sentence units,
entity names). Labels are `vectors.id`; each maps to the node (`nodes.rowid`) it belongs
to, and a node may own several (one per sentence unit). SQL is the source of truth:
every vector write bumps `vectors.seq` to its transaction's seq, and erasure leaves a
row that names no bytes (`vectors.data` NULL). The bytes are read from vector_data; the
model is the database's (meta embed_model), and a model that changes under a live
index (re-embedding) is refused as a mix. `sync()` applies every row with a seq above the last one seen -
adds, updates and deletions - so after another process writes to the same file, the
next read catches up before it searches. `PRAGMA data_version` makes the no-change case
a single cheap check. The owner also calls `advance()` after each of its own commits
(worlddb.graph.database), so a graph already built never falls behind this process's
writes: a read catches up only on other processes' writes, never on a backlog of its own.

The index holds exactly the stored, non-erased vectors of its kind (`nodes()` lists the
nodes they belong to), whether or not the nodes are currently valid: validity and scope
are filters applied by the caller, because as_of / include_retired reads must still find
closed nodes.

Snapshots. Given a snapshot directory (worlddb.vectors.hnsw_snapshots), the first `sync()` starts from
the saved graph when one matches the store, and catches up from its seq; otherwise it
builds from SQL. `save_snapshot()` writes the graph when enough has changed since the
last snapshot (`snapshot_due`); the owners call it when they close, and a server after
its warm-up. A deleted vector's data is overwritten in the graph before it is marked
deleted, so erased content does not reach a snapshot.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from pathlib import Path

import hnswlib
import numpy as np

from worlddb.core.errors import Conflict
from worlddb.core.schema import VECTOR_FROM
from worlddb.core.store import Store
from worlddb.vectors import hnsw_snapshots

#: kinds of stored vectors
CONTENT, EFFECTIVE, NAME, UNIT = 0, 1, 2, 3
#: rows read from SQL per batch while catching up: a first build of a large index streams
#: through memory instead of holding every stored vector twice (rows + matrix) at once
SYNC_BATCH = 20_000
#: an index with fewer live vectors builds from SQL in about a second: no snapshot
SNAPSHOT_MIN = 2_000
#: a snapshot is rewritten once the vectors changed since it reach this share of the index
#: (catching up on fewer from SQL costs less than writing the whole graph again)
SNAPSHOT_STALE_SHARE = 0.02


class AnnIndex:
    def __init__(self, store: Store, kind: int, *, M: int = 16, ef_construction: int = 100, ef: int = 96,
                 snapshots: Path | None = None, snapshot_min: int = SNAPSHOT_MIN):
        self.store = store
        self.snapshots = snapshots
        self.snapshot_min = snapshot_min
        #: how the graph was first made: "empty", "rebuilt" from SQL or "snapshot"
        self.source = "empty"
        #: vector rows applied since the graph was last loaded from or saved to a snapshot
        self._unsaved = 0
        self.kind = kind
        self.M = M
        self.ef_construction = ef_construction
        self.ef = ef
        self._index: hnswlib.Index | None = None
        self._dim: int | None = None
        self._model: str | None = None
        self._live: set[int] = set()
        self._deleted: set[int] = set()
        self._node: dict[int, int] = {}
        self._seen_seq = 0
        self._capacity_hint = 0
        self._data_version: int | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ catching up
    def sync(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Apply every vector change committed since the last sync; returns how many.
        `progress(done, expected)` is called after each batch (a first build of a large
        index takes minutes)."""
        with self._lock:
            version = self.store.data_version()
            if version == self._data_version and self._index is not None:
                return 0
            self._load_snapshot()
            if self._index is None:  # first build: size the graph once for what is stored
                self._capacity_hint = self.store.conn.execute(
                    "SELECT count(*) FROM vectors WHERE kind=? AND seq>? AND data IS NOT NULL",
                    (self.kind, self._seen_seq)).fetchone()[0]
            cursor = self.store.conn.execute(
                f"SELECT v.id, v.node, d.vec, v.seq FROM {VECTOR_FROM} WHERE v.kind=? AND v.seq>? ORDER BY v.seq",
                (self.kind, self._seen_seq),
            )
            applied, model = 0, None
            while rows := cursor.fetchmany(SYNC_BATCH):
                if not applied:  # the model the rows are of: read only when there are rows
                    model = self.store.meta_get("embed_model")
                self._apply(rows, model)
                applied += len(rows)
                self._unsaved += len(rows)
                if progress is not None:
                    progress(applied, max(applied, self._capacity_hint))
            self._data_version = version
            return applied

    def advance(self) -> int:
        """`sync()` an index that has synced before; one never synced is left for its first
        read (or a warm-up) to build or load, so a write never pays for that. Returns how
        many rows were applied."""
        if self._data_version is None:
            return 0
        return self.sync()

    def _apply(self, rows: list[tuple], model: str | None) -> None:
        adds: dict[int, np.ndarray] = {}
        for label, node, vec, seq in rows:
            self._seen_seq = max(self._seen_seq, seq)
            self._node[label] = node
            if vec is None:
                adds.pop(label, None)
                self._delete(label)
                continue
            dim = len(vec) // 4
            if self._dim is None:
                self._dim, self._model = dim, model
            elif dim != self._dim or model != self._model:
                raise Conflict(f"vectors of {model}/{dim} mixed with {self._model}/{self._dim} in one index")
            adds[label] = np.frombuffer(vec, dtype=np.float32)
        if adds:
            self._add(list(adds), np.vstack(list(adds.values())))

    def _ensure(self, extra: int) -> hnswlib.Index:
        if self._index is None:
            self._index = hnswlib.Index(space="cosine", dim=self._dim)
            capacity = max(1024, extra * 2, self._capacity_hint + self._capacity_hint // 8)
            self._index.init_index(max_elements=capacity, ef_construction=self.ef_construction, M=self.M)
            self._index.set_ef(self.ef)
            self.source = "rebuilt"
        needed = len(self._live) + len(self._deleted) + extra
        if needed > self._index.get_max_elements():
            self._index.resize_index(max(needed, self._index.get_max_elements() * 2))
        return self._index

    def _add(self, labels: list[int], data: np.ndarray) -> None:
        index = self._ensure(len(labels))
        for label in labels:
            if label in self._deleted:
                index.unmark_deleted(label)  # an erased node's slot is reused, then overwritten
                self._deleted.discard(label)
        index.add_items(data, labels)
        self._live.update(labels)

    def _delete(self, label: int) -> None:
        if label in self._live:
            # overwrite the erased data first: a deleted element keeps its slot in the graph
            self._index.add_items(self._filler(), [label])
            self._index.mark_deleted(label)
            self._live.discard(label)
            self._deleted.add(label)

    def _filler(self) -> np.ndarray:
        filler = np.zeros((1, self._dim), dtype=np.float32)
        filler[0, 0] = 1.0
        return filler

    # ------------------------------------------------------------------ snapshots
    def load_snapshot(self) -> bool:
        """Start from the snapshot, if one matches the store, without building anything
        from SQL (the first `sync()` does this, then builds if it could not); True if the
        graph now comes from it."""
        with self._lock:
            self._load_snapshot()
            return self.source == "snapshot"

    def _load_snapshot(self) -> None:
        """Before the first graph exists only: a snapshot replaces nothing already applied."""
        if self._index is not None or self._seen_seq != 0 or self.snapshots is None:
            return
        with hnsw_snapshots.reading(self.snapshots):  # no save replaces the files between header and load
            header = hnsw_snapshots.read_header(self.snapshots, self.kind)
            if header is None:
                return
            why = self._mismatch(header)
            if why is not None:
                hnsw_snapshots.log.info("not using the %s HNSW snapshot: %s", hnsw_snapshots.KIND_NAMES[self.kind], why)
                return
            loaded = hnsw_snapshots.load(self.snapshots, header, capacity=header.elements + header.elements // 8)
        if loaded is None:
            return
        self._index = loaded.index
        self._index.set_ef(self.ef)
        self._dim, self._model = header.dim, header.model
        labels, nodes = loaded.labels.tolist(), loaded.nodes.tolist()
        self._node = dict(zip(labels, nodes))
        self._live = {label for label, live in zip(labels, loaded.live.tolist()) if live}
        self._deleted = set(labels) - self._live
        self._seen_seq = header.seen_seq
        self._unsaved = 0
        self.source = "snapshot"

    def _mismatch(self, header: hnsw_snapshots.Header) -> str | None:
        """Why a snapshot cannot stand for this store's history (None: it can)."""
        if (header.kind, header.M, header.ef_construction) != (self.kind, self.M, self.ef_construction):
            return "it was built with other parameters"
        model = self.store.conn.execute("SELECT value FROM meta WHERE key='embed_model'").fetchone()
        if model is None or model[0] != header.model:
            return "the database holds vectors of another model"
        row = self.store.conn.execute("SELECT at FROM tx WHERE seq=?", (header.seen_seq,)).fetchone()
        if row is None or row[0] != header.seen_at:
            return "the database's history differs from the one it was taken from"
        return None

    def snapshot_due(self) -> bool:
        """Whether `save_snapshot()` would write: the index is large enough to be worth it
        and no snapshot holds it, or the changes since the last one reached
        SNAPSHOT_STALE_SHARE of its size."""
        with self._lock:
            return self._due()

    def _due(self) -> bool:
        if self.snapshots is None or self._index is None or len(self._live) < self.snapshot_min:
            return False
        if hnsw_snapshots.read_header(self.snapshots, self.kind) is None:
            return True  # never taken, or discarded (erasure) since
        return self._unsaved > 0 and self._unsaved >= SNAPSHOT_STALE_SHARE * len(self._live)

    def save_snapshot(self, force: bool = False) -> bool:
        """Write a snapshot of the graph as of the last sync, if one is due (or `force`d);
        True if one was written. Never inside a write transaction: the graph must reflect
        committed rows only."""
        if self.snapshots is None or self._index is None or self.store.conn.in_transaction:
            return False
        with self._lock:
            if not (self._due() or (force and self._seen_seq > 0)):
                return False
        if self._erased_since():
            self.sync()  # what was erased since the last sync must not be written out
        with self._lock:
            row = self.store.conn.execute("SELECT at FROM tx WHERE seq=?", (self._seen_seq,)).fetchone()
            if row is None:
                return False
            labels = [label for label in self._node if label in self._live or label in self._deleted]
            header = hnsw_snapshots.Header(
                kind=self.kind, model=self._model, dim=self._dim, M=self.M, ef_construction=self.ef_construction,
                seen_seq=self._seen_seq, seen_at=row[0], elements=len(labels), graph="", table="")
            live = [label in self._live for label in labels]
            try:
                written = hnsw_snapshots.save(self.snapshots, header, self._index, labels,
                                       [self._node[x] for x in labels], live)
            except (OSError, RuntimeError) as exc:  # a cache that cannot be written costs a rebuild, no more
                hnsw_snapshots.log.warning("could not write the HNSW snapshot to %s: %s", self.snapshots, exc)
                return False
            if written is None:
                return False  # another process is saving or loading: this save is not needed now
            if self._erased_since():
                # another connection erased a vector while this graph was being written
                hnsw_snapshots.discard(self.snapshots)
                return False
            self._unsaved = 0
            return True

    def _erased_since(self) -> bool:
        """Whether a vector of this kind was erased after the graph's last sync. Other
        changes since need no sync: a reader of the snapshot catches up on them."""
        return self.store.conn.execute(
            "SELECT 1 FROM vectors WHERE kind=? AND seq>? AND data IS NULL LIMIT 1",
            (self.kind, self._seen_seq)).fetchone() is not None

    # ------------------------------------------------------------------ reading
    def nodes(self) -> set[int]:
        """Rowids of the nodes that have at least one live vector in this index."""
        return {self._node[label] for label in self._live}

    def __len__(self) -> int:
        return len(self._live)

    @property
    def model(self) -> str | None:
        return self._model

    def search(self, vector: np.ndarray, k: int, allowed: Callable[[int], bool] | None = None
               ) -> list[tuple[int, float]]:
        """Up to k (node rowid, cosine similarity) pairs, best first, one per node (its best
        vector), optionally filtered by node rowid."""
        self.sync()
        with self._lock:
            if self._index is None or not self._live:
                return []
            k = min(k, len(self._live))
            query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
            self._index.set_ef(max(self.ef, k))
            node_of = self._node
            by_label = None if allowed is None else (lambda label: allowed(node_of[label]))
            try:
                labels, distances = self._index.knn_query(query, k=k, filter=by_label)
            except RuntimeError:
                # fewer than k elements pass the filter: ask for what exists
                labels, distances = self._search_all(query, k, by_label)
        best: dict[int, float] = {}
        # plain Python numbers first: per-element numpy scalars cost ~0.3 ms for a 400-row answer
        for label, similarity in zip(labels[0].tolist(), (1.0 - distances[0]).tolist()):
            node = node_of[label]
            if node not in best:
                best[node] = similarity
        return list(best.items())

    def nearest_among(self, vector: np.ndarray, nodes: Collection[int], k: int) -> list[tuple[int, float]]:
        """Up to k (node rowid, cosine similarity) pairs among `nodes` only, best first, one per
        node (its best vector): exact, over their stored vectors read from SQL (the source the
        graph is built from). For a few thousand nodes at most; a filtered graph search over a
        small share of a large index visits most of the graph, and can stop short of what it
        never reached."""
        nodes = list(nodes)
        if not nodes or k < 1:
            return []
        owners: list[int] = []
        blobs: list[bytes] = []
        for start in range(0, len(nodes), 500):
            chunk = nodes[start:start + 500]
            for node, blob in self.store.conn.execute(
                    f"SELECT v.node, d.vec FROM {VECTOR_FROM} WHERE v.node IN ({','.join('?' * len(chunk))}) "
                    "AND v.kind=? AND d.vec IS NOT NULL", (*chunk, self.kind)):
                owners.append(node)
                blobs.append(blob)
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if not blobs or any(len(blob) != 4 * len(query) for blob in blobs):
            return []
        data = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), len(query))
        similarity = (data @ query) / (np.linalg.norm(data, axis=1) * float(np.linalg.norm(query)) + 1e-12)
        best: dict[int, float] = {}
        for i in np.argsort(-similarity, kind="stable").tolist():
            node = owners[i]
            if node not in best:
                best[node] = float(similarity[i])
                if len(best) == k:
                    break
        return list(best.items())

    def _search_all(self, query: np.ndarray, k: int, allowed) -> tuple[np.ndarray, np.ndarray]:
        """The most a filtered search can return, when fewer than `k` pass the filter.
        hnswlib refuses exactly when it finds fewer than asked, so the largest k it
        answers is found by bisection (halving alone returned as few as half of them)."""
        found = np.empty((1, 0), dtype=np.uint64), np.empty((1, 0), dtype=np.float32)
        lo, hi = 0, k  # lo is answered (0 trivially), hi is refused
        while hi - lo > 1:
            mid = (lo + hi) // 2
            try:
                found = self._index.knn_query(query, k=mid, filter=allowed)
                lo = mid
            except RuntimeError:
                hi = mid
        return found
