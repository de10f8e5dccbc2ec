"""Recall and read never return, or name, a node from outside the scopes they were asked about;
and a small scope in a large store is searched whole."""

from __future__ import annotations

import pytest

from tests.support import ALICE, BOB
from worlddb.core.records import Edge
from worlddb.core.timeutil import now_us
from worlddb.retrieval import lanes as lanes_module
from worlddb.retrieval.lanes import run_lanes


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


def _lane(engine, query, scopes, lane) -> list[str]:
    worlds = [engine.store.scope_anchor(kind, sid) for kind, sid in scopes]
    rows = run_lanes(engine.services.sources, query, worlds, 100, open_only_at=now_us())[lane]
    anchors = engine.store.anchors_for_rowids(rows)
    return [anchors[r] for r in rows]


@pytest.mark.sqlite_only("the in-process HNSW graph; PostgreSQL ranks a scope in the database")
def test_a_small_scope_in_a_large_store_finds_every_memory_it_holds(engine, monkeypatch):
    # another user's thousands of texts nearer the query than most of the scope fill the
    # over-fetch from the whole index (their two sentences, both near it, count once in the
    # sentence lane's), so both vector lanes search the small scope again, confined to it:
    # ranked exactly, none of it is left out
    engine.write_memories([{"text": f"Alice noted item 7: tea in the car, copy {i}. Alice noted item 7: tea in the "
                                    f"car, copy {i} again.", "entities": [], "facts": []} for i in range(3000)], BOB)
    mine = [engine.write_memory(f"Alice noted item {i}: {word} in the {place}", ALICE, entities=[], facts=[]).id
            for i, (word, place) in enumerate((w, p) for w in ("keys", "tea", "bike", "maps", "coins", "seeds")
                                              for p in ("attic", "shed", "car", "desk", "hall"))]
    engine.recall("warm up", ALICE)  # the indexes are built; each later write is added to them
    query = "Alice noted item 7: tea in the car"
    vector = engine.services.sources.query_vector(query)
    rows = {engine.store.rowid(m) for m in mine}
    for index in (engine.index, engine.units):
        assert len({node for node, _ in index.search(vector, 400)} & rows) < len(mine)
    for exact_max in (lanes_module.EXACT_MAX, 0):  # within the cap, ranked exactly; past it, filtered
        monkeypatch.setattr(lanes_module, "EXACT_MAX", exact_max)
        for name in ("vector", "sentence"):
            lane = _lane(engine, query, ALICE, name)
            if exact_max:
                assert sorted(lane) == sorted(mine)
                assert lane[0] == mine[7]
            else:  # the filtered search: never outside the scope, whatever it reaches
                assert set(lane) <= set(mine)
