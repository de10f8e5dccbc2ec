"""The harness: one engine on a real file, the reference model beside it, and the operations.

An operation is a JSON-ready dict (`{"op": "g_link", "type": "supersedes", "src": ["g", 3], ...}`)
whose references are indexes into the harness's pools, never ids: ids of memories depend
on the clock, indexes do not, so a saved operation list replays on a fresh database.
`Harness.run(op)` executes one operation against the engine, predicts (graph layer) or
learns and checks (memory layer) its effect on the model, then checks every invariant
(fuzz.oracles). Any disagreement raises `Violation`.

Two layers are driven on one database:
- graph layer (WorldDB.write): nodes in nested worlds, edges of every registered type
  (the twelve built-ins and a FunctionalRelation), unknown and malformed edge types,
  unlink, close, retire, erase, merge decisions - see this module;
- memory layer (Engine): write, amend, retire, retire_all, purge (with and without
  erase), conversation ingest, read - see fuzz.memory_ops;
and `reopen` closes the engine and opens the file again.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fuzz import memory_ops, oracles
from fuzz.model import FUNCTIONAL_EDGES, FUNCTIONAL_FACTS, Expect, Model
from fuzz.vocabulary import EDGE_PROPS, SCOPES, TIMES, WORDS, Violation
from worlddb.core import errors, ids
from worlddb.core.errors import WorldDBError
from worlddb.core.records import Edge, Node
from worlddb.core.store import scope_node
from worlddb.handlers import FunctionalRelation, HandlerRegistry
from worlddb.memory.engine import Engine
from worlddb.vectors.embedder import HashEmbedder

#: what the operations did, across every harness in the process: (op, outcome) -> count
OUTCOMES: Counter = Counter()


#: where each fuzzed store lives: a function returning (target, drop) - a store's target and
#: what removes it afterwards. None: a SQLite file in a temporary directory. The test suite
#: sets it to fresh PostgreSQL databases to fuzz that backend (fuzz/test_fuzz.py).
STORES: Callable[[], tuple[str, Callable[[], None]]] | None = None


def snapshot(conn) -> dict[str, tuple[int, str]]:
    """Every table of the store (FTS shadow tables included), each as a row count and a digest:
    a full dump, compared before and after a call that must have written nothing."""
    out = {}
    backend = getattr(conn, "backend", None)
    if backend is not None and backend.name == "postgresql":
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")]
    else:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' AND name != 'fts'")]
    for table in tables:
        rows = sorted(repr(tuple(r)) for r in conn.execute(f'SELECT * FROM "{table}"'))
        out[table] = (len(rows), hashlib.blake2b("\n".join(rows).encode(), digest_size=16).hexdigest())
    return out


def open_engine(path: Path) -> Engine:
    registry = HandlerRegistry.default()
    for etype in sorted(FUNCTIONAL_EDGES):
        registry.register(FunctionalRelation(etype))
    return Engine.open(path, embedder=HashEmbedder(), query_model=True, functional=tuple(FUNCTIONAL_FACTS),
                       registry=registry)


class Harness:
    def __init__(self, directory: str | Path | None = None):
        self._drop = None
        if directory is None and STORES is not None:
            self._tmp = None
            self.path, self._drop = STORES()
        else:
            self._tmp = None if directory is not None else tempfile.mkdtemp(prefix="worlddb-fuzz-")
            self.path = Path(directory or self._tmp) / "fuzz.db"
        self.engine = open_engine(self.path)
        self.model = Model()
        self.ops: list[dict] = []
        self.graph: list[str] = []       # anchors the graph layer created, in order
        self.memories: list[str] = []    # anchors of memories the memory layer wrote
        self.tx_times: list[int] = []    # transaction times seen, for known_at probes
        self.counter = 0                 # for unique marker words
        self.steps = 0
        self.valid_to_seen: dict[str, tuple[int, int | None]] = {}  # anchor -> (known at, valid_to)
        self.edge_valid_to_seen: dict[int, int] = {}

    # ------------------------------------------------------------------ lifecycle
    @property
    def db(self):
        return self.engine.db

    @property
    def store(self):
        return self.engine.store

    def close(self) -> None:
        self.engine.close()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
        if self._drop is not None:
            self._drop()

    def run(self, op: dict) -> None:
        self.ops.append(op)
        self.steps += 1
        kind = op["op"]
        if kind.startswith("m_"):
            memory_ops.run(self, op)
        else:
            getattr(self, "_" + kind)(op)
        oracles.check_all(self)

    # ------------------------------------------------------------------ references
    def pick(self, ref) -> str | None:
        """["g", i]: graph node; ["m", i]: memory; ["x", i]: memory in more than one scope;
        ["e", i]: entity; ["a", i]: any node; ["s", i]: scope world. An empty pool falls back
        to any node."""
        kind, index = ref
        nodes = self.model.nodes
        shared = [m for m in self.memories if len(self.model.scope_keys_of(m)) > 1] if kind == "x" else []
        pool = {"g": self.graph, "m": self.memories, "x": shared, "a": list(nodes),
                "e": [a for a, n in nodes.items() if n.type == "Entity"],
                "s": [self.model.scopes.get(f"{k}:{s}") for k, s in SCOPES]}[kind]
        pool = [a for a in pool if a is not None]
        if not pool and kind != "s":
            pool = list(nodes)
        return pool[index % len(pool)] if pool else None

    def kind_of(self, anchor: str | None) -> str | None:
        node = self.model.nodes.get(anchor) if anchor else None
        return node.type if node else None

    def time(self, code, at: int, anchor: str | None = None) -> int | None:
        if code is None:
            return None
        if code == "at":
            return at
        if code in ("vf", "vf-1") and anchor in self.model.nodes:
            return self.model.nodes[anchor].valid_from - (1 if code == "vf-1" else 0)
        return TIMES.get(code, at)

    # ------------------------------------------------------------------ judging
    def snapshot(self) -> dict[str, tuple[int, str]]:
        return snapshot(self.store.conn)

    def unchanged(self, before: dict, what: str) -> None:
        after = self.snapshot()
        if after != before:
            changed = sorted(t for t in set(before) | set(after) if before.get(t) != after.get(t))
            raise Violation(f"{what} raised, but the store changed: tables {changed}")

    def judge(self, what: str, expected: Expect | None, error: BaseException | None, before: dict) -> None:
        OUTCOMES[(what.split()[0], type(error).__name__ if error is not None else "ok")] += 1
        if error is not None and not isinstance(error, WorldDBError):
            raise Violation(f"{what} raised a foreign exception {type(error).__name__}: {error}") from error
        if error is not None:
            self.unchanged(before, what)
        if expected is not None and error is None:
            raise Violation(f"{what} succeeded; the model expected {expected}")
        if expected is None and error is not None:
            raise Violation(f"{what} raised {type(error).__name__}: {error}; the model expected success")
        if expected is not None and not isinstance(error, getattr(errors, expected.name)):
            raise Violation(f"{what} raised {type(error).__name__}: {error}; the model expected {expected}")

    def graph_write(self, what: str, engine_fn: Callable, model_fn: Callable) -> Any:
        """One graph-layer transaction: the model predicts with the transaction's time and
        seq, the engine writes; refusals must match and leave the file untouched."""
        before = self.snapshot()
        expected, predicted, got, error = None, None, None, None
        try:
            with self.db.write("fuzz") as w:
                self.model.begin()
                try:
                    predicted = model_fn(w.at, w.tx.seq)
                    self.model.commit()
                except Expect as exc:
                    self.model.rollback()
                    expected = exc
                got = engine_fn(w)
                at = w.at
        except Exception as exc:  # judged below: only WorldDBError may leave the engine
            error = exc
        self.judge(what, expected, error, before)
        if error is None:
            self.tx_times.append(at)
            if predicted is not None and got != predicted:
                raise Violation(f"{what} returned {got!r}; the model expected {predicted!r}")
        return got

    # ------------------------------------------------------------------ graph operations
    def _node(self, op: dict) -> Node:
        return Node(op["type"], content=WORDS[op["content"] % len(WORDS)], name=op.get("name", ""),
                    created_at=op.get("created", 0))

    def _g_add(self, op: dict) -> None:
        try:
            node = self._node(op)
        except WorldDBError:
            return  # a malformed record never reaches the store (covered by the MCP fuzz)
        # ["s", i] names a scope world, created in the same write if need be
        parents = [r if r[0] == "s" else self.pick(r) for r in op.get("parents", [])]
        parents = [p for p in parents if p is not None]

        def model_fn(at, seq):
            worlds = [self._model_scope(p, at) if not isinstance(p, str) else p for p in parents]
            vf, vt = self.time(op.get("vf"), at), self.time(op.get("vt"), at)
            self.model.add(node.id, node.type, at=at, valid_from=vf, valid_to=vt)
            for world in worlds:
                self.model.link(Edge("contains", world, node.id), at=at)
            return node.id

        def engine_fn(w):
            worlds = [w.scope(*SCOPES[p[1] % len(SCOPES)]) if not isinstance(p, str) else p for p in parents]
            return w.add(node, valid_from=self.time(op.get("vf"), w.at), valid_to=self.time(op.get("vt"), w.at),
                         parents=worlds)

        self.graph_write(f"add {node.type}", engine_fn, model_fn)
        if node.id in self.model.nodes and node.id not in self.graph:
            self.graph.append(node.id)

    def _model_scope(self, ref, at: int) -> str:
        kind, sid = SCOPES[ref[1] % len(SCOPES)]
        anchor = scope_node(kind, sid).id
        if self.model.add(anchor, "Scope", at=at, valid_from=0, valid_to=None, text=False):
            self.model.add_scope(f"{kind}:{sid}", anchor)
        return anchor

    def _edge(self, op: dict) -> Edge | None:
        src = self.pick(op["src"])
        dst = src if op.get("self") else self.pick(op["dst"])
        world = self.pick(op["world"]) if op.get("world") else None
        if src is None or dst is None:
            return None
        if op["type"] == "precedes" and "Turn" in (self.kind_of(src), self.kind_of(dst)):
            return None  # ingest's turn order is the memory layer's; see fuzz/README.md
        return Edge(op["type"], src, dst, world=world, props=EDGE_PROPS[op.get("props", 0) % len(EDGE_PROPS)])

    def _g_link(self, op: dict) -> None:
        try:
            edge = self._edge(op)
        except WorldDBError:
            return  # "bad type": Edge() refuses the name before any write
        if edge is None:
            return

        def model_fn(at, seq):
            vf, vt = self.time(op.get("vf"), at), self.time(op.get("vt"), at)
            proposal = ids.proposal_id(edge.id, seq) if edge.type == "same_as" else None
            return self.model.link(edge, at=at, valid_from=vf, valid_to=vt, proposal=proposal)

        self.graph_write(f"link {edge.type}", lambda w: w.link(
            edge, valid_from=self.time(op.get("vf"), w.at), valid_to=self.time(op.get("vt"), w.at)), model_fn)

    def _g_unlink(self, op: dict) -> None:
        known = list(self.model.edges.values())
        if not known:
            return
        e = known[op["edge"] % len(known)]
        edge = Edge(e.type, e.src, e.dst, world=e.world, props=e.props)
        self.graph_write(f"unlink {e.type}", lambda w: w.unlink(edge), lambda at, seq: self.model.unlink(edge, at=at))

    def _g_close(self, op: dict) -> None:
        anchor = self.pick(op["node"])
        if anchor is None:
            return
        self.graph_write("close", lambda w: w.close(anchor, self.time(op["to"], w.at, anchor)),
                         lambda at, seq: self.model.close(anchor, self.time(op["to"], at, anchor), at=at))

    def _g_retire(self, op: dict) -> None:
        anchor = self.pick(op["node"])
        if anchor is None:
            return
        self.graph_write("retire", lambda w: w.retire(anchor, "fuzz"),
                         lambda at, seq: self.model.retire(anchor, at=at))

    def _g_erase(self, op: dict) -> None:
        anchor = self.pick(op["node"])
        if anchor is None:
            return
        self.graph_write("erase", lambda w: w.erase(anchor), lambda at, seq: self.model.erase(anchor))

    def _decide(self, op: dict) -> None:
        from worlddb.graph import identity

        known = list(self.model.proposals)
        if not known and not op.get("bogus"):
            return
        pid = known[op["proposal"] % len(known)] if not op.get("bogus") else "0" * 64
        accept = bool(op["accept"])
        fn = identity.accept_merge if accept else identity.reject_merge
        self.graph_write("accept_merge" if accept else "reject_merge", lambda w: fn(w, pid).status,
                         lambda at, seq: self.model.decide(pid, accept) or ("accepted" if accept else "rejected"))

    def _reopen(self, op: dict) -> None:
        self.engine.close()
        self.engine = open_engine(self.path)
