"""Recall and read never return, or name, a node from outside the scopes they were asked about."""

from __future__ import annotations

from tests.support import ALICE, BOB
from worlddb.core.records import Edge


def test_a_precedes_edge_into_another_scope_does_not_carry_recall_across(engine):
    mine = engine.write_memory("alice likes green tea", ALICE, entities=[], facts=[])
    theirs = engine.write_memory("bob keeps his bank password on a note", BOB, entities=[], facts=[])
    with engine.db.write() as w:
        w.link(Edge("precedes", mine.id, theirs.id))
    ids = [hit.id for hit in engine.recall("green tea", ALICE).results]
    assert ids == [mine.id]


def test_a_neighbour_inside_the_scope_is_still_lifted_by_context(engine):
    first = engine.write_memory("alice likes green tea", ALICE, entities=[], facts=[])
    second = engine.write_memory("she brews it every evening", ALICE, entities=[], facts=[])
    with engine.db.write() as w:
        w.link(Edge("precedes", first.id, second.id))
    hits = {hit.id: hit for hit in engine.recall("green tea", ALICE).results}
    assert second.id in hits and "context" in hits[second.id].lanes


def test_read_names_no_conflict_or_replacement_from_another_scope(engine):
    mine = engine.write_memory("alice likes green tea", ALICE, entities=[], facts=[])
    near = engine.write_memory("alice hates green tea", ALICE, entities=[], facts=[])
    theirs = engine.write_memory("bob drinks only coffee", BOB, entities=[], facts=[])
    with engine.db.write() as w:
        w.link(Edge("contradicts", mine.id, theirs.id))
        w.link(Edge("contradicts", mine.id, near.id))
        w.link(Edge("supersedes", theirs.id, mine.id))
    detail = engine.read_memory(mine.id, ALICE)
    assert detail.contradicts == [near.id]
    assert detail.superseded_by == []
    assert engine.read_memory(theirs.id, BOB).supersedes == []


def test_recall_names_no_replacement_from_another_scope(engine):
    mine = engine.write_memory("alice likes green tea", ALICE, entities=[], facts=[])
    theirs = engine.write_memory("bob drinks only coffee", BOB, entities=[], facts=[])
    with engine.db.write() as w:
        w.link(Edge("supersedes", theirs.id, mine.id))
    hits = {h.id: h for h in engine.recall("green tea", ALICE, include_retired=True).results}
    assert hits[mine.id].superseded_by == []


def test_an_amendment_in_the_same_scope_is_still_named(engine):
    old = engine.write_memory("alice likes green tea", ALICE, entities=[], facts=[])
    new = engine.amend(old.id, "alice likes black tea", ALICE)
    assert engine.read_memory(old.id, ALICE).superseded_by == [new.id]
    hits = {h.id: h for h in engine.recall("green tea", ALICE, include_retired=True).results}
    assert hits[old.id].superseded_by == [new.id]
