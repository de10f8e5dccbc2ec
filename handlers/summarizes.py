"""summarizes: a Summary node stands for a world (or one detail) at lower resolution.

    Summary -summarizes-> World

The consolidator writes one for every old world it condenses; a read that prefers
summaries follows it backwards from the world to the summary and descends into the
world's interior only on demand. Insert refuses a source that is not a Summary node and a
summary of itself. The edge carries no interior (world=None), so writing it changes no
world's version: a summary never alters the fingerprint of what it summarizes. When the
world changes, the new summary supersedes the old one (a supersedes edge, whose handler
closes the old summary's validity); the old summarizes edge stays as history. Between
passes, the write that closes a text the summary quotes ends the summary in the same
transaction (worlddb.graph.stale_summaries).
"""

from __future__ import annotations

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge

from .base import EdgeContext

SUMMARY_TYPE = "Summary"


class Summarizes:
    type = "summarizes"

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None:
        if edge.src == edge.dst:
            ctx.refuse("a summary cannot summarize itself")
        if edge.world is not None:
            ctx.refuse("summarizes edges belong to no world's interior: they must not change its version")
        source = ctx.node(edge.src)
        if source is None or source.type != SUMMARY_TYPE:
            kind = "nothing" if source is None else f"a {source.type} node"
            ctx.refuse(f"only a Summary node can summarize; the source is {kind}")

    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None:
        return None

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return plan
