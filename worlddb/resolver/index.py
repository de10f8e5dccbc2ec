"""The in-memory blocking index over the resolver's committed names, rebuilt from SQL.

SQL (`resolver_names`) is the source of truth; this index is a per-process cache of it,
like the ANN index: `sync()` applies every row whose `seq` is above the last one seen,
read through a connection of its own, so it only ever sees *committed* names (a write
that rolls back leaves nothing behind) and sees other processes' names on the next call.
Names written by the current transaction are the resolver's business (its overlay).

Fuzzy blocking - why not FTS5: ranking the trigram OR-query with bm25 cost 6-57 ms per
name at 100k names (measured), because common trigrams match thousands of rows. Here each
scope keeps trigram postings as int32 arrays; a lookup adds up the postings of the
mention's trigrams with numpy (`bincount`) and keeps the names that share at least
n - 3e of the mention's n trigrams, where e = ceil(len/8) capped to 1..3 is the edit
budget: one insertion, deletion or substitution breaks at most three padded trigrams, so
every name within e edits of the mention survives (a transposition counts as two edits).
A length filter follows from the threshold itself (JW <= 0.4 + 0.6 * Jaro, and Jaro <=
(2 + shorter/longer) / 3), then the BLOCK_SIZE names with most shared trigrams are
compared with Jaro-Winkler. No name outside the block is ever read.

The index also answers which entities live in a scope (the filter of the embedding
search) and which of them have a name of a given type (recall's typed lane), and owns the
NAME-kind `AnnIndex`, all behind one lock: it is shared between the write path and the
background re-clusterer.
"""

from __future__ import annotations

import math
import threading
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from worlddb.core.store import Store
from worlddb.vectors import ann, hnsw_snapshots
from worlddb.vectors.hnsw import NAME, AnnIndex

from .names import name_parts, name_similarity, part_score, trigrams

#: Names compared with Jaro-Winkler per lookup, at most (best by shared trigrams first).
BLOCK_SIZE = 64


@dataclass
class _Scope:
    ids: array = field(default_factory=lambda: array("q"))  # dense index -> resolver_names.id
    nodes: array = field(default_factory=lambda: array("q"))  # dense index -> nodes.rowid
    lens: array = field(default_factory=lambda: array("i"))
    alive: bytearray = field(default_factory=bytearray)
    norms: list = field(default_factory=list)
    etypes: list = field(default_factory=list)
    postings: dict = field(default_factory=dict)  # trigram -> array("i") of dense indexes
    members: dict = field(default_factory=dict)  # nodes.rowid -> number of live names
    parts: dict = field(default_factory=dict)  # leading/trailing words of a name -> dense indexes
    typed: dict = field(default_factory=dict)  # etype -> {nodes.rowid: number of live names of that type}


@dataclass(frozen=True)
class Candidate:
    node: int  # nodes.rowid of the entity
    norm: str  # its normalised name or alias
    etype: str | None
    score: float


