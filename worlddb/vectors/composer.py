"""The composer: keeps every world's effective embedding composed from its children.

A world's effective embedding (what the HNSW lane searches) is composed from its
children's effective embeddings (worlddb.vectors.pooling):
  v2  attention pool, with the world's own *content* embedding as the query:
      normalise(sum_i w_i c_i), w_i = exp(cos(q, c_i) / T)       (when the world has content)
  v1  mean pool: normalise(sum_i c_i)                              (when it has none)
Both are sums over children, so the composer keeps them as running sums per world
(table `compose`) and applies each change as a delta: a child joining or leaving, or a
child's effective embedding changing, adds/subtracts that child's term and rewrites
the world's effective vector - which is itself a change one level up. A leaf change
therefore recomposes exactly its path to the root, at O(1) per ancestor, whatever the
size of the worlds on the way. A world left with neither children nor content has no
effective vector (it leaves the HNSW lane) until a child joins again.

It reads only content embeddings as queries and writes only effective ones. Scope
worlds are not composed: a scope's content is its key, which is no query at all. Nor are
erased worlds: erasure removes a world's vectors and running sums, and a child leaving or
being erased afterwards must not write a vector, derived from erased text, back onto it.
The composer observes the write transaction (Store observers) and does no I/O of its
own beyond the transaction it is handed.

A composed world's effective vector is written once per transaction, when it seals
(`on_seal`), not at every change of its sums: a topic pass that adds 200 members to a
topic in one transaction changes the topic's sums 200 times, and writing each
intermediate vector stored 199 vectors only to delete them - which on PostgreSQL left
199 dead entries in pgvector's HNSW graph per topic, each taking a place among a
search's ef_search candidates until VACUUM repaired the graph (worlddb.vectors.pgvector).
Until then the transaction sees the world's vector as it was stored, and so do the sums
of the worlds above it; each is told the change from the stored vector to the final one
when it is written, so what they hold at the end is what they held before. An explicit
`recompose` still writes at once.
"""

from __future__ import annotations

import heapq
import weakref

import numpy as np

from worlddb.vectors.hnsw import CONTENT, EFFECTIVE
from worlddb.vectors.pooling import DEFAULT_TEMPERATURE

_SKIP_TYPES = ("Scope",)


#: how many node types the composer remembers (a type never changes: it is in the record)
_TYPE_CACHE = 65_536


