"""precedes: the source happened before the target. A temporal order, so cycles are refused."""

from __future__ import annotations

from .base import Relation


class Precedes(Relation):
    type = "precedes"
    acyclic = True
