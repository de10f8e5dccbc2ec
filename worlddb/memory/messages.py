"""memory_write with `messages`: a conversation's turns, written as one Session world.

    messages = [{"role": "Caroline", "content": "I went to a support group yesterday.",
                 "time": "2023-05-08T13:56:00Z", "caption": None, "ref": "D1:1"}, ...]

Each message is a turn: `role` is who said it (a speaker's name, or user / assistant; "user"
is the scope's user and assistant, system and tool are no one's name: worlddb.memory.ingest),
`content` what was said; optional `time` (ISO-8601: when it was said; default the time of the
message before it, and for the first the call's `valid_from`, else when the call arrived -
AsyncEngine stamps it as it stamps a plain write - else now), `caption` (a description of an
image shared with it) and `ref` (the caller's id for the message, returned with the turn's id).
A call's messages are one session, written in one transaction by the ingest machinery
(worlddb.memory.ingest), so a client gets exactly the structure `Engine.ingest_conversation`
builds: a Session world of Turn nodes chained by precedes, each referring to its speaker and the
entities it names. `session` is the caller's id for the conversation: a later call with the same
id, in the same scopes, continues the same world and chain. A client may send only what is new, or
the whole conversation (or its last part) each time: the call's opening messages that repeat the
session's last turns in order, and a message whose ref one of the session's latest turns holds,
are not written again, and the result gives their stored turns (as many of the latest turns are
read as the call sends messages, so a long session costs a call no more than its own length). A
message repeats a stored turn when it has the same role, the same content but for spacing (runs
of spaces, tabs and newlines are one space, and none at either end count: a client that strips or
re-renders what it sends again), the same ref or none on both, and, if it gives a time, that
turn's time. A message said twice in a row across two calls, with no ref and no time, is taken
for the one already held: a ref or a time tells them apart. The session's time is `valid_from`,
else its first message's time.

Limits (README): at most MAX_MESSAGES messages per call; content within the text limit;
role at most 512 characters (it names an entity); caption at most MAX_CAPTION characters;
ref and session 1-256 characters without control characters. Times run forwards: no message
is dated before the one before it or before `valid_from`, and a session continued goes on from
its last turn (worlddb.memory.ingest checks that inside the write). Any message out of bounds
refuses the whole call, and nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from worlddb.core.errors import InvalidInput
from worlddb.core.records import NodeView, has_control, is_blank
from worlddb.core.timeutil import now_us, parse_time, to_iso
from worlddb.memory.ingest import PreparedSession, SessionPlan, Turn, commit_session, prepare_session, stored_turns
from worlddb.memory.results import TurnOut, WriteResult
from worlddb.memory.scopes import ScopeSet, scope_anchors, scope_keys_of
from worlddb.memory.services import Services
from worlddb.memory.write import check_text, complete

#: messages in one memory_write call
MAX_MESSAGES = 500
#: a message's image caption, in characters (it is stored in the turn's metadata)
MAX_CAPTION = 4_000
MAX_ROLE = 512
MESSAGE_KEYS = ("role", "content", "time", "caption", "ref")
#: matched whole (fullmatch): "$" also matches before a final newline, so "s1\n" passed
_ID = re.compile(r"[^\x00-\x1f\x7f]{1,256}")


def check_write_arguments(*, text: object, messages: object, session: object, metadata: object,
                          entities: object, facts: object) -> None:
    """memory_write takes `text` (one memory) or `messages` (a conversation's turns), never
    both; metadata, entities and facts go with text, session with messages."""
    if text is not None and messages is not None:
        raise InvalidInput("give text (one memory) or messages (a conversation's turns), not both")
    if text is None and messages is None:
        raise InvalidInput("text is empty: memory_write needs text (one memory) or messages (a conversation's "
                           "turns)")
    if messages is not None and any(v is not None for v in (metadata, entities, facts)):
        raise InvalidInput("metadata, entities and facts go with text; with messages, each message carries "
                           "its own role, content, time, caption and ref")
    if text is not None and session is not None:
        raise InvalidInput("session goes with messages: it names the conversation they continue")


def parse_messages(messages: object, valid_from: int | None, arrived: int | None = None) -> tuple[list[Turn], int]:
    """The turns of a call, checked whole, and the session's time. A message without a time
    was said when the message before it was; the first at `valid_from`, else when the call
    `arrived`, else now."""
    if not isinstance(messages, (list, tuple)) or not messages:
        raise InvalidInput("messages must be a non-empty list of {role, content} objects")
    if len(messages) > MAX_MESSAGES:
        raise InvalidInput(f"{len(messages)} messages; at most {MAX_MESSAGES} per call (write a longer "
                           "conversation in several calls with the same session)")
    default = valid_from if valid_from is not None else arrived if arrived is not None else now_us()
    turns: list[Turn] = []
    for i, message in enumerate(messages):
        # a message without a time was said when the one before it was (the first: `default`)
        turns.append(_turn(i, message, turns[-1].at if turns else default))
    for i, turn in enumerate(turns):
        said = f"({to_iso(turn.at)})"
        if valid_from is not None and turn.at < valid_from:
            raise InvalidInput(f"messages[{i}] {said} is before the session's valid_from ({to_iso(valid_from)}): "
                               "valid_from is when the session began")
        if i and turn.at < turns[i - 1].at:
            raise InvalidInput(f"messages[{i}] {said} is before messages[{i - 1}] ({to_iso(turns[i - 1].at)}): "
                               "give the messages in the order they were said, each with its own time")
    refs: dict[str, int] = {}
    for i, turn in enumerate(turns):
        # a ref names one message: a later call that sends it again is known by it
        if turn.turn_id is not None and refs.setdefault(turn.turn_id, i) != i:
            raise InvalidInput(f"messages[{i}].ref {turn.turn_id!r} is also messages[{refs[turn.turn_id]}].ref: "
                               "a ref names one message")
    return turns, valid_from if valid_from is not None else turns[0].at


def check_session(session: object) -> str | None:
    if session is None:
        return None
    if not isinstance(session, str) or not session.strip() or not _ID.fullmatch(session):
        raise InvalidInput("session must be 1-256 characters without control characters")
    return session


def write_messages(services: Services, scopes: ScopeSet, messages: Sequence[dict], *, session: str | None = None,
                   valid_from: int | None = None) -> WriteResult:
    """Write the messages as turns of one session (see the module docstring)."""
    prepared = prepare_messages(services, scopes, messages, session=session, valid_from=valid_from)
    return commit_messages(services, complete(services, prepared))


def prepare_messages(services: Services, scopes: ScopeSet, messages: Sequence[dict], *, session: str | None = None,
                     valid_from: int | None = None, arrived: int | None = None,
                     tool: str = "memory_write") -> PreparedSession:
    """The messages checked whole, and the model's part of writing them (reads nothing from
    the store; worlddb.memory.write explains the steps). `arrived`: when the call arrived,
    the time of a message without one when there is no `valid_from` (else now). `tool`: what
    wrote them, as their provenance says (memory_write, or an import)."""
    key = check_session(session)
    turns, start = parse_messages(messages, valid_from, arrived)
    plan = SessionPlan(turns=turns, start=start, name=key or "conversation",
                       meta={"source": tool, **({"session": key} if key else {})},
                       tool=tool, source=tool,
                       known_names=tuple(sorted({t.speaker for t in turns})), key=key, own_turns=True,
                       # without an id a session's record is its own (no other call's is the same);
                       # the id its write returns continues it
                       created_at=None if key else now_us())
    return prepare_session(services, scopes, plan)


def commit_messages(services: Services, prepared: PreparedSession,
                    granted: Callable[[str], bool] | None = None) -> WriteResult:
    """Write prepared messages in one transaction; memory_write's result for them. Messages the
    session already holds among its latest turns (as many as the call sends) are not written
    again, and the result gives their stored turns (`_held`)."""
    return commit_messages_counted(services, prepared, granted)[0]


def commit_messages_counted(services: Services, prepared: PreparedSession,
                            granted: Callable[[str], bool] | None = None) -> tuple[WriteResult, int]:
    """commit_messages, and how many of its turns it wrote (the others the session held)."""
    scopes, plan = prepared.scopes, prepared.plan
    worlds = scope_anchors(services.store, scopes)
    session, stored = stored_turns(services.store, worlds, plan.key, len(plan.turns)) \
        if plan.key is not None and len(worlds) == len(scopes.keys) else (None, [])
    if session is not None and set(scope_keys_of(services.store, session)) != set(scopes.keys):
        session, stored = None, []  # held by other scopes too: the write refuses it (ingest.find_session)
    known = _held(plan.turns, stored)
    if session is not None and len(known) == len(plan.turns):
        return WriteResult(id=session, scopes=scopes.keys, valid_from=to_iso(plan.start), entities=[], facts=[],
                           superseded=[], conflicts=[], session=session,
                           turns=[TurnOut(id=known[i], ref=t.turn_id) for i, t in enumerate(plan.turns)]), 0
    new = [i for i in range(len(plan.turns)) if i not in known]
    written = commit_session(services, prepared.only(new) if known else prepared, granted)
    anchors = dict(known) | dict(zip(new, written.turns))
    return WriteResult(id=written.session, scopes=scopes.keys, valid_from=to_iso(plan.start),
                       entities=written.entities, facts=[], superseded=[], conflicts=[], session=written.session,
                       turns=[TurnOut(id=anchors[i], ref=t.turn_id) for i, t in enumerate(plan.turns)],
                       revised=written.revised, revised_by=written.revised_by), len(new)


def _held(turns: Sequence[Turn], stored: Sequence[NodeView]) -> dict[int, str]:
    """Which of a call's `turns` the session holds already, index -> stored turn, given its
    latest turns (`stored`, oldest first): one with a ref, where a stored turn with that ref is
    the same message (`_same`); and the call's opening messages, ref or none, where they repeat
    the session's last turns in order: a client that sends the whole conversation, or the last
    part of it, again with what is new."""
    by_ref = {v.meta["turn_id"]: v for v in stored if v.meta.get("turn_id")}
    known = {i: by_ref[t.turn_id].anchor for i, t in enumerate(turns)
             if t.turn_id in by_ref and _same(t, by_ref[t.turn_id])}
    for k in range(min(len(turns), len(stored)), 0, -1):
        if all(_same(t, v) for t, v in zip(turns[:k], stored[-k:])):
            known.update((i, v.anchor) for i, v in enumerate(stored[-k:]))
            break
    return known


def _same(turn: Turn, view: NodeView) -> bool:
    """Whether a call's `turn` is the stored turn `view`: the same speaker, the same words (spacing
    aside: a client that strips or re-renders what it sends again), the same ref or none, and,
    where the message gives its time, said then."""
    return _words(view.content or "") == _words(turn.text) and view.meta.get("speaker") == turn.speaker \
        and view.meta.get("turn_id") == turn.turn_id and (not turn.timed or view.valid_from == turn.at)


def _words(text: str) -> str:
    """`text` with its runs of spacing as one space, and none at either end."""
    return " ".join(text.split())


def _turn(i: int, message: object, default: int) -> Turn:
    where = f"messages[{i}]"
    if not isinstance(message, dict):
        raise InvalidInput(f"{where} must be an object with role and content")
    unknown = sorted(set(message) - set(MESSAGE_KEYS))
    if unknown:
        raise InvalidInput(f"{where} has unknown key(s) {', '.join(map(str, unknown))}; "
                           f"a message has {', '.join(MESSAGE_KEYS)}")
    role = message.get("role")
    if not isinstance(role, str) or is_blank(role):
        raise InvalidInput(f"{where}.role must name who said it (a name, or user / assistant)")
    if len(role) > MAX_ROLE:
        raise InvalidInput(f"{where}.role is longer than {MAX_ROLE} characters")
    if has_control(role.strip()):
        raise InvalidInput(f"{where}.role holds a control character; it names who said it")
    try:
        content = check_text(message.get("content"))
    except InvalidInput as exc:
        raise InvalidInput(f"{where}.content: {exc}") from None
    time = message.get("time")
    at = default if time is None or time == "" else parse_time(time, field=f"{where}.time")
    caption = message.get("caption")
    if caption is not None and (not isinstance(caption, str) or len(caption) > MAX_CAPTION):
        raise InvalidInput(f"{where}.caption must be text of at most {MAX_CAPTION} characters")
    ref = message.get("ref")
    if ref is not None and (not isinstance(ref, str) or not _ID.fullmatch(ref)):
        raise InvalidInput(f"{where}.ref must be 1-256 characters without control characters")
    return Turn(speaker=role, text=content, at=at, turn_id=ref, caption=caption or None,
                timed=time is not None and time != "")