class Composer:
    def __init__(self, temperature: float = DEFAULT_TEMPERATURE):
        self.temperature = temperature
        self._types: dict[str, str] = {}
        #: per open write transaction, the worlds whose effective vector changed: anchor ->
        #: the vector to write when it seals (None: it has none any more)
        self._pending: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    # ------------------------------------------------------------------ observer hooks
    def on_child(self, tx, world: str, child: str, added: bool) -> None:
        if not self._composed(tx, world):
            return
        vec = _vector(tx, child, EFFECTIVE)
        if vec is not None:
            self._apply(tx, world, old=None if added else vec, new=vec if added else None)

    def forget(self, conn, anchor: str, rowid: int) -> None:
        """Erase hook: an erased world keeps nothing derived from its children's content.
        A hook, not a vector change: the world may hold no vector by then (a world without
        content loses its effective vector with its last child) while its sums remain."""
        conn.execute("DELETE FROM compose WHERE world=?", (anchor,))

    def on_vector(self, tx, anchor: str, kind: int, old: bytes | None, new: bytes | None) -> None:
        if kind == EFFECTIVE:
            old_v = _decode(old)
            new_v = _decode(new)
            for parent in tx.parents(anchor):
                self._apply(tx, parent, old=old_v, new=new_v)
        elif kind == CONTENT:
            if not tx.is_new_leaf(anchor) and _children_count(tx, anchor):
                self.recompose(tx, anchor)
            elif new is not None and not tx.has_vector(anchor, EFFECTIVE) and anchor not in self._pending.get(tx, ()):
                # a world with no children yet is what its content says (compose's rule);
                # leaves get their effective vector written first, so this skips them
                model = tx.conn.execute("SELECT value FROM meta WHERE key='embed_model'").fetchone()[0]
                tx.put_vector(anchor, EFFECTIVE, model, new, len(_decode(new)))

    def on_seal(self, tx) -> None:
        """Write the effective vector of every world whose sums changed in `tx`, deepest
        first: each write is a change one level up, so a world is written after every
        changed world inside it, once."""
        pending = self._pending.get(tx)
        if not pending:
            return
        depths: dict[str, int] = {}
        heap = [(-_depth(tx, world, depths), world) for world in pending]
        heapq.heapify(heap)
        while heap:
            _, world = heapq.heappop(heap)
            if world not in pending:
                continue
            self._write(tx, world, pending.pop(world))
            for parent in tx.parents(world):  # told of the change just written
                if parent in pending:
                    heapq.heappush(heap, (-_depth(tx, parent, depths), parent))
        self._pending.pop(tx, None)

    def _write(self, tx, world: str, effective: bytes | None) -> None:
        if _erased(tx, world):
            return  # erased since: nothing derived from its children's content goes back
        if effective is None:
            tx.drop_vector(world, EFFECTIVE)
            return
        model_row = tx.conn.execute("SELECT value FROM meta WHERE key='embed_model'").fetchone()
        if model_row is None or tx.vector(world, EFFECTIVE) == effective:
            return
        tx.put_vector(world, EFFECTIVE, model_row[0], effective, len(effective) // 4)

    def _composed(self, tx, world: str) -> bool:
        """Whether `world` gets a composed embedding (it exists and is not a Scope)."""
        kind = self._types.get(world)
        if kind is None:
            row = tx.conn.execute("SELECT type FROM nodes WHERE anchor=?", (world,)).fetchone()
            if row is None:
                return False
            if len(self._types) >= _TYPE_CACHE:
                self._types.clear()
            kind = self._types[world] = row[0]
        return kind not in _SKIP_TYPES

    # ------------------------------------------------------------------ sums
    def _apply(self, tx, world: str, *, old: np.ndarray | None, new: np.ndarray | None) -> None:
        # the type is cached; erasure is not (it can happen later in the same transaction)
        if not self._composed(tx, world) or _erased(tx, world):
            return
        query = _vector(tx, world, CONTENT)
        n, mean_sum, weight_sum, attn_sum = self._sums(tx, world, len(new if new is not None else old))
        for vec, sign in ((old, -1.0), (new, 1.0)):
            if vec is None:
                continue
            vec64 = vec.astype(np.float64)
            n += int(sign)
            mean_sum += sign * vec64
            if query is not None:
                weight = float(np.exp(float(np.dot(query, vec64)) / self.temperature))
                weight_sum += sign * weight
                attn_sum += sign * weight * vec64
        self._store(tx, world, n, mean_sum, weight_sum, attn_sum, query, defer=True)

    def recompose(self, tx, world: str) -> None:
        """Rebuild a world's sums from all its children (after bulk changes)."""
        if _erased(tx, world):
            return
        query = _vector(tx, world, CONTENT)
        children = [v for v in (_vector(tx, c, EFFECTIVE) for c in tx.store.children(world)) if v is not None]
        if not children:
            return
        matrix = np.asarray(children, dtype=np.float64)
        mean_sum = matrix.sum(axis=0)
        weight_sum, attn_sum = 0.0, np.zeros(matrix.shape[1])
        if query is not None:
            weights = np.exp(matrix @ query.astype(np.float64) / self.temperature)
            weight_sum, attn_sum = float(weights.sum()), weights @ matrix
        self._store(tx, world, len(children), mean_sum, weight_sum, attn_sum, query)

    @staticmethod
    def _sums(tx, world: str, dim: int):
        row = tx.conn.execute("SELECT n, mean_sum, weight_sum, attn_sum FROM compose WHERE world=?",
                              (world,)).fetchone()
        if row is None:
            return 0, np.zeros(dim), 0.0, np.zeros(dim)
        return row[0], np.frombuffer(row[1]).copy(), row[2], np.frombuffer(row[3]).copy()

    def _store(self, tx, world, n, mean_sum, weight_sum, attn_sum, query, defer: bool = False) -> None:
        tx.conn.execute(
            "INSERT INTO compose(world, n, mean_sum, weight_sum, attn_sum) VALUES (?,?,?,?,?) "
            "ON CONFLICT(world) DO UPDATE SET n=excluded.n, mean_sum=excluded.mean_sum, "
            "weight_sum=excluded.weight_sum, attn_sum=excluded.attn_sum",
            (world, n, mean_sum.tobytes(), weight_sum, attn_sum.tobytes()),
        )
        if n <= 0:
            effective = None if query is None else query.astype(np.float64)  # no children: its own content
        elif query is not None and weight_sum > 0:
            effective = _unit(attn_sum / weight_sum)
        else:
            effective = _unit(mean_sum)
        # None: nothing left to be found by (no children, no content, or terms that cancel),
        # and the old vector would keep answering for children that have gone
        blob = None if effective is None else effective.astype(np.float32).tobytes()
        if defer:
            self._pending.setdefault(tx, {})[world] = blob
            return
        pending = self._pending.get(tx)
        if pending is not None:
            pending.pop(world, None)  # this write supersedes it
        self._write(tx, world, blob)


def _unit(v: np.ndarray) -> np.ndarray | None:
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 1e-12 else None


def _decode(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32)


def _vector(tx, anchor: str, kind: int) -> np.ndarray | None:
    return _decode(tx.vector(anchor, kind))


def _depth(tx, anchor: str, cache: dict[str, int], _guard: int = 0) -> int:
    """How many worlds deep `anchor` lies (a scope's direct child: 1)."""
    if anchor not in cache:
        parents = tx.parents(anchor) if _guard < 256 else ()
        cache[anchor] = 1 + max((_depth(tx, p, cache, _guard + 1) for p in parents), default=-1)
    return cache[anchor]


def _erased(tx, anchor: str) -> bool:
    row = tx.conn.execute("SELECT record IS NULL FROM nodes WHERE anchor=?", (anchor,)).fetchone()
    return bool(row and row[0])


def _children_count(tx, world: str) -> int:
    row = tx.conn.execute("SELECT n_children FROM nodes WHERE anchor=?", (world,)).fetchone()
    return row[0] if row else 0
