"""The contract between the reconciler and the programs that give edge types meaning.

Every edge row that is ever written or removed goes through exactly one handler call,
inside the transaction of the write that asked for it. Handlers do no I/O of their own:
everything they read or change goes through the `EdgeContext` they are handed.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from worlddb.core.records import Edge, EdgeView, NodeView
from worlddb.core.plan import QueryPlan


class EdgeContext(Protocol):
    """What a handler may see and do while its edge is being written.

    Reads see the transaction's own earlier writes. Effects are part of the same
    transaction: if anything later in the write fails, they are rolled back with it.

    at                      transaction time of the write (microseconds)
    edge_valid_from         valid-from of the edge being written (given, else `at`)
    node(anchor)            the node, or None
    edges(src, dst, type)   live edges matching the given ends/type
    reaches(a, type, b)     whether b is reachable from a along live `type` edges
    within(node, world)     whether node lies (transitively) inside world
    close_validity(a, to)   tighten a node's valid_to (ValidityConflict if it would extend)
    close_edge_validity(id, to)
    add_child / remove_child  change a world's interior (structural; the contains handler)
    derive(edge)            write another edge, dispatched to its own handler after this one
    remove(edge)            remove another live edge, through its handler
    stage_merge(a, b, ...)  record a pending same_as proposal; returns its id
    withdraw_merge(edge)    mark the proposal of a removed same_as edge as withdrawn
    note_conflict(a, b)     report a contradiction in the write's receipt
    refuse(message)         abort the whole write with Refused(message)
    """

    at: int
    edge_valid_from: int

    def node(self, anchor: str) -> NodeView | None: ...
    def edges(self, *, src: str | None = None, dst: str | None = None, type: str | None = None) -> list[EdgeView]: ...
    def reaches(self, start: str, edge_type: str, target: str) -> bool: ...
    def within(self, node: str, world: str) -> bool: ...
    def close_validity(self, anchor: str, to: int, reason: str) -> bool: ...
    def close_edge_validity(self, edge_id: str, to: int) -> bool: ...
    def add_child(self, world: str, child: str) -> None: ...
    def remove_child(self, world: str, child: str) -> None: ...
    def derive(self, edge: Edge, *, valid_from: int | None = None) -> None: ...
    def remove(self, edge: Edge) -> None: ...
    def stage_merge(self, a: str, b: str, *, tier: str | None, score: float | None, evidence: Any) -> str: ...
    def withdraw_merge(self, edge: Edge) -> None: ...
    def note_conflict(self, a: str, b: str) -> None: ...
    def refuse(self, message: str) -> None: ...


@runtime_checkable
class EdgeHandler(Protocol):
    """The program of one edge type.

    type                     the edge type this handler owns (unique in a registry)
    on_insert(ctx, edge)     called before the edge row is written; may refuse (raise
                             Refused via ctx.refuse), change validity, stage proposals
                             or derive further edges. Raising anything rolls back the
                             whole write, including nodes written with the edge.
    on_delete(ctx, edge)     called before the row is marked removed; same powers.
                             Must never re-open validity that an insert closed.
    on_query_rewrite(plan)   return the plan a read must follow given this edge type's
                             meaning (hide, annotate, allow crossing). Pure: no I/O.
    """

    type: str

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None: ...
    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None: ...
    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan: ...


class Relation:
    """A plain stored relation: refuses self-loops and, if `acyclic`, cycles.

    The building block of the relation-like default types (implies, causes, ...).
    """

    type = ""
    acyclic = False

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None:
        if edge.src == edge.dst:
            ctx.refuse(f"a {self.type} edge cannot point at its own source")
        if self.acyclic and ctx.reaches(edge.dst, self.type, edge.src):
            ctx.refuse(f"this {self.type} edge would close a cycle")

    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None:
        return None

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return plan
