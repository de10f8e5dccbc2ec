"""Scope isolation through every tool, and erasure that leaves no trace in the file.

Alice and Bob share one server and one file. Nothing of Alice's is returned, listed, read,
amended, retired or purged through Bob's scope - not by id, not by prefix, not by query
text, not with include_retired/as_of/known_at - and a miss through the wrong scope is
worded exactly like an id that does not exist, so it does not even reveal existence.
"""

from __future__ import annotations

import pytest
from mcp import Client

from bench import invariants
from bench.serverproc import call, call_error
from tests import pg
from worlddb.core.backends import is_url

from .support import fingerprint, plant_colliding_pair, server_for

ALICE = {"user_id": "alice"}
BOB = {"user_id": "bob"}
ALICE_TEXT = "Alice keeps her spare key under the blue flowerpot"
SHARED_TEXT = "Alice and the travel agent booked the Lisbon flight"


async def _populate(client) -> dict[str, str]:
    ids = {}
    ids["alice"] = (await call(client, "memory_write", text=ALICE_TEXT, **ALICE))["id"]
    ids["alice_fact"] = (await call(client, "memory_write", text="Carla Diaz lives in Austin", **ALICE,
                                    facts=[{"subject": "Carla Diaz", "relation": "lives_in",
                                            "object": "Austin"}]))["id"]
    ids["shared"] = (await call(client, "memory_write", text=SHARED_TEXT, agent_id="travel", **ALICE))["id"]
    old = (await call(client, "memory_write", text="Alice drives a red car", **ALICE))["id"]
    ids["alice_old"] = old
    ids["alice_new"] = (await call(client, "memory_amend", id=old, text="Alice drives a green car", **ALICE))["id"]
    ids["bob"] = (await call(client, "memory_write", text="Bob keeps his key in a drawer", **BOB))["id"]
    ids["bob_fact"] = (await call(client, "memory_write", text="Carla Diaz lives in Osaka", **BOB,
                                  facts=[{"subject": "Carla Diaz", "relation": "lives_in", "object": "Osaka"}]))["id"]
    return ids


def _alice_only(ids):
    return {ids[k] for k in ("alice", "alice_fact", "alice_old", "alice_new")}


@pytest.mark.parametrize("pins", [{}, {"include_retired": True}, {"as_of": "2000-01-01", "include_retired": True},
                                  {"known_at": "2999-01-01"}])
async def test_recall_through_another_scope_never_returns_its_memories(server, pins):
    async with Client(server) as client:
        ids = await _populate(client)
        for query in (ALICE_TEXT, SHARED_TEXT, "Alice", "spare key flowerpot", "Carla Diaz Austin", "red car"):
            result = await call(client, "memory_recall", query=query, limit=100, **BOB, **pins)
            assert result["scopes_searched"] == ["user:bob"]
            found = {h["id"] for h in result["results"]}
            assert not found & (_alice_only(ids) | {ids["shared"]})
            for hit in result["results"]:
                assert hit["scopes"] == ["user:bob"]
                assert not set(hit["conflicts"]) & _alice_only(ids)
                assert not set(hit["superseded_by"]) & _alice_only(ids)
        # the same query through Alice's scope does find hers (the test can fail)
        mine = await call(client, "memory_recall", query=ALICE_TEXT, **ALICE)
        assert mine["results"][0]["id"] == ids["alice"]


async def test_list_through_another_scope_shows_only_that_scope(server):
    async with Client(server) as client:
        ids = await _populate(client)
        for pins in ({}, {"include_retired": True}):
            bob = {m["id"] for m in (await call(client, "memory_list", limit=500, **BOB, **pins))["memories"]}
            assert bob == {ids["bob"], ids["bob_fact"]}
        page = await call(client, "memory_list", limit=500, include_retired=True, **ALICE)
        alice = {m["id"] for m in page["memories"]}
        assert alice == _alice_only(ids) | {ids["shared"]}
        agent = {m["id"] for m in (await call(client, "memory_list", agent_id="travel"))["memories"]}
        assert agent == {ids["shared"]}


@pytest.mark.parametrize("tool, extra", [("memory_read", {}), ("memory_amend", {"text": "Bob owns this now"}),
                                         ("memory_retire", {"reason": "bob says so"})])
async def test_read_amend_retire_through_another_scope_is_not_found_and_changes_nothing(server, db_path, tool, extra):
    async with Client(server) as client:
        ids = await _populate(client)
        before = fingerprint(db_path)
        for key in ("alice", "alice_old", "alice_new", "shared"):
            for given in (ids[key], ids[key][:8], ids[key][:20].upper()):
                error = await call_error(client, tool, id=given, **BOB, **extra)
                missing = await call_error(client, tool, id="0" * len(given), **BOB, **extra)
                # worded like a memory that does not exist: the scope does not leak existence
                assert error.replace(given, "<id>") == missing.replace("0" * len(given), "<id>")
                if given != ids[key]:
                    assert ids[key].lower() not in error.lower()
        assert fingerprint(db_path) == before
        read = await call(client, "memory_read", id=ids["alice"], **ALICE)
        assert read["text"] == ALICE_TEXT and read["valid_to"] is None


