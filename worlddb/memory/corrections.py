"""memory_amend, memory_retire and memory_retire_all: correcting what is remembered.

Content is immutable: amend writes a new memory that supersedes the old one (through the
supersedes handler, which closes the old one's validity where the new one begins). Retire
closes one memory's validity - or a wrongly extracted fact's - and nothing is deleted;
facts drawn only from a retired memory are retired with it. A memory retired as never true
(`wrong`, a valid_to at its start, or a planned change retired before it begins) holds at no
time, nor do those facts, and it ends nothing any more: what it superseded or changed, and its
facts' functional predecessors, are current again unless something else ended them
(worlddb.memory.succession.withdraw_changes). One retired otherwise held until its valid_to
(default now), and what it replaced stays replaced; retired later with `wrong`, it is then
retired as never true (its validity emptied in a transaction of its own, so reads pinned to a
transaction time before it see the first retirement), while a second retire without `wrong`
changes nothing (already_retired). retire_all ends everything it
retires, and restores nothing. Amend replaces a memory
(Memory, Turn); retire closes one of those or a fact. Any other id in scope (an entity, a
session, a consolidator's Summary) is InvalidInput: closing an entity would hide it from
every memory that names it, and a summary is derived from memories, rewritten by the next
consolidation pass. A retire or an amend ends, in its own write, every consolidator summary
quoting the memory it closes (worlddb.graph.stale_summaries): no current summary says what
was retired or replaced. retire_all closes everything open in the scopes, the consolidator's
summaries of what it retires included (none outlives its members as current text), and counts
the memories and turns.

An amend corrects a memory in every scope it is in, and retiring one closes it in all of them,
so a caller may amend or retire only a memory all of whose scopes it is granted: one shared with
a scope outside its grant is Forbidden (worded without naming that scope), checked when the
amend arrives and again at its commit. For the same reason retire_all is Forbidden, and retires
nothing, when anything current in the scopes is also in a scope outside the caller's grant; and
retire_all of a scope that does not exist is NotFound before it opens a write transaction.

An amend's commit checks the memory it replaces (and the caller's grant) once more inside the
write transaction that writes it, under the write lock: an amend that another server on the
same store committed first, or a retirement, refuses it as if it had come after.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from worlddb.core.errors import Conflict, Forbidden, InvalidInput
from worlddb.core.records import MEMORY_TYPES, TEXT_TYPES, NodeView
from worlddb.core.store import list_params, rowids_sql
from worlddb.core.timeutil import now_us, to_iso
from worlddb.graph.database import Writer

from . import succession
from .access import Access
from .ingest import TURN_ONLY_META
from .results import AmendResult, RetireAllResult, RetireResult
from .scopes import ScopeSet, require_of_type, scope_anchors, scope_key, scope_keys_of, unknown_scope
from .services import Services
from .succession import holds_at
from .write import Mentions, PreparedWrite, WriteRequest, check_text, commit, complete, prepare

#: what memory_amend replaces: the memories and turns memory_list returns
AMENDABLE = MEMORY_TYPES
#: memory_retire also closes a fact (an extracted fact can be wrong while its memory is right)
RETIRABLE = (*MEMORY_TYPES, "Fact")
#: what retire_all closes: those, and the consolidator's summaries inside the scopes
CLOSED_BY_RETIRE_ALL = (*TEXT_TYPES, "Fact")


@dataclass(frozen=True)
class AmendTarget:
    """What an amend replaces, read on the writer's thread: the caller's arguments and the
    request for the new memory (the old one's scopes and metadata, and when the new begins)."""

    memory_id: str
    scopes: ScopeSet
    reason: str | None
    valid_from: int | None
    request: WriteRequest
    #: the caller's access (None: the owner), checked again at the commit
    access: Access | None = None


@dataclass(frozen=True)
class PreparedAmend:
    """An amend ready to commit: its target and the new memory, prepared (worlddb.memory.write)."""

    target: AmendTarget
    write: PreparedWrite

    @property
    def mentions(self) -> Mentions:
        return self.write.mentions

    def with_names(self, vectors: Mapping[str, np.ndarray]) -> PreparedAmend:
        return replace(self, write=self.write.with_names(vectors))


def _superseded_by(store, old: str, scopes: ScopeSet) -> list[str]:
    """The memories of `scopes` that supersede `old`, newest first: the ones an amend of it should
    amend (one outside the caller's scopes is never named)."""
    newer = [e.src for e in store.edges(dst=old, type="supersedes")]
    inside = store.in_worlds(scope_anchors(store, scopes), newer) if newer else set()
    views = store.get_many(a for a in newer if a in inside)
    return sorted(views, key=lambda a: (-views[a].valid_from, a))


def amend(services: Services, memory_id: str, text: str, scopes: ScopeSet, *,
          reason: str | None = None, valid_from: int | None = None) -> AmendResult:
    """Write `text` as a new memory that supersedes `memory_id`. It becomes valid at
    `valid_from` (when the change happened; not before the old memory began), by default now
    - or, for a memory about the future, when that one starts."""
    target = amend_target(services, memory_id, text, scopes, reason=reason, valid_from=valid_from)
    return commit_amend(services, complete(services, prepare_amend(services, target)))


def amend_target(services: Services, memory_id: str, text: str, scopes: ScopeSet, *,
                 reason: str | None = None, valid_from: int | None = None, arrived: int | None = None,
                 access: Access | None = None) -> AmendTarget:
    """Check an amend against the memory it replaces (a read) and say what it writes. With
    `access`, a memory that is also in a scope outside its grant is Forbidden. `arrived`: when
    the call arrived, the "now" an amend without `valid_from` takes (default: as this runs)."""
    store = services.store
    old = require_of_type(store, memory_id, scopes, AMENDABLE, "amended")
    view = store.get(old)
    arrived = arrived or now_us()
    starts = valid_from if valid_from is not None else max(arrived, view.valid_from)
    if view.retired_at is not None or view.valid_to is not None and view.valid_to <= arrived:
        newer = _superseded_by(store, old, scopes)
        # what replaced it may lie in a scope the caller did not name: then it is named not at all
        why = " (it was retired)" if view.retired_at is not None else ""
        raise InvalidInput(f"memory {old} is no longer current: superseded by {', '.join(newer)}; amend that one"
                           if newer else f"memory {old} is no longer current{why}; write a new memory")
    keys = scope_keys_of(store, old)
    _check_shared(access, old, keys, "an amend corrects a memory in every scope it is in; nothing was written "
                                     "(write the correction as a new memory instead)")
    if valid_from is not None and valid_from < view.valid_from:
        raise InvalidInput(f"valid_from {to_iso(valid_from)} is before the memory it amends began "
                           f"({to_iso(view.valid_from)}); an amend takes over from the old memory. To say it "
                           "began earlier, retire it and write the memory again with that valid_from")
    if view.valid_to is not None and starts >= view.valid_to:
        # current now, but a planned change ends it: an amend takes over before that end
        order = _superseded_by(store, old, scopes)
        views = store.get_many(order)
        newer = [a for a in order if a in views and views[a].retired_at is None]
        raise InvalidInput(f"memory {old} ends at {to_iso(view.valid_to)}"
                           + (f", superseded by {', '.join(newer)}" if newer else "")
                           + f"; an amend from {to_iso(starts)} on would begin after it ended: "
                           + ("amend that one" if newer else "write its text again with that valid_from (the "
                              "plan that ended it was retired)"))
    # a turn's caption (what its photo showed) and ref (the caller's id of that message) are the
    # message's, not the correction's; who said it stays
    meta = {k: v for k, v in view.meta.items() if view.type != "Turn" or k not in TURN_ONLY_META}
    request = WriteRequest(text=check_text(text), scopes=ScopeSet(tuple(tuple(k.split(":", 1)) for k in keys)),
                           metadata=meta, valid_from=starts, entities=None,
                           facts=None, tool="memory_amend", supersedes=old, reason=reason)
    return AmendTarget(memory_id, scopes, reason, valid_from, request, access)


def prepare_amend(services: Services, target: AmendTarget) -> PreparedAmend:
    """The model's part of an amend; reads nothing from the store."""
    return PreparedAmend(target, prepare(services, [target.request]))


def commit_amend(services: Services, prepared: PreparedAmend) -> AmendResult:
    """Write a prepared amend. The memory it replaces is checked again (and the caller's grant
    of its scopes) before the judge, and once more inside the write transaction, under the
    write lock: had it been amended or retired since - by this server or another on the same
    store - this amend is refused as it would have been had it come after, and nothing is written."""
    target = prepared.target
    now = _checked_again(services, target)
    write = prepared.write
    if _written_as(now) != _written_as(target):
        # its scopes changed meanwhile (a scope purged): the new memory is prepared again, here
        write = complete(services, prepare(services, [replace(target.request, scopes=now.request.scopes,
                                                              metadata=now.request.metadata)]))

    def still_current() -> None:
        if _written_as(_checked_again(services, target)) != _written_as(now):
            raise Conflict(f"memory {target.memory_id} changed while this amend was being written; nothing "
                           "was written: amend it again")

    result = commit(services, write, check=still_current)[0]
    old = target.request.supersedes
    return AmendResult(id=result.id, supersedes=old, scopes=result.scopes, valid_from=result.valid_from,
                       conflicts=result.conflicts, revised=result.revised, superseded_by=result.superseded_by,
                       revised_by=result.revised_by)


def _checked_again(services: Services, target: AmendTarget) -> AmendTarget:
    """`amend_target` again, for the memory and caller of `target`: refused if it no longer may be amended."""
    return amend_target(services, target.memory_id, target.request.text, target.scopes, reason=target.reason,
                        valid_from=target.valid_from, access=target.access)


def _written_as(target: AmendTarget) -> tuple:
    """What of an amend's new memory the memory it replaces decides: its scopes and metadata."""
    return target.request.scopes, target.request.metadata


def _check_shared(access: Access | None, anchor: str, keys: list[str], why: str) -> None:
    """Forbidden if `access` is not granted every scope of `anchor` (naming none of them)."""
    if access is not None and not all(access.allows(k) for k in keys):
        raise Forbidden(f"memory {anchor} is also in a scope this caller may not write, and {why}")


def retire(services: Services, memory_id: str, scopes: ScopeSet, *, reason: str | None = None,
           valid_to: int | None = None, wrong: bool = False, access: Access | None = None) -> RetireResult:
    """Close a memory's (or a fact's) validity and mark it retired. `valid_to` says when it
    stopped being true (not later than now, not before it began); by default now, and what it
    replaced stays replaced. `wrong` says it never held (a mistake, a joke): its validity ends
    where it began, so no as_of finds it, and what it superseded or changed holds again unless
    something else ended it (`succession.withdraw_changes`); it takes no valid_to. A memory
    retired before it begins (a planned change), or with valid_to at its start, never held
    either. A memory retired before without `wrong`, retired again with it, is then retired as
    never true: its validity and that of the facts retired with it are emptied, their changes
    withdrawn, and `reason` (if given) replaces the reason it was retired with; when it was
    retired stays. Any other retire of a retired memory changes nothing (already_retired). With
    `access`, one that is also in a scope outside its grant is Forbidden."""
    store = services.store
    anchor = require_of_type(store, memory_id, scopes, RETIRABLE, "retired")
    _check_shared(access, anchor, scope_keys_of(store, anchor),
                  "retiring it would close it in every scope it is in; nothing was changed")
    view = store.require(anchor)
    if wrong and valid_to is not None:
        raise InvalidInput("wrong says the memory never held, so it takes no valid_to; give one without wrong "
                           "when it held until then")
    if valid_to is not None:
        if valid_to > now_us():
            raise InvalidInput("valid_to is in the future: a memory is retired as of now or earlier "
                               "(amend it with a valid_from to record a planned change)")
        if valid_to < view.valid_from:
            raise InvalidInput(f"valid_to {to_iso(valid_to)} is before the memory began ({to_iso(view.valid_from)})")
        if view.valid_to is not None and valid_to > view.valid_to and not view.retired:
            raise InvalidInput(f"the memory already stopped being valid at {to_iso(view.valid_to)}; "
                               "validity only ever ends earlier")
    never = wrong or view.valid_from > now_us() or (valid_to is not None and valid_to <= view.valid_from)
    if never:
        valid_to = view.valid_from
    # retired before as having held until then, and now found never to have held
    again = wrong and view.retired and _held(view)
    with services.db.write("retire") as w:
        if valid_to is not None and (again or not view.retired) and (view.valid_to is None or valid_to < view.valid_to):
            w.close(anchor, valid_to, "retired")
        changed = w.retire(anchor, reason)
        if again:
            w.restate_retirement(anchor, reason)
        if changed or again:
            facts = _retire_derived(services, w, anchor, reason) if changed else _retired_with(services, anchor)
            if never:  # its facts never held either, and what it ended holds again
                _never_held(services, w, facts)
                for retired in (anchor, *facts):
                    succession.withdraw_changes(services, w, retired)
    view = store.get(anchor)
    return RetireResult(id=anchor, retired=True, valid_to=to_iso(view.valid_to),
                        already_retired=not (changed or again))


def retire_all(services: Services, scopes: ScopeSet, *, access: Access | None = None) -> RetireAllResult:
    """Retire everything current in the scopes. With `access`, Forbidden (and nothing retired)
    if any of it is also in a scope outside the grant. The count is of the memories (and turns)
    that were current or still to come, as memory_list_scopes counts them (its memories and
    upcoming): the facts drawn from them, the consolidator's summaries inside the scopes, and
    memories already closed (superseded), are retired with them but not counted. A scope that
    does not exist is NotFound before anything is written, in the words a scope outside the
    caller's grant gets (`unknown_scope`: the engine has refused those already, so the answer
    tells a caller nothing it was not granted)."""
    for kind, sid in scopes:
        if not services.store.scope_anchor(kind, sid):
            raise unknown_scope(scope_key(kind, sid))
    count = 0
    with services.db.write("retire_all") as w:
        worlds = scope_anchors(services.store, scopes)
        if access is not None and not access.sees_all:
            outside = [k for k in _scopes_of_open_members(services, worlds) if not access.allows(k)]
            if outside:
                raise Forbidden("some memories of these scopes are also in a scope this caller may not write, "
                                "and retiring them would close them there too; nothing was retired")
        for node, kind, holds in _open_members(services, worlds):
            count += int(w.retire(node, "retire_all") and kind in MEMORY_TYPES and holds)
    return RetireAllResult(scopes=scopes.keys, retired=count)


def _scopes_of_open_members(services: Services, worlds: list[str]) -> list[str]:
    """The keys of every scope that holds something `retire_all` of `worlds` would retire."""
    rows = _open_member_rows(services, worlds, "DISTINCT s.kind, s.sid",
                             "JOIN closure o ON o.node = n.rowid JOIN nodes w ON w.rowid = o.world "
                             "JOIN scopes s ON s.anchor = w.anchor")
    return [scope_key(kind, sid) for kind, sid in rows]


def _open_members(services: Services, worlds: list[str]) -> list[tuple[str, str, bool]]:
    """(anchor, type, whether it holds now or later: succession.holds_at, as purge counts) of each
    node `retire_all` of `worlds` retires, oldest first."""
    rows = _open_member_rows(services, worlds, "DISTINCT n.rowid, n.anchor", order="ORDER BY n.rowid")
    views = services.store.get_many(anchor for _, anchor in rows)
    now = now_us()
    return [(anchor, views[anchor].type, holds_at(views[anchor], now)) for _, anchor in rows if anchor in views]


def _open_member_rows(services: Services, worlds: list[str], columns: str, joins: str = "",
                      order: str = "") -> list[tuple]:
    """`columns` of the nodes retire_all closes that are still open inside `worlds` (and what
    `joins` adds)."""
    if not worlds:
        return []
    return services.store.conn.execute(
        f"SELECT {columns} FROM closure c JOIN nodes n ON n.rowid = c.node {joins} "
        f"WHERE c.world IN {rowids_sql(len(worlds))} AND n.type IN ({','.join('?' * len(CLOSED_BY_RETIRE_ALL))}) "
        f"AND n.retired_at IS NULL {order}",
        (*list_params(worlds), *CLOSED_BY_RETIRE_ALL),
    ).fetchall()


def _retire_derived(services: Services, w: Writer, anchor: str, reason: str | None) -> list[str]:
    """Facts drawn only from a retired memory are retired with it; returns them."""
    return [fact for fact in _drawn_only_from(services, anchor) if w.retire(fact, reason or "source retired")]


def _retired_with(services: Services, anchor: str) -> list[str]:
    """The retired facts drawn only from `anchor`: those retired with it, when it was retired."""
    facts = services.store.get_many(_drawn_only_from(services, anchor))
    return [fact for fact, view in facts.items() if view.retired]


def _drawn_only_from(services: Services, anchor: str) -> list[str]:
    """The facts drawn from `anchor` and from no other memory still open."""
    store = services.store
    found = []
    for edge in store.edges(dst=anchor, type="derived_from"):
        sources = [e.dst for e in store.edges(src=edge.src, type="derived_from")]
        if not [s for s in sources if s != anchor and store.get(s).valid_to is None]:
            found.append(edge.src)
    return found


def _held(view: NodeView) -> bool:
    """Whether a node held at some time: its validity is not empty (retired or not)."""
    return view.valid_to is None or view.valid_to > view.valid_from


def _never_held(services: Services, w: Writer, facts: list[str]) -> None:
    """The facts of a memory retired as never true held at no time either: each ends where it began."""
    for fact, view in services.store.get_many(facts).items():
        if _held(view):
            w.close(fact, view.valid_from, "retired")
