"""Hybrid recall: ranked lanes fused by reciprocal rank fusion, then spread along the graph.
Deterministic, and no model runs at read time (query vectors come from a lookup table,
worlddb.vectors.static_query, unless the engine was opened with query_model=True).

Lanes (worlddb.retrieval.lanes), each restricted to the scopes asked about: bm25 (FTS5),
vector (HNSW over whole texts), sentence (HNSW over sentence units), entity (memories that
refer to entities the query names, or to members of their accepted same_as classes),
entity_pending (the same through pending merge proposals), speaker (what the entities the
query names said, by sentence vector to the rest of the query), answer_type (the same
turns, by sentence vector to the rest of the query plus the word naming what it asks
for: "activities"), typed (texts naming an entity of the kind the query asks for: "which
cities", worlddb.retrieval.typed_lane), global (members of the topic worlds the query
selects, worlddb.retrieval.global_lane). Fusion (worlddb.retrieval.fusion)
is weighted reciprocal rank fusion. Summaries of topic worlds are never results: their
members are.

Length prior (worlddb.retrieval.brevity): a conversational turn of fewer than 12 words keeps
that share of its fused score ("Thanks, Mel!" matches through a name, and states nothing),
unless it replies to a question ("Biscuit." after "Name?") or states a slot's value ("I moved
to Bergen!"); memories keep theirs. A turn also keeps of its own score only 1 - the share of its
words in questions (brevity.QUESTION_DAMPING): a question names what it asks about and states
none of it; it still lifts its neighbours - the answer - by its whole score in the graph step.

Graph step (worlddb.retrieval.propagation): turns of a conversation are chained by precedes edges
inside their session world, and an answer usually sits next to the turn that matches the
question. So each node's fused score is raised by half the best score within two
precedes-hops of it, and those neighbours join the candidates; neighbourhoods are read
for the best candidates first, as far as the ranking of the top results needs. A question
that asks for a list, a count or a span (global_lane.aggregates) spreads by 0.35 instead
(propagation.AGGREGATE_PROPAGATION): its evidence is many turns across sessions, and the
neighbours of its best hits would otherwise take the places of the rest. Nodes
without precedes edges (plain memories) are unaffected. A neighbour joins only if it
lies inside the asked scopes: a precedes edge may cross into another scope's memories.

Every candidate then passes the read plan the edge handlers rewrote (worlddb.core.plan):
the bitemporal pin (as_of valid time, known_at transaction time) - closed (superseded,
retired) nodes are hidden as the supersedes handler asks unless include_retired, and come
back with their closed interval when asked for - and any edge-type hide.

Slot step (worlddb.retrieval.slot_preference): a question about one slot of one subject
("Where do I work?") puts the candidates that state that slot first, newest first, ahead of
same-topic ones that do not ("The office coffee machine broke"). The candidates are the
lanes' best and, for a query pinned to no time, the newest current memories the claims index
(worlddb.retrieval.claims) holds for that subject and slot: in a scope of thousands, the
statement of a slot may rank below the window the step reads ("claims" in its lanes). Each
result lists the lanes that found it with its rank there ("context": the fused rank of the
neighbour that lifted it). What a reader sees of each (scopes, entities, conflicts,
replacements) is the memory layer's business (worlddb.memory.search).

A question about what held before, asked with the history ("What was my old job?",
worlddb.retrieval.past), has the slot step put the statements a later one replaced first.

Successor step (worlddb.retrieval.successors), before the slot step: in a recall pinned to no
time, a newer text that superseded or revised a candidate comes just ahead of it (lane
"successor"), brought in if the lanes missed it: a revised memory keeps the words the question
matched, its reviser holds what is true now. The lanes rank closed texts too, and in such a
recall a superseded one, hidden, gives its place to the current end of its chain of
supersessions (lane "successor": that place), admitted as the lanes' candidates are. The slot
step then still puts a slot's statements first, so a memory revised in one part ("I live in Lyon
and work at Renault", then "We moved to Nantes") answers first for the part that stands ("Where
do I work?").

Named step (worlddb.retrieval.named), first of the steps: a query that names a person exactly by
a full name ("What does my coworker Ana Kovac do?") puts the candidates the entity lane found
ahead of those only the entity_pending lane found (a namesake a pending proposal links to it:
the sister "Ana"), in the places the two hold (lane "named").

Identifier step (worlddb.retrieval.identifiers), before the successor step: a query that names a
code ("What is OPS-2 about?") puts the candidates that name every code it names first (lane
"identifier"); a newer text that changed one of them still comes just ahead of it. Asked where
the thing stands now ("What's the status of BL-204?"), those candidates come newest first, and
the slot step leaves the code's own slots to that order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from itertools import islice

from worlddb.core.plan import QueryPlan
from worlddb.core.records import TEXT_TYPES, NodeView
from worlddb.core.timeutil import now_us
from worlddb.extract.slots import ME, asked
from worlddb.graph import identity
from worlddb.graph.edge_reads import hidden
from worlddb.resolver.outcomes import Mention

from . import brevity, claims, identifiers, named, propagation, slot_preference, successors
from .fusion import fuse
from .global_lane import aggregates
from .lanes import LANE_DEPTH, LANE_FLOOR, eligible, run_lanes
from .past import asks_before
from .sources import Sources


@dataclass(frozen=True)
class Ranked:
    """One recalled node: its view under the asked pins, its final score, and the lanes
    that found it with its rank in each."""

    view: NodeView
    score: float
    lanes: dict[str, int]


def rank(sources: Sources, query: str, worlds: list[str], *, limit: int, as_of: int | None = None,
         known_at: int | None = None, include_retired: bool = False, plan: QueryPlan | None = None,
         weights: Mapping[str, float] | None = None, user: str | None = None) -> list[Ranked]:
    """The best `limit` text nodes inside `worlds` (scope world anchors) for `query`, under
    `plan` (the registry's rewrite of the pins; without one, closed nodes are hidden unless
    include_retired). `weights` replaces the fusion's lane weights (bench.locomo's ablations);
    `user` is the scope's user (a memory whose metadata names the user as its speaker speaks
    as "me", worlddb.retrieval.slot_preference)."""
    if not worlds:
        return []
    if plan is None:
        plan = QueryPlan(as_of=as_of, known_at=known_at, include_closed=include_retired,
                         filter_validity=not include_retired)
    as_of, known_at, include_closed = plan.as_of, plan.known_at, not plan.filter_validity
    store = sources.store
    keys, codes = asked(query), identifiers.identifiers(query)
    mentions = sources.resolver.find_mentions(worlds, query)
    people = _people(store, mentions)
    in_full = named.in_full(query, [m for m in mentions if m.anchor in people])
    wanted = limit + (slot_preference.EXTRA if keys or codes or in_full else 0)
    depth = max(LANE_FLOOR, limit * LANE_DEPTH)
    pinned = as_of is not None or known_at is not None or include_closed
    # the lanes rank closed texts too: pinned, they may be shown; unpinned, a superseded one
    # gives its place to the text that replaced it (successors.standing_in)
    lanes = run_lanes(sources, query, worlds, depth, open_only_at=None, mentions=mentions)
    scores, ranks = fuse(lanes, weights)
    scores, own = brevity.damp_turns(store, scores)
    fused_rank = {rowid: i for i, rowid in enumerate(sorted(scores, key=lambda r: (-scores[r], r)), start=1)}
    # a precedes edge may lead out of the asked scopes: neighbours join only from inside them
    spread = propagation.AGGREGATE_PROPAGATION if aggregates(query) else propagation.PROPAGATION
    order = propagation.ranked(store.conn, scores, admit=lambda rowids: eligible(store, worlds, rowids, None),
                               spread=spread, own=own)
    chosen: list[Ranked] = []
    taken: set[str] = set()
    admit = _admitter(store, worlds, plan, include_closed) if not pinned else None
    # Read records a batch at a time, in rank order. The lanes only rank nodes inside the
    # scopes, so the first `limit` nearly always make the page; each record costs random
    # page reads in a large file, so the first batch reads no more, and later ones (a pin
    # hid some) read twice as many.
    batch = wanted
    while len(chosen) < wanted:
        chunk = list(islice(order, batch))
        batch = max(2 * wanted, 20)
        if not chunk:
            break
        anchors = store.anchors_for_rowids([rowid for rowid, _, _ in chunk])
        views = store.get_many(anchors.values())
        hide = hidden(store, plan, list(views)) if plan.hides else set()
        texts = [(rowid, final, lifted_by, view, store.visible(view, as_of, known_at, include_closed=include_closed))
                 for rowid, final, lifted_by in chunk
                 if (view := views.get(anchors.get(rowid, ""))) is not None and view.type in TEXT_TYPES
                 and not _indexes_topic(view) and view.anchor not in hide]
        closed = [view.anchor for _, _, _, view, seen in texts if seen is None]
        replacing = successors.standing_in(store, closed, admit) if admit and closed else {}
        for rowid, final, lifted_by, view, seen in texts:
            if seen is None:
                seen = replacing.get(view.anchor)
                own = ranks.get(store.rowid(seen.anchor), {}) if seen is not None else {}
                found_in = {**own, "successor": len(chosen) + 1}
            else:
                found_in = dict(ranks.get(rowid, {}))
                if lifted_by is not None:
                    found_in["context"] = fused_rank[lifted_by]
            if seen is None or seen.anchor in taken:
                continue
            taken.add(seen.anchor)
            chosen.append(Ranked(seen, final, found_in))
            if len(chosen) == wanted:
                break
    if in_full:
        chosen = [replace(r, lanes={**r.lanes, "named": place}) if place is not None else r
                  for r, place in named.first(chosen, lambda r: r.lanes)]
    if keys and not pinned:
        chosen += _claimed(sources, worlds, keys, chosen, plan)
    if codes:
        now = identifiers.asks_now(query)
        moved = identifiers.first(codes, chosen, lambda r: r.view.content or "",
                                  (lambda r: (r.view.valid_from, r.view.created_at)) if now else None)
        chosen = [replace(r, lanes={**r.lanes, "identifier": place}) if place is not None else r for r, place in moved]
        if now and any(place is not None for _, place in moved):
            # the texts naming the code stand newest first: the slot step, whose rules read a status
            # only in some words, does not lift an older one it reads above them
            keys = tuple(key for key in keys if key.subject not in codes)
    if as_of is None and known_at is None:
        chosen = _successors_ahead(store, worlds, plan, chosen, include_closed, people)
    if keys:
        chosen = slot_preference.prefer(keys, chosen, user=user, replaced=lambda view: _replaced(store, view),
                                        query=query, changed_by=lambda view: _changed_by(store, view),
                                        ambiguous=sources.resolver.namesakes(worlds, _first_names(keys)),
                                        before=include_closed and as_of is None and known_at is None
                                        and asks_before(query))
    return chosen[:limit]


def _first_names(keys) -> set[str]:
    """The first words of the asked subjects that may be a person's first name ("sam" of "sam
    lee", and of "sam"): the slot step takes one that begins several known names for none."""
    return {key.subject.split()[0] for key in keys if key.subject and key.subject != ME and "'" not in key.subject}


