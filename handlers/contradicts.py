"""contradicts: two nodes that cannot both be true.

Both sides are kept and neither is hidden: the conflict is recorded in the write's
receipt, and reads attach it to either side (conflicts) so the caller sees the
disagreement - while the other side is itself shown under the same pins.
"""

from __future__ import annotations

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge

from .base import EdgeContext


class Contradicts:
    type = "contradicts"

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None:
        if edge.src == edge.dst:
            ctx.refuse("a node cannot contradict itself")
        ctx.note_conflict(edge.src, edge.dst)

    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None:
        return None

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return plan.annotate("conflicts").mark("conflicts", self.type, "both")
