"""Background re-clustering: after a write, re-resolve the 2-hop neighbourhood of its nodes.

    reclusterer = Reclusterer.for_resolver(resolver)     # own connection, own thread
    with db.write() as w:
        ...                                              # resolve, link refers_to, ...
        reclusterer.watch(w)                             # queued after the commit
    reclusterer.drain()                                  # tests: wait until idle
    reclusterer.stop()

Contract
- Never blocks or slows the triggering write: `watch` queues the receipt's nodes and
  edges only once the commit is durable, `submit` only appends to an in-memory queue, and
  the work runs on a thread with its own WorldDB connection to the same file (SQLite WAL:
  reads never wait for the writer). The tiers and the tiebreaker run outside any
  transaction; the write lock is taken only to stage the proposals found, briefly, with
  busy_timeout handling contention. Nor does it slow the requests around it: a batch
  starts once writes have paused for QUIET_SECS (or after MAX_WAIT_SECS at the latest;
  `drain` and `stop` start it at once).
- Neighbourhood: the written nodes, the endpoints of the written edges, then two hops
  along live refers_to edges in either direction (entity <- fact/memory -> entity), capped
  at MAX_NEIGHBOURHOOD nodes. Every indexed entity in it is matched against the other
  entities of its own scope (itself and its accepted equivalents excluded) with the same
  tiers, thresholds and tiebreaker as the write path.
- A match becomes a pending same_as proposal (origin "recluster" in its evidence) unless
  a proposal between the two already exists in either direction, whatever its status:
  what was proposed or decided is never proposed again. Exact duplicates found this way
  (e.g. two registered imports) are proposed too; nothing is merged.
- A batch that fails is logged and recorded in `failures`; the thread carries on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Iterable

import numpy as np

from worlddb.core.errors import InvalidInput
from worlddb.core.store import edge_key, list_params, rowids_sql
from worlddb.graph import identity
from worlddb.graph.database import WorldDB
from worlddb.vectors import hnsw

from .outcomes import Match
from .resolver import Resolver, stage

log = logging.getLogger(__name__)

MAX_NEIGHBOURHOOD = 2000
#: The worker shares the interpreter (and its lock) with the requests, so it starts a
#: batch only once no write has been queued for QUIET_SECS - a burst of writes and recalls
#: does not pay for it (measured: recall P95 93 vs 25-43 ms at 100k memories with writes
#: and recalls alternating) - or once the oldest queued write has waited MAX_WAIT_SECS.
QUIET_SECS = 0.5
MAX_WAIT_SECS = 10.0


class Reclusterer:
    def __init__(self, path, *, embedder=None, tiebreaker=None, thresholds=None, index=None, registry=None):
        if str(path) == ":memory:":
            raise InvalidInput("re-clustering needs a database file: it opens a connection of its own")
        self.db = WorldDB.open(path, registry=registry)
        self.resolver = Resolver(self.db, embedder, tiebreaker=tiebreaker, thresholds=thresholds, index=index)
        self.failures: list[str] = []
        self.staged: list[str] = []
        self._cond = threading.Condition()
        self._queue: deque = deque()
        self._outstanding = 0
        self._stopping = False
        self._draining = 0
        self._last_submit = self._first_queued = 0.0
        self._thread = threading.Thread(target=self._run, name="worlddb-recluster", daemon=True)
        self._thread.start()

    @classmethod
    def for_resolver(cls, resolver: Resolver, **overrides) -> Reclusterer:
        """A re-clusterer with the resolver's embedder, tiebreaker, thresholds and name index."""
        options = dict(embedder=resolver.embedder, tiebreaker=resolver.tiebreaker,
                       thresholds=resolver.thresholds, index=resolver.index, registry=resolver.db.registry)
        options.update(overrides)
        return cls(resolver.store.path, **options)

    # ------------------------------------------------------------------ feeding
    def submit(self, nodes: Iterable[str] = (), edges: Iterable[str] = ()) -> None:
        """Queue anchors of written nodes and ids of written edges; returns at once."""
        item = (tuple(nodes), tuple(edges))
        with self._cond:
            if self._stopping:
                raise InvalidInput("this re-clusterer has been stopped")
            self._last_submit = time.monotonic()
            if not self._queue:
                self._first_queued = self._last_submit
            self._queue.append(item)
            self._outstanding += 1
            self._cond.notify_all()

    def watch(self, writer) -> None:
        """Queue what `writer`'s transaction wrote, once (and only if) it commits."""
        receipt = writer.receipt
        writer.after_commit(lambda: self.submit(receipt.nodes, receipt.edges))

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until everything queued so far has been processed (at once, without
        waiting for a quiet moment); False on timeout."""
        with self._cond:
            self._draining += 1
            self._cond.notify_all()
            try:
                return self._cond.wait_for(lambda: self._outstanding == 0, timeout)
            finally:
                self._draining -= 1

    def stop(self, timeout: float | None = 30.0) -> None:
        """Finish what is queued, then end the thread and close the connection."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self.resolver.close()
            self.db.close()

    def __enter__(self) -> Reclusterer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ the worker
    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._stopping)
                if not self._queue:
                    return
                while not (self._stopping or self._draining):
                    wake = min(self._last_submit + QUIET_SECS, self._first_queued + MAX_WAIT_SECS)
                    if time.monotonic() >= wake:
                        break
                    self._cond.wait(wake - time.monotonic())
                batch = list(self._queue)
                self._queue.clear()
            try:
                self._process(batch)
            except Exception as exc:  # a background batch must not end the thread: log, record, go on
                log.exception("re-clustering a batch of %d writes failed", len(batch))
                self.failures.append(f"{type(exc).__name__}: {exc}")
            finally:
                with self._cond:
                    self._outstanding -= len(batch)
                    self._cond.notify_all()

    def _process(self, batch: list[tuple[tuple[str, ...], tuple[str, ...]]]) -> None:
        start = {a for nodes, _ in batch for a in nodes}
        start |= self._edge_ends([e for _, edges in batch for e in edges])
        found: list[tuple[str, Match, str]] = []
        for anchor, scope, name in self._entities(self._neighbourhood(start)):
            decision = self._rematch(anchor, scope, name)
            found.extend((anchor, m, name) for m in decision)
        fresh = [f for f in found if not self._proposed(f[0], f[1].anchor)]
        if not fresh:
            return
        with self.db.write("recluster") as w:
            seen: set[frozenset] = set()
            for anchor, match, name in fresh:
                pair = frozenset((anchor, match.anchor))
                if pair in seen or self._proposed(anchor, match.anchor):  # re-checked under the lock
                    continue
                seen.add(pair)
                self.staged.append(stage(w, anchor, match, mention=name, origin="recluster",
                                         model=self._model(match)))

    def _model(self, match: Match) -> str | None:
        embedder = self.resolver.embedder
        return embedder.model_id if embedder is not None and match.tier == "embedding" else None

    def _edge_ends(self, edge_ids: list[str]) -> set[str]:
        out: set[str] = set()
        for start in range(0, len(edge_ids), 400):
            chunk = edge_ids[start : start + 400]
            rows = self.db.store.conn.execute(
                "SELECT s.anchor, d.anchor FROM edges e JOIN nodes s ON s.rowid = e.src "
                f"JOIN nodes d ON d.rowid = e.dst WHERE e.id IN ({','.join('?' * len(chunk))})",
                [edge_key(i) for i in chunk])
            for src, dst in rows:
                out.update((src, dst))
        return out

    def _neighbourhood(self, start: set[str]) -> set[str]:
        reached, frontier = set(start), set(start)
        for _ in range(2):
            step: set[str] = set()
            batch = sorted(frontier)
            for begin in range(0, len(batch), 400):
                chunk = batch[begin : begin + 400]
                for column, other in (("src", "dst"), ("dst", "src")):
                    rows = self.db.store.conn.execute(
                        f"SELECT o.anchor FROM edges e JOIN nodes o ON o.rowid = e.{other} "
                        f"WHERE e.{column} IN {rowids_sql(len(chunk))} AND e.type='refers_to' "
                        f"AND e.seq_removed IS NULL", list_params(chunk))
                    step.update(row[0] for row in rows)
            frontier = step - reached
            reached |= frontier
            if len(reached) >= MAX_NEIGHBOURHOOD:
                break
        return set(sorted(reached)[:MAX_NEIGHBOURHOOD])

    def _entities(self, anchors: set[str]) -> list[tuple[str, str, str]]:
        """(anchor, scope anchor, display name) of the indexed, live entities among `anchors`."""
        out = []
        batch = sorted(anchors)
        for begin in range(0, len(batch), 400):
            chunk = batch[begin : begin + 400]
            rows = self.db.store.conn.execute(
                f"SELECT DISTINCT n.anchor, s.anchor, n.name FROM resolver_names r "
                f"JOIN nodes n ON n.rowid = r.node JOIN nodes s ON s.rowid = r.scope "
                f"WHERE r.norm IS NOT NULL AND n.anchor IN ({','.join('?' * len(chunk))})", chunk)
            out.extend(rows)
        return sorted(out)

    def _rematch(self, anchor: str, scope: str, name: str) -> tuple[Match, ...]:
        store = self.db.store
        rows = store.conn.execute(
            "SELECT r.norm, r.etype FROM resolver_names r JOIN nodes n ON n.rowid = r.node "
            "WHERE n.anchor=? AND r.norm IS NOT NULL ORDER BY r.kind, r.id", (anchor,)).fetchall()
        if not rows:
            return ()  # erased since the neighbourhood was read
        stored = store.vector(anchor, hnsw.NAME)
        vector = None
        if stored is not None and self.resolver.embedder is not None:
            vector = np.frombuffer(stored, dtype=np.float32)
        # The stored names are already normalised; the first is the display name's.
        candidate = (name or rows[0][0], rows[0][1], [norm for norm, _ in rows[1:]])
        decision = self.resolver.match(scope, candidate, exclude=identity.equivalence_class(store, anchor),
                                       vector=vector)
        return decision.matches if decision.outcome != "new" else ()

    def _proposed(self, a: str, b: str) -> bool:
        return self.db.store.conn.execute(
            "SELECT 1 FROM proposals WHERE (a=? AND b=?) OR (a=? AND b=?) LIMIT 1", (a, b, b, a)
        ).fetchone() is not None
