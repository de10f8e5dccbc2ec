"""Who may use which scopes: the `Access` every memory operation is called with.

    alice = Access("alice-laptop", ("user:alice", "agent:*"))
    engine.recall("where do I live?", ScopeSet.of(user="alice"), access=alice)   # allowed
    engine.recall("where do I live?", ScopeSet.of(user="bob"), access=alice)     # NotFound

An Access names a principal, the scopes it is granted and whether it may purge. A grant is
an exact scope key (``user:alice``), a kind with a trailing ``*`` (``agent:*``, every agent;
``user:team-*``, every user id that starts so) or ``*`` alone (every scope).

The rule is applied by the `Engine`, the one door every caller goes through (the MCP
tools, AsyncEngine, a Python program, a web page reading through the engine), before any
operation reads or writes:
- A call naming a scope outside the grant fails exactly as it would if the scope, or the
  id it names, did not exist: the same error class and wording, so the answer never
  reveals whether the scope exists. Nothing is read and nothing is changed.
- What a call returns names only granted scopes: the ``scopes`` lists of memories and
  hits, a memory's provenance, memory_list_scopes (`Access.redact`).
- memory_purge_scope also needs the admin flag (`Forbidden` otherwise).
- A call naming no scope uses the server's default scope if it is granted, else the one
  exact scope of a principal granted exactly one; with neither it is refused as having no
  scope (`Access.default_scopes`).

A caller that passes no Access is the owner of the file (`Access.owner()`): every scope,
admin. That is the local process that opened the database - the stdio server, `worlddb`
commands, a Python program - which could read the file directly anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any, TypeVar

from worlddb.core.errors import Forbidden, InvalidInput, NotFound
from worlddb.graph.database import SCOPE_KINDS, check_scope

from .scopes import ScopeSet, unknown_scope

T = TypeVar("T")

#: the grant that opens every scope
EVERY_SCOPE = "*"


def parse_grant(grant: str) -> str:
    """A grant in its canonical form, or InvalidInput saying what is wrong with it.

    :param grant: ``kind:id`` (exact), ``kind:prefix*`` (a prefix of ids of one kind;
        ``agent:*`` is every agent) or ``*`` (every scope).
    """
    if not isinstance(grant, str):
        raise InvalidInput("a grant must be text such as user:alice, agent:* or *")
    grant = grant.strip()
    if grant == EVERY_SCOPE:
        return grant
    kind, sep, sid = grant.partition(":")
    if not sep or kind not in SCOPE_KINDS:
        raise InvalidInput(f"grant {grant!r} must look like kind:id or kind:* with kind one of "
                           f"{', '.join(SCOPE_KINDS)} (or be * for every scope)")
    if sid.endswith("*"):
        prefix = sid[:-1]
        if "*" in prefix:
            raise InvalidInput(f"grant {grant!r}: only a trailing * is a wildcard")
        if prefix:
            check_scope(kind, prefix)
        return f"{kind}:{sid}"
    if "*" in sid:
        raise InvalidInput(f"grant {grant!r}: only a trailing * is a wildcard")
    kind, sid = check_scope(kind, sid)
    return f"{kind}:{sid}"


@dataclass(frozen=True)
class Access:
    """A principal, the scopes it is granted, and whether it may purge.

    :param principal: a name for logs and limits (a token's name, a JWT's subject, "owner").
    :param grants: scope keys and patterns (see `parse_grant`); canonicalised on creation.
    :param admin: may call memory_purge_scope (on granted scopes).
    """

    principal: str
    grants: tuple[str, ...] = ()
    admin: bool = False

    def __post_init__(self) -> None:
        canonical = tuple(dict.fromkeys(parse_grant(g) for g in self.grants))
        object.__setattr__(self, "grants", canonical)

    @classmethod
    def owner(cls, principal: str = "owner") -> Access:
        """The local owner of the file: every scope, admin."""
        return cls(principal, (EVERY_SCOPE,), admin=True)

    @property
    def sees_all(self) -> bool:
        return EVERY_SCOPE in self.grants

    def allows(self, key: str) -> bool:
        """Whether the scope key (``kind:id``) is granted."""
        if self.sees_all:
            return True
        for grant in self.grants:
            if grant.endswith("*"):
                if key.startswith(grant[:-1]):
                    return True
            elif key == grant:
                return True
        return False

    def admit(self, scopes: ScopeSet, missing: NotFound | None = None) -> ScopeSet:
        """`scopes` if every one is granted; else `missing` (by default: the first scope
        outside the grant does not exist), raised before anything is read."""
        for key in scopes.keys:
            if not self.allows(key):
                raise missing if missing is not None else unknown_scope(key)
        return scopes

    def admit_purge(self, scopes: ScopeSet) -> ScopeSet:
        if not self.admin:
            raise Forbidden("memory_purge_scope needs an admin grant, and this caller has none")
        return self.admit(scopes)

    def default_scopes(self, server_default: ScopeSet | None) -> ScopeSet | None:
        """The scope a call naming none acts on, for this principal."""
        if server_default is not None and all(self.allows(k) for k in server_default.keys):
            return server_default
        exact = [g for g in self.grants if not g.endswith("*")]
        if len(exact) == 1 and len(self.grants) == 1:
            kind, sid = exact[0].split(":", 1)
            return ScopeSet(((kind, sid),))
        return None

    def redact(self, value: T) -> T:
        """`value` (a result record, or a list of them) naming only granted scopes: every
        ``scopes`` list (of keys, or of records with a ``key``), every ``scope`` key, and
        the ``scopes``/``scope`` a provenance records are filtered; the rest is unchanged."""
        if self.sees_all:
            return value
        return self._redact(value)

    def _redact(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._redact(item) for item in value]
        if not is_dataclass(value) or isinstance(value, type):
            return value
        changes = {}
        for f in fields(value):
            current = getattr(value, f.name)
            if f.name == "scopes" and isinstance(current, list):
                changes[f.name] = [s for s in current if self.allows(s if isinstance(s, str) else s.key)]
            elif f.name == "scope" and isinstance(current, str):
                changes[f.name] = current if not current or self.allows(current) else ""
            elif f.name == "provenance" and isinstance(current, dict):
                changes[f.name] = self._provenance(current)
            elif isinstance(current, list) or is_dataclass(current):
                changes[f.name] = self._redact(current)
        return replace(value, **changes) if changes else value

    def _provenance(self, provenance: dict) -> dict:
        out = dict(provenance)
        if isinstance(out.get("scopes"), list):
            out["scopes"] = [k for k in out["scopes"] if isinstance(k, str) and self.allows(k)]
        if isinstance(out.get("scope"), str) and not self.allows(out["scope"]):
            del out["scope"]
        return out


__all__ = ["EVERY_SCOPE", "Access", "parse_grant"]
