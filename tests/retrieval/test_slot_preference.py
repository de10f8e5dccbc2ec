"""The slot step on its own (worlddb.retrieval.slot_preference.prefer): which of the lanes'
candidates state the asked slot, for changes the rules read nothing in. Memories and turns here
are views with the edges between them given as functions; tests/server/test_updates.py and
tests/server/test_turn_updates.py drive the same step through the MCP client."""

from __future__ import annotations

from dataclasses import replace

from worlddb.core.records import NodeView
from worlddb.extract.slots import asked
from worlddb.retrieval.recall import Ranked
from worlddb.retrieval.slot_preference import prefer

DAY = 86_400_000_000


def memory(anchor: str, text: str, day: int) -> NodeView:
    return NodeView(anchor=anchor, version=anchor, type="Memory", name="", content=text, meta={}, provenance={},
                    created_at=day * DAY, valid_from=day * DAY, valid_to=None, t_ingested=day * DAY, parent=None,
                    retired_at=None, retire_reason=None, n_children=0, n_edges=0)


def turn(anchor: str, text: str, day: int, speaker: str = "user") -> NodeView:
    return replace(memory(anchor, text, day), type="Turn", meta={"speaker": speaker})


def ranked(*views: NodeView) -> list[Ranked]:
    return [Ranked(view, 1.0 / i, {"bm25": i}) for i, view in enumerate(views, start=1)]


def first_for(question: str, candidates: list[Ranked], changes: dict[str, list[NodeView]]) -> list[str]:
    """The anchors in the slot step's order, `changes` naming what each memory revised."""
    changed_by: dict[str, list[NodeView]] = {}
    for newer, olds in changes.items():
        view = next(c.view for c in candidates if c.view.anchor == newer)
        for old in olds:
            changed_by.setdefault(old.anchor, []).append(view)
    out = prefer(asked(question), candidates, replaced=lambda v: changes.get(v.anchor, []),
                 changed_by=lambda v: changed_by.get(v.anchor, []), query=question)
    return [found.view.anchor for found in out if "slot" in found.lanes]


BOTH = memory("both", "I live in Lyon and work at Renault as a designer.", 1)
MOVED = memory("moved", "We moved to Nantes last month.", 30)


def test_an_unread_change_of_a_memory_of_one_slot_states_that_slot():
    php = memory("php", "The payments API is written in PHP.", 1)
    port = memory("port", "We finished the port; the old codebase is archived.", 40)
    assert first_for("What language is the payments API written in?", ranked(php, port), {"port": [php]}) == \
        ["port", "php"]


def test_an_unread_change_states_the_parts_of_a_compound_memory_whose_values_it_says_again():
    job = memory("job", "No longer a designer, I switched to product.", 40)
    candidates = ranked(BOTH, MOVED, job)
    changes = {"moved": [BOTH], "job": [BOTH]}
    assert first_for("Where do I live?", candidates, changes) == ["moved", "both"]
    assert first_for("Where do I work?", candidates, changes)[0] == "job"


def test_an_unread_change_that_repeats_nothing_leaves_a_part_another_change_read_as_its_own():
    vague = memory("vague", "Big changes this spring, all settled now.", 40)
    candidates = ranked(BOTH, MOVED, vague)
    # the home was taken by the move, which reads as a change of home: the unread one is not about it
    assert first_for("Where do I live?", candidates, {"moved": [BOTH], "vague": [BOTH]}) == ["moved", "both"]
    # with no other change to account for the home, the unread change may be about any part
    alone = ranked(BOTH, vague)
    assert first_for("Where do I live?", alone, {"vague": [BOTH]}) == ["vague", "both"]
    assert first_for("Where do I work?", candidates, {"moved": [BOTH], "vague": [BOTH]}) == ["vague", "both"]


def test_a_statement_read_as_alike_or_open_slots_is_one_part():
    # "dose" is read as the catalogue's dose and an open slot beside it: one part, changed whole
    dose = memory("dose", "My levothyroxine dose is 50 mcg, taken first thing in the morning.", 1)
    raised = memory("raised", "Bloodwork came back and the endocrinologist raised me to 75 mcg.", 40)
    assert first_for("What is my levothyroxine dose?", ranked(dose, raised), {"raised": [dose]}) == ["raised", "dose"]
    # a medicine and its dose are one part too, and a question of one finds the other
    taken = memory("taken", "I take 10 mg of lisinopril every morning.", 1)
    bumped = memory("bumped", "Doc bumped my lisinopril up to 20 mg.", 40)
    assert first_for("What dose of lisinopril do I take?", ranked(taken, bumped), {"bumped": [taken]})[0] == "bumped"


