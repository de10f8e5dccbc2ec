"""supersedes: a newer node replaces an older one.

Insert closes the target's validity at the source's valid_from, in the edge's name. Validity
only tightens: if the target already ends earlier, nothing changes now, but the closure is
recorded, and takes over should the earlier one be withdrawn. Deleting the edge withdraws its
closure (a memory retired or amended away ends nothing any more: worlddb.memory.succession):
the target then ends where its other closures say, or never. Cycles are refused (A replaces B
replaces A has no meaning), and so is a source that became valid before its target did.
By default reads hide what is no longer valid; with include_closed they return it with
its closed interval. Every read names, on each node, what replaced it (superseded_by) and
what it replaced (supersedes), closed or not.
"""

from __future__ import annotations

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge

from .base import EdgeContext


class Supersedes:
    type = "supersedes"

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None:
        if edge.src == edge.dst:
            ctx.refuse("a node cannot supersede itself")
        new, old = ctx.node(edge.src), ctx.node(edge.dst)
        if ctx.reaches(edge.dst, self.type, edge.src):
            ctx.refuse("this supersedes edge would close a cycle")
        if new.valid_from < old.valid_from:
            ctx.refuse("the replacement becomes valid before the node it supersedes")
        ctx.close_validity(old.anchor, new.valid_from, "superseded")

    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None:
        ctx.withdraw_closures()

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return (plan.hide_closed().annotate("superseded_by")
                .mark("superseded_by", self.type, "in", closed_ok=True)
                .mark("supersedes", self.type, "out", closed_ok=True))
