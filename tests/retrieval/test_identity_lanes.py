"""Recall through identity: a query naming any member of an accepted same_as class finds the
memories of every member (entity lane); a pending proposal leads to the other entity's
memories at a lower weight (entity_pending lane); a rejected one leads nowhere; and no class
ever carries recall out of the scopes asked about."""

from __future__ import annotations

from tests.support import ALICE, BOB
from worlddb.core.records import Edge
from worlddb.graph import identity
from worlddb.retrieval.fusion import WEIGHTS

# texts that share no word with the queries, so only the entity lanes can find them by name
SARAH = {"name": "Sarah Connor", "type": "person"}
SARA = {"name": "Sara Conner", "type": "person"}


def _pair(engine):
    first = engine.write_memory("Approved the budget for the third quarter", ALICE, entities=[SARAH])
    second = engine.write_memory("Wants the report on her desk by Friday", ALICE, entities=[SARA])
    (proposal,) = second.entities[0].proposals
    return first, second, proposal


def _lanes(engine, query, scopes=ALICE) -> dict[str, dict[str, int]]:
    return {h.id: h.lanes for h in engine.recall(query, scopes, limit=20).results}


def test_a_pending_proposal_finds_the_other_entitys_memories_in_a_lower_weighted_lane(engine):
    first, second, _ = _pair(engine)
    lanes = _lanes(engine, "Sarah Connor")
    assert lanes[first.id].get("entity") == 1 and "entity_pending" not in lanes[first.id]
    assert lanes[second.id].get("entity_pending") == 1 and "entity" not in lanes[second.id]
    assert WEIGHTS["entity_pending"] < WEIGHTS["entity"]
    ranked = [h.id for h in engine.recall("Sarah Connor", ALICE, limit=20).results]
    assert ranked.index(first.id) < ranked.index(second.id)


def test_an_accepted_merge_makes_either_name_find_both_in_the_entity_lane(engine):
    first, second, proposal = _pair(engine)
    engine.accept_merge(proposal, ALICE)
    for query in ("Sarah Connor", "Sara Conner"):
        lanes = _lanes(engine, query)
        assert lanes[first.id].get("entity") and lanes[second.id].get("entity"), query
        assert "entity_pending" not in lanes[first.id] and "entity_pending" not in lanes[second.id]


def test_a_rejected_proposal_leads_nowhere(engine):
    first, second, proposal = _pair(engine)
    engine.reject_merge(proposal, ALICE, reason="two different people")
    lanes = _lanes(engine, "Sarah Connor")
    assert lanes[first.id].get("entity") == 1
    assert second.id not in lanes or not {"entity", "entity_pending"} & set(lanes[second.id])


def test_a_class_counts_once_however_many_of_its_members_a_memory_names(engine):
    _, _, proposal = _pair(engine)
    engine.accept_merge(proposal, ALICE)
    # names two members of one class: one identity
    twice = engine.write_memory("Signed and countersigned the form", ALICE, entities=[SARAH, SARA])
    # names the class and another entity: two identities the query asks about
    both = engine.write_memory("Flew out on Monday morning", ALICE,
                               entities=[SARAH, {"name": "Lisbon", "type": "place"}])
    lanes = _lanes(engine, "Sarah Connor in Lisbon")
    assert lanes[both.id]["entity"] == 1
    assert lanes[twice.id]["entity"] > 1


def test_a_class_that_reaches_into_another_scope_never_brings_its_memories_back(engine):
    mine = engine.write_memory("Approved the budget for the third quarter", ALICE, entities=[SARAH])
    theirs = engine.write_memory("Keeps a diary of private matters", BOB, entities=[SARAH])
    # a merge across scopes can only come from a Python caller; recall must still stay inside
    with engine.db.write() as w:
        w.link(Edge("same_as", theirs.entities[0].id, mine.entities[0].id, props={"tier": "manual"}))
    with engine.db.write() as w:
        (pid,) = [p.id for p in identity.proposals(engine.store, theirs.entities[0].id)]
        identity.accept_merge(w, pid)
    assert identity.equivalence_class(engine.store, mine.entities[0].id) == {
        mine.entities[0].id, theirs.entities[0].id}
    assert list(_lanes(engine, "Sarah Connor")) == [mine.id]
    assert list(_lanes(engine, "Sarah Connor", BOB)) == [theirs.id]
    # and a reader of alice's scope does not learn bob's entity exists
    entity = engine.read_entity(mine.entities[0].id, ALICE)
    assert entity.same_as == [] and [m.id for m in entity.mentions] == [mine.id]
    read = engine.read_memory(mine.id, ALICE)
    assert read.entities[0].same_as == [] and read.entities[0].proposed_merge_with == []
