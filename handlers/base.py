"""What the edge-type programs share: the seam they implement and the plain relation.

Every edge row that is ever written or removed goes through exactly one handler call,
inside the transaction of the write that asked for it. Handlers do no I/O of their own:
everything they read or change goes through the `EdgeContext` they are handed. Both
protocols are declared in worlddb.protocols; they are re-exported here for handler authors.
"""

from __future__ import annotations

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge
from worlddb.protocols import EdgeContext, EdgeHandler

__all__ = ["EdgeContext", "EdgeHandler", "Relation"]


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
