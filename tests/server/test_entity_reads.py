"""memory_read on an entity id, through the real MCP client in both protocol eras: the entity
section, pending proposals apart from accepted members, paging its mentions, and an output
schema the client validates every answer against."""

from __future__ import annotations

import pytest

from tests.support import ALICE, open_engine

from .helpers import fails, ok

pytestmark = pytest.mark.both_backends

SARAH = {"name": "Sarah Connor", "type": "person", "aliases": ["S. Connor"]}


async def _pair(client):
    first = await ok(client, "memory_write", text="My manager Sarah Connor approved the Q3 budget.", entities=[SARAH])
    second = await ok(client, "memory_write", text="Sara Conner wants the quarterly report by Friday.",
                      entities=[{"name": "Sara Conner", "type": "person"}])
    return first, second


async def test_reading_an_entity_id_returns_the_entity_in_full(connect):
    async with connect() as client:
        first, second = await _pair(client)
        sarah, sara = first["entities"][0], second["entities"][0]
        read = await ok(client, "memory_read", id=sarah["id"][:12])
        assert (read["type"], read["text"]) == ("Entity", "Sarah Connor")
        entity = read["entity"]
        assert (entity["name"], entity["type"], entity["aliases"]) == ("Sarah Connor", "person", ["S. Connor"])
        assert entity["same_as"] == [] and entity["scopes"] == ["user:alice"]
        assert [(p["id"], p["other_id"], p["other_name"]) for p in entity["proposals"]] == [
            (sara["proposals"][0], sara["id"], "Sara Conner")]
        assert {"tier", "score"} <= set(entity["proposals"][0])
        assert [m["id"] for m in entity["mentions"]] == [first["id"]]
        # the client validates every answer against the tool's output schema, which names the section
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "entity" in tools["memory_read"].output_schema["properties"]
        assert "EntityDetail" in str(tools["memory_read"].output_schema)
        memory = await ok(client, "memory_read", id=first["id"])
        assert memory["entity"] is None


async def test_a_memorys_entities_separate_pending_proposals_from_accepted_members(connect, db_file):
    async with connect() as client:
        first, second = await _pair(client)
        sarah, sara = first["entities"][0], second["entities"][0]
        linked = (await ok(client, "memory_read", id=second["id"]))["entities"][0]
        assert linked["proposed_merge_with"] == [sarah["id"]] and linked["same_as"] == []
        assert linked["proposals"] == sara["proposals"]
    # accepting is the operator's act (the CLI or the inspector), not a tool the model calls
    with open_engine(db_file) as engine:
        engine.accept_merge(sara["proposals"][0], ALICE)
    async with connect() as client:
        linked = (await ok(client, "memory_read", id=second["id"]))["entities"][0]
        assert linked["proposed_merge_with"] == [] and linked["proposals"] == []
        assert linked["same_as"] == [sarah["id"]]
        entity = (await ok(client, "memory_read", id=sara["id"]))["entity"]
        assert [m["name"] for m in entity["same_as"]] == ["Sarah Connor"]
        assert [m["id"] for m in entity["mentions"]] == [second["id"], first["id"]]
        hits = (await ok(client, "memory_recall", query="What does Sarah Connor want?"))["results"]
        by_id = {h["id"]: h for h in hits}
        assert by_id[second["id"]]["lanes"].get("entity")


async def test_an_entitys_mentions_page_through_the_cursor(connect):
    async with connect() as client:
        written = [await ok(client, "memory_write", text=f"Garden note {i}", entities=[SARAH]) for i in range(25)]
        sarah = written[0]["entities"][0]["id"]
        first = (await ok(client, "memory_read", id=sarah))["entity"]
        assert len(first["mentions"]) == 20 and first["next_cursor"]
        rest = (await ok(client, "memory_read", id=sarah, cursor=first["next_cursor"]))["entity"]
        seen = [m["id"] for m in first["mentions"] + rest["mentions"]]
        assert seen == [w["id"] for w in reversed(written)] and rest["next_cursor"] is None
        error = await fails(client, "memory_read", id=written[0]["id"], cursor=first["next_cursor"])
        assert "cursor" in error and "entity" in error
        assert "cursor" in await fails(client, "memory_read", id=sarah, cursor="bogus")


async def test_another_scopes_entity_reads_as_unknown(connect):
    async with connect() as client:
        first, _ = await _pair(client)
        sarah = first["entities"][0]["id"]
        assert "no memory with id" in await fails(client, "memory_read", id=sarah, user_id="bob")


async def test_a_given_name_and_a_full_name_of_one_person_become_a_proposal(connect):
    # the extractor finds both names itself; nothing is merged until someone accepts
    async with connect() as client:
        first = await ok(client, "memory_write", text="My sister Ana lives in Lisbon.")
        second = await ok(client, "memory_write", text="Ana Souza called me about the reunion.")
        ana = next(e for e in first["entities"] if e["name"] == "Ana")
        full = next(e for e in second["entities"] if e["name"] == "Ana Souza")
        assert full["resolution"] == "proposed_merge" and full["proposed_merge_with"] == [ana["id"]]
        entity = (await ok(client, "memory_read", id=ana["id"]))["entity"]
        assert [(p["other_id"], p["tier"]) for p in entity["proposals"]] == [(full["id"], "name_part")]
        assert entity["same_as"] == []


async def test_the_person_a_plain_memory_is_about_is_found_and_recalled_by_name(connect):
    async with connect() as client:
        written = await ok(client, "memory_write", text="Sarah prefers tea over coffee.")
        await ok(client, "memory_write", text="The boiler service is booked for March.")
        sarah = next(e for e in written["entities"] if e["name"] == "Sarah")
        entity = (await ok(client, "memory_read", id=sarah["id"]))["entity"]
        assert entity["name"] == "Sarah" and [m["id"] for m in entity["mentions"]] == [written["id"]]
        hits = (await ok(client, "memory_recall", query="What does Sarah drink?"))["results"]
        assert hits[0]["id"] == written["id"] and hits[0]["lanes"].get("entity")
