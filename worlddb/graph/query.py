"""The graph query pipeline: a start set, then steps, returning a subgraph.

    sub = (db.query(worlds=[alice], as_of=t)
             .seed(decision_id)
             .expand(["contradicts"], direction="both", hops=2)
             .where_connected("supersedes", "in", newer_id)
             .filter(types=["Decision"])
             .run())
    sub.nodes      {anchor: NodeView}, in discovery order
    sub.edges      the edges traversed to reach them
    sub.conflicts / sub.superseded_by / sub.equivalents   annotations the plan asked for
                                                          (superseded_by: earliest start first)

Rules every step follows, all taken from the QueryPlan that the handlers rewrote:
- Time: edges must have been live at known_at; nodes must be visible at (as_of,
  known_at); closed nodes/edges are hidden unless the plan includes them.
- Containment: when the query names worlds, a node outside them is reached only through
  an edge type the plan lists as crossing (refers_to by default). Seeds outside the
  worlds are dropped.
Queries are immutable values: each step returns a new Query.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from worlddb.core.errors import InvalidInput
from worlddb.core.plan import QueryPlan
from worlddb.core.records import EdgeView, NodeView
from worlddb.core.store import Store, list_params, rowids_sql
from worlddb.core.timeutil import now_us
from worlddb.graph.edge_reads import edges_touching, equivalents
from worlddb.graph.lexical import lexical, lexical_anywhere, lexical_matching
from worlddb.vectors.hnsw import EFFECTIVE, AnnIndex


class Graph(Protocol):
    """What a query runs against: worlddb.graph.database.WorldDB (declared here so that the
    facade can import the query and not the reverse)."""

    store: Store

    def ann(self, kind: int) -> AnnIndex: ...
    def query(self, *, worlds: Iterable[str] = (), as_of: int | None = None, known_at: int | None = None,
              include_closed: bool = False) -> Query: ...

DIRECTIONS = ("out", "in", "both")
MAX_HOPS = 16


@dataclass
class Subgraph:
    nodes: dict[str, NodeView] = field(default_factory=dict)
    edges: list[EdgeView] = field(default_factory=list)
    conflicts: dict[str, list[str]] = field(default_factory=dict)
    superseded_by: dict[str, list[str]] = field(default_factory=dict)
    equivalents: dict[str, list[str]] = field(default_factory=dict)

    def ids(self) -> set[str]:
        return set(self.nodes)


@dataclass(frozen=True)
class _Step:
    op: str
    args: tuple


@dataclass(frozen=True)
class Query:
    db: Graph
    worlds: tuple[str, ...]
    plan: QueryPlan
    seeds: tuple[str, ...] = ()
    steps: tuple[_Step, ...] = ()

    # ------------------------------------------------------------------ building
    def seed(self, *anchors: str) -> Query:
        return replace(self, seeds=self.seeds + tuple(anchors))

    def text(self, text: str, limit: int = 20) -> Query:
        """Seed with the best BM25 matches of `text` among the queried worlds' text nodes."""
        hits = lexical(self.db.store, text, self.worlds, limit) if self.worlds else lexical_anywhere(
            self.db.store, text, limit)
        return self.seed(*self.db.store.anchors_for_rowids([r for r, _ in hits]).values())

    def vector(self, vector, limit: int = 20, kind: int | None = None) -> Query:
        """Seed with the nearest nodes to `vector` (HNSW over effective embeddings)."""
        index = self.db.ann(EFFECTIVE if kind is None else kind)
        allowed = None
        if self.worlds:
            members = {r for (r,) in self.db.store.conn.execute(
                f"SELECT c.node FROM closure c WHERE c.world IN {rowids_sql(len(self.worlds))}",
                list_params(self.worlds))}
            allowed = members.__contains__
        found = index.search(vector, limit, allowed=allowed)
        by_rowid = self.db.store.anchors_for_rowids([r for r, _ in found])
        return self.seed(*(by_rowid[r] for r, _ in found if r in by_rowid))

    def expand(self, types: Sequence[str] | None = None, direction: str = "out", hops: int = 1) -> Query:
        _check_direction(direction)
        if not 1 <= hops <= MAX_HOPS:
            raise InvalidInput(f"hops must be between 1 and {MAX_HOPS}")
        return self._then("expand", tuple(types) if types is not None else None, direction, hops)

    def where_connected(self, edge_type: str, direction: str, node: str) -> Query:
        _check_direction(direction)
        return self._then("where_connected", edge_type, direction, node)

    def filter(self, types: Iterable[str] | None = None) -> Query:
        return self._then("filter", frozenset(types) if types is not None else None)

    def _then(self, op: str, *args) -> Query:
        return replace(self, steps=self.steps + (_Step(op, args),))

    # ------------------------------------------------------------------ running
    def run(self) -> Subgraph:
        runner = _Runner(self)
        sub = Subgraph()
        # the seeds are read, and scope-checked, together: a statement per seed is a round
        # trip each, which on a PostgreSQL store costs more than the read itself
        seeds = list(dict.fromkeys(self.seeds))
        runner.admit_all(seeds)
        if self.worlds:
            runner.scope_all(a for a in seeds if runner.admit(a) is not None)
        for anchor in seeds:
            view = runner.admit(anchor)
            if view is not None and (not self.worlds or runner.in_scope(anchor)):
                sub.nodes[anchor] = view
        for step in self.steps:
            getattr(runner, step.op)(sub, *step.args)
        runner.annotate(sub)
        return sub


