"""HandlerRegistry: edge type -> handler, the built-in implementation of the Registry seam.

The reconciler only ever asks the registry; built-ins and plug-ins are registered the same
way. Plug-ins are advertised in the `worlddb.handlers` entry-point group, each entry naming
a handler class (instantiated without arguments) or a ready instance, and are loaded
explicitly - never as a side effect of importing WorldDB.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import entry_points

from worlddb.core.errors import InvalidInput, UnknownEdgeType
from worlddb.core.plan import QueryPlan
from worlddb.protocols import EdgeHandler

from .causes import Causes
from .contains import Contains
from .contradicts import Contradicts
from .derived_from import DerivedFrom
from .implies import Implies
from .instance_of import InstanceOf
from .precedes import Precedes
from .refers_to import RefersTo
from .revises import Revises
from .same_as import SameAs
from .subtype_of import SubtypeOf
from .summarizes import Summarizes
from .supersedes import Supersedes

ENTRY_POINT_GROUP = "worlddb.handlers"
#: the built-in edge types, registered by `HandlerRegistry.default()` as any plug-in would be
BUILTIN = (
    Contains, RefersTo, Supersedes, SameAs, Contradicts, Implies,
    DerivedFrom, InstanceOf, SubtypeOf, Causes, Precedes, Summarizes, Revises,
)


class HandlerRegistry:
    def __init__(self, handlers: Iterable[EdgeHandler] = ()):
        self._handlers: dict[str, EdgeHandler] = {}
        for handler in handlers:
            self.register(handler)

    @classmethod
    def default(cls) -> HandlerRegistry:
        """A registry of the thirteen built-in edge types."""
        return cls(handler() for handler in BUILTIN)

    def register(self, handler: EdgeHandler, *, replace: bool = False) -> None:
        if not isinstance(handler, EdgeHandler) or not isinstance(getattr(handler, "type", None), str):
            raise InvalidInput(f"{handler!r} does not implement the EdgeHandler protocol")
        if handler.type in self._handlers and not replace:
            raise InvalidInput(f"a handler for edge type {handler.type!r} is already registered")
        self._handlers[handler.type] = handler

    def get(self, edge_type: str) -> EdgeHandler:
        try:
            return self._handlers[edge_type]
        except KeyError:
            raise UnknownEdgeType(
                f"unknown edge type {edge_type!r}; registered types: {', '.join(sorted(self._handlers))}"
            ) from None

    def __contains__(self, edge_type: object) -> bool:
        return edge_type in self._handlers

    def types(self) -> list[str]:
        return sorted(self._handlers)

    def rewrite(self, plan: QueryPlan) -> QueryPlan:
        """Let every handler shape a read, in a fixed (sorted) order."""
        for edge_type in self.types():
            plan = self._handlers[edge_type].on_query_rewrite(plan)
        return plan

    def load_entry_points(self, group: str = ENTRY_POINT_GROUP) -> list[str]:
        """Register the handlers advertised by installed distributions; returns their types."""
        loaded = []
        for entry in entry_points(group=group):
            target = entry.load()
            handler = target() if isinstance(target, type) else target
            self.register(handler)
            loaded.append(handler.type)
        return loaded