async def test_retire_all_and_purge_of_one_scope_leave_the_other_alone(server, db_path):
    async with Client(server) as client:
        ids = await _populate(client)
        assert (await call(client, "memory_retire_all", **BOB))["retired"] >= 2
        purged = await call(client, "memory_purge_scope", confirm="user:bob", erase=True, **BOB)
        assert purged["scope"] == "user:bob"
        for key in ("alice", "alice_fact", "alice_new", "shared"):
            read = await call(client, "memory_read", id=ids[key], **ALICE)
            assert read["valid_to"] is None and not read["retired"] and read["text"]
        hits = await call(client, "memory_recall", query="Carla Diaz lives in Austin", **ALICE)
        assert hits["results"][0]["id"] == ids["alice_fact"]
        assert "no memory" in await call_error(client, "memory_read", id=ids["bob"], **ALICE)
    assert invariants.check(db_path).ok


async def test_an_ambiguous_prefix_resolves_within_the_callers_scope(db_path):
    mine, theirs = plant_colliding_pair(db_path, ("user", "alice"), ("user", "bob"))
    async with Client(server_for(db_path)) as client:
        for tool, extra in (("memory_read", {}), ("memory_amend", {"text": "an edit"}), ("memory_retire", {})):
            for caller, expected, other in ((ALICE, mine, theirs), (BOB, theirs, mine)):
                result = await call(client, tool, id=expected[:8], **caller, **extra)
                assert expected in str(result) and other not in str(result)
        # a third scope sees neither, and is told so without either id
        error = await call_error(client, "memory_read", id=mine[:8], user_id="carol")
        assert mine not in error and theirs not in error


MARKERS = {"text": "Quuxbeth", "meta": "zorblatt", "entity": "Vendelmoor", "fact": "Prellwick", "old": "Snarfvale",
           "reason": "grimblefax"}
KEPT = {"bob": "Bobmarkerzz", "shared": "Sharedmarkerqq"}


async def test_purge_with_erase_leaves_no_trace_of_the_erased_text_in_the_file(server, db_path):
    async with Client(server) as client:
        await call(client, "memory_write", text=f"{MARKERS['text']} is Alice's secret word", **ALICE,
                   metadata={"tag": MARKERS["meta"]})
        await call(client, "memory_write", text=f"Alice met {MARKERS['entity']} at the market", **ALICE,
                   entities=[{"name": MARKERS["entity"], "type": "person", "aliases": [MARKERS["entity"] + "ia"]}])
        await call(client, "memory_write", text=f"Alice lives in {MARKERS['fact']}", **ALICE,
                   facts=[{"subject": "Alice", "relation": "lives_in", "object": MARKERS["fact"]}])
        old = (await call(client, "memory_write", text=f"Alice once visited {MARKERS['old']}", **ALICE))["id"]
        await call(client, "memory_amend", id=old, text="Alice once visited somewhere", **ALICE)
        retired = (await call(client, "memory_write", text="Alice has a spare bike", **ALICE))["id"]
        await call(client, "memory_retire", id=retired, reason=f"sold to {MARKERS['reason']}", **ALICE)
        await call(client, "memory_write", text=f"{KEPT['bob']} belongs to Bob", **BOB)
        await call(client, "memory_write", text=f"{KEPT['shared']} is shared", agent_id="travel", **ALICE)
        hits = await call(client, "memory_recall", query=MARKERS["text"], **ALICE)  # the ANN index holds it
        assert hits["results"]

        result = await call(client, "memory_purge_scope", confirm="user:alice", erase=True, **ALICE)
        assert result["erased"] >= 6 and result["kept_shared"] >= 1

        # straight after the tool returns, with the server still running
        found = _scan(db_path, list(MARKERS.values()) + list(KEPT.values()))
        assert not [m for m in MARKERS.values() if found[m]], found
        assert all(found[m] for m in KEPT.values()), "the scan must find text that is still stored"

        # nothing comes back through any tool either
        for query in MARKERS.values():
            hits = await call(client, "memory_recall", query=query, include_retired=True, limit=100, **ALICE)
            assert all(MARKERS[k] not in (h["text"] or "") for h in hits["results"] for k in MARKERS)
    report = invariants.check(db_path)
    assert report.ok, str(report)


def _scan(db_path, words: list[str]) -> dict[str, bool]:
    """Whether each word occurs in the database file or its WAL, in any letter case (on
    PostgreSQL: in the database's table, index and TOAST files)."""
    if is_url(str(db_path)):
        data = pg.stored_bytes(str(db_path)).lower()
    else:
        data = b""
        for suffix in ("", "-wal"):
            path = db_path.parent / (db_path.name + suffix)
            if path.exists():
                data += path.read_bytes().lower()
    return {word: word.lower().encode() in data for word in words}
