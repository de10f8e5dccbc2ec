"""Hybrid recall: lanes, fusion, graph propagation, scopes, and the time pins."""

from __future__ import annotations

from tests.support import ALICE, BOB, open_engine
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.retrieval.fusion import RRF_K, WEIGHTS, fuse


def test_fusion_is_weighted_reciprocal_rank():
    scores, ranks = fuse({"bm25": [1, 2], "vector": [2, 3], "sentence": [], "entity": [3]})
    assert scores[2] == WEIGHTS["bm25"] / (RRF_K + 2) + WEIGHTS["vector"] / (RRF_K + 1)
    assert ranks[2] == {"bm25": 2, "vector": 1}
    assert ranks[3] == {"vector": 2, "entity": 1}


def test_each_hit_names_the_lanes_that_found_it(engine):
    engine.write_memory("The boiler service is booked for Tuesday", ALICE)
    engine.write_memory("Bought oat milk and bread", ALICE)
    hit = engine.recall("when is the boiler service", ALICE, limit=5).results[0]
    assert hit.text == "The boiler service is booked for Tuesday"
    assert hit.lanes["bm25"] == 1 and hit.lanes["vector"] >= 1 and hit.lanes["sentence"] >= 1


def test_the_entity_lane_finds_memories_that_name_a_queried_entity(engine):
    target = engine.write_memory("Lunch was fine", ALICE, entities=[{"name": "Priya Raman", "type": "person"}])
    engine.write_memory("Lunch was excellent", ALICE)
    hits = engine.recall("what about Priya Raman", ALICE, limit=5).results
    found = {h.id: h for h in hits}
    assert target.id in found and found[target.id].lanes.get("entity") == 1
    assert "Priya Raman" in found[target.id].entities


def test_an_old_memory_naming_both_queried_entities_outranks_many_newer_single_mentions(engine):
    both = engine.write_memory("Dinner in the old town", ALICE, entities=[
        {"name": "Priya Raman", "type": "person"}, {"name": "Lisbon", "type": "place"}])
    # more single mentions of each than the lane reads per entity, all newer
    engine.write_memories([{"text": f"Call number {i}", "entities": [{"name": "Priya Raman", "type": "person"}]}
                           for i in range(120)], ALICE)
    engine.write_memories([{"text": f"Tram ticket {i}", "entities": [{"name": "Lisbon", "type": "place"}]}
                           for i in range(120)], ALICE)
    found = {h.id: h for h in engine.recall("Priya Raman and Lisbon", ALICE, limit=100).results}
    assert found[both.id].lanes["entity"] == 1


def test_recall_never_crosses_scopes(engine):
    engine.write_memory("The vault code is 4471", ALICE)
    mine = engine.write_memory("The vault code is 9902", BOB)
    hits = engine.recall("vault code", BOB, limit=10).results
    assert [h.id for h in hits] == [mine.id]
    assert engine.recall("vault code", ScopeSet_of("carol"), limit=10).results == []


def ScopeSet_of(user):
    from worlddb.memory.scopes import ScopeSet

    return ScopeSet((("user", user),))


def test_a_neighbouring_turn_is_lifted_by_the_graph(engine):
    turns = (
        TurnIn("Ana", "Guess what happened at the weekend?"),
        TurnIn("Ben", "Tell me!"),
        TurnIn("Ana", "We adopted a greyhound called Pixel."),
        TurnIn("Ben", "That is wonderful news."),
    ) + tuple(TurnIn("Ben", f"Unrelated chatter {i} about spreadsheets") for i in range(6))
    result = engine.ingest_conversation([SessionIn(date="2024-05-04", turns=turns)], ALICE)
    hits = engine.recall("what did Ana adopt at the weekend", ALICE, limit=10).results
    by_text = {h.text: h for h in hits}
    lifted = by_text["Tell me!"]
    assert "context" in lifted.lanes and set(lifted.lanes) == {"context"} | set(lifted.lanes) - {"bm25"}
    assert by_text["We adopted a greyhound called Pixel."].lanes["bm25"] <= 2
    assert len(result.turns) == 10


