"""Entities and their merge proposals, as a reader and the person who runs the memory see them.

    read_node       memory_read: a memory in full, or for an entity id the entity in full
    read_entity     one entity: names, class, pending proposals, current facts (each once,
                    with the memories that state it), neighbours, and a page of the memories
                    that mention it or a member of its class, newest first; with
                    include_retired, also the facts that held once and no longer do, and the
                    mentions that no longer hold
    find_entities   the entities a name (exact name or alias, else fuzzy) or an id names
    list_proposals  the merge proposals of the caller's scopes, newest first
    decide          accept or reject one pending proposal
    export          everything held about an identity (or every identity in the scopes)

Scoping, as for memories (worlddb.memory.reading): an entity, a member of its class, the
other side of a proposal, a neighbour or a mention is named only if it lies inside the
caller's scopes. A proposal is seen, and can be decided, only when both of its entities
are; an id outside the scopes reads exactly like an unknown one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from worlddb.core import ids
from worlddb.core.errors import AmbiguousId, InvalidInput, NotFound
from worlddb.core.records import TEXT_TYPES, NodeView
from worlddb.core.store import Store, inside_sql, list_params, rowids_sql
from worlddb.core.timeutil import now_us, to_iso
from worlddb.graph import facts as factlib
from worlddb.graph import identity
from worlddb.resolver import MAX_NAME_LEN

from .reading import memory_out, parse_cursor, read_memory
from .results import (
    EntityDetail,
    EntityRef,
    FactOut,
    MemoryDetail,
    MemoryOut,
    PendingMerge,
    ProposalList,
    ProposalOut,
    RelatedEntity,
)
from .scopes import ScopeSet, require_in_scope, scope_anchors, scope_keys_of, where
from .services import Services

STATUSES = ("pending", "accepted", "rejected")
#: neighbours an entity read names: facts first, then the entities most often mentioned with it
RELATED_MAX = 12
#: facts read per entity class for its neighbours
_FACTS_READ = 200
_TEXT = ",".join("?" * len(TEXT_TYPES))


def read_node(services: Services, node_id: str, scopes: ScopeSet, *, cursor: str | None = None,
              include_retired: bool = False) -> MemoryDetail:
    """memory_read: the node in full; an entity's record carries the entity section (its
    text is its name), `cursor` pages its mentions and `include_retired` adds what no longer
    holds (read_entity). A memory's read shows its validity and all its facts, current or
    not, so `include_retired` changes nothing there."""
    detail = read_memory(services, node_id, scopes)
    if detail.type != "Entity":
        if cursor:
            raise InvalidInput("cursor pages the mentions of an entity; this id is a " + detail.type)
        return detail
    entity = read_entity(services, detail.id, scopes, cursor=cursor, include_retired=include_retired)
    # an erased entity's name is gone with its record: its text reads as erased, as a memory's does
    return replace(detail, text=None if detail.text is None else entity.name, entity=entity)


def read_entity(services: Services, entity_id: str, scopes: ScopeSet, *, limit: int = 20,
                cursor: str | None = None, include_retired: bool = False) -> EntityDetail:
    """The entity in full. With `include_retired`, its mentions take in the memories that no
    longer hold, and `past_facts` lists what used to be true of it (`_past_facts`)."""
    store = services.store
    anchor = _require_entity(store, entity_id, scopes)
    worlds = scope_anchors(store, scopes)
    view = store.require(anchor)
    members = _shown(store, worlds, identity.equivalence_class(store, anchor))
    names = store.get_many(members)
    mentions, next_cursor = _mentions(store, members, worlds, limit=limit, cursor=cursor,
                                      include_retired=include_retired)
    aliases = view.meta.get("aliases")
    facts = _facts(store, worlds, members)
    return EntityDetail(
        id=anchor, name=view.name, type=view.meta.get("entity_type"),
        aliases=[a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else [],
        scopes=scope_keys_of(store, anchor),
        same_as=sorted((EntityRef(m, names[m].name) for m in members if m != anchor and m in names),
                       key=lambda r: (r.name, r.id)),
        proposals=_pending(store, worlds, members), facts=_fact_outs(store, worlds, facts),
        related=_related(store, worlds, members, facts), mentions=mentions, next_cursor=next_cursor,
        past_facts=_past_fact_outs(store, worlds, _past_facts(store, worlds, members)) if include_retired else [])


def find_entities(services: Services, text: str, scopes: ScopeSet) -> list[EntityRef]:
    """The entities `text` names inside the scopes: the entity with that id (or unique id
    prefix), else those whose name or an alias is exactly it, else those whose name
    contains it as whole words, else what the resolver's tiers would match the name to
    (fuzzy, phonetic, embedding), else the entities its words name."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("give an entity's name or id")
    store = services.store
    worlds = scope_anchors(store, scopes)
    try:
        ids.check_prefix(text)
    except InvalidInput:
        pass
    else:
        try:
            return [_ref(store, _require_entity(store, text, scopes))]
        except (NotFound, InvalidInput):
            pass  # a name that looks like hex, or an id that is not an entity's
    def inside(anchors) -> list[str]:
        # the resolver's names are filed under the scope an entity was written in; the graph
        # layer may since have moved it out, so only what the scopes hold now is named
        anchors = list(dict.fromkeys(anchors))
        shown = _shown(store, worlds, anchors)
        return [a for a in anchors if a in shown]

    found = inside(services.resolver.entities_named(worlds, text))
    if not found:
        found = inside(services.resolver.entities_named(worlds, text, words=True))
    if not found and len(text) <= MAX_NAME_LEN:
        # the resolver's tiers, read-only: what a write of this name would be matched to
        found = inside(m.anchor for world in worlds for m in services.resolver.match(world, (text,)).matches)
    if not found:
        found = inside(m.anchor for m in services.resolver.find_mentions(worlds, text))
    return [_ref(store, anchor) for anchor in found]


