"""Edge-type programs and the registry that dispatches to them (installed as worlddb.handlers).

    from worlddb.handlers import FunctionalRelation, HandlerRegistry
    registry = HandlerRegistry.default()                 # the thirteen built-in types
    registry.register(FunctionalRelation("lives_in"))
    registry.load_entry_points()                  # plug-ins, only when asked

Built-ins and plug-ins are registered the same way; the reconciler only ever asks the
registry. Plug-ins are advertised in the `worlddb.handlers` entry-point group, each
entry naming a handler class (instantiated without arguments) or a ready instance, and
are loaded explicitly - never as a side effect of importing WorldDB.
"""

from __future__ import annotations

from .base import EdgeContext, EdgeHandler, Relation
from .causes import Causes
from .contains import Contains
from .contradicts import Contradicts
from .derived_from import DerivedFrom
from .functional import FunctionalRelation
from .implies import Implies
from .instance_of import InstanceOf
from .precedes import Precedes
from .refers_to import RefersTo
from .registry import BUILTIN, ENTRY_POINT_GROUP, HandlerRegistry
from .revises import Revises
from .same_as import SameAs
from .subtype_of import SubtypeOf
from .summarizes import Summarizes
from .supersedes import Supersedes

__all__ = [
    "BUILTIN", "ENTRY_POINT_GROUP", "Causes", "Contains", "Contradicts", "DerivedFrom", "EdgeContext", "EdgeHandler",
    "FunctionalRelation", "HandlerRegistry", "Implies", "InstanceOf", "Precedes", "RefersTo", "Relation", "Revises",
    "SameAs", "SubtypeOf", "Summarizes", "Supersedes",
]
