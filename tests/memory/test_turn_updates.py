"""worlddb.memory.turn_updates in process: which turns mark which, through ingest_conversation
and write_messages (the MCP side is tests/server/test_turn_updates.py)."""

from __future__ import annotations

import pytest

from tests.support import ALICE
from worlddb.memory.ingest import SessionIn, TurnIn

pytestmark = pytest.mark.both_backends

SESSIONS = [
    SessionIn(date="2023-01-08T10:00:00Z", name="first", turns=(
        TurnIn("Caroline", "I live in Boston with my roommate.", "D1:1"),
        TurnIn("Melanie", "I work at Hartley Bakery.", "D1:2"),
        TurnIn("Caroline", "Oh wait, I sold my old car and bought a Subaru.", "D1:3"))),
    SessionIn(date="2023-06-02T10:00:00Z", name="second", turns=(
        TurnIn("Caroline", "I moved to Chicago in May.", "D2:1"),
        TurnIn("Melanie", "I left Hartley Bakery, I work at Page One Books now.", "D2:2"),
        TurnIn("Caroline", "I still live in Chicago.", "D2:3"))),
]


def revised_by(engine, anchor: str) -> list[str]:
    return sorted(e.src for e in engine.store.edges(dst=anchor, type="revises"))


def revises_edges(engine) -> int:
    return engine.store.conn.execute("SELECT count(*) FROM edges WHERE type = 'revises'").fetchone()[0]


def test_ingest_marks_each_speakers_changed_turns_and_ingesting_again_changes_nothing(engine):
    first = engine.ingest_conversation(SESSIONS, ALICE)
    turns = first.turns
    assert revised_by(engine, turns["D1:1"]) == [turns["D2:1"]]  # Caroline's home
    assert revised_by(engine, turns["D1:2"]) == [turns["D2:2"]]  # Melanie's job, not Caroline's
    # the same value again marks nothing; neither does a later turn of the same session
    assert revised_by(engine, turns["D2:1"]) == revised_by(engine, turns["D2:2"]) == []
    for anchor in turns.values():
        assert engine.store.get(anchor).valid_to is None  # what was said stays current
    before = revises_edges(engine)
    again = engine.ingest_conversation(SESSIONS, ALICE)
    assert again.turns == turns
    assert revised_by(engine, turns["D1:1"]) == [turns["D2:1"]]
    assert revises_edges(engine) == before


def test_a_turn_a_later_one_changed_is_not_judged_again(engine):
    first = engine.write_messages([{"role": "user", "content": "I live in Austin."}], ALICE, session="s",
                                  valid_from="2024-01-01T00:00:00Z")
    second = engine.write_messages([{"role": "user", "content": "I moved to Denver."},
                                    {"role": "user", "content": "Yes, I moved to Denver in March."}], ALICE,
                                   session="s", valid_from="2024-04-01T00:00:00Z")
    austin = first.turns[0].id
    assert second.revised == [austin]
    # the first change is the one marked: the second is about the Denver turn, and agrees with it
    assert revised_by(engine, austin) == [second.turns[0].id]
    third = engine.write_messages([{"role": "user", "content": "I moved to Boulder."}], ALICE, session="s",
                                  valid_from="2024-09-01T00:00:00Z")
    assert sorted(third.revised) == sorted(t.id for t in second.turns)  # each said Denver


def test_each_turn_of_one_call_that_changes_another_slot_marks_the_turn_as_two_calls_would(engine):
    said = "I live in Portland and work as a nurse at Providence."
    first = engine.write_messages([{"role": "user", "content": said}], ALICE, session="s1",
                                  valid_from="2024-01-01T00:00:00Z")
    old = first.turns[0].id
    second = engine.write_messages([{"role": "user", "content": "We moved to Seattle last weekend!"},
                                    {"role": "user", "content": "I work at Swedish Hospital now."}], ALICE,
                                   session="s2", valid_from="2024-04-01T00:00:00Z")
    assert second.revised == [old]  # listed once, marked by both
    assert revised_by(engine, old) == sorted(t.id for t in second.turns)


def test_two_turns_of_one_call_end_the_facts_of_each_slot_they_change(engine):
    memory = engine.write_memory("I live in Austin and I work at Dell.", ALICE, valid_from="2024-01-01T00:00:00Z",
                                 facts=[{"subject": "I", "relation": "lives_in", "object": "Austin"},
                                        {"subject": "I", "relation": "works_at", "object": "Dell"}])
    written = engine.write_messages([{"role": "user", "content": "I moved to Denver."},
                                     {"role": "user", "content": "I work at Google now."}], ALICE,
                                    valid_from="2024-05-01T00:00:00Z")
    denver, google = (t.id for t in written.turns)
    assert written.revised == [memory.id] and revised_by(engine, memory.id) == sorted([denver, google])
    facts = {f.relation: engine.store.get(f.id) for f in memory.facts}
    assert facts["lives_in"].valid_to == engine.store.get(denver).valid_from
    assert facts["works_at"].valid_to == engine.store.get(google).valid_from
    assert engine.store.get(memory.id).valid_to is None


