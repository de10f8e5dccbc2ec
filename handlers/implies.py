"""implies: if the source holds, the target holds. Kept for the consolidator's inferred-edge pass."""

from __future__ import annotations

from .base import Relation


class Implies(Relation):
    type = "implies"
    acyclic = False
