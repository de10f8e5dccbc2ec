"""instance_of: the source is an instance of the target type node (schema-like lookups)."""

from __future__ import annotations

from .base import Relation


class InstanceOf(Relation):
    type = "instance_of"
    acyclic = False
