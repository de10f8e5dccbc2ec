"""QueryPlan: what a read must respect, as rewritten by every edge type's handler.

A read starts from a plan built from the caller's arguments; each registered handler's
`on_query_rewrite` then returns a (possibly) new plan. The query executor and the recall
lane only ever consult the final plan, so an edge type's read-time meaning lives next to
its write-time meaning, in its handler module.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class QueryPlan:
    #: valid time to pin (None: "currently valid"), transaction time to pin (None: now)
    as_of: int | None = None
    known_at: int | None = None
    #: return superseded / retired nodes with their closed intervals
    include_closed: bool = False
    #: hide nodes whose validity interval (as known at known_at) excludes as_of
    filter_validity: bool = False
    #: edge types that may lead out of the queried worlds (containment is otherwise closed)
    crossing: frozenset[str] = field(default_factory=frozenset)
    #: what to attach to every returned node: "conflicts", "superseded_by", "equivalents", ...
    annotations: frozenset[str] = field(default_factory=frozenset)

    def allow_crossing(self, edge_type: str) -> QueryPlan:
        return replace(self, crossing=self.crossing | {edge_type})

    def annotate(self, what: str) -> QueryPlan:
        return replace(self, annotations=self.annotations | {what})

    def hide_closed(self) -> QueryPlan:
        return self if self.include_closed else replace(self, filter_validity=True)