def test_a_message_dated_after_a_later_one_is_not_changed_by_it(engine):
    # (within one call or one session times run forwards; two conversations may be written in any order)
    engine.write_messages([{"role": "user", "content": "I live in Austin.", "time": "2024-05-01T00:00:00Z"}], ALICE,
                          session="may")
    written = engine.write_messages([{"role": "user", "content": "I moved to Denver.", "time": "2024-02-01T00:00:00Z"}],
                                    ALICE, session="february")
    assert written.revised == []


def test_a_new_activity_ends_no_earlier_one_but_quitting_it_does(engine):
    first = engine.write_messages([{"role": "user", "content": "I play tennis on Sundays."},
                                   {"role": "user", "content": "I play in the Sunday football league."}], ALICE,
                                  session="s", valid_from="2024-01-01T00:00:00Z")
    tennis, league = (t.id for t in first.turns)
    # "instead" in a turn about a new activity: a slot of many values keeps the others
    second = engine.write_messages([{"role": "user", "content": "I started rock climbing instead of running."}],
                                   ALICE, session="s", valid_from="2024-03-01T00:00:00Z")
    assert second.revised == []
    third = engine.write_messages([{"role": "user", "content": "I quit the Sunday football league."}], ALICE,
                                  session="s", valid_from="2024-05-01T00:00:00Z")
    assert third.revised == [league]
    assert revised_by(engine, tennis) == []


def test_recall_pulls_the_buried_turn_that_states_a_slot_of_one_value(engine):
    # forty newer turns of Caroline's that share the question's words and state nothing
    filler = [{"role": "Caroline", "content": f"Where does Melanie live now? Where do you live, Melanie? "
                                              f"Caroline asked {i} times."} for i in range(40)]
    written = engine.write_messages([{"role": "Caroline", "content": "My home is an apartment in Boston."},
                                     *filler], ALICE, valid_from="2024-01-01T00:00:00Z")
    hits = engine.recall("Where does Caroline live?", ALICE, limit=1).results
    assert [h.id for h in hits] == [written.turns[0].id] and hits[0].lanes.get("slot") == 1


def test_a_turn_ends_the_facts_of_the_memory_it_changes(engine):
    memory = engine.write_memory("I live in Austin and I work at Dell.", ALICE, valid_from="2024-01-01T00:00:00Z",
                                 facts=[{"subject": "I", "relation": "lives_in", "object": "Austin"},
                                        {"subject": "I", "relation": "works_at", "object": "Dell"}])
    written = engine.write_messages([{"role": "user", "content": "I moved to Denver."}], ALICE,
                                    valid_from="2024-05-01T00:00:00Z")
    assert written.revised == [memory.id]
    facts = {f.relation: engine.store.get(f.id) for f in memory.facts}
    assert facts["lives_in"].valid_to == engine.store.get(written.turns[0].id).valid_from
    assert facts["works_at"].valid_to is None and engine.store.get(memory.id).valid_to is None


def test_what_marks_an_earlier_written_session_is_listed_in_the_order_it_began(engine):
    # written after the sessions that change it, its turns are marked by them: listed by their start,
    # not by which of its turns each marks
    denver = engine.write_messages([{"role": "user", "content": "I moved to Denver."}], ALICE, session="march",
                                   valid_from="2024-03-01T00:00:00Z").turns[0].id
    shopify = engine.write_messages([{"role": "user", "content": "I work at Shopify now."}], ALICE, session="june",
                                    valid_from="2024-06-01T00:00:00Z").turns[0].id
    written = engine.write_messages([{"role": "user", "content": "I work at Dell."},
                                     {"role": "user", "content": "I live in Austin."}], ALICE, session="january",
                                    valid_from="2024-01-01T00:00:00Z")
    assert written.revised_by == [denver, shopify]


def test_a_memory_written_after_a_turn_and_a_memory_that_change_it_lists_them_in_the_order_they_began(engine):
    boston = engine.write_messages([{"role": "user", "content": "I moved to Boston."}], ALICE,
                                   valid_from="2021-01-01T00:00:00Z").turns[0].id
    globex = engine.write_memory("I work at Globex now.", ALICE, valid_from="2022-01-01T00:00:00Z").id
    both = engine.write_memory("I live in Austin and work at Acme.", ALICE, valid_from="2020-01-01T00:00:00Z")
    assert both.superseded_by == [] and both.revised_by == [boston, globex]
