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
from typing import TYPE_CHECKING

from worlddb.errors import InvalidInput
from worlddb.model import EdgeView, NodeView
from worlddb.plan import QueryPlan
from worlddb.timeutil import now_us

if TYPE_CHECKING:
    from worlddb.db import WorldDB

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
    db: "WorldDB"
    worlds: tuple[str, ...]
    plan: QueryPlan
    seeds: tuple[str, ...] = ()
    steps: tuple[_Step, ...] = ()

    # ------------------------------------------------------------------ building
    def seed(self, *anchors: str) -> "Query":
        return replace(self, seeds=self.seeds + tuple(anchors))

    def expand(self, types: Sequence[str] | None = None, direction: str = "out", hops: int = 1) -> "Query":
        _check_direction(direction)
        if not 1 <= hops <= MAX_HOPS:
            raise InvalidInput(f"hops must be between 1 and {MAX_HOPS}")
        return self._then("expand", tuple(types) if types is not None else None, direction, hops)

    def where_connected(self, edge_type: str, direction: str, node: str) -> "Query":
        _check_direction(direction)
        return self._then("where_connected", edge_type, direction, node)

    def filter(self, types: Iterable[str] | None = None) -> "Query":
        return self._then("filter", frozenset(types) if types is not None else None)

    def _then(self, op: str, *args) -> "Query":
        return replace(self, steps=self.steps + (_Step(op, args),))

    # ------------------------------------------------------------------ running
    def run(self) -> Subgraph:
        runner = _Runner(self)
        sub = Subgraph()
        for anchor in dict.fromkeys(self.seeds):
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

    def admit(self, anchor: str) -> NodeView | None:
        if anchor not in self._views:
            view = self.store.get(anchor)
            plan = self.plan
            self._views[anchor] = None if view is None else self.store.visible(
                view, plan.as_of, plan.known_at, include_closed=not plan.filter_validity)
        return self._views[anchor]

    def in_scope(self, anchor: str) -> bool:
        if anchor not in self._scope_cache:
            # A world's interior is what it contains; the world itself is not part of it.
            self._scope_cache[anchor] = bool(self.store.in_worlds(self.q.worlds, [anchor]))
        return self._scope_cache[anchor]

    def shown(self, anchor: str, closed_ok: bool = False) -> bool:
        """Whether an annotation may name `anchor`: inside the queried worlds (a contradiction
        never reveals another scope's node) and, unless closed_ok, visible under the pins."""
        if self.q.worlds and not self.in_scope(anchor):
            return False
        if closed_ok:
            return self.store.get(anchor) is not None
        return self.admit(anchor) is not None

    def edge_ok(self, edge: EdgeView) -> bool:
        if not self.plan.filter_validity:
            return True
        t = self.plan.as_of if self.plan.as_of is not None else self.now
        lo_ok = edge.valid_from is None or edge.valid_from <= t
        return lo_ok and (edge.valid_to is None or t < edge.valid_to)

    def neighbours(self, anchor: str, types, direction: str) -> list[tuple[EdgeView, str]]:
        found: list[tuple[EdgeView, str]] = []
        wanted = [None] if types is None else list(types)
        for edge_type in wanted:
            if direction in ("out", "both"):
                found += [(e, e.dst) for e in self.store.edges(src=anchor, type=edge_type, known_at=self.plan.known_at)]
            if direction in ("in", "both"):
                found += [(e, e.src) for e in self.store.edges(dst=anchor, type=edge_type, known_at=self.plan.known_at)]
        return [(e, other) for e, other in found if self.edge_ok(e)]

    # -- steps
    def expand(self, sub: Subgraph, types, direction: str, hops: int) -> None:
        frontier = list(sub.nodes)
        seen_edges = {e.id for e in sub.edges}
        for _ in range(hops):
            nxt = []
            for anchor in frontier:
                for edge, other in self.neighbours(anchor, types, direction):
                    if self.q.worlds and not self.in_scope(other) and edge.type not in self.plan.crossing:
                        continue
                    view = self.admit(other)
                    if view is None:
                        continue
                    if edge.id not in seen_edges:
                        seen_edges.add(edge.id)
                        sub.edges.append(edge)
                    if other not in sub.nodes:
                        sub.nodes[other] = view
                        nxt.append(other)
            frontier = nxt
            if not frontier:
                break

    def where_connected(self, sub: Subgraph, edge_type: str, direction: str, node: str) -> None:
        keep = {}
        for anchor, view in sub.nodes.items():
            if any(other == node for _, other in self.neighbours(anchor, [edge_type], direction)):
                keep[anchor] = view
        self._narrow(sub, keep)

    def filter(self, sub: Subgraph, types) -> None:
        keep = {a: v for a, v in sub.nodes.items() if types is None or v.type in types}
        self._narrow(sub, keep)

    @staticmethod
    def _narrow(sub: Subgraph, keep: dict[str, NodeView]) -> None:
        sub.nodes = keep
        sub.edges = [e for e in sub.edges if e.src in keep and e.dst in keep]

    def annotate(self, sub: Subgraph) -> None:
        wanted = self.plan.annotations
        for anchor in sub.nodes:
            if "conflicts" in wanted:
                # only counterparts visible under the same pins: a conflict with something
                # already superseded is history, shown when the caller includes closed nodes
                others = [o for _, o in self.neighbours(anchor, ["contradicts"], "both") if self.shown(o)]
                if others:
                    sub.conflicts[anchor] = sorted(set(others))
            if "superseded_by" in wanted:
                newer = [e.src for e in self.store.edges(dst=anchor, type="supersedes", known_at=self.plan.known_at)
                         if self.shown(e.src, closed_ok=True)]
                if newer:
                    sub.superseded_by[anchor] = newer
            if "equivalents" in wanted:
                from worlddb.identity import equivalence_class

                members = [m for m in equivalence_class(self.store, anchor) if m != anchor and self.shown(m, True)]
                if members:
                    sub.equivalents[anchor] = sorted(members)
