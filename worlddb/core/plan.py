"""QueryPlan: what a read must respect, as rewritten by every edge type's handler.

A read starts from a plan built from the caller's arguments; each registered handler's
`on_query_rewrite` then returns a (possibly) new plan. The query executor, recall, memory_list
and memory_read only ever consult the final plan, so an edge type's read-time meaning lives
next to its write-time meaning, in its handler module:

    hide_closed()                     closed (superseded, retired) nodes are not shown
    mark(key, edge_type, direction)   each shown node names, under `key`, the nodes at the
                                      other end of its live edges of that type ("in": edges
                                      that end at it; "out": that start at it; "both")
    hide_linked(edge_type, direction) a node with a live edge of that type in that direction
                                      is not shown
A mark or hide names only nodes inside the scopes read, whatever the edge.
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
    #: edges each returned node names the other end of, under a key (see the module docstring)
    marks: tuple[Mark, ...] = ()
    #: edges whose presence hides a node
    hides: tuple[Hide, ...] = ()

    def allow_crossing(self, edge_type: str) -> QueryPlan:
        return replace(self, crossing=self.crossing | {edge_type})

    def annotate(self, what: str) -> QueryPlan:
        return replace(self, annotations=self.annotations | {what})

    def hide_closed(self) -> QueryPlan:
        return self if self.include_closed else replace(self, filter_validity=True)

    def mark(self, key: str, edge_type: str, direction: str, *, closed_ok: bool = False) -> QueryPlan:
        """Name on each returned node, under `key`, the other ends of its `edge_type` edges;
        with `closed_ok` also those whose validity has ended."""
        mark = Mark(key, edge_type, _direction(direction), closed_ok)
        return self if mark in self.marks else replace(self, marks=(*self.marks, mark))

    def hide_linked(self, edge_type: str, direction: str) -> QueryPlan:
        """Hide a node that has a live `edge_type` edge ending ("in") or starting ("out") at it."""
        hide = Hide(edge_type, _direction(direction))
        return self if hide in self.hides else replace(self, hides=(*self.hides, hide))


@dataclass(frozen=True)
class Mark:
    key: str
    edge_type: str
    direction: str
    closed_ok: bool = False


@dataclass(frozen=True)
class Hide:
    edge_type: str
    direction: str


def _direction(direction: str) -> str:
    if direction not in ("in", "out", "both"):
        raise ValueError(f"direction must be 'in', 'out' or 'both', not {direction!r}")
    return direction
