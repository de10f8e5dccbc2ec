"""refers_to: a reference that may cross world boundaries.

It is the only edge type a scoped query follows out of the worlds it was asked about:
a Fact inside user:alice that refers_to a shared Entity reaches that entity.
"""

from __future__ import annotations

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge

from .base import EdgeContext


class RefersTo:
    type = "refers_to"

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None:
        if edge.src == edge.dst:
            ctx.refuse("a node cannot refer to itself")

    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None:
        return None

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return plan.allow_crossing(self.type)
