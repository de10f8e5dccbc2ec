"""Export (`worlddb export`): what a scope remembers now, as the lines `worlddb import` reads.

    for line in export_lines(services, ScopeSet.of(user="alice")):
        print(json.dumps(line))

Each line is memory_write's arguments (the `jsonl` format of worlddb.memory.importing), with
the ids of the scopes exported that hold the memory (`user_id`, `agent_id`, `app_id`,
`run_id`; never a scope not asked for, which the caller may not be granted; as memory_write
takes one id of each kind, a memory shared by two exported scopes of one kind names the first
of them), oldest first - the order they were written in, so that an import meets changes in
the order they happened:
- a memory: `text`, `valid_from`, and its `metadata` when it has any; and when its writer gave
  memory_write `entities` or `facts` (its provenance's extractor is "client"), both: the
  entities it names (`name`, `type`, `aliases`, as the entity was made) and its current facts
  (`subject`, `relation`, `object`, and `text` when the writer gave one), so that an import
  writes them rather than what the extractor would find (an empty list too: a writer that gave
  none asked for no extraction);
- a run of one conversation's turns written together: `messages` (`role` the speaker,
  `content`, `time` the turn's valid time, and its `caption` and `ref` when it has them),
  `valid_from`, and `session`: the caller's session id where it had one, else one made from
  the session's id, so that later runs of the same session continue it on import.
Only what is current is exported (not what was superseded, retired or erased), and only what a
caller said: the entities and facts the extractor found, an import finds again from the text.
What the store decided is not carried, and the memory_write format has no place for it: merge
decisions (an accepted or rejected proposal comes back pending, for `worlddb identity` to decide
again), the marks between memories (conflicts, revisions; `worlddb import --judge` judges each
memory again) and summaries (the consolidator's). A store with all of that, history included,
moves whole with `worlddb copy` (worlddb.core.copy).
"""

from __future__ import annotations

from collections.abc import Iterator

from worlddb.core.records import NodeView
from worlddb.core.store import list_params, rowids_sql
from worlddb.core.timeutil import now_us, to_iso
from worlddb.graph import facts as factlib
from worlddb.graph.edge_reads import hidden
from worlddb.memory.scopes import ScopeSet, parse_scope_key, scope_anchors, scope_keys_of
from worlddb.memory.services import Services
from worlddb.memory.write import MAX_ALIASES

#: nodes read at a time
CHUNK = 1000
#: turn metadata -> the message field it came from
_MESSAGE_FIELDS = (("turn_id", "ref"), ("caption", "caption"))


def export_lines(services: Services, scopes: ScopeSet) -> Iterator[dict]:
    """memory_write arguments for every current memory and conversation turn of `scopes`,
    oldest first (see the module docstring)."""
    store = services.store
    worlds = scope_anchors(store, scopes)
    if not worlds:
        return
    asked = set(scopes.keys)
    session: tuple[str, list[NodeView]] | None = None  # the run of turns being gathered
    for view in _current(services, worlds):
        if view.type == "Turn" and session is not None and session[0] == view.parent:
            session[1].append(view)
            continue
        if session is not None:
            yield _session_line(services, *session, asked, worlds)
            session = None
        if view.type == "Turn":
            session = (view.parent or "", [view])
        else:
            yield _memory_line(services, view, asked, worlds)
    if session is not None:
        yield _session_line(services, *session, asked, worlds)


def _current(services: Services, worlds: list[str]) -> Iterator[NodeView]:
    """The current memories and turns inside `worlds`, in the order they were written."""
    store = services.store
    plan = services.db.plan(include_closed=False)
    after = 0
    while True:
        rows = store.conn.execute(
            "SELECT DISTINCT n.rowid, n.anchor FROM closure c JOIN nodes n ON n.rowid = c.node "
            f"WHERE c.world IN {rowids_sql(len(worlds))} AND n.type IN ('Memory', 'Turn') AND n.rowid > ? "
            f"AND (n.valid_to IS NULL OR n.valid_to > ?) AND n.erased_at IS NULL ORDER BY n.rowid LIMIT {CHUNK}",
            [*list_params(worlds), after, now_us()]).fetchall()
        if not rows:
            return
        hide = hidden(store, plan, [anchor for _, anchor in rows])
        views = store.get_many(anchor for _, anchor in rows if anchor not in hide)
        for _, anchor in rows:
            if anchor in views and not views[anchor].retired:
                yield views[anchor]
        after = rows[-1][0]


