"""WorldDB, the synchronous engine facade, and its one write entry point.

    db = WorldDB.open("memory.db")
    with db.write() as w:                         # one transaction, all or nothing
        alice = w.scope("user", "alice")
        fact = w.add(Node(type="Fact", content="Alice lives in Austin"), parents=[alice])
        w.link(Edge("refers_to", fact, entity))   # dispatched to the refers_to handler
    w.receipt                                     # what the write did

Every change to the graph happens inside `db.write()`: nodes, edges (always through the
reconciler and their handler), validity, retirement, erasure, index entries. Leaving the
block commits; an exception anywhere rolls back everything, including what handlers did.
Before the commit, the consolidator's summaries that quote a text the write closed end
with it (worlddb.graph.stale_summaries), in the same transaction.
Callbacks registered with `w.after_commit` run once the commit is durable. Then every
HNSW index of this connection that is built takes the commit's vectors (`AnnIndex.advance`),
so a read never waits for a backlog of this process's writes. That step runs before `write()`
returns unless `upkeep_later` is set: a caller with a thread of its own for the connection
(worlddb.memory.aio) hands it there, to run after the write has been answered. Either way an
index catches up from SQL before every search, so what a read finds is the same.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from worlddb.core.errors import InvalidInput, WorldDBError
from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge, Node, NodeView, has_control, has_invisible
from worlddb.core.store import Store, scope_node
from worlddb.core.txn import Tx
from worlddb.graph.query import Query, QuerySpec, Subgraph, run_spec
from worlddb.graph.reconciler import Receipt, Reconciler
from worlddb.graph.stale_summaries import end_stale_summaries
from worlddb.graph.verify import VerifyReport, verify
from worlddb.handlers import HandlerRegistry
from worlddb.protocols import Registry
from worlddb.vectors import ann, hnsw_snapshots
from worlddb.vectors.composer import Composer
from worlddb.vectors.hnsw import AnnIndex

log = logging.getLogger("worlddb.graph")

SCOPE_KINDS = ("user", "agent", "app", "run")
#: matched whole (fullmatch): "$" also matches before a final newline, so "alice\n" passed
_SCOPE_ID = re.compile(r"[^\x00-\x1f\x7f]{1,256}")


def check_scope(kind: str, sid: str) -> tuple[str, str]:
    if kind not in SCOPE_KINDS:
        raise InvalidInput(f"scope kind {kind!r} must be one of {', '.join(SCOPE_KINDS)}")
    if not isinstance(sid, str) or not sid.strip() or not _SCOPE_ID.fullmatch(sid) or has_control(sid):
        raise InvalidInput(f"{kind}_id must be 1-256 characters without control characters")
    if has_invisible(sid):
        # "alice\u200b" would be a scope apart from "alice" that lists as "alice", and "\u202e"
        # turns the text after it around
        raise InvalidInput(f"{kind}_id holds an invisible or format character (zero-width, direction, variation "
                           "selector or filler); scope ids are text that shows as it is")
    try:
        sid.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{kind}_id is not valid Unicode (it contains a lone surrogate)") from None
    return kind, sid


class WorldDB:
    def __init__(self, store: Store, registry: Registry | None = None):
        self.store = store
        self.registry: Registry = registry if registry is not None else HandlerRegistry.default()
        self.reconciler = Reconciler(self.registry)
        # every connection that writes keeps composed world embeddings current
        composer = Composer()
        store.observers.append(composer)
        store.add_erase_hook(composer.forget)
        self._ann: dict[int, AnnIndex] = {}
        #: where this file's HNSW snapshots live (worlddb.vectors.hnsw_snapshots); None in memory
        self.ann_snapshots = hnsw_snapshots.directory_for(store.path)
        #: None: `write()` brings the HNSW indexes up to its commit before it returns. Else a
        #: callable that takes that step (a function of no arguments) to run later on the
        #: thread that uses this connection (see the module docstring)
        self.upkeep_later: Callable[[Callable[[], None]], None] | None = None
        # erased content must not outlive its erasure in a snapshot on disk (see write())
        store.add_erase_hook(lambda conn, anchor, rowid: hnsw_snapshots.discard(self.ann_snapshots))

    @classmethod
    def open(cls, path: str | Path, *, registry: Registry | None = None, synchronous: str = "FULL") -> WorldDB:
        return cls(Store.open(path, synchronous=synchronous), registry)

    def close(self) -> None:
        self.save_ann_snapshots()
        self.store.close()

    def save_ann_snapshots(self, force: bool = False) -> int:
        """Write the snapshot of each HNSW index of this connection that is due for one
        (worlddb.vectors.hnsw); returns how many were written."""
        return sum(index.save_snapshot(force=force) for index in self._ann.values())

    def __enter__(self) -> WorldDB:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def write(self, kind: str = "write") -> Iterator[Writer]:
        try:
            with self.store.transaction(kind) as tx:
                writer = Writer(self, tx)
                yield writer
                end_stale_summaries(writer)
                writer.receipt.closed = list(tx.closed)
            if tx.erased:
                # again after the commit: a snapshot another connection wrote meanwhile, from
                # rows read before this commit, may hold what was just erased
                hnsw_snapshots.discard(self.ann_snapshots)
            for callback in writer._after_commit:
                callback()
            if self.upkeep_later is None:
                self.advance_indexes()
            else:
                self.upkeep_later(self.advance_indexes)
        finally:
            # after a bulk transaction, once the callbacks (the resolver's overlay of every new
            # name among them) have let go of what they held too
            self.store.return_free_memory()

    def advance_indexes(self) -> None:
        """Every built HNSW index of this connection takes what has been committed since it last
        caught up. Errors are logged, not raised: the commits stand, the indexes are caches, and
        the next read catches up on what they could not take (and meets the error)."""
        for index in self._ann.values():
            try:
                index.advance()
            except (WorldDBError, RuntimeError, self.store.backend.Error) as exc:
                log.warning("an HNSW index could not take a commit: %s", exc)

    # ------------------------------------------------------------------ reads
    def get(self, anchor: str) -> NodeView | None:
        return self.store.get(anchor)

    def resolve_id(self, text: str) -> str:
        return self.store.resolve_id(text)

    def plan(self, *, as_of: int | None = None, known_at: int | None = None,
             include_closed: bool = False) -> QueryPlan:
        """The read plan for these pins, as every handler rewrites it."""
        return self.registry.rewrite(QueryPlan(as_of=as_of, known_at=known_at, include_closed=include_closed))

    def query(self, *, worlds: Iterable[str] = (), as_of: int | None = None, known_at: int | None = None,
              include_closed: bool = False) -> Query:
        return Query(self, worlds=tuple(worlds), plan=self.plan(as_of=as_of, known_at=known_at,
                                                                 include_closed=include_closed))

    def ann(self, kind: int) -> AnnIndex:
        """This connection's HNSW index over stored vectors of `kind` (worlddb.vectors.hnsw), made on
        first use and caught up from SQL before every search."""
        if kind not in self._ann:
            self._ann[kind] = ann.open_index(self.store, kind, snapshots=self.ann_snapshots)
        return self._ann[kind]

    def run(self, spec: QuerySpec) -> Subgraph:
        """Run a declarative QuerySpec (worlddb.graph.query) and return its subgraph."""
        return run_spec(self, spec)

    def verify(self) -> VerifyReport:
        """Re-derive every id and world version from the stored bytes (worlddb.graph.verify)."""
        return verify(self.store)


class Writer:
    """The transaction-bound write API handed out by `WorldDB.write()`."""

    def __init__(self, db: WorldDB, tx: Tx):
        self.db = db
        self.tx = tx
        self.store = db.store
        self.receipt = Receipt(seq=tx.seq, at=tx.at)
        self._after_commit: list[Callable[[], None]] = []
        #: the text-vector form this transaction has checked (worlddb.graph.text_index.claim_form)
        self.vector_text: str | None = None
        #: (kind, sid) -> anchor of the scopes this transaction has made sure of (a node row is
        #: never deleted, so a second `scope` call would find it and change nothing)
        self._scopes: dict[tuple[str, str], str] = {}

    @property
    def at(self) -> int:
        return self.tx.at

    def add(self, node: Node, *, valid_from: int | None = None, valid_to: int | None = None,
            parents: Iterable[str] = ()) -> str:
        """Write a node (a no-op if it exists) and put it inside each of `parents`."""
        parents = tuple(parents)
        if self.tx.add_node(node, valid_from=valid_from, valid_to=valid_to, parent=parents[0] if parents else None):
            self.receipt.note(self.receipt.nodes, node.id)
        for parent in parents:
            self.link(Edge("contains", parent, node.id))
        return node.id

    def link(self, edge: Edge, *, valid_from: int | None = None, valid_to: int | None = None) -> bool:
        """Write an edge through its handler. False if the same edge was already live."""
        return self.db.reconciler.insert(self.tx, self.receipt, edge, valid_from=valid_from, valid_to=valid_to)

    def unlink(self, edge: Edge) -> bool:
        """Remove a live edge through its handler. False if it was not live."""
        return self.db.reconciler.delete(self.tx, self.receipt, edge)

    def retire(self, anchor: str, reason: str | None = None) -> bool:
        return self.tx.retire(anchor, reason)

    def restate_retirement(self, anchor: str, reason: str | None) -> None:
        """A retired node's reason, said again (Tx.restate_retirement)."""
        self.tx.restate_retirement(anchor, reason)

    def close(self, anchor: str, to: int, reason: str = "closed", cause: Edge | None = None) -> bool:
        """End a node's validity at `to` (Tx.close_validity); with `cause`, in the name of that
        live edge, whose removal withdraws the closure."""
        return self.tx.close_validity(anchor, to, reason, cause=None if cause is None else cause.id)

    def scope(self, kind: str, sid: str) -> str:
        """The anchor of scope kind:sid, creating the scope world on first use."""
        kind, sid = check_scope(kind, sid)
        known = self._scopes.get((kind, sid)) or self.store.committed_scope(kind, sid)
        if known is not None:
            return known
        node = scope_node(kind, sid)
        if self.tx.add_node(node, valid_from=0):
            self.tx.conn.execute("INSERT INTO scopes(kind, sid, anchor) VALUES (?,?,?)", (kind, sid, node.id))
            self.receipt.note(self.receipt.nodes, node.id)
        self._scopes[(kind, sid)] = node.id
        return node.id

    def is_new(self, anchor: str) -> bool:
        """Whether this write created the node (rather than finding it stored)."""
        return self.tx.is_new(anchor)

    def index_text(self, anchor: str, text: str) -> None:
        self.tx.index_text(anchor, text)

    def put_vector(self, anchor: str, kind: int, model: str, vector: bytes, dim: int, ord: int = 0) -> None:
        self.tx.put_vector(anchor, kind, model, vector, dim, ord)

    def put_vectors(self, anchor: str, model: str, dim: int, vectors) -> None:
        """Several vectors of one node, (kind, ord, bytes) each (Tx.put_vectors)."""
        self.tx.put_vectors(anchor, model, dim, vectors)

    def erase(self, anchor: str) -> None:
        self.tx.erase_node(anchor)

    def after_commit(self, callback: Callable[[], None]) -> None:
        self._after_commit.append(callback)
