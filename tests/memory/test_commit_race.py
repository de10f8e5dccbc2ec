"""Two servers on one store: what one commits between another's checks (made before the write
lock) and that other's transaction counts as if it had come first. Here two engines on one
SQLite file or PostgreSQL database are the two servers, and the second takes its write lock
just after the first commits: an amend of a memory the other amended meanwhile is refused,
and a memory the other wrote meanwhile, in the same words, scopes and voice, is a duplicate."""

from __future__ import annotations

import pytest

from tests.support import ALICE, locks_after, open_engine
from worlddb.core.errors import InvalidInput

pytestmark = pytest.mark.both_backends


@pytest.fixture
def servers(db_path):
    first, second = open_engine(db_path), open_engine(db_path)
    yield first, second
    second.close()
    first.close()


def test_an_amend_of_a_memory_another_server_amends_before_its_lock_is_refused(servers, monkeypatch):
    a, b = servers
    first = a.write_memory("Alice's project deadline is March 3.", ALICE, valid_from="2023-01-05")
    prepared = b.complete(b.prepare_amend(b.amend_target(first.id, "Alice's project deadline is May 5.", ALICE,
                                                         valid_from="2023-02-01")))
    won = []
    locks_after(monkeypatch, b, lambda: won.append(a.amend(first.id, "Alice's project deadline is April 4.", ALICE,
                                                            valid_from="2023-02-01")))
    with pytest.raises(InvalidInput, match=f"memory {first.id} is no longer current: superseded by") as refused:
        b.commit_amend(prepared)
    assert f"superseded by {won[0].id}; amend that one" in str(refused.value)
    assert [e.src for e in b.services.store.edges(dst=first.id, type="supersedes")] == [won[0].id]
    hits = b.recall("Alice's project deadline", ALICE, limit=5).results
    assert [h.text for h in hits if "deadline" in h.text] == ["Alice's project deadline is April 4."]


def test_an_amend_of_a_memory_another_server_retires_before_its_lock_is_refused(servers, monkeypatch):
    a, b = servers
    first = a.write_memory("Alice's locker is number 12.", ALICE)
    prepared = b.complete(b.prepare_amend(b.amend_target(first.id, "Alice's locker is number 14.", ALICE)))
    locks_after(monkeypatch, b, lambda: a.retire(first.id, ALICE))
    with pytest.raises(InvalidInput, match="no longer current \\(it was retired\\)"):
        b.commit_amend(prepared)
    assert b.services.store.edges(dst=first.id, type="supersedes") == []


def test_the_same_words_another_server_writes_before_the_lock_are_a_duplicate(servers, monkeypatch):
    a, b = servers
    prepared = b.complete(b.prepare_write("My locker code is 4471.", ALICE, valid_from="2023-03-03"))
    won = []
    locks_after(monkeypatch, b, lambda: won.append(a.write_memory("My locker code is 4471.", ALICE,
                                                                   valid_from="2023-03-03")))
    (second,) = b.commit_write(prepared)
    assert won[0].duplicate_of is None and second.duplicate_of == won[0].id and second.id == won[0].id
    listed = b.list_memories(ALICE).memories
    assert [m.text for m in listed] == ["My locker code is 4471."]
    assert b.services.db.verify().ok


def test_other_words_or_another_voice_written_meanwhile_are_no_duplicate(servers, monkeypatch):
    a, b = servers
    for text, other in (("My locker code is 4471.", lambda: a.write_memory("My locker code is 4472.", ALICE)),
                        ("My gym code is 1234.", lambda: a.write_memory("My gym code is 1234.", ALICE,
                                                                        metadata={"speaker": "Tom"}))):
        prepared = b.complete(b.prepare_write(text, ALICE))
        locks_after(monkeypatch, b, other)
        (written,) = b.commit_write(prepared)
        assert written.duplicate_of is None
