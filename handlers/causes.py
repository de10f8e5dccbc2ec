"""causes: the source brought about the target. Feedback loops are real, so cycles are
allowed; the consolidator closes chains transitively (edges marked inferred)."""

from __future__ import annotations

from .base import Relation


class Causes(Relation):
    type = "causes"
    acyclic = False
