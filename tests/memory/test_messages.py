"""memory_write with messages: the structure ingest_conversation builds, continued by session id,
and bad input refused whole."""

from __future__ import annotations

import pytest

from tests.support import ALICE, BOB, dump
from worlddb.core.errors import InvalidInput
from worlddb.core.timeutil import parse_time
from worlddb.graph import text_index
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.messages import MAX_MESSAGES
from worlddb.memory.scopes import ScopeSet

pytestmark = pytest.mark.both_backends

DATE = "2023-05-08T13:56:00Z"
MESSAGES = [
    {"role": "Caroline", "content": "I went to a support group yesterday.", "ref": "D1:1"},
    {"role": "Melanie", "content": "That sounds lovely! Here is my painting.", "ref": "D1:2",
     "caption": "a sunset over a lake"},
    {"role": "Caroline", "content": "Beautiful. Where did you paint it?", "ref": "D1:3"},
]


def rows(engine) -> list[str]:
    """Every row of the engine's store (tests.support.dump)."""
    return dump(engine.store.path)


def chain(engine, session: str) -> list[str]:
    """The session's turns in precedes order."""
    edges = {e.src: e.dst for e in engine.store.edges(type="precedes") if e.world == session}
    starts = set(engine.store.children(session)) - set(edges.values())
    assert len(starts) == 1
    order = [starts.pop()]
    while order[-1] in edges:
        order.append(edges[order[-1]])
    return order


def test_messages_become_the_session_world_ingest_builds(engine):
    written = engine.write_messages(MESSAGES, ALICE, session="chat-1", valid_from=DATE)
    ingested = engine.ingest_conversation(
        [SessionIn(date=DATE, turns=tuple(TurnIn(m["role"], m["content"], m["ref"], m.get("caption"))
                                          for m in MESSAGES))], BOB)
    store = engine.store
    session = store.get(written.session)
    assert written.id == written.session and session.type == "Session"
    assert session.valid_from == parse_time(DATE)
    assert session.content == store.get(ingested.sessions[0]).content  # the composer's query, as ingest writes it
    assert [t.ref for t in written.turns] == ["D1:1", "D1:2", "D1:3"]
    turns = [t.id for t in written.turns]
    assert chain(engine, written.session) == turns
    assert set(store.children(written.session)) == set(turns)
    for mine, theirs in zip(turns, (ingested.turns[m["ref"]] for m in MESSAGES)):
        a, b = store.get(mine), store.get(theirs)
        assert (a.type, a.content, a.meta, a.valid_from) == (b.type, b.content, b.meta, b.valid_from)
        assert text_index.index_text(a, a.valid_from) == text_index.index_text(b, b.valid_from)
        speakers = [e.dst for e in store.edges(src=mine, type="refers_to") if e.props.get("role") == "speaker"]
        assert [store.get(s).name for s in speakers] == [a.meta["speaker"]]
    assert {e.name for e in written.entities} >= {"Caroline", "Melanie"}
    assert written.valid_from == "2023-05-08T13:56:00Z" and written.facts == []
    hit = engine.recall("Melanie painting of a sunset over a lake", ALICE, limit=1).results[0]
    assert hit.id == turns[1] and hit.session == written.session and hit.speaker == "Melanie"
    assert engine.db.verify().ok


def test_a_later_call_with_the_same_session_continues_its_world_and_chain(engine):
    first = engine.write_messages(MESSAGES[:2], ALICE, session="chat-1", valid_from=DATE)
    second = engine.write_messages(MESSAGES[2:], ALICE, session="chat-1")
    assert second.session == first.session
    assert chain(engine, first.session) == [t.id for t in first.turns + second.turns]
    # the same words said again later in the session are a turn of their own
    again = engine.write_messages([{"role": "Caroline", "content": "Beautiful. Where did you paint it?"}], ALICE,
                                  session="chat-1")
    assert again.turns[0].id != second.turns[0].id
    assert chain(engine, first.session)[-1] == again.turns[0].id
    other = engine.write_messages(MESSAGES[2:], ALICE, session="chat-2")
    assert other.session != first.session and chain(engine, other.session) == [other.turns[0].id]
    # the same id in another scope is another conversation
    theirs = engine.write_messages(MESSAGES[2:], BOB, session="chat-1")
    assert theirs.session != first.session
    assert engine.db.verify().ok


def test_a_session_is_continued_only_with_the_scopes_it_was_started_with(engine):
    engine.write_messages(MESSAGES[:1], ALICE, session="chat-1")
    before = rows(engine)
    with pytest.raises(InvalidInput, match="started in user:alice"):
        engine.write_messages(MESSAGES[1:], ScopeSet.of(user="alice", agent="helper"), session="chat-1")
    assert rows(engine) == before


