"""The grant rule lives in the engine, so a Python caller holding an Access is bound by it
exactly as an HTTP caller is: a scope outside the grant fails as a missing one does, before
anything is read or written, and results name only granted scopes."""

from __future__ import annotations

import pytest

from tests import pg
from tests.support import ALICE, BOB, dump, open_engine
from worlddb.core.backends import is_url
from worlddb.core.errors import Forbidden, InvalidInput, NotFound
from worlddb.core.store import Store
from worlddb.memory import principals
from worlddb.memory.access import Access, parse_grant
from worlddb.memory.aio import AsyncEngine
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import HashEmbedder

pytestmark = pytest.mark.both_backends

NOBODY = ScopeSet((("user", "nobody"),))
ALICE_ONLY = Access("alice", ("user:alice",))
ALICE_ADMIN = Access("alice-admin", ("user:alice",), admin=True)
SHARED = ScopeSet((("user", "alice"), ("agent", "travel")))




@pytest.mark.parametrize("grant, canonical", [("user:alice", "user:alice"), (" agent:* ", "agent:*"), ("*", "*"),
                                              ("user:team-*", "user:team-*"), ("run:r 1", "run:r 1")])
def test_grants_are_exact_keys_or_trailing_star_patterns(grant, canonical):
    assert parse_grant(grant) == canonical


@pytest.mark.parametrize("grant", ["alice", "users:alice", "user:", "user:a*b*", "user:*x", "**", "user:\x00", 7])
def test_a_malformed_grant_is_refused(grant):
    with pytest.raises(InvalidInput):
        parse_grant(grant)


def test_patterns_cover_what_they_say_and_nothing_more():
    access = Access("p", ("user:alice", "agent:*", "run:job-*"))
    assert access.allows("user:alice") and access.allows("agent:x") and access.allows("run:job-7")
    assert not access.allows("user:alice2") and not access.allows("user:bob") and not access.allows("run:jo")
    assert not access.allows("app:agent:x")
    assert Access.owner().allows("user:anyone")
    assert not Access("nobody").allows("user:alice")


def test_the_default_scope_is_the_servers_if_granted_else_a_single_exact_grant():
    server = ScopeSet((("user", "zed"),))
    assert ALICE_ONLY.default_scopes(server) == ALICE
    assert Access("z", ("user:*",)).default_scopes(server) == server
    assert Access("a", ("agent:*",)).default_scopes(server) is None
    assert Access("two", ("user:a", "user:b")).default_scopes(None) is None


def test_every_engine_operation_refuses_an_ungranted_scope_as_a_missing_one_and_writes_nothing(db_path):
    with open_engine(db_path) as engine:
        bob = engine.write_memory("Bob keeps his key in a drawer", BOB).id
        engine.write_memory("Alice parks on level three", ALICE)
        calls = {
            "write_memory": lambda s, i: engine.write_memory("sneaky", s, access=ALICE_ONLY),
            "write_memories": lambda s, i: engine.write_memories([{"text": "sneaky"}], s, access=ALICE_ONLY),
            "ingest": lambda s, i: engine.ingest_conversation(
                [SessionIn(date="2024-01-01", turns=(TurnIn("Al", "hi"),))], s, access=ALICE_ONLY),
            "recall": lambda s, i: engine.recall("key drawer", s, access=ALICE_ONLY),
            "list": lambda s, i: engine.list_memories(s, access=ALICE_ONLY),
            "read": lambda s, i: engine.read_memory(i, s, access=ALICE_ONLY),
            "amend": lambda s, i: engine.amend(i, "changed", s, access=ALICE_ONLY),
            "retire": lambda s, i: engine.retire(i, s, access=ALICE_ONLY),
            "retire_all": lambda s, i: engine.retire_all(s, access=ALICE_ONLY),
            "purge": lambda s, i: engine.purge_scope(s, s.keys[0], erase=True, access=ALICE_ADMIN),
            "write_messages": lambda s, i: engine.write_messages([{"role": "user", "content": "hi"}], s,
                                                                 access=ALICE_ONLY),
            "read_entity": lambda s, i: engine.read_entity(i, s, access=ALICE_ONLY),
            "find_entities": lambda s, i: engine.find_entities("Bob", s, access=ALICE_ONLY),
            "merge_proposals": lambda s, i: engine.merge_proposals(s, access=ALICE_ONLY),
            "accept_merge": lambda s, i: engine.accept_merge(i, s, access=ALICE_ONLY),
            "reject_merge": lambda s, i: engine.reject_merge(i, s, access=ALICE_ONLY),
            "export_identity": lambda s, i: engine.export_identity(s, i, access=ALICE_ONLY),
        }
        for name, operation in calls.items():
            before = dump(db_path)
            with pytest.raises(NotFound) as refused:
                operation(BOB, bob)
            with pytest.raises(NotFound) as missing:
                operation(NOBODY, "0" * 64)
            assert type(refused.value) is type(missing.value) is NotFound, name
            assert str(refused.value) == str(missing.value).replace("user:nobody", "user:bob").replace("0" * 64, bob)
            assert dump(db_path) == before, f"{name} changed the file"
        with pytest.raises(Forbidden):
            engine.purge_scope(ALICE, "user:alice", access=ALICE_ONLY)  # purging needs admin
        assert [s.key for s in engine.list_scopes(access=ALICE_ONLY).scopes] == ["user:alice"]
        # the owner (no access given) is refused nothing: the refusals above can fail
        assert engine.read_memory(bob, BOB).text == "Bob keeps his key in a drawer"
        assert [s.key for s in engine.list_scopes().scopes] == ["user:alice", "user:bob"]


