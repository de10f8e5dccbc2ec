"""What an export names (worlddb.memory.exporting): only the scopes exported, one of each kind
as memory_write takes them, and what is current now."""

from __future__ import annotations

from tests.support import ALICE, BOB, open_engine
from worlddb.memory.scopes import ScopeSet

BOTH = ScopeSet((("user", "alice"), ("user", "bob")))


def test_a_shared_memory_names_only_the_exported_scopes_and_one_of_each_kind(tmp_path):
    with open_engine(tmp_path / "memory.db") as engine:
        engine.write_memory("Alice and Bob share the allotment.", BOTH, valid_from="2025-01-01")
        engine.write_memory("Bob keeps bees.", BOB, valid_from="2025-01-02")
        engine.write_memory("The allotment is at Elm Road.", ScopeSet.of(user="alice", agent="gardener"),
                            valid_from="2025-01-03")
        assert list(engine.export_memories(ALICE)) == [
            {"text": "Alice and Bob share the allotment.", "valid_from": "2025-01-01T00:00:00Z", "user_id": "alice"},
            {"text": "The allotment is at Elm Road.", "valid_from": "2025-01-03T00:00:00Z", "user_id": "alice"}]
        # asked for both users, the shared memory is written once, in the first; the agent's scope,
        # not asked for, is named nowhere
        assert [(line["text"], line["user_id"]) for line in engine.export_memories(BOTH)] == [
            ("Alice and Bob share the allotment.", "alice"), ("Bob keeps bees.", "bob"),
            ("The allotment is at Elm Road.", "alice")]
        everything = engine.all_scopes()
        assert [line.get("agent_id") for line in engine.export_memories(everything)] == [None, None, "gardener"]


def test_the_entities_and_facts_a_writer_gave_are_exported_as_they_hold_now(tmp_path):
    with open_engine(tmp_path / "memory.db", functional=("lives_in",)) as engine:
        given = [{"name": "Ana", "type": "person", "aliases": ["Annie"]}, {"name": "Austin"}]
        engine.write_memory("Note one.", BOTH, valid_from="2025-01-01", entities=given,
                            facts=[{"subject": "Ana", "relation": "lives_in", "object": "Austin"},
                                   {"subject": "Ana", "relation": "likes", "object": "tea"}])
        # a later value of the functional relation closes the first one's fact: not exported
        engine.write_memory("Note two.", ALICE, valid_from="2025-02-01",
                            facts=[{"subject": "Ana", "relation": "lives_in", "object": "Denver"}])
        engine.write_memory("Ana drank tea with Ben.", ALICE, valid_from="2025-03-01")  # extracted: found again
        lines = list(engine.export_memories(ALICE))
        # the memory is in both users' scopes, each with its own Ana: named once, from alice's
        assert lines[0]["entities"] == [{"name": "Ana", "type": "person", "aliases": ["Annie"]}, {"name": "Austin"}]
        assert lines[0]["facts"] == [{"subject": "Ana", "relation": "likes", "object": "tea"}]
        assert lines[1]["facts"] == [{"subject": "Ana", "relation": "lives_in", "object": "Denver"}]
        assert [e["name"] for e in lines[1]["entities"]] == []
        assert "entities" not in lines[2] and "facts" not in lines[2]