def list_proposals(services: Services, scopes: ScopeSet, *, status: str | None = "pending",
                   limit: int | None = None) -> ProposalList:
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(STATUSES)}")
    store = services.store
    found = identity.proposals_within(store, scope_anchors(store, scopes), status, limit=limit)
    return ProposalList([_proposal_out(store, p, scopes) for p in found])


def decide(services: Services, proposal_id: str, scopes: ScopeSet, *, accept: bool,
           reason: str | None = None) -> ProposalOut:
    """Accept (the two entities join one class) or reject a pending proposal; a decided
    one is a Conflict. `proposal_id` is the full id or a unique prefix of >= 8 hex."""
    store = services.store
    prefix = ids.check_prefix(proposal_id)
    found = identity.proposals_within(store, scope_anchors(store, scopes), prefix=prefix, limit=11)
    if not found:
        raise unknown_proposal(proposal_id, scopes)
    if len(found) > 1:
        raise AmbiguousId(prefix, [p.id for p in found])
    with services.db.write("merge_decision") as w:
        decided = identity.decide(w, found[0].id, accept, reason)
    return _proposal_out(store, decided, scopes)


def export(services: Services, scopes: ScopeSet, entity_id: str | None = None) -> dict[str, Any]:
    """`export_identity` of one entity's identity, or of every identity in the scopes (each
    class once), cut to what the scopes hold: members, their mentions and names, and the
    proposals between visible members."""
    store = services.store
    worlds = scope_anchors(store, scopes)
    if entity_id is not None:
        anchors = [_require_entity(store, entity_id, scopes)]
    else:
        anchors = _entities_in(store, worlds)
    identities, seen = [], set()
    for anchor in anchors:
        if anchor in seen:
            continue
        record = services.resolver.export_identity(anchor)
        members = _shown(store, worlds, [m["id"] for m in record["members"]])
        seen |= members
        kept = []
        for member in record["members"]:
            if member["id"] not in members:
                continue
            member["scopes"] = [k for k in scope_keys_of(store, member["id"]) if k in scopes.keys]
            member["mentioned_by"] = sorted(_shown(store, worlds, member["mentioned_by"]))
            member["resolver_names"] = [n for n in member["resolver_names"] if n["scope"] in worlds]
            kept.append(member)
        record["members"] = kept
        record["proposals"] = [p for p in record["proposals"] if p["a"] in members and p["b"] in members]
        identities.append(record)
    return {"scopes": scopes.keys, "identities": identities}


