"""Planned changes as an agent meets them: a memory written with a valid_from still to come ends
the one it replaces then, not now. Until then the old memory is current, so a change written
today ends it today, an amend takes it over (and the plan then ends the amend), and counts and
listings take it for what it is now. Real MCP client, real model, a SQLite file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import fails, ok


def days(n: float) -> str:
    """A time `n` days from now (negative: ago)."""
    return (datetime.now(UTC) + timedelta(days=n)).isoformat()


@pytest.fixture
def planning(tmp_path):
    return build_server(ServerConfig(db=str(tmp_path / "memory.db"), default_user="alice", background=False))


def _texts(hits: list[dict]) -> list[str]:
    return [h["text"] for h in hits]


async def test_a_change_written_today_ends_a_memory_whose_planned_change_is_still_to_come(planning):
    async with Client(planning) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-400))
        denver = await ok(client, "memory_write", text="I live in Denver.", valid_from=days(90))
        assert denver["superseded"] == [austin["id"]]
        seattle = await ok(client, "memory_write", text="I live in Seattle.")
        assert seattle["superseded"] == [austin["id"]] and seattle["conflicts"] == []
        hits = (await ok(client, "memory_recall", query="Where do I live?"))["results"]
        assert _texts(hits)[0] == "I live in Seattle." and austin["id"] not in [h["id"] for h in hits]
        read = await ok(client, "memory_read", id=austin["id"])
        assert sorted(read["superseded_by"]) == sorted([denver["id"], seattle["id"]])
        assert read["valid_to"] == seattle["valid_from"]
        # the plan still stands: it now ends Seattle, as it would have ended an amend of Austin
        assert hits[0]["valid_to"] == denver["valid_from"] and hits[0]["superseded_by"] == [denver["id"]]
        later = (await ok(client, "memory_recall", query="Where do I live?", as_of=days(100)))["results"]
        assert _texts(later)[0] == "I live in Denver." and seattle["id"] not in [h["id"] for h in later]


@pytest.mark.parametrize("plan", ["We're moving to Seattle on January 15.", "I'll be living in Seattle from then on.",
                                  "We're moving to Seattle next month."])
async def test_a_plan_worded_as_still_to_come_ends_the_old_memory_when_it_begins(planning, plan):
    async with Client(planning) as client:
        portland = await ok(client, "memory_write", text="I live in Portland.", valid_from=days(-400))
        seattle = await ok(client, "memory_write", text=plan, valid_from=days(45))
        assert seattle["superseded"] == [portland["id"]]
        now = (await ok(client, "memory_recall", query="Where do I live?"))["results"]
        assert _texts(now)[0] == "I live in Portland." and now[0]["valid_to"] == seattle["valid_from"]
        later = (await ok(client, "memory_recall", query="Where do I live?", as_of=days(60)))["results"]
        assert _texts(later)[0] == plan and portland["id"] not in [h["id"] for h in later]


async def test_a_plan_worded_as_still_to_come_but_written_for_now_or_only_wished_ends_nothing(planning):
    async with Client(planning) as client:
        await ok(client, "memory_write", text="I live in Portland.", valid_from=days(-400))
        soon = await ok(client, "memory_write", text="We're moving to Seattle next month.")
        wish = await ok(client, "memory_write", text="We're thinking about moving to Denver.", valid_from=days(45))
        assert soon["superseded"] == wish["superseded"] == []
        later = (await ok(client, "memory_recall", query="Where do I live?", as_of=days(60)))["results"]
        assert _texts(later)[0] == "I live in Portland."


async def test_an_amend_takes_over_a_current_memory_with_a_planned_successor_and_the_plan_ends_it(planning):
    async with Client(planning) as client:
        google = await ok(client, "memory_write", text="I work at Google.", valid_from=days(-700))
        figma = await ok(client, "memory_amend", id=google["id"], text="I work at Figma.", valid_from=days(45))
        now = (await ok(client, "memory_recall", query="Where do I work?"))["results"]
        assert _texts(now)[0] == "I work at Google." and now[0]["valid_to"] == figma["valid_from"]
        # an amend that would begin after the planned end is refused, and names the plan
        text = await fails(client, "memory_amend", id=google["id"], text="I work at Google as a staff engineer.",
                           valid_from=days(60))
        assert f"ends at {figma['valid_from'][:10]}" in text and figma["id"] in text and "amend that one" in text
        staff = await ok(client, "memory_amend", id=google["id"], text="I work at Google as a staff engineer.")
        assert staff["supersedes"] == google["id"]
        now = (await ok(client, "memory_recall", query="Where do I work?"))["results"]
        assert _texts(now)[0] == "I work at Google as a staff engineer."
        assert now[0]["valid_to"] == figma["valid_from"] and now[0]["superseded_by"] == [figma["id"]]
        later = (await ok(client, "memory_recall", query="Where do I work?", as_of=days(50)))["results"]
        assert _texts(later) == ["I work at Figma."]
        # what the amend says ends with it: its fact too ends where the plan begins
        facts = (await ok(client, "memory_read", id=staff["id"]))["facts"]
        assert [(f["object"], f["valid_to"]) for f in facts] == [("Google", figma["valid_from"])]


async def test_plans_written_out_of_order_follow_each_other_by_their_start(planning):
    async with Client(planning) as client:
        dell = await ok(client, "memory_write", text="I work at Dell as an engineer.", valid_from=days(-300))
        google = await ok(client, "memory_write", text="I work at Google as a manager.", valid_from=days(60))
        figma = await ok(client, "memory_write", text="I work at Figma as a designer.", valid_from=days(30))
        assert google["superseded"] == figma["superseded"] == [dell["id"]]
        assert figma["conflicts"] == []  # one after the other, not two answers at once

        async def working(n: float) -> list[str]:
            hits = (await ok(client, "memory_recall", query="Where do I work?", as_of=days(n)))["results"]
            return [h["text"] for h in hits if h["text"].startswith("I work at")]

        assert await working(0) == ["I work at Dell as an engineer."]
        assert await working(45) == ["I work at Figma as a designer."]
        assert await working(90) == ["I work at Google as a manager."]  # the later plan ends the earlier
        read = await ok(client, "memory_read", id=figma["id"])
        assert read["valid_to"] == google["valid_from"] and read["superseded_by"] == [google["id"]]
        assert [(f["object"], f["valid_to"]) for f in read["facts"]] == [("Figma", google["valid_from"])]
        # a third change between them takes its place in the line
        apple = await ok(client, "memory_write", text="I work at Apple as a designer.", valid_from=days(40))
        assert apple["superseded"] == [figma["id"]] and apple["conflicts"] == []
        assert (await working(35), await working(50), await working(90)) == (
            ["I work at Figma as a designer."], ["I work at Apple as a designer."], ["I work at Google as a manager."])
        # one before them all: every plan after it follows it, and none is a conflict
        canva = await ok(client, "memory_write", text="I work at Canva as a designer.", valid_from=days(10))
        assert canva["superseded"] == [dell["id"]] and canva["conflicts"] == []
        assert (await working(5), await working(20), await working(35)) == (
            ["I work at Dell as an engineer."], ["I work at Canva as a designer."], ["I work at Figma as a designer."])


async def test_counts_and_listings_take_planned_and_planned_away_memories_for_what_they_are_now(planning):
    async with Client(planning) as client:
        google = await ok(client, "memory_write", text="I work at Google.", valid_from=days(-700))
        await ok(client, "memory_amend", id=google["id"], text="I work at Figma.", valid_from=days(45))
        dentist = await ok(client, "memory_write", text="Dentist appointment with Dr. Reyes.", valid_from=days(20))
        await ok(client, "memory_write", text="I like green tea.")
        scopes = (await ok(client, "memory_list_scopes"))["scopes"]
        assert [(s["key"], s["memories"], s["upcoming"], s["retired"]) for s in scopes] == [("user:alice", 2, 2, 0)]
        await ok(client, "memory_retire", id=dentist["id"])  # called off before it began
        listed = (await ok(client, "memory_list"))["memories"]
        assert dentist["id"] not in [m["id"] for m in listed] and not any(m["retired"] for m in listed)
        scopes = (await ok(client, "memory_list_scopes"))["scopes"]
        assert [(s["memories"], s["upcoming"], s["retired"]) for s in scopes] == [(2, 1, 1)]
        # what was current or still to come: Google (ending at the plan), the tea, and Figma
        assert (await ok(client, "memory_retire_all", user_id="alice"))["retired"] == 3


async def test_a_purge_counts_a_memory_a_plan_ends_later_as_current(planning):
    async with Client(planning) as client:
        google = await ok(client, "memory_write", text="I work at Google.", valid_from=days(-700))
        await ok(client, "memory_amend", id=google["id"], text="I work at Figma.", valid_from=days(45))
        purged = await ok(client, "memory_purge_scope", user_id="alice", confirm="user:alice")
        assert purged["retired"] == 2


async def test_a_memory_a_cancelled_plan_would_have_ended_holds_on_past_the_plans_start(planning):
    async with Client(planning) as client:
        google = await ok(client, "memory_write", text="I work at Google.", valid_from=days(-700))
        figma = await ok(client, "memory_amend", id=google["id"], text="I work at Figma.", valid_from=days(45))
        assert (await ok(client, "memory_read", id=google["id"]))["valid_to"] == figma["valid_from"]
        await ok(client, "memory_retire", id=figma["id"], reason="the offer was withdrawn")
        # the plan's end of it is withdrawn with the plan
        read = await ok(client, "memory_read", id=google["id"])
        assert read["valid_to"] is None and read["superseded_by"] == []
        later = (await ok(client, "memory_recall", query="Where do I work?", as_of=days(60)))["results"]
        assert _texts(later) == ["I work at Google."] and later[0]["id"] == google["id"]
        # so the same text again, from the plan's start, repeats it
        again = await ok(client, "memory_write", text="I work at Google.", valid_from=figma["valid_from"])
        assert again["duplicate_of"] == google["id"]


async def test_a_known_at_still_to_come_reads_what_is_known_now(planning):
    async with Client(planning) as client:
        await ok(client, "memory_write", text="I work at Google.", valid_from=days(-700))
        await ok(client, "memory_write", text="I work at Figma.", valid_from=days(45))
        # transaction time cannot run ahead: a later known_at is now, not a valid time to come
        later = (await ok(client, "memory_recall", query="Where do I work?", known_at=days(60)))["results"]
        assert _texts(later) == _texts((await ok(client, "memory_recall", query="Where do I work?"))["results"])
        assert "I work at Figma." not in _texts(later)


async def test_a_cancelled_or_amended_plan_holds_never_and_no_write_repeats_it(planning):
    async with Client(planning) as client:
        google = await ok(client, "memory_write", text="I work at Google.", valid_from=days(-700))
        figma = await ok(client, "memory_amend", id=google["id"], text="I work at Figma.", valid_from=days(45))
        await ok(client, "memory_retire", id=figma["id"])
        assert (await ok(client, "memory_read", id=google["id"]))["valid_to"] is None
        # the retired plan is no memory a new plan could repeat
        again = await ok(client, "memory_write", text="I work at Figma.", valid_from=days(30))
        assert again["duplicate_of"] is None and again["superseded"] == [google["id"]]
        # a plan amended at its own start (an empty validity) is neither listed nor counted upcoming
        moved = await ok(client, "memory_amend", id=again["id"], text="I work at Figma as a designer.")
        assert moved["valid_from"] == again["valid_from"]
        listed = [m["id"] for m in (await ok(client, "memory_list"))["memories"]]
        assert again["id"] not in listed and moved["id"] in listed
        scopes = (await ok(client, "memory_list_scopes"))["scopes"]
        assert [(s["memories"], s["upcoming"]) for s in scopes] == [(1, 1)]


async def test_the_same_text_as_a_plan_said_to_begin_sooner_is_written(planning):
    async with Client(planning) as client:
        await ok(client, "memory_write", text="I work at Google.", valid_from=days(-700))
        plan = await ok(client, "memory_write", text="I work at Figma.", valid_from=days(45))
        sooner = await ok(client, "memory_write", text="I work at Figma.", valid_from=days(10))
        assert sooner["duplicate_of"] is None and plan["id"] in sooner["related"]
        hits = (await ok(client, "memory_recall", query="Where do I work?", as_of=days(20)))["results"]
        assert _texts(hits)[0] == "I work at Figma."


async def test_a_turn_marks_a_memory_whose_planned_change_is_still_to_come(planning):
    async with Client(planning) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-400))
        await ok(client, "memory_write", text="I live in Denver.", valid_from=days(90))
        said = await ok(client, "memory_write", messages=[{"role": "user", "content": "I moved to Seattle last week."}])
        assert austin["id"] in said["revised"]


async def test_the_last_moment_there_is_a_time_for_is_a_valid_from(planning):
    async with Client(planning) as client:
        last = await ok(client, "memory_write", text="The time capsule opens.",
                        valid_from="9999-12-31T23:59:59.999999Z")
        assert last["valid_from"] == "9999-12-31T23:59:59.999999Z"
