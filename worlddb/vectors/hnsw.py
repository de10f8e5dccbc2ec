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

Equal vectors. A vector equal, byte for byte, to one the graph already holds (the same short
text said again - "Thanks!" - by one user or by many) joins that element as its twin instead of
entering the graph: a search that reaches the element finds its twins at the same similarity.
HNSW copes badly with many equal points. Each keeps the others as its nearest neighbours and
drops the links to anything else, so what is added after them becomes unreachable. Beside
20,000 equal 384-dimensional vectors, hnswlib found none of 200 distinct ones added after them
by their own vector; with 10 % of the vectors equal among random ones, 266 of 300; and in
`tests/vectors/test_hnsw_search.py`, 166 of 300 beside 3,000 equal ones (all 300 with twins).
Equal vectors are told apart by a digest of their bytes. The digests of the DIGEST_WINDOW
elements added last are kept, so a value whose element is older than that enters the graph
once more at most, each time the window passes it. When an element with twins is deleted or
changes, one of its twins takes its place in the graph.

Snapshots. Given a snapshot directory (worlddb.vectors.hnsw_snapshots), the first `sync()` starts from
the saved graph when one matches the store, and catches up from its seq; otherwise it
builds from SQL. `save_snapshot()` writes the graph when enough has changed since the
last snapshot (`snapshot_due`); the owners call it when they close, and a server after
its warm-up. A deleted vector's data is overwritten in the graph before it is marked
deleted, so erased content does not reach a snapshot.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
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
#: graph elements whose digests are kept to find equal vectors (see the module docstring):
#: about 270 bytes each, so at most 14 MB per index
DIGEST_WINDOW = 50_000


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
        #: live labels kept out of the graph, each with the element that holds its vector
        self._twin_of: dict[int, int] = {}
        self._twins: dict[int, set[int]] = {}
        #: digest -> element, for the elements added last (DIGEST_WINDOW), and the way back
        self._recent: OrderedDict[bytes, int] = OrderedDict()
        self._digest_of: dict[int, bytes] = {}
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
        entering: set[int] = set()
        for label, vector in zip(labels, data):
            in_graph = label in self._live and label not in self._twin_of
            self._release(label)
            digest = hashlib.blake2b(vector.tobytes(), digest_size=16).digest()
            held = self._recent.get(digest)
            if held is not None and held != label and (held in self._live or held in entering):
                if in_graph:  # its element held another vector: it leaves the graph
                    self._retire(label)
                self._twin_of[label] = held
                self._twins.setdefault(held, set()).add(label)
                continue
            if label in self._deleted:
                index.unmark_deleted(label)  # an erased node's slot is reused, then overwritten
                self._deleted.discard(label)
            entering.add(label)
            self._remember(label, digest)
        if entering:
            rows = [i for i, label in enumerate(labels) if label in entering]
            index.add_items(data[rows], [labels[i] for i in rows])
        self._live.update(labels)

    def _delete(self, label: int) -> None:
        if label in self._twin_of:
            self._release(label)
            self._live.discard(label)
        elif label in self._live:
            self._release(label)
            self._retire(label)
            self._live.discard(label)

    def _retire(self, element: int) -> None:
        # overwrite the data first: a deleted element keeps its slot in the graph, and erased
        # content must not reach a snapshot
        self._index.add_items(self._filler(), [element])
        self._index.mark_deleted(element)
        self._deleted.add(element)

    def _remember(self, element: int, digest: bytes) -> None:
        self._recent[digest] = element
        self._recent.move_to_end(digest)
        self._digest_of[element] = digest
        while len(self._recent) > DIGEST_WINDOW:
            _, old = self._recent.popitem(last=False)
            self._digest_of.pop(old, None)

    def _release(self, label: int) -> None:
        """Before `label`'s vector changes or goes: a twin leaves its element; an element with
        twins hands its place in the graph, and its vector, to one of them."""
        held = self._twin_of.pop(label, None)
        if held is not None:
            twins = self._twins[held]
            twins.discard(label)
            if not twins:
                del self._twins[held]
            return
        digest = self._digest_of.pop(label, None)
        if digest is not None and self._recent.get(digest) == label:
            del self._recent[digest]
        twins = self._twins.pop(label, None)
        if not twins:
            return
        heir, *rest = sorted(twins)
        index = self._ensure(1)
        if heir in self._deleted:
            index.unmark_deleted(heir)
            self._deleted.discard(heir)
        index.add_items(np.asarray(index.get_items([label]), dtype=np.float32).reshape(1, -1), [heir])
        del self._twin_of[heir]
        for twin in rest:
            self._twin_of[twin] = heir
        if rest:
            self._twins[heir] = set(rest)
        if digest is not None:
            self._remember(heir, digest)

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
        for label, node, element in loaded.twins.tolist():
            self._node[label] = node
            self._live.add(label)
            self._twin_of[label] = element
            self._twins.setdefault(element, set()).add(label)
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
            twins = [(label, self._node[label], element) for label, element in self._twin_of.items()]
            labels = [label for label in self._node if label in self._deleted
                      or label in self._live and label not in self._twin_of]
            header = hnsw_snapshots.Header(
                kind=self.kind, model=self._model, dim=self._dim, M=self.M, ef_construction=self.ef_construction,
                seen_seq=self._seen_seq, seen_at=row[0], elements=len(labels), graph="", table="")
            live = [label in self._live and label not in self._twin_of for label in labels]
            try:
                written = hnsw_snapshots.save(self.snapshots, header, self._index, labels,
                                              [self._node[x] for x in labels], live, twins)
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
            elements = len(self._live) - len(self._twin_of)
            if elements < 1:
                return []
            query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
            self._index.set_ef(max(self.ef, min(k, elements)))
            node_of, twins = self._node, self._twins
            # an element passes the filter when it or one of its twins does
            by_label = None if allowed is None else (
                lambda label: allowed(node_of[label]) or any(allowed(node_of[t]) for t in twins.get(label, ())))
            try:
                labels, distances = self._index.knn_query(query, k=min(k, elements), filter=by_label)
            except RuntimeError:
                # fewer than k elements pass the filter: ask for what exists
                labels, distances = self._search_all(query, min(k, elements), by_label)
            # plain Python numbers first: per-element numpy scalars cost ~0.3 ms for a 400-row answer
            found = labels[0].tolist()
            members = {label: (label, *sorted(twins[label])) for label in found if label in twins} if twins else {}
        best: dict[int, float] = {}
        if not members:  # no twins among them: each label is its own node's, and passed the filter
            for label, similarity in zip(found, (1.0 - distances[0]).tolist()):
                best.setdefault(node_of[label], similarity)
            return list(best.items())
        for label, similarity in zip(found, (1.0 - distances[0]).tolist()):
            for member in members.get(label, (label,)):
                node = node_of[member]
                if node not in best and (allowed is None or allowed(node)):
                    best[node] = similarity
                    if len(best) == k:
                        return list(best.items())
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
