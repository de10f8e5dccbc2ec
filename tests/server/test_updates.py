"""Supersession and contradiction as an agent meets them: plain memory_write calls through the
real MCP client, with the default embedding model, then memory_recall / memory_read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import fails, ok


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat()


@pytest.fixture(scope="module")
def minilm_server(tmp_path_factory):
    """The server as `worlddb serve --default-user alice` runs it: default flags, real model."""
    return build_server(ServerConfig(db=str(tmp_path_factory.mktemp("updates") / "memory.db"), default_user="alice",
                                     background=False))


SCENARIOS = [
    ("austin", "I live in Austin, Texas.", "I moved to Denver last month.", "Where do I live?", "Denver"),
    ("peanuts", "I'm allergic to peanuts.", "Actually I'm not allergic to peanuts anymore after the treatment.",
     "Am I allergic to peanuts?", "anymore"),
    ("editor", "My favourite editor is Vim.", "I switched my favourite editor to Helix.",
     "What is my favourite editor?", "Helix"),
]


@pytest.mark.parametrize(("user", "old", "new", "question", "value"), SCENARIOS)
async def test_a_plain_write_of_a_change_supersedes_what_it_changes(minilm_server, user, old, new, question, value):
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(120))
        await ok(client, "memory_write", text="The office coffee machine broke again.", user_id=user,
                 valid_from=ago(60))
        second = await ok(client, "memory_write", text=new, user_id=user)
        assert second["superseded"] == [first["id"]] and second["duplicate_of"] is None
        hits = (await ok(client, "memory_recall", query=question, user_id=user))["results"]
        assert value in hits[0]["text"] and hits[0]["supersedes"] == [first["id"]]
        assert first["id"] not in [h["id"] for h in hits]
        history = (await ok(client, "memory_recall", query=question, user_id=user, include_retired=True))["results"]
        stale = next(h for h in history if h["id"] == first["id"])
        assert stale["superseded_by"] == [second["id"]] and stale["valid_to"] is not None
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["superseded_by"] == [second["id"]]


async def test_the_slot_a_question_asks_beats_a_same_topic_memory(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "slot"}
        await ok(client, "memory_write", text="The office coffee machine at work broke again.", **scope)
        started = await ok(client, "memory_write", text="Started my first week at Stripe today.", valid_from=ago(3),
                           **scope)
        await ok(client, "memory_write", text="My team lead at work does code reviews on Fridays.", **scope)
        hits = (await ok(client, "memory_recall", query="Where do I work?", **scope))["results"]
        assert hits[0]["id"] == started["id"]


async def test_duplicates_conflicts_and_compatible_additions(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "mixed"}
        first = await ok(client, "memory_write", text="I speak French fluently.", valid_from=ago(30), **scope)
        again = await ok(client, "memory_write", text="I speak French fluently.", **scope)
        assert again["duplicate_of"] == first["id"] and again["id"] == first["id"]
        german = await ok(client, "memory_write", text="I also speak conversational German.", **scope)
        assert german["superseded"] == [] and german["conflicts"] == [] and first["id"] in german["related"]
        stored = await ok(client, "memory_write", text="Our anniversary is on June 3.", valid_from=ago(5), **scope)
        other = await ok(client, "memory_write", text="Our anniversary is on June 13.", valid_from=ago(5), **scope)
        assert [c["with_id"] for c in other["conflicts"]] == [stored["id"]]
        hits = (await ok(client, "memory_recall", query="When is our anniversary?", **scope))["results"]
        assert {hits[0]["id"], hits[1]["id"]} == {stored["id"], other["id"]}
        assert all(h["conflicts"] for h in hits[:2])


async def test_retire_and_amend_take_the_time_of_the_change(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "times"}
        job = await ok(client, "memory_write", text="I work at Shopify.", valid_from=ago(300), **scope)
        assert "future" in await fails(client, "memory_retire", id=job["id"], valid_to=ago(-2), **scope)
        amended = await ok(client, "memory_amend", id=job["id"], text="I work at Stripe.", valid_from=ago(30),
                           **scope)
        assert amended["valid_from"][:10] == ago(30)[:10]
        was = (await ok(client, "memory_recall", query="Where do I work?", as_of=ago(60), **scope))["results"]
        assert was[0]["id"] == job["id"]
        retired = await ok(client, "memory_retire", id=amended["id"], valid_to=ago(1), **scope)
        assert retired["valid_to"][:10] == ago(1)[:10]


async def test_a_change_to_one_of_several_things_a_memory_says_revises_it_and_keeps_the_rest(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "partly"}
        both = await ok(client, "memory_write", text="I live in Lyon and work at Renault as a designer.",
                        valid_from=ago(90), **scope)
        moved = await ok(client, "memory_write", text="We moved to Nantes last month.", **scope)
        assert moved["revised"] == [both["id"]] and moved["superseded"] == []
        # both current; asked about the changed slot the newer is first, asked about the part
        # the revision left alone the revised memory is, and asked about neither the newer is
        for question, first in (("Where do I live?", moved), ("Where do I work?", both),
                                ("Lyon, Nantes and Renault", moved)):
            hits = (await ok(client, "memory_recall", query=question, **scope))["results"]
            found = {h["id"]: h for h in hits if h["id"] in (both["id"], moved["id"])}
            assert list(found)[0] == first["id"], question
            assert found[both["id"]]["annotations"] == {"revised_by": [moved["id"]]}
            assert found[both["id"]]["valid_to"] is None
            assert found[moved["id"]]["annotations"] == {"revises": [both["id"]]}
        read = await ok(client, "memory_read", id=both["id"], **scope)
        assert read["valid_to"] is None and read["superseded_by"] == []
        assert read["annotations"] == {"revised_by": [moved["id"]]}
        lives = [f for f in read["facts"] if f["relation"] == "lives_in"]
        assert lives and all(f["valid_to"] is not None for f in lives)  # the old home ended
