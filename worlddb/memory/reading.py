"""memory_list and memory_read: pages of memories in a scope, and one memory in full.

memory_list pages through the memories and conversation turns of a scope (MEMORY_TYPES), not
the Summary nodes the consolidator derives from them (those of its topic worlds and sessions).

Pages are ordered newest first by the node's row (ingestion order); the cursor is the id of
the last memory returned, so a page stays stable while new memories arrive. It is an id the
caller was shown, never a row number: those count every scope's writes, so a caller could
read from them how much others wrote between its calls. memory_read
re-derives the memory's id from its stored bytes (hash_check) as `worlddb verify` does
for the whole file.

Both follow the read plan the edge handlers rewrote (services.db.plan, worlddb.core.plan):
whether closed memories are listed, which edge types hide a memory (a hidden one is not
listed, and memory_read answers for it as for an unknown id), and which edges each memory
names (supersedes, superseded_by, conflicts, and custom types' marks under `annotations`).
"""

from __future__ import annotations

from worlddb.core import ids
from worlddb.core.errors import InvalidInput
from worlddb.core.records import MEMORY_TYPES, NodeView
from worlddb.core.store import Store, list_params, rowids_sql
from worlddb.core.timeutil import now_us, to_iso
from worlddb.graph import facts as factlib
from worlddb.graph import identity
from worlddb.graph.edge_reads import hidden
from worlddb.memory import marks as marklib
from worlddb.memory.results import EntityOut, FactOut, HashCheck, MemoryDetail, MemoryOut, Page
from worlddb.memory.scopes import HOLDS, ScopeSet, require_in_scope, scope_anchors, scope_keys_of, unknown_id
from worlddb.memory.services import Services

_TEXT = ",".join("?" * len(MEMORY_TYPES))


def list_memories(services: Services, scopes: ScopeSet, *, limit: int, cursor: str | None,
                  include_retired: bool) -> Page:
    worlds = scope_anchors(services.store, scopes)
    if not worlds:
        return Page(memories=[], next_cursor=None)
    store = services.store
    plan = services.db.plan(include_closed=include_retired)
    closed_too = not plan.filter_validity
    after = parse_cursor(store, cursor, worlds)
    kept: list[tuple[int, str]] = []
    # a hidden memory leaves a gap that rows further down fill
    while len(kept) <= limit:
        # current or still to come (a memory retired before it began ends in the future, retired)
        validity = "" if closed_too else f"AND {HOLDS}"
        params: list = [*list_params(worlds), *MEMORY_TYPES, after]
        if not closed_too:
            params.append(now_us())
        params.append(limit + 1)
        rows = store.conn.execute(
            "SELECT DISTINCT n.rowid, n.anchor FROM closure c JOIN nodes n ON n.rowid = c.node "
            f"WHERE c.world IN {rowids_sql(len(worlds))} AND n.type IN ({_TEXT}) AND n.rowid < ? "
            f"{validity} ORDER BY n.rowid DESC LIMIT ?",
            params,
        ).fetchall()
        hide = hidden(store, plan, [anchor for _, anchor in rows]) if rows else set()
        kept += [(rowid, anchor) for rowid, anchor in rows if anchor not in hide]
        if len(rows) <= limit:
            break
        after = rows[-1][0]
    page, more = kept[:limit], len(kept) > limit
    views = store.get_many(anchor for _, anchor in page)
    named = marklib.marks(store, plan, [anchor for _, anchor in page], worlds)
    memories = [memory_out(store, views[anchor], named.get(anchor, {})) for _, anchor in page]
    return Page(memories=memories, next_cursor=page[-1][1] if more else None)


def parse_cursor(store: Store, cursor: str | None, worlds: list[str]) -> int:
    """The row a page starts below: that of the memory a cursor names (the last one of the page
    before), which must be inside `worlds`; no cursor starts at the top."""
    if cursor is None or cursor == "":
        return 2**62
    row = None
    if isinstance(cursor, str) and len(cursor) == 64 and worlds:
        row = store.conn.execute(
            f"SELECT n.rowid FROM closure c JOIN nodes n ON n.rowid = c.node WHERE n.anchor = ? "
            f"AND c.world IN {rowids_sql(len(worlds))} LIMIT 1", (cursor, *list_params(worlds))).fetchone()
    if row is None:
        raise InvalidInput("cursor is not one this server returned")
    return row[0]


def memory_out(store: Store, view: NodeView, named: dict[str, list[str]] | None = None) -> MemoryOut:
    named = named or {}
    return MemoryOut(
        id=view.anchor, type=view.type, text=view.content, metadata=dict(view.meta),
        scopes=scope_keys_of(store, view.anchor), valid_from=to_iso(view.valid_from),
        valid_to=to_iso(view.valid_to), t_ingested=to_iso(view.t_ingested), retired=view.retired,
        retire_reason=view.retire_reason, supersedes=named.get("supersedes", []),
        superseded_by=named.get("superseded_by", []), conflicts=sorted(named.get("conflicts", ())),
        annotations=marklib.extra(named),
    )


