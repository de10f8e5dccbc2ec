"""Entities and merge proposals through the memory API: an entity read in full, pending
proposals apart from accepted members, decisions, lookups by name, export - each only as far
as the caller's scopes reach, with a clear error and no change on a bad id."""

from __future__ import annotations

import json
import re

import pytest

from tests.server.helpers import dump
from tests.support import ALICE, BOB
from worlddb.core.errors import AmbiguousId, Conflict, InvalidInput, NotFound
from worlddb.core.records import Edge
from worlddb.memory.access import Access
from worlddb.memory.scopes import ScopeSet

pytestmark = pytest.mark.both_backends

SARAH = {"name": "Sarah Connor", "type": "person", "aliases": ["S. Connor"]}
SARA = {"name": "Sara Conner", "type": "person"}


def _pair(engine, scopes=ALICE):
    first = engine.write_memory("My manager Sarah Connor approved the Q3 budget.", scopes,
                                entities=[SARAH, {"name": "Q3 budget"}])
    second = engine.write_memory("Sara Conner wants the quarterly report by Friday.", scopes,
                                 entities=[SARA, {"name": "quarterly report"}])
    return first, second


def test_memory_read_of_an_entity_returns_it_in_full(engine):
    first, second = _pair(engine)
    sarah, sara = first.entities[0], second.entities[0]
    detail = engine.read_memory(sarah.id[:12], ALICE)
    assert (detail.type, detail.text) == ("Entity", "Sarah Connor")
    entity = detail.entity
    assert (entity.id, entity.name, entity.type, entity.aliases) == (sarah.id, "Sarah Connor", "person", ["S. Connor"])
    assert entity.scopes == ["user:alice"] and entity.same_as == []
    (pending,) = entity.proposals
    assert (pending.id, pending.other_id, pending.other_name) == (sara.proposals[0], sara.id, "Sara Conner")
    assert pending.tier in ("fuzzy", "phonetic", "embedding") and 0 < pending.score <= 1
    assert [m.id for m in entity.mentions] == [first.id] and entity.next_cursor is None
    assert [r.name for r in entity.related] == ["Q3 budget"]
    # a memory's read carries no entity section
    assert engine.read_memory(first.id, ALICE).entity is None


def test_proposed_merge_with_lists_pending_proposals_and_same_as_accepted_members(engine):
    first, second = _pair(engine)
    sarah, sara = first.entities[0], second.entities[0]
    (linked,) = [e for e in engine.read_memory(second.id, ALICE).entities if e.id == sara.id]
    assert linked.proposed_merge_with == [sarah.id] and linked.proposals == sara.proposals
    assert linked.same_as == []
    decided = engine.accept_merge(sara.proposals[0][:10], ALICE)
    assert decided.status == "accepted" and {decided.a.name, decided.b.name} == {"Sarah Connor", "Sara Conner"}
    (linked,) = [e for e in engine.read_memory(second.id, ALICE).entities if e.id == sara.id]
    assert linked.proposed_merge_with == [] and linked.proposals == [] and linked.same_as == [sarah.id]
    entity = engine.read_entity(sarah.id, ALICE)
    assert [(r.id, r.name) for r in entity.same_as] == [(sara.id, "Sara Conner")]
    assert entity.proposals == []
    # the class's mentions, newest first: what it remembers about Sarah under either name
    assert [m.id for m in entity.mentions] == [second.id, first.id]


def test_mentions_page_with_a_cursor_and_hide_retired_unless_asked(engine):
    written = [engine.write_memory(f"Note number {i} about the garden", ALICE, entities=[SARAH]) for i in range(5)]
    sarah = written[0].entities[0].id
    engine.retire(written[4].id, ALICE, reason="wrong")
    first = engine.read_entity(sarah, ALICE, limit=2)
    assert [m.id for m in first.mentions] == [written[3].id, written[2].id] and first.next_cursor
    rest = engine.read_entity(sarah, ALICE, limit=2, cursor=first.next_cursor)
    assert [m.id for m in rest.mentions] == [written[1].id, written[0].id] and rest.next_cursor is None
    everything = engine.read_entity(sarah, ALICE, limit=10, include_retired=True)
    assert [m.id for m in everything.mentions][0] == written[4].id and everything.mentions[0].retired
    # through memory_read the cursor pages the entity's mentions, and means nothing for a memory
    assert engine.read_memory(sarah, ALICE, cursor=first.next_cursor).entity.mentions == rest.mentions
    with pytest.raises(InvalidInput, match="cursor"):
        engine.read_memory(written[0].id, ALICE, cursor=first.next_cursor)
    with pytest.raises(InvalidInput, match="cursor"):
        engine.read_entity(sarah, ALICE, cursor="not-a-cursor")


def test_proposals_list_and_decide_only_inside_the_callers_scopes(engine, db_path):
    _pair(engine, ALICE)
    _pair(engine, BOB)
    mine = engine.merge_proposals(ALICE).proposals
    theirs = engine.merge_proposals(BOB).proposals
    assert len(mine) == len(theirs) == 1 and mine[0].id != theirs[0].id
    assert mine[0].scopes == ["user:alice"] and mine[0].status == "pending"
    assert {p.id for p in engine.merge_proposals(engine.all_scopes()).proposals} == {mine[0].id, theirs[0].id}
    before = dump(db_path)
    for decide in (engine.accept_merge, engine.reject_merge):
        with pytest.raises(NotFound, match="no merge proposal"):
            decide(theirs[0].id, ALICE)  # bob's proposal reads as unknown to alice
        with pytest.raises(NotFound):
            decide("0" * 64, ALICE)
        with pytest.raises(InvalidInput):
            decide("not-hex", ALICE)
    assert dump(db_path) == before
    rejected = engine.reject_merge(mine[0].id, ALICE, reason="different people")
    assert (rejected.status, rejected.reason) == ("rejected", "different people")
    with pytest.raises(Conflict, match="already rejected"):
        engine.accept_merge(mine[0].id, ALICE)
    assert engine.merge_proposals(ALICE).proposals == []
    assert [p.id for p in engine.merge_proposals(ALICE, status="rejected").proposals] == [mine[0].id]
    assert len(engine.merge_proposals(ALICE, status=None).proposals) == 1
    with pytest.raises(InvalidInput, match="status"):
        engine.merge_proposals(ALICE, status="maybe")


