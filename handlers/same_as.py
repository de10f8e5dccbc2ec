"""same_as: two nodes may be the same thing. Never a silent merge.

Insert stages a pending merge proposal and changes nothing else; only an explicit
accept_merge makes the two members of one equivalence class (undirected, transitive),
and reject_merge keeps them independent. Removing the edge withdraws its proposal.
An erased node is the same as nothing: an edge to it is refused (the resolver, which
forgets an erased entity's names, never proposes one; its evidence would quote the name).
"""

from __future__ import annotations

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge

from .base import EdgeContext


class SameAs:
    type = "same_as"

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None:
        if edge.src == edge.dst:
            ctx.refuse("a node is trivially the same as itself")
        for end in (edge.src, edge.dst):
            view = ctx.node(end)
            if view is not None and view.erased:
                ctx.refuse(f"same_as: {end} was erased, and an erased node is the same as nothing")
        props = edge.props
        score = props.get("score")
        ctx.stage_merge(
            edge.src,
            edge.dst,
            tier=props.get("tier"),
            score=float(score) if isinstance(score, (int, float)) else None,
            evidence=props.get("evidence", {}),
        )

    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None:
        ctx.withdraw_merge(edge)

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return plan.annotate("equivalents")