def unknown_proposal(proposal_id: str, scopes: ScopeSet) -> NotFound:
    """What a call naming a proposal not in its scopes - or scopes outside its grant - is told."""
    return NotFound(f"no merge proposal with id {proposal_id} in {where(scopes)}")


# ---------------------------------------------------------------------------- internals
def _require_entity(store: Store, entity_id: str, scopes: ScopeSet) -> str:
    anchor = require_in_scope(store, entity_id, scopes, "entity")
    kind = store.require(anchor).type
    if kind != "Entity":
        raise InvalidInput(f"{anchor} is a{'n' if kind[:1] in 'AEIOU' else ''} {kind}, not an entity")
    return anchor


def _shown(store: Store, worlds: list[str], anchors) -> set[str]:
    batch = list(dict.fromkeys(anchors))
    return store.in_worlds(worlds, batch) if batch and worlds else set()


def _ref(store: Store, anchor: str) -> EntityRef:
    view = store.get(anchor)
    return EntityRef(anchor, view.name if view is not None else "")


def _pending(store: Store, worlds: list[str], members: set[str]) -> list[PendingMerge]:
    """Pending proposals between a member of the class and a visible entity outside it."""
    found = []
    for p in identity.proposals_touching(store, members, "pending"):
        other = p.b if p.a in members else p.a
        if other not in members:
            found.append((p, other))
    visible = _shown(store, worlds, [other for _, other in found])
    names = store.get_many(visible)
    return [PendingMerge(id=p.id, other_id=other, other_name=names[other].name, tier=p.tier, score=p.score)
            for p, other in found if other in names]


def _mentions(store: Store, members: set[str], worlds: list[str], *, limit: int, cursor: str | None,
              include_retired: bool) -> tuple[list[MemoryOut], str | None]:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 500:
        raise InvalidInput("limit must be an integer from 1 to 500")
    before = parse_cursor(store, cursor, worlds)
    if not members or not worlds:
        return [], None
    entities = sorted(members)
    validity, extra = ("", []) if include_retired else ("AND (n.valid_to IS NULL OR n.valid_to > ?)", [now_us()])
    rows = store.conn.execute(
        "SELECT DISTINCT n.rowid, n.anchor FROM edges e JOIN nodes n ON n.rowid = e.src "
        f"WHERE e.dst IN {rowids_sql(len(entities))} AND e.type='refers_to' AND e.seq_removed IS NULL "
        f"AND (n.type || '') IN ({_TEXT}) AND n.rowid < ? {validity} AND {inside_sql('n', len(worlds))} "
        "ORDER BY n.rowid DESC LIMIT ?",
        (*list_params(entities), *TEXT_TYPES, before, *extra, *list_params(worlds), *list_params(worlds),
         limit + 1)).fetchall()
    page, more = rows[:limit], len(rows) > limit
    views = store.get_many(anchor for _, anchor in page)
    return [memory_out(store, views[anchor]) for _, anchor in page], (page[-1][1] if more else None)


def _facts(store: Store, worlds: list[str], members: set[str]) -> list[NodeView]:
    """The current facts, inside the scopes, whose subject or object is a member, the most
    recently referred to first."""
    return _member_facts(store, worlds, members, "n.anchor, max(e.rowid) AS latest",
                         "(n.valid_to IS NULL OR n.valid_to > ?)", "GROUP BY n.anchor ORDER BY latest DESC")


def _past_facts(store: Store, worlds: list[str], members: set[str]) -> list[NodeView]:
    """The facts, inside the scopes, whose subject or object is a member, that held at some time
    and hold no more (a change ended them, or they were retired; not one retired as never true,
    whose validity is empty), the most recently ended first."""
    return _member_facts(store, worlds, members, "DISTINCT n.anchor, n.valid_to",
                         "n.valid_to <= ? AND n.valid_to > n.valid_from", "ORDER BY n.valid_to DESC, n.anchor")