class NameIndex:
    def __init__(self, store: Store):
        """`store` is the writer's store; a read connection of its own is opened beside it
        (an in-memory database has no second connection, so it is shared, and then
        `sync` waits until that connection is outside a transaction)."""
        self._own = store.path != ":memory:"
        self.store = Store.open(store.path) if self._own else store
        self._lock = threading.RLock()
        self._scopes: dict[int, _Scope] = {}
        self._where: dict[int, tuple[int, int]] = {}
        self._seen = 0
        self._version: tuple[int, int] | None = None
        self._ann: AnnIndex | None = None

    @property
    def shares_connection(self) -> bool:
        """True for an in-memory database, whose one connection is also the writer's."""
        return not self._own

    def close(self) -> None:
        self.save_snapshot()
        if self._own:
            self.store.close()

    def save_snapshot(self, force: bool = False) -> bool:
        """Write the name vectors' HNSW snapshot if one is due (worlddb.vectors.hnsw)."""
        with self._lock:
            return self._ann is not None and self._ann.save_snapshot(force=force)

    # ------------------------------------------------------------------ catching up
    def sync(self) -> int:
        """Apply every committed change to resolver_names since the last call."""
        with self._lock:
            if self.store.conn.in_transaction:
                return 0
            version = self.store.data_version()
            if version == self._version:
                return 0
            rows = self.store.conn.execute(
                "SELECT id, node, scope, norm, etype, seq FROM resolver_names WHERE seq>? ORDER BY seq, id",
                (self._seen,),
            ).fetchall()
            for name_id, node, scope, norm, etype, seq in rows:
                self._seen = max(self._seen, seq)
                self._drop(name_id)
                if norm is not None:
                    self._add(name_id, node, scope, norm, etype)
            self._version = version
            return len(rows)

    def _add(self, name_id: int, node: int, scope: int, norm: str, etype: str | None) -> None:
        s = self._scopes.get(scope)
        if s is None:  # (not setdefault: that makes a _Scope for every name added)
            s = self._scopes[scope] = _Scope()
        dense = len(s.norms)
        s.ids.append(name_id)
        s.nodes.append(node)
        s.lens.append(len(norm))
        s.alive.append(1)
        s.norms.append(norm)
        s.etypes.append(etype)
        for gram in trigrams(norm):
            postings = s.postings.get(gram)
            if postings is None:
                postings = s.postings[gram] = array("i")
            postings.append(dense)
        s.members[node] = s.members.get(node, 0) + 1
        if etype is not None:
            of_type = s.typed.setdefault(etype, {})
            of_type[node] = of_type.get(node, 0) + 1
        for part in name_parts(norm):
            s.parts.setdefault(part, []).append(dense)
        self._where[name_id] = (scope, dense)

    def _drop(self, name_id: int) -> None:
        where = self._where.pop(name_id, None)
        if where is None:
            return
        s = self._scopes[where[0]]
        s.alive[where[1]] = 0
        node = s.nodes[where[1]]
        _count_down(s.members, node)
        etype = s.etypes[where[1]]
        if etype is not None:
            _count_down(s.typed[etype], node)

    # ------------------------------------------------------------------ lookups
    def fuzzy(self, scope: int, norm: str, threshold: float) -> list[Candidate]:
        """Names of `scope` whose Jaro-Winkler similarity to `norm` reaches `threshold`."""
        grams = trigrams(norm)
        edits = min(3, max(1, math.ceil(len(norm) / 8)))
        need = max(1, len(grams) - 3 * edits)
        jaro_min = (threshold - 0.4) / 0.6
        ratio = max(0.0, 3 * jaro_min - 2)
        with self._lock:
            s = self._scopes.get(scope)
            if s is None:
                return []
            parts = [np.frombuffer(p, dtype=np.int32) for g in grams if (p := s.postings.get(g)) is not None]
            if not parts:
                return []
            counts = np.bincount(np.concatenate(parts), minlength=len(s.norms))
            del parts  # release the views before anyone appends to the arrays again
            lens = np.frombuffer(s.lens, dtype=np.int32)
            keep = (counts >= need) & np.frombuffer(s.alive, dtype=np.uint8).astype(bool)
            if ratio > 0:
                keep &= (lens >= len(norm) * ratio) & (lens * ratio <= len(norm))
            del lens
            hits = np.flatnonzero(keep)
            if len(hits) > BLOCK_SIZE:
                hits = hits[np.argsort(-counts[hits], kind="stable")[:BLOCK_SIZE]]
            out = []
            for dense in hits.tolist():
                score = name_similarity(norm, s.norms[dense])
                if score >= threshold:
                    out.append(Candidate(s.nodes[dense], s.norms[dense], s.etypes[dense], score))
            return out

    def containing(self, scope: int, part: str, limit: int) -> list[Candidate] | None:
        """Live names of `scope` of which `part` is the leading or trailing words
        (`name_parts`), with their share of the longer name's words as score; None when
        more than `limit` names have it (a part that common tells nothing)."""
        with self._lock:
            s = self._scopes.get(scope)
            dense = [] if s is None else [d for d in s.parts.get(part, ()) if s.alive[d]]
            if len({s.nodes[d] for d in dense}) > limit:
                return None
            return [Candidate(s.nodes[d], s.norms[d], s.etypes[d], part_score(part, s.norms[d])) for d in dense]

    def of_type(self, scope: int, etypes: Iterable[str]) -> set[int]:
        """The entities (nodes.rowid) of `scope` with a live name of one of `etypes`, as the
        extractor typed them when the name was registered."""
        with self._lock:
            s = self._scopes.get(scope)
            return set() if s is None else {node for etype in etypes for node in s.typed.get(etype, ())}

    def size(self, scope: int) -> int:
        """How many entities of `scope` have at least one live name."""
        with self._lock:
            s = self._scopes.get(scope)
            return 0 if s is None else len(s.members)

    def catch_up(self, vectors: bool = True) -> None:
        """Sync the names and (with `vectors`) the HNSW index now, e.g. before a write takes
        the lock, so that a search inside the transaction finds nothing left to apply."""
        self.sync()
        if vectors:
            with self._lock:
                self._name_vectors().sync()

    def advance(self, vectors: bool = True) -> None:
        """After a commit of this process: sync the names, and (with `vectors`) the HNSW
        index of name vectors if it was built (AnnIndex.advance); one not built yet is left
        for its first search, so a bulk load of entities does not pay for building it."""
        self.sync()
        if vectors:
            with self._lock:
                if self._ann is not None:
                    self._ann.advance()

    def _name_vectors(self) -> AnnIndex:
        """The HNSW index of name vectors, made on first use (call with the lock held)."""
        if self._ann is None:
            self._ann = ann.open_index(self.store, NAME, snapshots=hnsw_snapshots.directory_for(self.store.path))
        return self._ann

    def nearest(self, scope: int, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Up to k (nodes.rowid, cosine) of `scope`'s committed name vectors, best first."""
        with self._lock:
            s = self._scopes.get(scope)
            if s is None or not s.members:
                return []
            # hnswlib calls the filter for each visited label; dict membership is C-level.
            return self._name_vectors().search(vector, min(k, len(s.members)), allowed=s.members.__contains__)


def _count_down(counts: dict[int, int], node: int) -> None:
    left = counts[node] - 1
    if left:
        counts[node] = left
    else:
        del counts[node]
