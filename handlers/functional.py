"""A reusable handler for functional relations: one current value per subject.

`FunctionalRelation("lives_in")` makes `lives_in` an edge type where a new edge from a
subject ends the validity of that subject's previous `lives_in` edges at the new edge's
valid_from, the way a supersedes edge ends a node. Register it like any handler:

    registry.register(FunctionalRelation("lives_in"))
"""

from __future__ import annotations

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge, check_type_name

from .base import EdgeContext


class FunctionalRelation:
    #: one current value per subject: the update judge holds facts of this relation to it too
    functional = True

    def __init__(self, type: str):
        self.type = check_type_name(type, "edge type")

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None:
        if edge.src == edge.dst:
            ctx.refuse(f"a {self.type} edge cannot point at its own source")
        start = ctx.edge_valid_from
        for prior in ctx.edges(src=edge.src, type=self.type):
            if prior.dst == edge.dst:
                continue
            if prior.valid_from is not None and prior.valid_from > start:
                ctx.refuse(f"{self.type}: a later value is already recorded for this subject")
            if prior.valid_to is None or start < prior.valid_to:
                ctx.close_edge_validity(prior.id, start)

    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None:
        return None

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return plan.hide_closed()