def read_memory(services: Services, memory_id: str, scopes: ScopeSet) -> MemoryDetail:
    """The memory in full. Related memories, entities and facts (supersedes, superseded_by,
    contradicts, entities, facts) are named only if they lie inside the caller's scopes: an edge
    may lead into another scope, whose ids a reader of this one must not learn."""
    store = services.store
    anchor = require_in_scope(store, memory_id, scopes)
    worlds = scope_anchors(store, scopes)
    view = store.require(anchor)
    # a read by id shows closed memories too (with their interval), but not hidden ones
    plan = services.db.plan(include_closed=True)
    if anchor in hidden(store, plan, [anchor]):
        raise unknown_id(memory_id, scopes)
    named = marklib.marks(store, plan, [anchor], worlds).get(anchor, {})

    def shown(ids) -> list[str]:
        ids = list(dict.fromkeys(ids))
        inside = store.in_worlds(worlds, ids) if ids else set()
        return [i for i in ids if i in inside]

    # a memory shared with another scope names that scope's entities too: not shown here
    mentioned = shown(e.dst for e in store.edges(src=anchor, type="refers_to"))
    asked = set(scopes.keys)
    entity_views = store.get_many(mentioned)
    entities = []
    # in the order the memory names them (get_many's dict has no meaningful order)
    for e in (entity_views[m] for m in mentioned if m in entity_views):
        if e.type != "Entity":
            continue
        # accepted members of its class are the same entity; a pending proposal is only a lead
        same = identity.equivalence_class(store, e.anchor)
        other_of = {p.id: p.b if p.a == e.anchor else p.a
                    for p in identity.proposals_touching(store, [e.anchor], "pending")}
        visible = set(shown(o for o in other_of.values() if o not in same))
        # the scope it lives in, of those the caller named (as memory_write reports it)
        held = [key for key in scope_keys_of(store, e.anchor) if key in asked]
        entities.append(EntityOut(
            id=e.anchor, name=e.name, type=e.meta.get("entity_type"), resolution="linked",
            proposed_merge_with=sorted(visible), proposals=[pid for pid, o in other_of.items() if o in visible],
            scope=held[0] if held else "", same_as=sorted(shown(same - {e.anchor}))))
    derived_ids = shown(e.src for e in store.edges(dst=anchor, type="derived_from"))
    derived = store.get_many(derived_ids)
    facts = []
    for fact_view in (derived[d] for d in derived_ids if d in derived):
        ref = factlib.as_fact(fact_view)
        if ref is None:
            continue
        subject = store.get(ref.subject)
        obj = store.get(ref.object).name if ref.object_is_entity and store.get(ref.object) else ref.object
        facts.append(FactOut(id=ref.anchor, subject=subject.name if subject else ref.subject, relation=ref.relation,
                             object=obj, text=fact_view.content or "", valid_from=to_iso(fact_view.valid_from),
                             valid_to=to_iso(fact_view.valid_to), sources=[anchor]))
    return MemoryDetail(
        id=anchor, type=view.type, text=view.content, metadata=dict(view.meta),
        scopes=scope_keys_of(store, anchor), valid_from=to_iso(view.valid_from), valid_to=to_iso(view.valid_to),
        t_ingested=to_iso(view.t_ingested), retired=view.retired, retire_reason=view.retire_reason,
        provenance=_provenance(view.provenance, shown), entities=entities, facts=facts,
        supersedes=named.get("supersedes", []), superseded_by=named.get("superseded_by", []),
        contradicts=sorted(named.get("conflicts", ())), hash_check=hash_check(store, view),
        annotations=marklib.extra(named),
    )


def _provenance(provenance: dict, shown) -> dict:
    """The provenance a write recorded, without the ids it names (the memory it superseded,
    the memory a fact was drawn from) of nodes no longer inside the caller's scopes: the
    graph layer or a purge may since have left them only in another scope."""
    named = [v for value in provenance.values() for v in (value if isinstance(value, list) else [value])
             if isinstance(v, str) and ids.is_full_id(v)]
    if not named:
        return dict(provenance)
    inside = set(shown(named))
    out = {}
    for key, value in provenance.items():
        if isinstance(value, str) and ids.is_full_id(value):
            if value in inside:
                out[key] = value
        elif isinstance(value, list) and any(isinstance(v, str) and ids.is_full_id(v) for v in value):
            out[key] = [v for v in value if not (isinstance(v, str) and ids.is_full_id(v)) or v in inside]
        else:
            out[key] = value
    return out


def hash_check(store: Store, view: NodeView) -> HashCheck:
    row = store.conn.execute("SELECT record FROM nodes WHERE anchor=?", (view.anchor,)).fetchone()
    if row is None or row[0] is None:
        return HashCheck(ok=True, version=view.version, detail="content erased; the id remains as a tombstone")
    derived = ids.node_id(ids.genesis_body(bytes(row[0])))
    if derived != view.anchor:
        return HashCheck(ok=False, version=view.version, detail=f"stored bytes hash to {derived}")
    return HashCheck(ok=True, version=view.version, detail="blake3 of the stored record matches the id")