def test_an_ambiguous_proposal_prefix_is_refused_and_changes_nothing(engine, db_path):
    _pair(engine)
    (real,) = engine.merge_proposals(ALICE).proposals
    # two more proposals between the same entities whose ids share their first 8 hex
    # characters (ids are hashes: such a pair would take ~65k proposals to occur naturally)
    row = engine.store.conn.execute("SELECT edge_id, a, b, evidence, seq_created FROM proposals").fetchone()
    for tail in ("0", "1"):  # the store's connection is in autocommit outside a write
        engine.store.conn.execute(
            "INSERT INTO proposals(id, edge_id, a, b, status, tier, score, evidence, seq_created) "
            "VALUES (?,?,?,?, 'pending', 'fuzzy', 0.9, ?, ?)", ("abcdef01" + tail * 56, *row))
    before = dump(db_path)
    with pytest.raises(AmbiguousId):
        engine.accept_merge("abcdef01", ALICE)
    with pytest.raises(InvalidInput, match="at least 8"):
        engine.accept_merge(real.id[:4], ALICE)
    assert dump(db_path) == before
    assert engine.accept_merge("abcdef010", ALICE).status == "accepted"


def test_find_entities_by_id_name_alias_word_and_fuzzy(engine):
    first, second = _pair(engine)
    sarah, sara = first.entities[0].id, second.entities[0].id
    assert [r.id for r in engine.find_entities(sarah[:10], ALICE)] == [sarah]
    assert [r.id for r in engine.find_entities("sarah connor", ALICE)] == [sarah]
    assert [r.id for r in engine.find_entities("S. Connor", ALICE)] == [sarah]
    assert {r.id for r in engine.find_entities("Conner", ALICE)} == {sara}
    assert sarah in {r.id for r in engine.find_entities("Sarah Conor", ALICE)}
    assert engine.find_entities("Sarah Connor", BOB) == []
    assert engine.find_entities(first.id, ALICE) == []  # a memory's id names no entity
    with pytest.raises(InvalidInput):
        engine.find_entities("  ", ALICE)


def test_export_holds_the_class_and_only_what_the_scopes_hold(engine):
    first, second = _pair(engine)
    _pair(engine, BOB)
    engine.accept_merge(second.entities[0].proposals[0], ALICE)
    one = engine.export_identity(ALICE, first.entities[0].id)
    (identity_,) = one["identities"]
    assert {m["name"] for m in identity_["members"]} == {"Sarah Connor", "Sara Conner"}
    assert {m for member in identity_["members"] for m in member["mentioned_by"]} == {first.id, second.id}
    assert [p["status"] for p in identity_["proposals"]] == ["accepted"]
    everything = engine.export_identity(ALICE)
    names = sorted(m["name"] for i in everything["identities"] for m in i["members"])
    assert names == ["Q3 budget", "Sara Conner", "Sarah Connor", "quarterly report"]
    assert everything["scopes"] == ["user:alice"]
    json.dumps(everything)  # JSON-ready
    with pytest.raises(InvalidInput, match="not an entity"):
        engine.export_identity(ALICE, first.id)


def test_find_entities_names_no_entity_moved_out_of_the_callers_scopes(engine):
    """The resolver files a name under the scope the entity was written in; after the graph
    layer moves the entity into another scope, a lookup by that name in the first scope - by
    a principal granted only it - finds nothing there."""
    agent = ScopeSet.of(agent="ag-1")
    written = engine.write_memory("Anna leads the planning meeting.", agent, entities=[{"name": "Anna"}])
    anna = written.entities[0].id
    (agent_world,) = engine.scope_anchors(agent)
    with engine.db.write() as w:
        w.link(Edge("contains", w.scope("user", "bob"), anna))
        w.unlink(Edge("contains", agent_world, anna))
    agents = Access("p-agents", ("agent:*",))
    assert engine.find_entities("Anna", agent, access=agents) == []
    assert engine.find_entities("Anna", agent) == []
    assert [r.id for r in engine.find_entities(anna, BOB)] == [anna]  # by id, where it is now


@pytest.mark.parametrize(("entities", "facts", "words"), [
    ([{"name": "Robert Smith", "kind": "person", "alias": ["Bob"]}], None,
     "entities[0] has unknown key(s) alias, kind"),
    (None, [{"subject": "Robert Smith", "relation": "works_at", "object": "Initech", "confidence": 0.9}],
     "facts[0] has unknown key(s) confidence"),
])
def test_an_unknown_key_in_an_entity_or_fact_is_refused_and_writes_nothing(engine, db_path, entities, facts, words):
    before = dump(db_path)
    with pytest.raises(InvalidInput, match=re.escape(words)):
        engine.write_memory("Robert Smith, Bob to his friends, works at Initech.", ALICE, entities=entities,
                            facts=facts)
    assert dump(db_path) == before