def _check_direction(direction: str) -> None:
    if direction not in DIRECTIONS:
        raise InvalidInput(f"direction must be one of {', '.join(DIRECTIONS)}")


class _Runner:
    def __init__(self, query: Query):
        self.q = query
        self.store = query.db.store
        self.plan = query.plan
        self.now = query.plan.known_at if query.plan.known_at is not None else now_us()
        self._scope_cache: dict[str, bool] = {}
        self._views: dict[str, NodeView | None] = {}
        self._found: dict[str, NodeView] = {}  # the stored nodes read, visible or not

    def admit(self, anchor: str) -> NodeView | None:
        self.admit_all([anchor])
        return self._views[anchor]

    def in_scope(self, anchor: str) -> bool:
        # A world's interior is what it contains; the world itself is not part of it.
        self.scope_all([anchor])
        return self._scope_cache[anchor]

    def shown(self, anchor: str, closed_ok: bool = False) -> bool:
        """Whether an annotation may name `anchor`: inside the queried worlds (a contradiction
        never reveals another scope's node) and, unless closed_ok, visible under the pins."""
        if self.q.worlds and not self.in_scope(anchor):
            return False
        view = self.admit(anchor)
        return anchor in self._found if closed_ok else view is not None

    def edge_ok(self, edge: EdgeView) -> bool:
        if not self.plan.filter_validity:
            return True
        t = self.plan.as_of if self.plan.as_of is not None else self.now
        lo_ok = edge.valid_from is None or edge.valid_from <= t
        return lo_ok and (edge.valid_to is None or t < edge.valid_to)

    def neighbours(self, anchors: Sequence[str], types, direction: str) -> list[tuple[str, EdgeView, str]]:
        """(anchor, edge, other end) for each of `anchors` in turn: its edges of each type
        in `types` (None: any), outgoing then incoming, each in rowid order. A frontier's
        edges are read a type and a direction at a time for all of it; one statement per
        node would be a walk to a random leaf of the edge index each, in a large file."""
        wanted = [None] if types is None else list(dict.fromkeys(types))
        ways = [way for way in ("out", "in") if direction in (way, "both")]
        grouped: dict[tuple[str, int, str], list[EdgeView]] = {}
        for i, edge_type in enumerate(wanted):
            for way in ways:
                for edge in edges_touching(self.store, anchors, edge_type, way, self.plan.known_at):
                    grouped.setdefault((edge.src if way == "out" else edge.dst, i, way), []).append(edge)
        found = []
        for anchor in anchors:
            for i in range(len(wanted)):
                for way in ways:
                    for edge in grouped.get((anchor, i, way), ()):
                        if self.edge_ok(edge):
                            found.append((anchor, edge, edge.dst if way == "out" else edge.src))
        return found

    # A hub's neighbours are many random ids; in a large file each single lookup is a page
    # walk of its own, so expand reads a whole frontier's nodes in one statement, and asks
    # the closure table only about nodes whose direct parent is not one of the queried
    # worlds (a node's parent column names a world that currently contains it).
    def admit_all(self, anchors: Iterable[str]) -> None:
        todo = [a for a in dict.fromkeys(anchors) if a not in self._views]
        if todo:
            found = self.store.get_many(todo)
            self._found.update(found)
            plan = self.plan
            for anchor in todo:
                view = found.get(anchor)
                self._views[anchor] = None if view is None else self.store.visible(
                    view, plan.as_of, plan.known_at, include_closed=not plan.filter_validity)

    def scope_all(self, anchors: Iterable[str]) -> None:
        worlds = set(self.q.worlds)
        todo = []
        for anchor in dict.fromkeys(anchors):
            if anchor in self._scope_cache:
                continue
            view = self._views.get(anchor)
            if view is not None and view.parent in worlds:
                self._scope_cache[anchor] = True
            else:
                todo.append(anchor)
        if todo:
            inside = self.store.in_worlds(self.q.worlds, todo)
            self._scope_cache.update((a, a in inside) for a in todo)

    # -- steps
    def expand(self, sub: Subgraph, types, direction: str, hops: int) -> None:
        frontier = list(sub.nodes)
        seen_edges = {e.id for e in sub.edges}
        for _ in range(hops):
            found = [(edge, other) for _, edge, other in self.neighbours(frontier, types, direction)]
            self.admit_all(other for _, other in found)
            found = [(edge, other) for edge, other in found if self._views[other] is not None]
            if self.q.worlds:
                self.scope_all(other for _, other in found)
                found = [(edge, other) for edge, other in found
                         if self.in_scope(other) or edge.type in self.plan.crossing]
            nxt = []
            for edge, other in found:
                if edge.id not in seen_edges:
                    seen_edges.add(edge.id)
                    sub.edges.append(edge)
                if other not in sub.nodes:
                    sub.nodes[other] = self._views[other]
                    nxt.append(other)
            frontier = nxt
            if not frontier:
                break

    def where_connected(self, sub: Subgraph, edge_type: str, direction: str, node: str) -> None:
        linked = {anchor for anchor, _, other in self.neighbours(list(sub.nodes), [edge_type], direction)
                  if other == node}
        self._narrow(sub, {anchor: view for anchor, view in sub.nodes.items() if anchor in linked})

    def filter(self, sub: Subgraph, types) -> None:
        keep = {a: v for a, v in sub.nodes.items() if types is None or v.type in types}
        self._narrow(sub, keep)

    @staticmethod
    def _narrow(sub: Subgraph, keep: dict[str, NodeView]) -> None:
        sub.nodes = keep
        sub.edges = [e for e in sub.edges if e.src in keep and e.dst in keep]

    def annotate(self, sub: Subgraph) -> None:
        # Every question is asked once for the whole subgraph (worlddb.graph.edge_reads), then
        # the nodes it names are read and scope-checked together.
        wanted = self.plan.annotations & {"conflicts", "superseded_by", "equivalents"}
        if not wanted or not sub.nodes:
            return
        anchors, known_at = list(sub.nodes), self.plan.known_at
        conflicts: dict[str, list[str]] = {}
        if "conflicts" in wanted:
            # only counterparts visible under the same pins: a conflict with something
            # already superseded is history, shown when the caller includes closed nodes
            for direction in ("out", "in"):
                for edge in edges_touching(self.store, anchors, "contradicts", direction, known_at):
                    if self.edge_ok(edge):
                        mine, other = (edge.src, edge.dst) if direction == "out" else (edge.dst, edge.src)
                        conflicts.setdefault(mine, []).append(other)
        newer: dict[str, list[str]] = {}
        if "superseded_by" in wanted:
            for edge in edges_touching(self.store, anchors, "supersedes", "in", known_at):
                newer.setdefault(edge.dst, []).append(edge.src)
        classes = equivalents(self.store, anchors) if "equivalents" in wanted else {}
        named = [o for found in (conflicts, newer, classes) for others in found.values() for o in others]
        self.admit_all(named)
        if self.q.worlds:
            self.scope_all(named)
        for anchor in sub.nodes:
            others = [o for o in conflicts.get(anchor, ()) if self.shown(o)]
            if others:
                sub.conflicts[anchor] = sorted(set(others))
            later = [o for o in newer.get(anchor, ()) if self.shown(o, closed_ok=True)]
            if later:
                # in the order they begin, as every read names them (worlddb.memory.marks)
                sub.superseded_by[anchor] = sorted(later, key=lambda o: (self._found[o].valid_from, o))
            members = [m for m in classes.get(anchor, ()) if m != anchor and self.shown(m, True)]
            if members:
                sub.equivalents[anchor] = sorted(members)


