"""Scope arguments as every memory tool takes them: user_id, agent_id, app_id, run_id.

A call may name several scopes; a memory written with several belongs to each (one
contains edge from each Scope world). A call that names none falls back to the
configured default scope; with no default configured, or one the caller is not granted, it is
refused, saying which of the two (never which scope the default is). Scope keys are
written "kind:id" ("user:alice"), which is also what memory_purge_scope's confirm
argument must equal.

The reads every operation starts with live here too: the anchors of the named scopes,
an id looked up only inside them (a miss reads exactly like an unknown id, so scopes
never leak what exists elsewhere), and the scopes a node belongs to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from worlddb.core.errors import InvalidInput, NotFound
from worlddb.core.records import MEMORY_TYPES
from worlddb.core.store import ROWID_OF, Store
from worlddb.core.timeutil import now_us
from worlddb.graph.database import SCOPE_KINDS, check_scope

from .results import ScopeInfo, ScopeList


@dataclass(frozen=True)
class ScopeSet:
    """An ordered, de-duplicated set of (kind, id) pairs; never empty once resolved."""

    pairs: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, *, user: str | None = None, agent: str | None = None, app: str | None = None,
           run: str | None = None) -> ScopeSet:
        """The scopes named, checked: ScopeSet.of(user="alice", agent="planner")."""
        return resolve_scopes(user_id=user, agent_id=agent, app_id=app, run_id=run)

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
    default_withheld: bool = False,
) -> ScopeSet:
    """The scopes a call names, checked; if it names none, `default`; with neither, InvalidInput.

    :param default_withheld: the server has a default scope but this caller is not granted it
        (`Access.default_scopes` gave None): the refusal says so, without naming the scope, rather
        than that the server has none.
    """
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
    if default_withheld:
        raise InvalidInput("no scope given: pass user_id, agent_id, app_id or run_id (this server's default "
                           "scope is not granted to this caller)")
    raise InvalidInput(
        "no scope given: pass user_id, agent_id, app_id or run_id (this server has no default scope)"
    )


def parse_scope_key(key: str) -> tuple[str, str]:
    kind, sep, sid = key.partition(":")
    if not sep:
        raise InvalidInput(f"scope key {key!r} must look like kind:id, e.g. user:alice")
    return check_scope(kind, sid)


# ---------------------------------------------------------------------------- scoped reads
def unknown_scope(key: str) -> NotFound:
    """What a call naming a scope that does not exist - or that is outside its grant
    (worlddb.memory.access) - is told: the same words either way."""
    return NotFound(f"no scope {key} exists")


def unknown_id(node_id: str, scopes: ScopeSet, noun: str = "memory") -> NotFound:
    """What a call naming an id that is not inside its scopes - or naming scopes outside its
    grant - is told: the same words either way. `noun` is what the call asked for ("entity"
    for the entity reads)."""
    return NotFound(f"no {noun} with id {node_id} in {where(scopes)}")


def where(scopes: ScopeSet) -> str:
    """The scopes searched, for an error message: named when few, counted when many (a caller
    granted thousands of scopes gets a sentence, not their list)."""
    keys = scopes.keys
    if not keys:
        return "this database (it has no scopes yet)"
    if len(keys) <= 3:
        return f"scope {', '.join(keys)}"
    return f"the {len(keys)} scopes searched"


def scope_anchors(store: Store, scopes: ScopeSet) -> list[str]:
    """Anchors of the named scopes that exist (a scope never written to has none)."""
    return [a for a in (store.scope_anchor(kind, sid) for kind, sid in scopes) if a]


def require_in_scope(store: Store, node_id: str, scopes: ScopeSet, noun: str = "memory") -> str:
    """The anchor of `node_id` (full id or unique prefix) among the nodes inside `scopes`;
    a miss is `unknown_id(node_id, scopes, noun)`."""
    missing = unknown_id(node_id, scopes, noun)
    try:
        # only ids inside the scopes count, so a prefix shared with another scope's
        # memory is neither ambiguous nor answered with that memory's id; a miss reads
        # like an id that does not exist: scopes do not leak existence
        return store.resolve_id(node_id, within=scope_anchors(store, scopes))
    except NotFound:
        raise missing from None


def require_of_type(store: Store, node_id: str, scopes: ScopeSet, types: Sequence[str], done: str) -> str:
    """require_in_scope, and the node must be one of `types`; `done` says what was asked
    ("amended", "retired") for the error."""
    anchor = require_in_scope(store, node_id, scopes)
    kind = store.require(anchor).type
    if kind not in types:
        raise InvalidInput(f"{anchor} is a{'n' if kind[:1] in 'AEIOU' else ''} {kind}, not a memory; "
                           f"only a {', '.join(types[:-1])} or {types[-1]} can be {done}")
    return anchor


def scope_keys_of(store: Store, anchor: str) -> list[str]:
    """The keys of every scope that holds the node, sorted."""
    rows = store.conn.execute(
        "SELECT s.kind, s.sid FROM closure c JOIN nodes w ON w.rowid = c.world JOIN scopes s ON s.anchor = w.anchor "
        f"WHERE c.node = {ROWID_OF} ORDER BY s.kind, s.sid", (anchor,))
    return [scope_key(k, sid) for k, sid in rows]


_TEXT = ",".join("?" * len(MEMORY_TYPES))


def every_scope(store: Store) -> ScopeSet:
    """Every scope registered in the file, without counting what each holds."""
    return ScopeSet(tuple(store.conn.execute("SELECT kind, sid FROM scopes ORDER BY kind, sid")))


#: SQL: node `n` is not retired and not closed by the time bound to its one parameter (now): current,
#: or still to come; not one whose validity is empty (amended at its start, retired before it began)
HOLDS = ("(n.retired_at IS NULL AND (n.valid_to IS NULL OR (n.valid_to > ? AND n.valid_to > n.valid_from)))")


def list_scopes(store: Store, kind: str | None = None) -> ScopeList:
    """memory_list_scopes: every scope (of one kind), with its memories and conversation turns
    (MEMORY_TYPES, as memory_list lists them; not the consolidator's summaries) as of now: current
    (begun and not closed), upcoming (written with a valid_from still to come) and retired (closed
    by now: retired, superseded, or retired before they began)."""
    if kind is not None and kind not in SCOPE_KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(SCOPE_KINDS)}")
    now = now_us()
    rows = store.conn.execute(
        "SELECT s.kind, s.sid, "
        f" coalesce(sum(CASE WHEN {HOLDS} AND n.valid_from <= ? THEN 1 ELSE 0 END), 0), "
        f" coalesce(sum(CASE WHEN {HOLDS} AND n.valid_from > ? THEN 1 ELSE 0 END), 0), "
        " count(n.rowid) "
        "FROM scopes s JOIN nodes w ON w.anchor = s.anchor LEFT JOIN closure c ON c.world = w.rowid "
        f"LEFT JOIN nodes n ON n.rowid = c.node AND n.type IN ({_TEXT}) "
        "WHERE (CAST(? AS TEXT) IS NULL OR s.kind = ?) GROUP BY s.kind, s.sid ORDER BY s.kind, s.sid",
        (now, now, now, now, *MEMORY_TYPES, kind, kind),
    )
    return ScopeList([ScopeInfo(kind=k, id=sid, key=scope_key(k, sid), memories=live, retired=every - live - ahead,
                                upcoming=ahead)
                      for k, sid, live, ahead, every in rows])
