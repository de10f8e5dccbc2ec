"""A planned thing given another time by its name, as an agent meets it through the real MCP client with
the default embedding model: "We moved the Tokyo trip to May" ends "I'm going to Tokyo in April", and a
later cancellation ends the plan that holds then, the last one (worlddb.memory.updates.moved_on and
cancelled; worlddb.extract.unread_change.rescheduled and scheduled)."""

from __future__ import annotations

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import ok


@pytest.fixture(scope="module")
def minilm_server(tmp_path_factory):
    return build_server(ServerConfig(db=str(tmp_path_factory.mktemp("rescheduled") / "memory.db"),
                                     default_user="alice", background=False))


async def write(client, user: str, text: str, when: str) -> dict:
    return await ok(client, "memory_write", text=text, valid_from=when, user_id=user)


@pytest.mark.parametrize(("old", "new", "question"), [
    ("I'm going to Tokyo in April.", "We moved the Tokyo trip to May.", "When is the Tokyo trip?"),
    ("I'm planning a trip to Lisbon in October.", "We moved the Lisbon trip to November.",
     "When is the Lisbon trip?"),
    ("We're flying to Denver on March 3.", "I rescheduled the Denver trip for March 10.", "When is the Denver trip?"),
    ("Our wedding is on June 14, 2027.", "We pushed the wedding back to September.", "When is our wedding?"),
])
async def test_a_thing_given_another_time_by_its_name_ends_the_plan_with_the_old_time(minilm_server, old, new,
                                                                                     question):
    async with Client(minilm_server) as client:
        user = f"moved-{abs(hash((old, new)))}"
        first = await write(client, user, old, "2025-01-10")
        second = await write(client, user, new, "2025-03-01")
        assert second["superseded"] == [first["id"]] and second["revised"] == []
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["valid_to"] is not None and read["superseded_by"] == [second["id"]]
        hits = (await ok(client, "memory_recall", query=question, user_id=user))["results"]
        assert hits[0]["id"] == second["id"] and first["id"] not in [h["id"] for h in hits]


async def test_a_cancellation_ends_the_plan_that_holds_not_the_one_already_moved(minilm_server):
    async with Client(minilm_server) as client:
        user = "moved-then-cancelled"
        october = await write(client, user, "I'm planning a trip to Lisbon in October.", "2024-06-01")
        november = await write(client, user, "We moved the Lisbon trip to November.", "2024-08-01")
        assert november["superseded"] == [october["id"]]
        cancelled = await write(client, user, "We cancelled the Lisbon trip.", "2024-10-01")
        assert cancelled["superseded"] == [november["id"]] and cancelled["revised"] == []
        hits = (await ok(client, "memory_recall", query="When is the Lisbon trip?", user_id=user))["results"]
        assert hits[0]["id"] == cancelled["id"]
        assert not {october["id"], november["id"]} & {h["id"] for h in hits}


@pytest.mark.parametrize(("olds", "new"), [
    # another thing's name, or a name two plans fit
    (["I'm going to Tokyo in April."], "We moved the Kyoto trip to May."),
    (["I'm going to Tokyo in April.", "I'm going to Lisbon in June."], "We moved the trip to May."),
    # the time it is moved to is the one the plan has
    (["I'm going to Tokyo in May."], "We moved the Tokyo trip to May."),
    # moved somewhere, not to a time; and asked
    (["I have a code review on Friday."], "I pushed the fix to main."),
    (["I'm going to Tokyo in April."], "Should we move the Tokyo trip to May?"),
])
async def test_a_move_that_names_no_one_plan_or_no_new_time_ends_nothing(minilm_server, olds, new):
    async with Client(minilm_server) as client:
        user = f"kept-{abs(hash((*olds, new)))}"
        firsts = [await write(client, user, old, "2025-01-10") for old in olds]
        second = await write(client, user, new, "2025-03-01")
        assert second["superseded"] == [] and second["revised"] == [] and second["conflicts"] == []
        for first in firsts:
            read = await ok(client, "memory_read", id=first["id"], user_id=user)
            assert read["valid_to"] is None and "revised_by" not in read["annotations"]