def _member_facts(store: Store, worlds: list[str], members: set[str], columns: str, validity: str,
                  order: str) -> list[NodeView]:
    """The facts, inside the scopes, whose subject or object is a member (a refers_to edge to it)
    and whose validity meets `validity` (SQL of the fact's node `n`, with now as its one
    parameter), at most _FACTS_READ of them in the order `order` gives (SQL after the WHERE, over
    `columns`, the first of which is the fact's anchor)."""
    if not members or not worlds:
        return []
    entities = sorted(members)
    rows = store.conn.execute(
        f"SELECT {columns} FROM edges e JOIN nodes n ON n.rowid = e.src "
        f"WHERE e.dst IN {rowids_sql(len(entities))} AND e.type='refers_to' AND e.seq_removed IS NULL "
        f"AND (n.type || '')='Fact' AND {validity} AND {inside_sql('n', len(worlds))} {order} LIMIT ?",
        (*list_params(entities), now_us(), *list_params(worlds), *list_params(worlds), _FACTS_READ)).fetchall()
    views = store.get_many(row[0] for row in rows)
    # in the query's order (get_many's dict has no meaningful order)
    return [views[row[0]] for row in rows if row[0] in views]


def _fact_groups(store: Store, facts: list[NodeView]) -> tuple[dict[tuple, list[NodeView]], dict[str, NodeView]]:
    """The facts by (subject, relation, object) - a literal object case aside - in the order they
    come, and the entities they name."""
    refs = [(view, ref) for view, ref in ((view, factlib.as_fact(view)) for view in facts) if ref is not None]
    names = store.get_many({r.subject for _, r in refs} | {r.object for _, r in refs if r.object_is_entity})
    groups: dict[tuple, list[NodeView]] = {}
    for view, ref in refs:
        key = (ref.subject, ref.relation, ref.object if ref.object_is_entity else ref.object.casefold())
        groups.setdefault(key, []).append(view)
    return groups, names


def _fact_out(store: Store, worlds: list[str], views: list[NodeView], names: dict[str, NodeView]) -> FactOut:
    """One fact stated by `views` (one Fact node per memory that states it): the id and text of
    the first of them, the validity of them all - from the earliest start to the latest end
    (open if one is) - and all their memories inside the scopes as `sources`, newest first."""
    ref = factlib.as_fact(views[0])
    subject = names[ref.subject].name if ref.subject in names else ref.subject
    obj = (names[ref.object].name if ref.object in names else ref.object) if ref.object_is_entity else ref.object
    ends = [view.valid_to for view in views]
    return FactOut(id=ref.anchor, subject=subject, relation=ref.relation, object=obj, text=views[0].content or "",
                   valid_from=to_iso(min(view.valid_from for view in views)),
                   valid_to=None if None in ends else to_iso(max(ends)), sources=_sources(store, worlds, views))


def _fact_outs(store: Store, worlds: list[str], facts: list[NodeView]) -> list[FactOut]:
    """The facts, newest reference first, each (subject, relation, object) once: a fact that
    several memories state is listed with all of them (`_fact_out`), the id and text of its
    newest statement."""
    groups, names = _fact_groups(store, facts)
    return [_fact_out(store, worlds, views, names) for views in groups.values()]


def _past_fact_outs(store: Store, worlds: list[str], facts: list[NodeView]) -> list[FactOut]:
    """Past facts (`_past_facts`), each (subject, relation, object) once per stretch of time it
    held: statements whose intervals overlap or meet are one (`_fact_out`, the id and text of the
    latest to begin), one that held again later after a gap is listed again. The most recently
    ended first (ties: the latest begun)."""
    groups, names = _fact_groups(store, facts)
    stretches: list[list[NodeView]] = []
    for views in groups.values():
        ordered = sorted(views, key=lambda v: (v.valid_from, v.anchor))
        stretch = [ordered[0]]
        for view in ordered[1:]:
            if view.valid_from <= max(v.valid_to for v in stretch):
                stretch.append(view)
            else:
                stretches.append(stretch)
                stretch = [view]
        stretches.append(stretch)
    stretches.sort(key=lambda s: (max(v.valid_to for v in s), max(v.valid_from for v in s)), reverse=True)
    return [_fact_out(store, worlds, sorted(s, key=lambda v: (-v.valid_from, v.anchor)), names) for s in stretches]


