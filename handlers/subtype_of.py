"""subtype_of: the source type is a subtype of the target type. A partial order, so cycles
are refused; the consolidator closes it transitively (edges marked inferred)."""

from __future__ import annotations

from .base import Relation


class SubtypeOf(Relation):
    type = "subtype_of"
    acyclic = True