def _people(store, mentions: list[Mention]) -> frozenset[str]:
    """The entities of the people the query names, with their accepted same_as classes."""
    views = store.get_many(sorted({m.anchor for m in mentions}))
    named = [a for a, view in views.items() if view.meta.get("entity_type") == "person"]
    return frozenset().union(*identity.classes_of(store, named)) if named else frozenset()


def _admitter(store, worlds: list[str], plan: QueryPlan,
              include_closed: bool) -> Callable[[list[str]], dict[str, NodeView]]:
    """A function from anchors to the views of those of them a recall pinned to no time may
    show: inside `worlds`, not hidden by `plan`, no topic summary, and open now unless
    `include_closed`."""

    def admit(anchors: list[str]) -> dict[str, NodeView]:
        views = store.get_many(anchors)
        rowids = {anchor: store.rowid(anchor) for anchor in views}
        inside = eligible(store, worlds, [r for r in rowids.values() if r is not None], None)
        hide = hidden(store, plan, list(views)) if plan.hides else set()
        shown = {}
        for anchor, view in views.items():
            if rowids[anchor] in inside and anchor not in hide and not _indexes_topic(view):
                seen = store.visible(view, None, None, include_closed=include_closed)
                if seen is not None:
                    shown[anchor] = seen
        return shown

    return admit