def test_results_name_only_granted_scopes(db_path):
    with open_engine(db_path) as engine:
        shared = engine.write_memory("Alice and the travel agent booked the Lisbon flight", SHARED)
        assert engine.write_memory("x y z", SHARED, access=Access("both", ("user:alice", "agent:travel"))).scopes \
            == ["user:alice", "agent:travel"]
        hits = engine.recall("Lisbon flight", ALICE, access=ALICE_ONLY).results
        assert hits[0].id == shared.id and hits[0].scopes == ["user:alice"]
        detail = engine.read_memory(shared.id, ALICE, access=ALICE_ONLY)
        assert detail.scopes == ["user:alice"] and detail.provenance["scopes"] == ["user:alice"]
        assert all(m.scopes == ["user:alice"] for m in engine.list_memories(ALICE, access=ALICE_ONLY).memories)
        both = Access("both", ("user:alice", "agent:*"))
        amended = engine.amend(shared.id, "Alice booked the Porto flight instead", ALICE, access=both)
        assert amended.scopes == ["agent:travel", "user:alice"]
        # the correction reaches every scope the memory was in, as its owner sees
        assert engine.read_memory(amended.id, ALICE).scopes == ["agent:travel", "user:alice"]


def test_a_memory_shared_with_an_ungranted_scope_is_not_amended_through_a_granted_one(db_path):
    with open_engine(db_path) as engine:
        shared = engine.write_memory("Alice and the travel agent booked the Lisbon flight", SHARED)
        before = dump(db_path)
        with pytest.raises(Forbidden) as refused:
            engine.amend(shared.id, "Alice booked the Porto flight instead", ALICE, access=ALICE_ONLY)
        assert "may not write" in str(refused.value) and "travel" not in str(refused.value)
        assert dump(db_path) == before
        with pytest.raises(Forbidden) as refused:
            engine.retire(shared.id, ALICE, access=ALICE_ONLY)
        assert "may not write" in str(refused.value) and "travel" not in str(refused.value)
        assert dump(db_path) == before
        # the memory is still hers to read, and the owner may amend it: the refusal can fail
        assert engine.read_memory(shared.id, ALICE, access=ALICE_ONLY).superseded_by == []
        amended = engine.amend(shared.id, "Alice booked the Porto flight instead", ALICE)
        assert amended.supersedes == shared.id


