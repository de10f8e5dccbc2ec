"""Export (`worlddb export`): what a scope remembers now, as the lines `worlddb import` reads.

    for line in export_lines(services, ScopeSet.of(user="alice")):
        print(json.dumps(line))

Each line is memory_write's arguments (the `jsonl` format of worlddb.memory.importing), with
the ids of the scopes exported that hold the memory (`user_id`, `agent_id`, `app_id`,
`run_id`; never a scope not asked for, which the caller may not be granted; as memory_write
takes one id of each kind, a memory shared by two exported scopes of one kind names the first
of them), oldest first - the order they were written in, so that an import meets changes in
the order they happened:
- a memory: `text`, `valid_from`, and its `metadata` when it has any;
- a run of one conversation's turns written together: `messages` (`role` the speaker,
  `content`, `time` the turn's valid time, and its `caption` and `ref` when it has them),
  `valid_from`, and `session`: the caller's session id where it had one, else one made from
  the session's id, so that later runs of the same session continue it on import.
Only what is current is exported (not what was superseded, retired or erased), and only
what a caller said: entities, facts, merge decisions and marks are what an import derives
again, and summaries are the consolidator's. A store with all of that, history included,
moves whole with `worlddb copy` (worlddb.core.copy).
"""

from __future__ import annotations

from collections.abc import Iterator

from worlddb.core.records import NodeView
from worlddb.core.store import list_params, rowids_sql
from worlddb.core.timeutil import now_us, to_iso
from worlddb.graph.edge_reads import hidden
from worlddb.memory.scopes import ScopeSet, parse_scope_key, scope_anchors, scope_keys_of
from worlddb.memory.services import Services

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
            yield _memory_line(services, view, asked)
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


def _memory_line(services: Services, view: NodeView, asked: set[str]) -> dict:
    line: dict = {"text": view.content, "valid_from": to_iso(view.valid_from)}
    if view.meta:
        line["metadata"] = dict(view.meta)
    return {**line, **_scope_ids(services, view.anchor, asked)}


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