def test_a_change_read_as_a_slot_the_changed_one_does_not_state_states_its_slot():
    # the status of the thing whose time the old one said: it changed that, as an unread change would
    said = turn("said", "My dentist appointment is Monday Dec 14 at 2pm.", 1)
    for text in ("I cancelled the dentist appointment.", "The dentist appointment got cancelled."):
        off = turn("off", text, 5)
        assert first_for("When is my dentist appointment?", ranked(said, off), {"off": [said]}) == ["off", "said"]
        assert first_for("When is my dentist appointment?", ranked(said, off), {}) == ["said"]
    # one read as a part the changed one states is about that part alone ("Where do I work?" finds no move)
    assert first_for("Where do I work?", ranked(BOTH, MOVED), {"moved": [BOTH]}) == ["both"]


def test_a_persons_turn_that_marked_a_turn_states_its_slot_as_a_memory_does():
    said = turn("said", "My dentist appointment is on Tuesday at 3pm.", 1)
    fixed = turn("fixed", "Sorry, I meant Thursday, not Tuesday.", 5)
    assert first_for("When is my dentist appointment?", ranked(said, fixed), {"fixed": [said]}) == ["fixed", "said"]
    # a turn that revised nothing takes over nothing
    assert first_for("When is my dentist appointment?", ranked(said, fixed), {}) == ["said"]


def test_an_assistants_turn_takes_over_nothing():
    said = turn("said", "My dentist appointment is on Tuesday at 3pm.", 1)
    echo = turn("echo", "Sorry, I meant Thursday, not Tuesday.", 5, speaker="assistant")
    assert first_for("When is my dentist appointment?", ranked(said, echo), {"echo": [said]}) == ["said"]


def test_a_relatives_thing_answers_no_question_about_ones_own_nor_the_reverse():
    mine = memory("mine", "My dentist appointment is Friday at 9am.", 1)
    hers = memory("hers", "My sister's dentist appointment got moved to Monday.", 30)
    candidates = ranked(hers, mine)
    assert first_for("When is my dentist appointment?", candidates, {}) == ["mine"]
    assert first_for("When is my sister's dentist appointment?", candidates, {}) == ["hers"]


def test_a_question_about_ones_parents_is_not_answered_by_ones_own_move():
    parents = memory("parents", "My parents live in Ohio.", 1)
    moved = memory("moved", "We moved to Texas last year.", 30)
    assert first_for("Where do my parents live?", ranked(moved, parents), {}) == ["parents"]


def test_a_change_that_names_the_old_value_as_what_it_is_not_still_takes_over():
    said = turn("said", "My yoga class is on Tuesday.", 1)
    fixed = turn("fixed", "Sorry, I meant Thursday, not Tuesday.", 5)
    assert first_for("When is my yoga class?", ranked(said, fixed), {"fixed": [said]}) == ["fixed", "said"]


def test_a_change_that_names_the_asked_value_as_it_was_changed_another_part():
    job = memory("job", "I work at Helio Health as a data engineer, earning 150k.", 1)
    raised = memory("raised", "My salary at Helio Health was raised to 180k.", 40)
    assert first_for("Where do I work?", ranked(raised, job), {"raised": [job]}) == ["job"]


def test_a_change_of_another_slot_comes_after_the_older_statement_of_the_value_it_names():
    car = memory("car", "I own a Honda Civic.", 1)
    moved = memory("moved", "I moved to Seattle.", 30)
    sold = memory("sold", "I sold the Honda Civic before moving to Seattle.", 40)
    candidates = ranked(sold, moved)
    assert first_for("Where do I live?", candidates, {"sold": [car]}) == ["moved", "sold"]
    # where it changed the home too, the newer statement comes first
    home = memory("home", "I live in Portland.", 1)
    assert first_for("Where do I live?", candidates, {"sold": [car, home]}) == ["sold", "moved"]
