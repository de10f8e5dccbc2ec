"""write_memories, which nothing judges, still writes no memory twice: an item in the words of a
stored memory (the same voice and scopes, beginning within a resend's window of it, or stating a
slot) or of an earlier item of the batch is its duplicate, as a resent memory_write is; a batch
of nothing but such items commits no transaction. The same event on two days is two memories."""

from __future__ import annotations

import pytest

from tests.support import ALICE, dump

pytestmark = pytest.mark.both_backends


def _texts(engine) -> list[str]:
    return sorted(m.text for m in engine.list_memories(ALICE, limit=50).memories)


def test_a_batch_repeating_stored_memories_writes_only_what_is_new(engine):
    run = engine.write_memory("I went running.", ALICE, valid_from="2024-05-06T07:00:00Z")
    home = engine.write_memory("I live in Austin.", ALICE, valid_from="2024-01-01")
    results = engine.write_memories([{"text": "I went running.", "valid_from": "2024-05-06T07:00:05Z"},
                                     {"text": "I live in Austin.", "valid_from": "2024-05-06"},
                                     {"text": "I bought a kayak.", "valid_from": "2024-05-06"},
                                     {"text": "I bought a kayak.", "valid_from": "2024-05-06"}], ALICE)
    assert [r.duplicate_of for r in results] == [run.id, home.id, None, results[2].id]
    assert _texts(engine) == ["I bought a kayak.", "I live in Austin.", "I went running."]
    before = dump(engine.store.path)
    again = engine.write_memories([{"text": "I went running.", "valid_from": "2024-05-06T07:00:00Z"},
                                   {"text": "I bought a kayak.", "valid_from": "2024-05-06T00:10:00Z"}], ALICE)
    assert [r.duplicate_of for r in again] == [run.id, results[2].id]
    assert dump(engine.store.path) == before  # nothing written, not even a transaction


def test_a_batch_keeps_the_same_event_on_two_days(engine):
    engine.write_memory("I went running.", ALICE, valid_from="2024-05-06T07:00:00Z")
    results = engine.write_memories([{"text": "I went running.", "valid_from": "2024-05-08T07:00:00Z"},
                                     {"text": "I went running.", "valid_from": "2024-05-09T07:00:00Z"}], ALICE)
    assert [r.duplicate_of for r in results] == [None, None]
    assert _texts(engine) == ["I went running."] * 3