@dataclass(frozen=True)
class QuerySpec:
    """A read, declared: a start set, then steps, under time pins.

    Any of seeds / text / vector may be given. The start set is the cheapest one given -
    seeds (ids are looked up directly), else text (one FTS5 query), else vector (an HNSW
    search) - and each other criterion given then narrows it: text keeps the start nodes
    that match the text, vector keeps the `limit` start nodes closest to the vector.
    steps: ("expand", types|None, direction, hops) / ("where_connected", type, direction,
    node) / ("filter", types|None).
    """

    seeds: tuple[str, ...] = ()
    text: str | None = None
    vector: object = None
    limit: int = 20
    worlds: tuple[str, ...] = ()
    steps: tuple[tuple, ...] = ()
    as_of: int | None = None
    known_at: int | None = None
    include_closed: bool = False

    def start(self) -> str:
        if self.seeds:
            return "seeds"
        if self.text:
            return "text"
        if self.vector is not None:
            return "vector"
        raise InvalidInput("a query needs seeds, text or a vector to start from")


def run_spec(db: Graph, spec: QuerySpec) -> Subgraph:
    query = db.query(worlds=spec.worlds, as_of=spec.as_of, known_at=spec.known_at,
                     include_closed=spec.include_closed)
    start = spec.start()
    if start == "seeds":
        query = query.seed(*spec.seeds)
    elif start == "text":
        query = query.text(spec.text, spec.limit)
    else:
        query = query.vector(spec.vector, spec.limit)
    seeds = list(query.seeds)
    if spec.text and start != "text":
        seeds = _matching(db, seeds, spec.text)
    if spec.vector is not None and start != "vector":
        seeds = _closest(db, seeds, spec.vector, spec.limit)
    query = replace(query, seeds=tuple(seeds))
    for step in spec.steps:
        op, *args = step
        if op not in ("expand", "where_connected", "filter"):
            raise InvalidInput(f"unknown query step {op!r}")
        query = getattr(query, op)(*args)
    return query.run()


def _matching(db: Graph, anchors: list[str], text: str) -> list[str]:
    rowids = {db.store.rowid(a): a for a in anchors}
    keys = [r for r in rowids if r is not None]
    found = lexical_matching(db.store, keys, text)
    return [a for a in anchors if db.store.rowid(a) in found]


def _closest(db: Graph, anchors: list[str], vector, limit: int) -> list[str]:
    import numpy as np
    scored = []
    for anchor in anchors:
        stored = db.store.vector(anchor, EFFECTIVE)
        if stored is not None:
            scored.append((float(np.dot(np.frombuffer(stored, dtype=np.float32), vector)), anchor))
    return [a for _, a in sorted(scored, key=lambda p: -p[0])[:limit]]