def test_superseded_memories_are_hidden_and_pins_bring_them_back(engine):
    old = engine.write_memory("Team standup is at 9am", ALICE, valid_from="2024-01-01")
    stored = engine.read_memory(old.id, ALICE).t_ingested
    new = engine.amend(old.id, "Team standup moved to 10am", ALICE)
    now = engine.recall("when is standup", ALICE).results
    assert [h.id for h in now] == [new.id]
    everything = {h.id: h for h in engine.recall("when is standup", ALICE, include_retired=True).results}
    assert everything[old.id].valid_to == new.valid_from and everything[old.id].superseded_by == [new.id]
    then = engine.recall("when is standup", ALICE, as_of="2024-06-01").results
    assert [h.id for h in then] == [old.id]
    # as the store knew things before the amendment, 9am was current and 10am unknown
    before_amend = engine.recall("when is standup", ALICE, known_at=stored).results
    assert [h.id for h in before_amend] == [old.id] and before_amend[0].valid_to is None


def test_contradicted_memories_carry_their_conflicts(db_path):
    engine = open_engine(db_path, functional=("lives_in",))
    try:
        a = engine.write_memory("Omar lives in Oslo", ALICE, valid_from="2024-05-01",
                                facts=[{"subject": "Omar", "relation": "lives_in", "object": "Oslo"}])
        b = engine.write_memory("Omar lives in Bergen", ALICE, valid_from="2024-05-01",
                                facts=[{"subject": "Omar", "relation": "lives_in", "object": "Bergen"}])
        assert b.conflicts and b.conflicts[0].with_id == a.facts[0].id
        # the memories conflict too: the same slot, another value, for the same time
        assert (b.id, a.id) in {(c.id, c.with_id) for c in b.conflicts}
        later = engine.write_memory("Omar lives in Tromso now", ALICE, valid_from="2024-09-01",
                                    facts=[{"subject": "Omar", "relation": "lives_in", "object": "Tromso"}])
        # a later value replaces both facts and both memories that stated the earlier ones
        assert set(later.superseded) == {a.facts[0].id, b.facts[0].id, a.id, b.id}
    finally:
        engine.close()


def test_query_syntax_in_queries_is_matched_as_words(engine):
    engine.write_memory('He said "NEAR(the) OR (table)" twice * star', ALICE)
    for query in ['"', "*", "NEAR(", ") OR (", "the) OR (table", "AND", "col:value"]:
        engine.recall(query, ALICE)  # never a syntax error
    assert engine.recall('NEAR( table ) OR (', ALICE).results


def test_another_connections_writes_are_found_on_the_next_recall(db_path):
    first, second = open_engine(db_path), open_engine(db_path)
    try:
        first.write_memory("Kiln temperature reached 1240 degrees", ALICE)
        assert first.recall("kiln temperature", ALICE).results
        written = second.write_memory("The glaze came out celadon green", ALICE)
        hits = first.recall("celadon glaze colour", ALICE).results
        assert hits[0].id == written.id and "vector" in hits[0].lanes
    finally:
        first.close()
        second.close()


def test_a_batch_write_is_all_or_nothing(engine):
    import pytest

    from worlddb.core.errors import InvalidInput

    before = engine.store.last_seq()
    with pytest.raises(InvalidInput):
        engine.write_memories([{"text": "fine"}, {"text": ""}], ALICE)
    assert engine.store.last_seq() == before
    results = engine.write_memories([{"text": f"imported note {i}"} for i in range(5)], ALICE)
    assert len({r.id for r in results}) == 5
    assert len(engine.list_memories(ALICE, limit=10).memories) == 5


def test_a_pin_that_hides_the_best_matches_still_fills_the_page(engine):
    # the strongest matches only became true later; at the pinned time the page is made of
    # the weaker ones, read past however many hidden ones rank above them
    engine.write_memories([{"text": f"kayak kayak kayak trip plan {i}", "valid_from": "2025-01-01"}
                           for i in range(30)], ALICE)
    early = {r.id for r in engine.write_memories(
        [{"text": f"kayak notes from a long afternoon of other errands {i}", "valid_from": "2023-01-01"}
         for i in range(6)], ALICE)}
    now = engine.recall("kayak trip", ALICE, limit=5).results
    assert len(now) == 5 and not {h.id for h in now} & early
    then = engine.recall("kayak trip", ALICE, limit=5, as_of="2024-01-01").results
    assert len(then) == 5 and {h.id for h in then} <= early
