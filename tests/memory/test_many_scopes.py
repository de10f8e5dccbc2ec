"""A caller with more scopes than the database takes bound parameters in one statement.

The inspector works inside every scope its caller is granted (`Engine.all_scopes`): a
principal granted `user:*` in a file of many users reads and writes across all of them.
Statements that bound one `?` per scope hit SQLite's cap on bound parameters
(SQLITE_MAX_VARIABLE_NUMBER: 32,766 in a default build, 999 before 3.32). The connection
here is set to 999, so 1,200 scopes (each bound twice by the scope test of a lane) are
past it; on PostgreSQL the same lists go as arrays.
"""

from __future__ import annotations

import sqlite3

import pytest

from worlddb.core.errors import NotFound
from worlddb.memory.scopes import ScopeSet

pytestmark = pytest.mark.both_backends

N_SCOPES = 1_200
#: SQLite's default cap on bound parameters before 3.32
LIMIT = 999


def scope(i: int) -> ScopeSet:
    return ScopeSet((("user", f"u{i:05d}"),))


@pytest.fixture
def crowded(engine):
    with engine.db.write() as w:
        for i in range(N_SCOPES):
            w.scope("user", f"u{i:05d}")
    if engine.store.backend.name == "sqlite":
        engine.store.conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, LIMIT)
    return engine


def test_every_read_and_write_takes_thousands_of_scopes(crowded):
    engine = crowded
    first = engine.write_memory("Quenby plants tulips in the allotment", scope(7),
                                entities=[{"name": "Quenby"}])
    engine.write_memory("Quenby mended the allotment fence", scope(900), entities=[{"name": "Quenby"}])
    engine.write_memory("Quenbie waters the tulips", scope(901), entities=[{"name": "Quenbie"}])
    hidden = engine.write_memory("Quenby keeps tulips on the boat", ScopeSet((("agent", "elsewhere"),)),
                                 entities=[{"name": "Quenby"}])
    every = engine.all_scopes()
    users = ScopeSet(tuple(p for p in every if p[0] == "user"))
    assert len(users) == N_SCOPES

    hits = engine.recall("Quenby tulips allotment", users, limit=20).results
    assert first.id in {h.id for h in hits} and hidden.id not in {h.id for h in hits}
    listed = engine.list_memories(users, limit=500).memories
    assert {m.id for m in listed} >= {first.id} and hidden.id not in {m.id for m in listed}
    detail = engine.read_memory(first.id, users)
    assert detail.text.startswith("Quenby plants")
    entity = detail.entities[0].id
    whole = engine.read_entity(entity, users)
    assert all(m.id != hidden.id for m in whole.mentions)
    assert engine.find_entities("Quenby", users)
    assert engine.merge_proposals(users, status=None).proposals is not None
    amended = engine.amend(first.id, "Quenby plants daffodils in the allotment", users)
    assert engine.read_memory(amended.id, users).supersedes == [first.id]
    assert engine.retire(amended.id, users).retired
    done = engine.retire_all(users)
    assert done.retired >= 2
    # the scope outside the set is untouched
    assert engine.read_memory(hidden.id, ScopeSet((("agent", "elsewhere"),))).retired is False


def test_a_miss_counts_the_scopes_instead_of_listing_them(crowded):
    engine = crowded
    elsewhere = engine.write_memory("Quenby keeps tulips on the boat", ScopeSet((("agent", "elsewhere"),)),
                                    entities=[{"name": "Quenby"}])
    users = ScopeSet(tuple(p for p in engine.all_scopes() if p[0] == "user"))
    entity = engine.read_memory(elsewhere.id, ScopeSet((("agent", "elsewhere"),))).entities[0].id
    for call, noun, node in ((engine.read_memory, "memory", elsewhere.id), (engine.read_entity, "entity", entity)):
        with pytest.raises(NotFound) as caught:
            call(node, users)
        assert str(caught.value) == f"no {noun} with id {node} in the {N_SCOPES} scopes searched"
    # a few scopes are still named, as before
    with pytest.raises(NotFound, match=r"in scope user:u00007$"):
        engine.read_memory(elsewhere.id, scope(7))
