"""memory_recall: the ranked memories of worlddb.retrieval, as the page a reader gets.

Ranking is retrieval's (lanes, fusion, the graph step, the slot step, the bitemporal pin),
under the read plan the edge handlers rewrote (services.db.plan: hides and visibility). This
module adds what a reader sees of each hit, asking each question once for the whole page: the
scopes it belongs to, the entities it names, and the marks of the plan (worlddb.memory.marks):
what it supersedes, what superseded it, what it conflicts with, and any custom edge type's
marks - named only where they lie in a scope the caller asked about.

Within a set of hits that conflict with one another, the newer valid-from ranks first: the set
keeps the places its members had on the page, and they are dealt out newest first. So does a
set of which one revises another in a recall pinned to a time (as_of or known_at). Unpinned,
retrieval has ordered revisions already: its successor step puts a reviser just ahead of what
it revised, unless the question is about someone the revision is not (worlddb.retrieval.
successors), and for a query about a slot (worlddb.extract.slots.asked: "Where do I work?") its
slot step puts the hits that state it first, newest first, so a revised memory that alone states
the asked slot - the part the revision left alone - stays above the revision.

A question about what held before (worlddb.retrieval.past.asks_before: "Where did I live
before?", "What was my old phone number?", "Which editor did I use to use?"), asked with the
history (include_retired, no time pin), is answered by what was replaced: in each set of hits
joined by a supersession or a revision, the members something later replaced come first, newest
first (the one right before what holds now), then the rest. Retrieval's slot step has put the
replaced statements of the asked slot first already, so a slot of many statements keeps the
replaced ones on the page. Without include_retired the replaced memories are not shown at all,
as the tool's contract says; with as_of the pin already says which time is meant.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from worlddb.core.plan import QueryPlan
from worlddb.core.store import Store, list_params, live_params, live_sql, rowids_sql
from worlddb.core.timeutil import to_iso
from worlddb.extract.slots import asked
from worlddb.retrieval.past import asks_before
from worlddb.retrieval.recall import Ranked, rank

from . import marks as marklib
from .results import Hit, RecallResult
from .scopes import ScopeSet, scope_anchors
from .services import Services


def recall(services: Services, query: str, scopes: ScopeSet, *, limit: int, as_of: int | None,
           known_at: int | None, include_retired: bool) -> RecallResult:
    worlds = scope_anchors(services.store, scopes)
    plan = services.db.plan(as_of=as_of, known_at=known_at, include_closed=include_retired)
    user = next((sid for kind, sid in scopes if kind == "user"), None)
    chosen = rank(services.sources, query, worlds, limit=limit, plan=plan, user=user)
    joined = _JOINED_BY_CONFLICT if asked(query) or (as_of is None and known_at is None) else _JOINED
    past = include_retired and as_of is None and known_at is None and asks_before(query)
    return RecallResult(results=_hits(services.store, chosen, plan, worlds, joined, past),
                        scopes_searched=scopes.keys)


def _hits(store: Store, chosen: list[Ranked], plan: QueryPlan, worlds: list[str],
          joined: tuple[str, ...], past: bool = False) -> list[Hit]:
    """Assemble the page of hits with one query per kind of annotation, not per hit."""
    if not chosen:
        return []
    conn = store.conn
    anchors = [found.view.anchor for found in chosen]
    live, pins = live_sql(plan.known_at is not None, "e"), live_params(plan.known_at)
    scopes: dict[str, list[str]] = defaultdict(list)
    for node, kind, sid in conn.execute(
            f"SELECT n.anchor, s.kind, s.sid FROM closure c JOIN nodes n ON n.rowid = c.node "
            f"JOIN nodes w ON w.rowid = c.world JOIN scopes s ON s.anchor = w.anchor "
            f"WHERE c.node IN {rowids_sql(len(anchors))} ORDER BY s.kind, s.sid", list_params(anchors)):
        scopes[node].append(f"{kind}:{sid}")
    named_by: list[tuple[str, str, str]] = conn.execute(
        f"SELECT s.anchor, n.anchor, n.name FROM edges e JOIN nodes n ON n.rowid = e.dst "
        f"JOIN nodes s ON s.rowid = e.src "
        f"WHERE e.src IN {rowids_sql(len(anchors))} AND e.type='refers_to' AND {live} AND (n.type || '')='Entity'",
        (*list_params(anchors), *pins)).fetchall()
    # a hit shared with another scope also names that scope's entities, whose names are not shown
    inside = store.in_worlds(worlds, list({entity for _, entity, _ in named_by})) if named_by else set()
    entities: dict[str, set[str]] = defaultdict(set)
    for src, entity, name in named_by:
        if entity in inside:
            entities[src].add(name)
    named = marklib.marks(store, plan, anchors, worlds)
    # a turn's session is named only if it lies inside the scopes too (the graph layer may
    # have put the turn, and not its session, in a scope)
    parents = {found.view.parent for found in chosen if found.view.type == "Turn" and found.view.parent}
    sessions = store.in_worlds(worlds, list(parents)) if parents else set()
    hits = []
    ordered = _newest_first_in_conflicts(chosen, named, joined)
    if past:
        ordered = _replaced_first(ordered, named)
    for found in ordered:
        view = found.view
        mine = named.get(view.anchor, {})
        hits.append(Hit(
            id=view.anchor, type=view.type, text=view.content or "", score=round(found.score, 6), lanes=found.lanes,
            valid_from=to_iso(view.valid_from), valid_to=to_iso(view.valid_to), retired=view.retired,
            scopes=scopes[view.anchor], entities=sorted(entities[view.anchor]),
            conflicts=sorted(mine.get("conflicts", ())), superseded_by=mine.get("superseded_by", []),
            speaker=speaker if isinstance(speaker := view.meta.get("speaker"), str) else None,
            session=view.parent if view.type == "Turn" and view.parent in sessions else None,
            supersedes=mine.get("supersedes", []), annotations=marklib.extra(mine), metadata=dict(view.meta)))
    return hits


#: the marks that join hits into a set ranked newest first
_JOINED = ("conflicts", "revised_by", "revises")
#: the same, where retrieval has ordered revisions (the successor and slot steps)
_JOINED_BY_CONFLICT = ("conflicts",)


#: the marks that join a history: what replaced what, in whole or in part
_HISTORY = ("supersedes", "superseded_by", "revises", "revised_by")


def _newest_first_in_conflicts(chosen: list[Ranked], named: dict[str, dict[str, list[str]]],
                               joined: tuple[str, ...]) -> list[Ranked]:
    """Each set of hits joined by the marks `joined` keeps its places on the page, filled
    newest first."""
    return _refill(chosen, named, joined, lambda i: (-chosen[i].view.valid_from, i))


def _replaced_first(chosen: list[Ranked], named: dict[str, dict[str, list[str]]]) -> list[Ranked]:
    """Each set of hits joined by a supersession or a revision keeps its places on the page,
    filled with the members a later one replaced first, each part newest first."""
    place = {found.view.anchor for found in chosen}

    def replaced(i: int) -> bool:
        marks = named.get(chosen[i].view.anchor, {})
        return any(o in place for key in ("superseded_by", "revised_by") for o in marks.get(key, ()))

    return _refill(chosen, named, _HISTORY, lambda i: (not replaced(i), -chosen[i].view.valid_from, i))


def _refill(chosen: list[Ranked], named: dict[str, dict[str, list[str]]], joined: tuple[str, ...],
            key: Callable[[int], tuple]) -> list[Ranked]:
    """Each set of hits joined by the marks `joined` keeps its places on the page, filled in
    the order of `key` (of a hit's index)."""
    place = {found.view.anchor: i for i, found in enumerate(chosen)}
    group = list(range(len(chosen)))

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for anchor, keys in named.items():
        for other in (o for key in joined for o in keys.get(key, ())):
            if anchor in place and other in place:
                group[root(place[anchor])] = root(place[other])
    sets: dict[int, list[int]] = defaultdict(list)
    for i in range(len(chosen)):
        sets[root(i)].append(i)
    out = list(chosen)
    for members in sets.values():
        if len(members) > 1:
            for spot, i in zip(sorted(members), sorted(members, key=key)):
                out[spot] = chosen[i]
    return out
