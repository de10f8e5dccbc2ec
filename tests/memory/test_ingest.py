"""Conversation ingest: Session worlds of Turn nodes, ordered, dated, linked to speakers."""

from __future__ import annotations

import pytest

from tests.support import ALICE
from worlddb.core.errors import InvalidInput
from worlddb.core.timeutil import parse_time
from worlddb.memory.ingest import SessionIn, TurnIn

pytestmark = pytest.mark.both_backends

SESSIONS = [
    SessionIn(date="2023-05-08T13:56:00Z", name="first", turns=(
        TurnIn("Caroline", "I went to a support group yesterday.", "D1:1"),
        TurnIn("Melanie", "That sounds lovely! Here is my painting.", "D1:2", caption="a sunset over a lake"),
        TurnIn("Caroline", "Beautiful.", "D1:3"))),
    SessionIn(date="2023-05-25T10:00:00Z", name="second", turns=(
        TurnIn("Melanie", "We went camping with the kids.", "D2:1"),
        TurnIn("Caroline", "Where did you go?", "D2:2"))),
]


def test_sessions_become_dated_worlds_of_ordered_turns(engine):
    result = engine.ingest_conversation(SESSIONS, ALICE)
    store = engine.store
    assert set(result.turns) == {"D1:1", "D1:2", "D1:3", "D2:1", "D2:2"}
    first = store.get(result.sessions[0])
    assert first.type == "Session" and first.valid_from == parse_time("2023-05-08T13:56:00Z")
    assert set(store.children(result.sessions[0])) == {result.turns[f"D1:{i}"] for i in (1, 2, 3)}
    chain = [(e.src, e.dst) for e in store.edges(type="precedes")]
    turns = result.turns
    assert (turns["D1:1"], turns["D1:2"]) in chain and (turns["D1:2"], turns["D1:3"]) in chain
    assert not any(result.turns["D1:3"] == a and result.turns["D2:1"] == b for a, b in chain)
    turn = store.get(result.turns["D1:2"])
    assert turn.valid_from == first.valid_from and turn.meta["caption"] == "a sunset over a lake"
    assert engine.db.verify().ok


def test_each_speaker_is_one_entity_across_sessions(engine):
    result = engine.ingest_conversation(SESSIONS, ALICE)
    store = engine.store
    speakers = {}
    for anchor in result.turns.values():
        for edge in store.edges(src=anchor, type="refers_to"):
            if edge.props.get("role") == "speaker":
                speakers.setdefault(store.get(anchor).meta["speaker"], set()).add(edge.dst)
    assert {name: len(ids) for name, ids in speakers.items()} == {"Caroline": 1, "Melanie": 1}


def test_turns_are_found_by_their_date_speaker_and_caption(engine):
    result = engine.ingest_conversation(SESSIONS, ALICE)
    hit = engine.recall("Melanie painting sunset lake", ALICE, limit=3).results[0]
    assert hit.id == result.turns["D1:2"] and hit.speaker == "Melanie" and hit.session == result.sessions[0]
    # the date is in the index text, which the bm25 lane searches (the vectors leave it out)
    dated = engine.recall("what happened on 25 May, 2023", ALICE, limit=5).results
    by_date = sorted((h for h in dated if "bm25" in h.lanes), key=lambda h: h.lanes["bm25"])
    assert {h.id for h in by_date[:2]} == {result.turns["D2:1"], result.turns["D2:2"]}


def test_a_session_without_a_valid_date_writes_nothing(engine):
    before = engine.store.last_seq()
    with pytest.raises(InvalidInput):
        engine.ingest_conversation([SessionIn(date="someday", turns=(TurnIn("A", "hi"),))], ALICE)
    assert engine.store.last_seq() == before
