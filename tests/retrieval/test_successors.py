"""Recall's successor step: the newer text that changed a candidate answers just ahead of it,
inside the asked scopes and only for a recall pinned to no time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support import ALICE, BOB
from worlddb.core.records import Edge
from worlddb.memory.scopes import ScopeSet
from worlddb.retrieval.successors import order

pytestmark = pytest.mark.both_backends

PLANNER = ScopeSet((("agent", "planner"),))
ALICE_AND_PLANNER = ScopeSet((("user", "alice"), ("agent", "planner")))


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat()


def test_a_successor_ranked_lower_moves_to_just_ahead_of_what_it_changed():
    assert order(["a", "x", "b"], {"x": ["b"]}) == [("a", None), ("b", 2), ("x", None)]


def test_a_successor_ranked_higher_keeps_its_place():
    assert order(["b", "a", "x"], {"x": ["b"]}) == [("b", None), ("a", None), ("x", None)]


def test_a_successor_the_lanes_missed_is_brought_in_and_a_chain_reads_from_its_end():
    # c changed b, which changed x; d changed x too and is newer than b (newest first)
    assert order(["x", "a"], {"x": ["d", "b"], "b": ["c"]}) == [
        ("d", 1), ("c", 1), ("b", 1), ("x", None), ("a", None)]


def test_a_cycle_of_changes_ends():
    assert order(["x", "y"], {"x": ["y"], "y": ["x"]}) == [("y", 1), ("x", None)]


def test_a_reviser_below_the_page_is_brought_ahead_of_the_memory_it_revised(engine):
    old = engine.write_memory("we cut releases every thursday afternoon", ALICE, entities=[], facts=[],
                              valid_from=ago(90))
    for i in range(5):
        engine.write_memory(f"the release notes of sprint {i} are in the wiki", ALICE, entities=[], facts=[])
    new = engine.write_memory("tuesdays from now on", ALICE, entities=[], facts=[])
    with engine.db.write() as w:
        w.link(Edge("revises", new.id, old.id))
    hits = engine.recall("we cut releases every thursday afternoon", ALICE, limit=2).results
    assert [h.id for h in hits] == [new.id, old.id]
    assert hits[0].lanes == {"successor": 1}
    assert hits[1].annotations == {"revised_by": [new.id]} and hits[1].valid_to is None


def test_a_successor_outside_the_asked_scopes_is_not_brought_in(engine):
    old = engine.write_memory("we cut releases every thursday afternoon", ALICE_AND_PLANNER, entities=[], facts=[],
                              valid_from=ago(90))
    mine = engine.write_memory("tuesdays from now on", ALICE, entities=[], facts=[])
    theirs = engine.write_memory("bob's team ships on mondays", BOB, entities=[], facts=[])
    with engine.db.write() as w:
        w.link(Edge("revises", mine.id, old.id))
        w.link(Edge("revises", theirs.id, old.id))
    assert [h.id for h in engine.recall("releases thursday afternoon", PLANNER, limit=3).results] == [old.id]
    assert [h.id for h in engine.recall("releases thursday afternoon", ALICE, limit=2).results] == [mine.id, old.id]


def test_a_recall_pinned_to_a_time_keeps_the_lanes_order(engine):
    old = engine.write_memory("we cut releases every thursday afternoon", ALICE, entities=[], facts=[],
                              valid_from=ago(90))
    new = engine.write_memory("tuesdays from now on", ALICE, entities=[], facts=[], valid_from=ago(1))
    with engine.db.write() as w:
        w.link(Edge("revises", new.id, old.id))
    pinned = engine.recall("we cut releases every thursday afternoon", ALICE, limit=1, as_of=ago(0)).results
    assert [h.id for h in pinned] == [old.id] and "successor" not in pinned[0].lanes


def test_with_retired_memories_a_chain_of_replacements_reads_newest_first(engine):
    first = engine.write_memory("the team standup is at nine", ALICE, entities=[], facts=[], valid_from=ago(60))
    second = engine.amend(first.id, "moved to half past nine", ALICE, valid_from=ago(30))
    third = engine.amend(second.id, "and now at ten", ALICE)
    hits = engine.recall("the team standup is at nine", ALICE, limit=3, include_retired=True).results
    assert [h.id for h in hits] == [third.id, second.id, first.id]
    # a plain recall hides the replaced ones and finds the current end of the chain
    assert [h.id for h in engine.recall("and now at ten", ALICE, limit=3).results] == [third.id]


def test_a_superseded_text_the_lanes_rank_first_gives_its_place_to_the_end_of_its_chain(engine):
    first = engine.write_memory("the team standup is at nine", ALICE, entities=[], facts=[], valid_from=ago(60))
    second = engine.amend(first.id, "moved to half past", ALICE, valid_from=ago(30))
    third = engine.amend(second.id, "and now at ten", ALICE)
    other = engine.write_memory("the team lunch is on fridays", ALICE, entities=[], facts=[])
    hits = engine.recall("the team standup is at nine", ALICE, limit=3).results
    # neither replaced text shares the question's words; the current end of the chain answers once
    assert [h.id for h in hits] == [third.id, other.id]
    assert hits[0].lanes["successor"] == 1


def test_a_text_that_replaced_one_the_lanes_found_keeps_its_own_place_when_it_ranks_higher(engine):
    old = engine.write_memory("our staging database is on db-old-1", ALICE, entities=[], facts=[], valid_from=ago(60))
    new = engine.amend(old.id, "our staging database is on db-new-7 now", ALICE)
    hits = engine.recall("staging database db-new-7", ALICE, limit=3).results
    assert [h.id for h in hits] == [new.id] and "successor" not in hits[0].lanes


def test_no_text_stands_in_for_a_replaced_one_where_its_replacement_is_retired_or_out_of_scope(engine):
    old = engine.write_memory("we cut releases every thursday afternoon", ALICE_AND_PLANNER, entities=[], facts=[],
                              valid_from=ago(90))
    other = engine.write_memory("the planner's release checklist lives in the wiki", PLANNER, entities=[], facts=[])
    mine = engine.write_memory("tuesdays from now on", ALICE, entities=[], facts=[])
    with engine.db.write() as w:
        w.link(Edge("supersedes", mine.id, old.id))
    # the planner was not granted alice's scope: the replacement is not shown to it, nor the closed text
    assert [h.id for h in engine.recall("releases thursday afternoon", PLANNER, limit=3).results] == [other.id]
    assert [h.id for h in engine.recall("releases thursday afternoon", ALICE, limit=3).results] == [mine.id]
    engine.retire(mine.id, ALICE)
    assert engine.recall("releases thursday afternoon", ALICE, limit=3).results == []