def _sources(store: Store, worlds: list[str], facts: list[NodeView]) -> list[str]:
    """The memories inside the scopes that the facts were drawn from (derived_from), newest first."""
    stated = dict.fromkeys(m for view in facts for m in store.ends(view.anchor, "derived_from"))
    shown = _shown(store, worlds, stated)
    views = store.get_many(shown)
    return sorted((m for m in stated if m in views), key=lambda m: (views[m].valid_from, views[m].t_ingested),
                  reverse=True)


def _related(store: Store, worlds: list[str], members: set[str], facts: list[NodeView]) -> list[RelatedEntity]:
    """Entities linked to the class by one of its current facts (either way), then those
    most often mentioned in the same current memories; only those inside the scopes."""
    if not members or not worlds:
        return []
    links: dict[tuple[str, str], int] = {}
    for view in facts:
        ref = factlib.as_fact(view)
        if ref is None or not ref.object_is_entity:
            continue
        if ref.subject in members and ref.object not in members:
            key = (ref.object, ref.relation)
        elif ref.object in members and ref.subject not in members:
            key = (ref.subject, "<-" + ref.relation)
        else:
            continue
        links[key] = links.get(key, 0) + 1
    entities = sorted(members)
    marks = rowids_sql(len(entities))
    co_rows = store.conn.execute(
        "SELECT d.anchor, count(DISTINCT e.src) FROM edges e JOIN nodes n ON n.rowid = e.src "
        "JOIN edges o ON o.src = e.src AND o.type='refers_to' AND o.seq_removed IS NULL "
        "JOIN nodes d ON d.rowid = o.dst "
        f"WHERE e.dst IN {marks} AND e.type='refers_to' AND e.seq_removed IS NULL AND (n.type || '') IN ({_TEXT}) "
        f"AND (n.valid_to IS NULL OR n.valid_to > ?) AND {inside_sql('n', len(worlds))} AND o.dst NOT IN {marks} "
        "GROUP BY o.dst, d.anchor ORDER BY 2 DESC, d.anchor LIMIT ?",
        (*list_params(entities), *TEXT_TYPES, now_us(), *list_params(worlds), *list_params(worlds),
         *list_params(entities), 2 * RELATED_MAX)).fetchall()
    candidates = [(other, relation, count) for (other, relation), count in
                  sorted(links.items(), key=lambda item: (-item[1], item[0]))]
    linked = {other for other, _ in links}
    candidates += [(other, "mentioned with", count) for other, count in co_rows if other not in linked]
    visible = _shown(store, worlds, [c[0] for c in candidates])
    views = store.get_many(visible)
    out = []
    for other, relation, count in candidates:
        view = views.get(other)
        if view is not None and view.type == "Entity" and not view.erased:
            out.append(RelatedEntity(id=other, name=view.name, relation=relation, count=count))
    return out[:RELATED_MAX]


def _entities_in(store: Store, worlds: list[str]) -> list[str]:
    if not worlds:
        return []
    rows = store.conn.execute(
        f"SELECT DISTINCT n.anchor, n.rowid FROM closure c JOIN nodes n ON n.rowid = c.node "
        f"WHERE c.world IN {rowids_sql(len(worlds))} AND n.type='Entity' ORDER BY n.rowid", list_params(worlds))
    return [row[0] for row in rows]


def _proposal_out(store: Store, p: identity.Proposal, caller: ScopeSet) -> ProposalOut:
    views: dict[str, NodeView] = store.get_many([p.a, p.b])
    scopes = sorted((set(scope_keys_of(store, p.a)) | set(scope_keys_of(store, p.b))) & set(caller.keys))
    return ProposalOut(id=p.id, status=p.status, a=EntityRef(p.a, views[p.a].name if p.a in views else ""),
                       b=EntityRef(p.b, views[p.b].name if p.b in views else ""), tier=p.tier, score=p.score,
                       scopes=scopes, evidence=p.evidence if isinstance(p.evidence, dict) else {}, reason=p.reason)
