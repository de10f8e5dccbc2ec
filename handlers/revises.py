"""revises: a newer memory replaces part of an older one, which stays current.

A memory that says several things ("I live in Austin and work at Dell") is only partly out of
date when a newer one changes one of them ("I moved to Denver"): closing its validity, as
supersedes does, would hide what is still true. The newer memory revises it instead. Nothing
closes here (the write ends the older memory's facts about the changed slot itself, in the
edge's name); deleting the edge withdraws those closures, so the facts are current again unless
something else ended them (worlddb.memory.succession). Every read names, on each memory, the
newer ones that revise it (revised_by) and the older ones it revises (revises), so a reader
knows which part to take from which. A cycle is refused, and so is a reviser that became valid
before the memory it revises.
"""

from __future__ import annotations

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge

from .base import EdgeContext


class Revises:
    type = "revises"

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None:
        if edge.src == edge.dst:
            ctx.refuse("a memory cannot revise itself")
        new, old = ctx.node(edge.src), ctx.node(edge.dst)
        if ctx.reaches(edge.dst, self.type, edge.src):
            ctx.refuse("this revises edge would close a cycle")
        if new.valid_from < old.valid_from:
            ctx.refuse("the revision becomes valid before the memory it revises")

    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None:
        ctx.withdraw_closures()

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return plan.mark("revised_by", self.type, "in").mark("revises", self.type, "out")