def _scope_ids(services: Services, anchor: str, asked: set[str]) -> dict[str, str]:
    """memory_write's scope arguments for the exported scopes that hold `anchor`: the first of
    each kind (the keys come sorted)."""
    ids: dict[str, str] = {}
    for key in scope_keys_of(services.store, anchor):
        if key in asked:
            kind, sid = parse_scope_key(key)
            ids.setdefault(f"{kind}_id", sid)
    return ids


def _memory_line(services: Services, view: NodeView, asked: set[str], worlds: list[str]) -> dict:
    line: dict = {"text": view.content, "valid_from": to_iso(view.valid_from)}
    if view.meta:
        line["metadata"] = dict(view.meta)
    if view.provenance.get("extractor") == "client":
        line["entities"] = _given_entities(services, view, worlds)
        line["facts"] = _current_facts(services, view, worlds)
    return {**line, **_scope_ids(services, view.anchor, asked)}


def _given_entities(services: Services, view: NodeView, worlds: list[str]) -> list[dict]:
    """The entities the memory names (its mentions, not its speaker: the metadata names that
    one again), inside the exported scopes, as memory_write takes them; one per name and type
    (a memory in two scopes names an entity of each)."""
    store = services.store
    mentioned = [e.dst for e in store.edges(src=view.anchor, type="refers_to") if e.props.get("role") == "mention"]
    inside = store.in_worlds(worlds, mentioned) if mentioned else set()
    views = store.get_many(m for m in mentioned if m in inside)
    out: dict[tuple, dict] = {}
    for entity in (views[m] for m in mentioned if m in views):
        if entity.type != "Entity":
            continue
        item: dict = {"name": entity.name}
        if entity.meta.get("entity_type"):
            item["type"] = entity.meta["entity_type"]
        aliases = [a for a in entity.meta.get("aliases") or () if isinstance(a, str)]
        if aliases:
            item["aliases"] = aliases[:MAX_ALIASES]
        out.setdefault((item["name"], item.get("type")), item)
    return list(out.values())


def _current_facts(services: Services, view: NodeView, worlds: list[str]) -> list[dict]:
    """The memory's facts that are current (not retired, not closed by now), inside the exported
    scopes, as memory_write takes them; `text` only where it is not the one made from the names."""
    store = services.store
    derived = [e.src for e in store.edges(dst=view.anchor, type="derived_from")]
    inside = store.in_worlds(worlds, derived) if derived else set()
    views = store.get_many(d for d in derived if d in inside)
    now = now_us()
    out: dict[tuple, dict] = {}
    for fact in (views[d] for d in derived if d in views):
        ref = factlib.as_fact(fact)
        if ref is None or fact.retired or (fact.valid_to is not None and fact.valid_to <= now):
            continue
        subject = store.get(ref.subject)
        obj = store.get(ref.object) if ref.object_is_entity else None
        item = {"subject": subject.name if subject is not None else ref.subject, "relation": ref.relation,
                "object": obj.name if obj is not None else ref.object}
        made = f"{item['subject']} {ref.relation.replace('_', ' ')} {item['object']}"
        if fact.content and fact.content != made:
            item["text"] = fact.content
        out.setdefault(tuple(item.values()), item)
    return list(out.values())


def _session_line(services: Services, session: str, turns: list[NodeView], asked: set[str],
                  worlds: list[str]) -> dict:
    messages = []
    for turn in turns:
        message = {"role": turn.meta.get("speaker") or "user", "content": turn.content,
                   "time": to_iso(turn.valid_from)}
        message.update({field: turn.meta[key] for key, field in _MESSAGE_FIELDS if turn.meta.get(key)})
        messages.append(message)
    line = {"messages": messages, "session": _session_ref(services, session, worlds),
            "valid_from": messages[0]["time"]}
    return {**line, **_scope_ids(services, turns[0].anchor, asked)}


def _session_ref(services: Services, session: str, worlds: list[str]) -> str:
    """The caller's id of the session in one of the exported scopes (`worlds`), or one made
    from the session's id where it had none there."""
    row = services.store.conn.execute(
        f"SELECT ref FROM sessions WHERE session = {rowids_sql(1)} AND scope IN {rowids_sql(len(worlds))} "
        "ORDER BY ref LIMIT 1", [session, *list_params(worlds)]).fetchone()
    return row[0] if row else f"session-{session[:16]}"
