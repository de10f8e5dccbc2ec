"""Scope arguments as every memory tool takes them: user_id, agent_id, app_id, run_id.

A call may name several scopes; a memory written with several belongs to each (one
contains edge from each Scope world). A call that names none falls back to the
configured default scope; with no default configured it is refused. Scope keys are
written "kind:id" ("user:alice"), which is also what memory_purge_scope's confirm
argument must equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from worlddb.graph.database import SCOPE_KINDS, check_scope
from worlddb.core.errors import InvalidInput


@dataclass(frozen=True)
class ScopeSet:
    """An ordered, de-duplicated set of (kind, id) pairs; never empty once resolved."""

    pairs: tuple[tuple[str, str], ...]

    @property
    def keys(self) -> list[str]:
        return [f"{kind}:{sid}" for kind, sid in self.pairs]

    def __iter__(self):
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)


def scope_key(kind: str, sid: str) -> str:
    return f"{kind}:{sid}"


def resolve_scopes(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    app_id: str | None = None,
    run_id: str | None = None,
    default: ScopeSet | None = None,
) -> ScopeSet:
    given = {"user": user_id, "agent": agent_id, "app": app_id, "run": run_id}
    pairs = []
    for kind in SCOPE_KINDS:
        value = given[kind]
        if value is None:
            continue
        if not isinstance(value, str):
            raise InvalidInput(f"{kind}_id must be a string")
        pairs.append(check_scope(kind, value))
    if pairs:
        return ScopeSet(tuple(pairs))
    if default is not None and len(default):
        return default
    raise InvalidInput(
        "no scope given: pass user_id, agent_id, app_id or run_id (this server has no default scope)"
    )


def parse_scope_key(key: str) -> tuple[str, str]:
    kind, sep, sid = key.partition(":")
    if not sep:
        raise InvalidInput(f"scope key {key!r} must look like kind:id, e.g. user:alice")
    return check_scope(kind, sid)