def _successors_ahead(store, worlds: list[str], plan: QueryPlan, chosen: list[Ranked],
                      include_closed: bool, people: frozenset[str]) -> list[Ranked]:
    """`chosen` with the newer texts that superseded or revised a candidate just ahead of it
    (worlddb.retrieval.successors), each admitted as the lanes' candidates are; where the query
    names `people`, only revisions that refer to one of them."""

    admit = _admitter(store, worlds, plan, include_closed)
    newer, brought = successors.newer_texts(store, {found.view.anchor: found.view for found in chosen}, admit)
    newer = successors.about(store, newer, people)
    if not newer:
        return chosen
    by_anchor = {found.view.anchor: found for found in chosen}
    out = []
    for anchor, ahead_of in successors.order([found.view.anchor for found in chosen], newer):
        found = by_anchor.get(anchor)
        if found is None:
            found = Ranked(brought[anchor], chosen[ahead_of - 1].score, {})
        if ahead_of is not None:
            found = replace(found, lanes={**found.lanes, "successor": ahead_of})
        out.append(found)
    return out


def _replaced(store, view: NodeView) -> list[NodeView]:
    """The memories or turns `view` supersedes or revises (current or not)."""
    edges = [e for kind in successors.CHANGES for e in store.edges(src=view.anchor, type=kind)]
    return _texts(store, [e.dst for e in edges])