def test_retire_all_is_refused_when_a_memory_of_the_scope_is_shared_with_an_ungranted_one(db_path):
    with open_engine(db_path) as engine:
        engine.write_memory("Alice parks on level three", ALICE)
        engine.write_memory("Alice and the travel agent booked the Lisbon flight", SHARED)
        before = dump(db_path)
        with pytest.raises(Forbidden) as refused:
            engine.retire_all(ALICE, access=ALICE_ONLY)
        assert "may not write" in str(refused.value) and "travel" not in str(refused.value)
        assert dump(db_path) == before
        # a caller granted both scopes retires both memories: the refusal can fail
        both = Access("both", ("user:alice", "agent:travel"))
        assert engine.retire_all(ALICE, access=both).retired == 2
        assert engine.list_memories(SHARED).memories == []


def test_retire_all_of_a_scope_that_shares_nothing_needs_only_that_scope(db_path):
    with open_engine(db_path) as engine:
        engine.write_memory("Alice parks on level three", ALICE)
        engine.write_memory("Bob keeps his key in a drawer", BOB)
        assert engine.retire_all(ALICE, access=ALICE_ONLY).retired == 1
        assert [m.text for m in engine.list_memories(BOB).memories] == ["Bob keeps his key in a drawer"]


async def test_the_async_engine_carries_the_access_to_the_engine(db_path):
    async with await AsyncEngine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        await engine.write_memory("Bob keeps his key in a drawer", BOB)
        with pytest.raises(NotFound):
            await engine.recall("key", BOB, access=ALICE_ONLY)
        assert (await engine.list_scopes(access=ALICE_ONLY)).scopes == []


def test_tokens_are_stored_only_as_digests_and_revoked_ones_open_nothing(db_path):
    store = Store.open(db_path)
    try:
        token = principals.add_token(store, "alice-laptop", ["user:alice", "agent:*"])
        assert token.startswith(principals.TOKEN_PREFIX) and len(token) > 40
        assert principals.authenticate(store, token) == Access("alice-laptop", ("user:alice", "agent:*"))
        assert principals.authenticate(store, token + "x") is None
        assert principals.authenticate(store, principals.token_digest(token)) is None
        with pytest.raises(InvalidInput):
            principals.add_token(store, "alice-laptop", ["user:alice"])
        with pytest.raises(InvalidInput):
            principals.add_token(store, "bad name", ["user:alice"])
        with pytest.raises(InvalidInput):
            principals.add_token(store, "nogrants", [])
        principals.revoke(store, "alice-laptop")
        assert principals.authenticate(store, token) is None
        assert principals.any_token(store)  # a server that required tokens keeps requiring them
        with pytest.raises(NotFound):
            principals.revoke(store, "alice-laptop")
        again = principals.add_token(store, "alice-laptop", ["user:alice"])  # a revoked name can be reissued
        assert principals.authenticate(store, again).grants == ("user:alice",)
        assert principals.authenticate(store, token) is None
    finally:
        store.close()
    if is_url(str(db_path)):
        raw = pg.stored_bytes(str(db_path))
    else:
        raw = b"".join(p.read_bytes() for p in db_path.parent.iterdir() if p.name.startswith(db_path.name))
    assert token.encode() not in raw and again.encode() not in raw
    assert principals.token_digest(again).encode() in raw


def test_a_shared_memory_names_only_the_entities_of_granted_scopes(db_path):
    travel = ScopeSet((("agent", "travel"),))
    with open_engine(db_path) as engine:
        engine.write_memory("Marguerite Okafor from Lisbon Air called about the Porto booking", travel)
        shared = engine.write_memory("Marguerite Okafor confirmed the Lisbon flight", SHARED)
        # the owner sees the entities of both scopes: the travel agent's too
        every = {e.id for e in engine.read_memory(shared.id, SHARED).entities}
        seen = engine.read_memory(shared.id, ALICE, access=ALICE_ONLY).entities
        assert seen and {e.id for e in seen} < every
        for entity in seen:  # each one named is one alice can open
            assert engine.read_memory(entity.id, ALICE, access=ALICE_ONLY).type == "Entity"
        hit = next(h for h in engine.recall("Marguerite Lisbon flight", ALICE, access=ALICE_ONLY).results
                   if h.id == shared.id)
        assert hit.entities == sorted(e.name for e in seen)
