"""The length prior: a conversational turn of fewer than SHORT_TURN_WORDS words keeps that
share of its fused score; longer turns and memories keep theirs; recall then puts the turn
that says something above short replies that only share the question's words."""

from __future__ import annotations

from tests.support import ALICE
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.retrieval import brevity

SESSIONS = [
    [("Ann", "I have a pottery class tonight"), ("Ben", "Pottery class? Cool!")],
    [("Ben", "How did it go yesterday?"),
     ("Ann", "Great, in my class I made a blue bowl for the kids and glazed it green by the window")],
]


def _ingest(engine) -> dict[str, str]:
    sessions = [SessionIn(date=f"2023-05-0{n}T13:56:00Z", turns=tuple(
        TurnIn(speaker=speaker, text=text, turn_id=f"D{n}:{i}") for i, (speaker, text) in enumerate(turns, start=1)))
        for n, turns in enumerate(SESSIONS, start=1)]
    return engine.ingest_conversation(sessions, ALICE).turns


def test_a_short_turn_keeps_its_share_of_the_score_and_nothing_else_changes(engine):
    turns = _ingest(engine)
    memory = engine.write_memory("Ann makes pottery", ALICE).id
    store = engine.store
    short, answer, plain = store.rowid(turns["D1:2"]), store.rowid(turns["D2:2"]), store.rowid(memory)
    scores = {short: 0.3, answer: 0.2, plain: 0.1}
    # "Ben: Pottery class? Cool!" is four words; a memory of three words is a statement, kept whole
    assert brevity.damp_short_turns(store, scores) == {short: 0.3 * 4 / brevity.SHORT_TURN_WORDS,
                                                       answer: 0.2, plain: 0.1}
    assert scores == {short: 0.3, answer: 0.2, plain: 0.1}


def test_recall_ranks_the_turn_that_answers_above_the_short_replies(engine, monkeypatch):
    turns = _ingest(engine)
    question = "What did Ann make in her pottery class?"
    with_prior = [hit.id for hit in engine.recall(question, ALICE, limit=4).results]
    monkeypatch.setattr(brevity, "SHORT_TURN_WORDS", 0)
    without = [hit.id for hit in engine.recall(question, ALICE, limit=4).results]
    # the short turns share "pottery class" with the question; the answer says "class" once
    assert without.index(turns["D1:2"]) < without.index(turns["D2:2"])
    assert with_prior[0] == turns["D2:2"]
    assert with_prior.index(turns["D2:2"]) < with_prior.index(turns["D1:2"])


def test_a_short_reply_to_a_question_keeps_its_whole_score(engine):
    session = SessionIn(date="2024-05-01T10:00:00Z", turns=(
        TurnIn(speaker="Ann", text="We adopted a dog.", turn_id="D1:1"),
        TurnIn(speaker="Bob", text="Name?", turn_id="D1:2"),
        TurnIn(speaker="Ann", text="Biscuit.", turn_id="D1:3")))
    turns = engine.ingest_conversation([session], ALICE).turns
    store = engine.store
    rowids = [store.rowid(turns[f"D1:{i}"]) for i in (1, 2, 3)]
    damped = brevity.damp_short_turns(store, dict.fromkeys(rowids, 1.0))
    short = brevity.SHORT_TURN_WORDS
    # "We adopted a dog." states a value (a pet) and keeps its score too; "Bob: Name?" is two words
    assert [damped[r] for r in rowids] == [1.0, 2 / short, 1.0]
    assert "Biscuit." in [hit.text for hit in engine.recall("what is the dog called", ALICE, limit=2).results]


def test_a_short_turn_that_states_a_value_keeps_its_whole_score(engine):
    # an agent's own conversations are full of facts in a few words
    session = SessionIn(date="2024-05-01T10:00:00Z", turns=(
        TurnIn(speaker="Cara", text="My name is Cara. I live in Oslo.", turn_id="D1:1"),
        TurnIn(speaker="Ben", text="Thanks, Cara!", turn_id="D1:2"),
        TurnIn(speaker="Cara", text="I moved to Bergen!", turn_id="D1:3"),
        TurnIn(speaker="Cara", text="Guess what happened today.", turn_id="D1:4")))
    turns = engine.ingest_conversation([session], ALICE).turns
    store = engine.store
    rowids = [store.rowid(turns[f"D1:{i}"]) for i in (1, 2, 3, 4)]
    damped = brevity.damp_short_turns(store, dict.fromkeys(rowids, 1.0))
    short = brevity.SHORT_TURN_WORDS
    assert [damped[r] for r in rowids] == [1.0, 3 / short, 1.0, 5 / short]
    assert brevity.states_a_value("Cara: I moved to Bergen!") and not brevity.states_a_value("Ben: Thanks, Cara!")
