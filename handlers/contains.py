"""contains: the structural edge. A world contains a node; the node joins its interior.

Insert puts the child into the world's interior (a new version for the world and every
ancestor); deleting the last contains edge between the two takes it out. A world can never
contain itself or an ancestor, and a scope's world is always a root: no world contains it,
since whoever may read the outer world would read the scope's interior through it without
a grant for the scope.
Containment is what a scoped query stays inside.
"""

from __future__ import annotations

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge

from .base import EdgeContext


class Contains:
    type = "contains"

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None:
        if edge.world is not None:
            ctx.refuse("contains edges are structural and belong to no world's edge set")
        if edge.src == edge.dst:
            ctx.refuse("a world cannot contain itself")
        if ctx.within(edge.src, edge.dst):
            ctx.refuse("this contains edge would put a world inside its own interior")
        child = ctx.node(edge.dst)
        if child is not None and child.type == "Scope":
            ctx.refuse(f"a scope's world cannot be put inside another world ({child.name or 'an erased scope'} "
                       f"would be readable through it)")
        ctx.add_child(edge.src, edge.dst)

    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None:
        # two contains edges (different props) may join the same pair: the child leaves
        # the world only with the last of them
        if not any(e.id != edge.id for e in ctx.edges(src=edge.src, dst=edge.dst, type=self.type)):
            ctx.remove_child(edge.src, edge.dst)

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return plan
