"""derived_from: the source was computed from the target (a summary from its details, an
inferred edge from its premises). Kept for provenance and the consolidator."""

from __future__ import annotations

from .base import Relation


class DerivedFrom(Relation):
    type = "derived_from"
    acyclic = False