def _changed_by(store, view: NodeView) -> list[NodeView]:
    """The memories or turns that supersede or revise `view`."""
    edges = [e for kind in successors.CHANGES for e in store.edges(dst=view.anchor, type=kind)]
    return _texts(store, [e.src for e in edges])


def _texts(store, anchors: list[str]) -> list[NodeView]:
    return [v for v in store.get_many(anchors).values() if v.type in TEXT_TYPES]


def _claimed(sources: Sources, worlds: list[str], keys, chosen: list[Ranked], plan: QueryPlan) -> list[Ranked]:
    """The current memories the claims index says state an asked slot, beyond those the lanes
    brought (newest first, at most slot_preference.EXTRA): in a scope of thousands of
    memories the statement of a slot can rank below the window the slot step reads. Turns
    too, for a slot that holds one value at a time (where someone lives, works): of a slot of
    many values (activities, pets) a conversation's newest mentions are no answer."""
    store = sources.store
    have = {found.view.anchor for found in chosen}
    wanted = {k for asked_key in keys if (k := claims.key(asked_key.subject, asked_key.attribute)) is not None}
    single = {k for k in wanted if claims.single_valued(k[1])}
    limit, now = slot_preference.EXTRA + len(have), now_us()
    rowids = sorted(set(claims.claiming(store, worlds, wanted - single, limit=limit, now=now, types=("Memory",))
                        + claims.claiming(store, worlds, single, limit=limit, now=now)), reverse=True)[:limit]
    anchors = store.anchors_for_rowids(rowids)
    fresh = [anchors[r] for r in rowids if r in anchors and anchors[r] not in have][:slot_preference.EXTRA]
    if not fresh:
        return []
    views = store.get_many(fresh)
    hide = hidden(store, plan, fresh) if plan.hides else set()
    out = []
    for place, anchor in enumerate(fresh, start=1):
        view = views.get(anchor)
        if view is None or view.type not in TEXT_TYPES or anchor in hide:
            continue
        seen = store.visible(view, None, None, include_closed=False)
        if seen is not None:
            out.append(Ranked(seen, 0.0, {"claims": place}))
    return out


def _indexes_topic(view: NodeView) -> bool:
    """A summary of a topic world: it stands for the members the global lane draws, and is
    never a result in their place."""
    return view.type == "Summary" and view.meta.get("of_topic") is True
