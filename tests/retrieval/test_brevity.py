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
    assert brevity.damp_turns(store, scores)[0] == {short: 0.3 * 4 / brevity.SHORT_TURN_WORDS,
                                                       answer: 0.2, plain: 0.1}
    assert scores == {short: 0.3, answer: 0.2, plain: 0.1}


def test_recall_ranks_the_turn_that_answers_above_the_short_replies(engine, monkeypatch):
    turns = _ingest(engine)
    question = "What did Ann make in her pottery class?"
    with_prior = [hit.id for hit in engine.recall(question, ALICE, limit=4).results]
    monkeypatch.setattr(brevity, "SHORT_TURN_WORDS", 0)
    monkeypatch.setattr(brevity, "QUESTION_DAMPING", 0.0)
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
    damped, _ = brevity.damp_turns(store, dict.fromkeys(rowids, 1.0))
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
    damped, _ = brevity.damp_turns(store, dict.fromkeys(rowids, 1.0))
    short = brevity.SHORT_TURN_WORDS
    assert [damped[r] for r in rowids] == [1.0, 3 / short, 1.0, 5 / short]
    assert brevity.states_a_value("Cara: I moved to Bergen!") and not brevity.states_a_value("Ben: Thanks, Cara!")


def test_the_share_of_a_turn_that_asks_counts_the_words_of_its_questions():
    # speaker and image caption are not the turn's words; "?!" closes a question
    assert brevity.asked_share("Ben: What did you paint? [image: a photo of a bowl]") == 1.0
    assert brevity.asked_share("Ben: That's great! What did you paint?") == 4 / 7
    assert brevity.asked_share("Ann: I painted a lake. Want to see it?!") == 4 / 8
    assert brevity.asked_share("Ann: I painted a lake.") == 0.0
    assert brevity.asked_share("Ann: ...") == 0.0


def test_a_turn_that_asks_keeps_less_of_its_own_score_and_a_memory_keeps_all(engine, monkeypatch):
    session = SessionIn(date="2024-05-01T10:00:00Z", turns=(
        TurnIn(speaker="Ben", text="Any projects or activities you are looking forward to this summer?",
               turn_id="D1:1"),
        TurnIn(speaker="Ann", text="Lots! I signed up for a pottery course. Have you been to the lake yet?",
               turn_id="D1:2"),
        TurnIn(speaker="Ann", text="I am going swimming with the kids every weekend this summer.", turn_id="D1:3")))
    turns = engine.ingest_conversation([session], ALICE).turns
    memory = engine.write_memory("Did Ann sign up for pottery? She did, in May.", ALICE).id
    store = engine.store
    rowids = [store.rowid(turns[f"D1:{i}"]) for i in (1, 2, 3)] + [store.rowid(memory)]
    monkeypatch.setattr(brevity, "SHORT_TURN_WORDS", 0)
    monkeypatch.setattr(brevity, "QUESTION_DAMPING", 0.5)
    lift, damped = brevity.damp_turns(store, dict.fromkeys(rowids, 1.0))
    # what a turn lifts its neighbours by is not lowered: the question still lifts its answer
    assert lift == dict.fromkeys(rowids, 1.0)
    # "Lots! I signed up for a pottery course." states (8 words); "Have you been to the lake yet?" asks (7)
    assert [damped[r] for r in rowids] == [0.5, 1 - 0.5 * 7 / 15, 1.0, 1.0]
    monkeypatch.setattr(brevity, "QUESTION_DAMPING", 0.0)
    assert brevity.damp_turns(store, dict.fromkeys(rowids, 1.0)) == (dict.fromkeys(rowids, 1.0),) * 2