def test_calls_without_a_session_id_are_conversations_of_their_own(engine):
    one = engine.write_messages(MESSAGES, ALICE, valid_from=DATE)
    two = engine.write_messages(MESSAGES, ALICE, valid_from=DATE)
    assert one.session != two.session
    assert not {t.id for t in one.turns} & {t.id for t in two.turns}


def test_message_times_date_their_turns_and_the_first_dates_the_session(engine):
    written = engine.write_messages([
        {"role": "user", "content": "I start the new job on Monday.", "time": "2024-03-01T09:00:00Z"},
        {"role": "assistant", "content": "Congratulations!", "time": "2024-03-01T09:00:05Z"},
        {"role": "user", "content": "Thanks."}], ALICE, valid_from="2024-03-01T08:00:00Z")
    store = engine.store
    # a message without a time was said when the one before it was
    assert [store.get(t.id).valid_from for t in written.turns] == [
        parse_time("2024-03-01T09:00:00Z"), parse_time("2024-03-01T09:00:05Z"), parse_time("2024-03-01T09:00:05Z")]
    assert store.get(written.session).valid_from == parse_time("2024-03-01T08:00:00Z")
    timed = engine.write_messages([{"role": "user", "content": "Earlier.", "time": "2024-04-01T10:00:00Z"},
                                   {"role": "user", "content": "Later.", "time": "2024-04-02T10:00:00Z"}], ALICE)
    assert timed.valid_from == "2024-04-01T10:00:00Z"
    before = rows(engine)
    with pytest.raises(InvalidInput, match=r"messages\[1\] \(2024-04-01T10:00:00Z\) is before messages\[0\]"):
        engine.write_messages([{"role": "user", "content": "Later.", "time": "2024-04-02T10:00:00Z"},
                               {"role": "user", "content": "Earlier.", "time": "2024-04-01T10:00:00Z"}], ALICE)
    assert rows(engine) == before


def test_a_retired_session_is_not_continued(engine):
    first = engine.write_messages(MESSAGES[:1], ALICE, session="chat-1")
    engine.purge_scope(ALICE, "user:alice")
    later = engine.write_messages(MESSAGES[1:2], ALICE, session="chat-1")
    assert later.session != first.session and chain(engine, later.session) == [later.turns[0].id]


@pytest.mark.parametrize(("messages", "session", "error"), [
    ([], None, "non-empty list"),
    ("hello", None, "non-empty list"),
    ([{"role": "user", "content": "hi"}] * (MAX_MESSAGES + 1), None, f"at most {MAX_MESSAGES}"),
    ([*MESSAGES, {"role": "user", "content": "hi", "name": "x"}], None, r"messages\[3\] has unknown key"),
    ([*MESSAGES, {"role": " ", "content": "hi"}], None, r"messages\[3\].role"),
    ([*MESSAGES, {"role": "x" * 513, "content": "hi"}], None, "longer than 512"),
    ([*MESSAGES, {"role": "user", "content": ""}], None, r"messages\[3\].content: text is empty"),
    ([*MESSAGES, {"role": "user", "content": "x" * 32_001}], None, "the limit is 32000"),
    ([*MESSAGES, {"role": "user", "content": "hi", "time": "yesterday"}], None, r"messages\[3\].time"),
    ([*MESSAGES, {"role": "user", "content": "hi", "caption": "x" * 4_001}], None, "caption"),
    ([*MESSAGES, {"role": "user", "content": "hi", "ref": "a\nb"}], None, "ref"),
    ([*MESSAGES, "hi"], None, r"messages\[3\] must be an object"),
    (MESSAGES, "", "session must be"),
    (MESSAGES, "x" * 257, "session must be"),
], ids=["empty", "not a list", "too many", "unknown key", "blank role", "long role", "empty content",
        "long content", "bad time", "long caption", "bad ref", "not an object", "blank session", "long session"])
def test_bad_messages_are_refused_whole_and_nothing_is_written(engine, messages, session, error):
    engine.write_messages(MESSAGES[:1], ALICE, session="chat-1")
    before = rows(engine)
    with pytest.raises(InvalidInput, match=error):
        engine.write_messages(messages, ALICE, session="chat-1" if session is None else session)
    assert rows(engine) == before


def test_a_full_call_of_the_limit_is_written(engine):
    written = engine.write_messages([{"role": "user" if i % 2 else "assistant", "content": f"Message number {i}."}
                                     for i in range(MAX_MESSAGES)], ALICE, session="long")
    assert len(written.turns) == MAX_MESSAGES
    assert len(chain(engine, written.session)) == MAX_MESSAGES
