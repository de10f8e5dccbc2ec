"""A change retired as wrong (never true) or amended away ends nothing any more, as an agent meets
it through the MCP tools: what it alone superseded or revised is current again in recall, read and list, with its
facts open, unless another live memory ended it too; a memory that superseded the retired one
takes its place in a succession; one retired as having stopped holding keeps what it
replaced replaced, and no as_of finds a wrong one or its facts; one retired as having stopped holding and
then as wrong is retired as never true from then on; and reads pinned to a transaction time before the retirement
still show what was recorded then. Real MCP client, real model, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import ok

pytestmark = pytest.mark.both_backends

WHERE = "Where do I live?"


def days(n: float) -> str:
    """A time `n` days from now (negative: ago)."""
    return (datetime.now(UTC) + timedelta(days=n)).isoformat()


@pytest.fixture
def changes(db_path):
    return build_server(ServerConfig(db=str(db_path), default_user="me", background=False))


async def _facts(client, memory: str) -> dict[str, str | None]:
    """relation -> valid_to of the memory's facts."""
    return {f["relation"]: f["valid_to"] for f in (await ok(client, "memory_read", id=memory))["facts"]}


async def _me(client, written: dict) -> str:
    return next(e["id"] for e in written["entities"] if e["name"] == "me")


async def _moment() -> str:
    """A transaction time between two calls."""
    await asyncio.sleep(0.01)
    moment = datetime.now(UTC).isoformat()
    await asyncio.sleep(0.01)
    return moment


async def test_retiring_a_change_that_revised_a_memory_opens_the_facts_it_ended(changes):
    async with Client(changes) as client:
        old = await ok(client, "memory_write", text="I live in Portland and work at Providence.",
                       valid_from=days(-30))
        change = await ok(client, "memory_write", text="We moved to Seattle.", valid_from=days(-5))
        assert change["revised"] == [old["id"]]
        assert (await _facts(client, old["id"]))["lives_in"] is not None
        before = await _moment()
        await ok(client, "memory_retire", id=change["id"], reason="that was a joke, they didn't move", wrong=True)
        read = await ok(client, "memory_read", id=old["id"])
        assert read["annotations"] == {} and read["valid_to"] is None
        assert {f["relation"]: f["valid_to"] for f in read["facts"]} == {"lives_in": None, "works_at": None}
        entity = (await ok(client, "memory_read", id=await _me(client, old)))["entity"]
        assert ("lives_in", None) in [(f["relation"], f["valid_to"]) for f in entity["facts"]]
        hits = (await ok(client, "memory_recall", query=WHERE, limit=1))["results"]
        assert hits[0]["id"] == old["id"] and hits[0]["annotations"] == {}
        # as known before the retirement, the change still revises it
        then = (await ok(client, "memory_recall", query=WHERE, known_at=before))["results"]
        assert {h["id"]: h["annotations"] for h in then}[old["id"]] == {"revised_by": [change["id"]]}


async def test_retiring_a_change_that_superseded_a_memory_makes_it_current_again(changes):
    async with Client(changes) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-30))
        denver = await ok(client, "memory_write", text="I moved to Denver.", valid_from=days(-5))
        assert denver["superseded"] == [austin["id"]]
        before = await _moment()
        await ok(client, "memory_retire", id=denver["id"], reason="wrong person", wrong=True)
        read = await ok(client, "memory_read", id=austin["id"])
        assert read["valid_to"] is None and read["superseded_by"] == []
        assert set((await _facts(client, austin["id"])).values()) == {None}
        hits = (await ok(client, "memory_recall", query=WHERE))["results"]
        assert hits[0]["id"] == austin["id"] and hits[0]["valid_to"] is None and hits[0]["superseded_by"] == []
        listed = {m["id"]: m for m in (await ok(client, "memory_list"))["memories"]}
        assert listed[austin["id"]]["valid_to"] is None and listed[austin["id"]]["superseded_by"] == []
        # as known before the retirement, Denver had replaced Austin
        then = (await ok(client, "memory_recall", query=WHERE, known_at=before))["results"]
        assert then[0]["id"] == denver["id"] and austin["id"] not in [h["id"] for h in then]


async def test_in_a_succession_retiring_the_last_change_restores_the_one_before_and_only_it(changes):
    async with Client(changes) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-60))
        denver = await ok(client, "memory_write", text="I moved to Denver.", valid_from=days(-30))
        chicago = await ok(client, "memory_write", text="I moved to Chicago.", valid_from=days(-5))
        assert chicago["superseded"] == [denver["id"]]
        await ok(client, "memory_retire", id=chicago["id"], wrong=True)
        hits = (await ok(client, "memory_recall", query=WHERE))["results"]
        assert hits[0]["id"] == denver["id"] and austin["id"] not in [h["id"] for h in hits]
        read = await ok(client, "memory_read", id=austin["id"])
        assert read["valid_to"] == denver["valid_from"] and read["superseded_by"] == [denver["id"]]


async def test_retiring_a_change_in_the_middle_of_a_succession_lets_the_next_one_end_what_it_ended(changes):
    async with Client(changes) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-60))
        denver = await ok(client, "memory_write", text="I moved to Denver.", valid_from=days(-30))
        chicago = await ok(client, "memory_write", text="I moved to Chicago.", valid_from=days(-5))
        await ok(client, "memory_retire", id=denver["id"], wrong=True)
        hits = (await ok(client, "memory_recall", query=WHERE))["results"]
        assert hits[0]["id"] == chicago["id"] and austin["id"] not in [h["id"] for h in hits]
        read = await ok(client, "memory_read", id=austin["id"])
        assert read["valid_to"] == chicago["valid_from"] and read["superseded_by"] == [chicago["id"]]
        assert set((await _facts(client, austin["id"])).values()) == {chicago["valid_from"]}


async def test_retiring_a_change_leaves_closed_what_another_live_memory_also_ended(changes):
    async with Client(changes) as client:
        old = await ok(client, "memory_write", text="I live in Portland and work at Providence.",
                       valid_from=days(-30))
        seattle = await ok(client, "memory_write", text="We moved to Seattle.", valid_from=days(-5))
        denver = await ok(client, "memory_write", text="We moved to Denver.", valid_from=days(-2))
        assert old["id"] in seattle["revised"] and old["id"] in denver["revised"]
        await ok(client, "memory_retire", id=seattle["id"], reason="a joke", wrong=True)
        facts = await _facts(client, old["id"])
        assert facts == {"lives_in": denver["valid_from"], "works_at": None}
        read = await ok(client, "memory_read", id=old["id"])
        assert read["annotations"] == {"revised_by": [denver["id"]]}


async def test_a_retirement_that_says_when_the_change_stopped_holding_keeps_what_it_replaced_replaced(changes):
    async with Client(changes) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-30))
        denver = await ok(client, "memory_write", text="I moved to Denver.", valid_from=days(-10))
        await ok(client, "memory_retire", id=denver["id"], valid_to=days(-1), reason="moved away again")
        read = await ok(client, "memory_read", id=austin["id"])
        assert read["valid_to"] == denver["valid_from"] and read["superseded_by"] == [denver["id"]]


async def test_amending_a_change_to_one_that_changes_nothing_restores_what_it_ended(changes):
    async with Client(changes) as client:
        old = await ok(client, "memory_write", text="I live in Portland and work at Providence.",
                       valid_from=days(-30))
        seattle = await ok(client, "memory_write", text="We moved to Seattle.", valid_from=days(-5))
        amended = await ok(client, "memory_amend", id=seattle["id"], text="We visited Seattle.")
        assert amended["revised"] == []
        assert await _facts(client, old["id"]) == {"lives_in": None, "works_at": None}
        assert (await ok(client, "memory_read", id=old["id"]))["annotations"] == {}
        bob = {"user_id": "bob"}
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-30), **bob)
        denver = await ok(client, "memory_write", text="I moved to Denver.", valid_from=days(-5), **bob)
        assert denver["superseded"] == [austin["id"]]
        await ok(client, "memory_amend", id=denver["id"], text="I visited Denver for a weekend.", **bob)
        read = await ok(client, "memory_read", id=austin["id"], **bob)
        assert read["valid_to"] is None and read["superseded_by"] == []


async def test_amending_a_change_to_another_change_leaves_what_it_ended_ended(changes):
    async with Client(changes) as client:
        old = await ok(client, "memory_write", text="I live in Portland and work at Providence.",
                       valid_from=days(-30))
        seattle = await ok(client, "memory_write", text="We moved to Seattle.", valid_from=days(-5))
        amended = await ok(client, "memory_amend", id=seattle["id"], text="We moved to Denver.")
        assert amended["revised"] == [old["id"]]
        assert await _facts(client, old["id"]) == {"lives_in": seattle["valid_from"], "works_at": None}
        bob = {"user_id": "bob"}
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-30), **bob)
        denver = await ok(client, "memory_write", text="I moved to Denver.", valid_from=days(-5), **bob)
        await ok(client, "memory_amend", id=denver["id"], text="I moved to Dallas.", **bob)
        read = await ok(client, "memory_read", id=austin["id"], **bob)
        assert read["valid_to"] == denver["valid_from"] and read["superseded_by"] == [denver["id"]]


async def test_a_retirement_without_wrong_says_it_held_until_now_and_keeps_what_it_replaced_replaced(changes):
    async with Client(changes) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-30))
        denver = await ok(client, "memory_write", text="I moved to Denver.", valid_from=days(-10))
        await ok(client, "memory_retire", id=denver["id"], reason="moved away again")
        read = await ok(client, "memory_read", id=austin["id"])
        assert read["valid_to"] == denver["valid_from"] and read["superseded_by"] == [denver["id"]]
        # it held from its start until now, so a question about then still finds it
        then = await ok(client, "memory_recall", query=WHERE, as_of=days(-5), limit=3)
        assert then["results"][0]["id"] == denver["id"]


async def test_a_memory_retired_as_wrong_answers_no_question_about_any_time(changes):
    async with Client(changes) as client:
        job = await ok(client, "memory_write", text="I work at Initech.", valid_from="2024-01-01")
        retired = await ok(client, "memory_retire", id=job["id"], reason="never worked there", wrong=True)
        assert retired["valid_to"] == job["valid_from"]
        assert set((await _facts(client, job["id"])).values()) == {job["valid_from"]}  # nor did its facts
        then = await ok(client, "memory_recall", query="Where did I work?", as_of="2024-06-01", limit=3)
        assert job["id"] not in [h["id"] for h in then["results"]]
        shown = await ok(client, "memory_recall", query="Where did I work?", as_of="2024-06-01", limit=3,
                         include_retired=True)
        assert job["id"] in [h["id"] for h in shown["results"]]
        # one a later memory had superseded: the one before it holds until that later one instead
        bob = {"user_id": "bob"}
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from="2020-01-01", **bob)
        lisbon = await ok(client, "memory_write", text="I live in Lisbon.", valid_from="2021-06-01", **bob)
        denver = await ok(client, "memory_write", text="I live in Denver.", valid_from="2023-05-01", **bob)
        await ok(client, "memory_retire", id=lisbon["id"], reason="never lived there", wrong=True, **bob)
        then = await ok(client, "memory_recall", query=WHERE, as_of="2022-01-01", limit=3, **bob)
        assert [h["id"] for h in then["results"]][:1] == [austin["id"]]
        assert lisbon["id"] not in [h["id"] for h in then["results"]]
        read = await ok(client, "memory_read", id=austin["id"], **bob)
        assert read["valid_to"] == denver["valid_from"] and read["superseded_by"] == [denver["id"]]


async def test_wrong_with_a_valid_to_is_refused_and_changes_nothing(changes):
    async with Client(changes) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-30))
        denver = await ok(client, "memory_write", text="I moved to Denver.", valid_from=days(-10))
        result = await client.call_tool("memory_retire", {"id": denver["id"], "wrong": True, "valid_to": days(-1)})
        assert result.is_error and "takes no valid_to" in result.content[0].text
        read = await ok(client, "memory_read", id=denver["id"])
        assert not read["retired"] and read["valid_to"] is None
        assert (await ok(client, "memory_read", id=austin["id"]))["superseded_by"] == [denver["id"]]


async def test_a_memory_retired_as_over_and_then_as_wrong_never_held_and_restores_what_it_replaced(changes):
    async with Client(changes) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=days(-30))
        denver = await ok(client, "memory_write", text="I moved to Denver.", valid_from=days(-10))
        assert denver["superseded"] == [austin["id"]]
        before = await _moment()
        first = await ok(client, "memory_retire", id=denver["id"], reason="it's over")
        assert not first["already_retired"]
        # retired again without wrong, it changes nothing, whenever it says it ended
        for valid_to in ("", days(-5), denver["valid_from"]):
            again = await ok(client, "memory_retire", id=denver["id"], reason="again", valid_to=valid_to)
            assert again["already_retired"] and again["valid_to"] == first["valid_to"]
        read = await ok(client, "memory_read", id=denver["id"])
        assert read["valid_to"] == first["valid_to"] and read["retire_reason"] == "it's over"
        assert (await ok(client, "memory_read", id=austin["id"]))["superseded_by"] == [denver["id"]]
        between = await _moment()
        wrong = await ok(client, "memory_retire", id=denver["id"], reason="never lived there", wrong=True)
        assert not wrong["already_retired"] and wrong["valid_to"] == denver["valid_from"]
        read = await ok(client, "memory_read", id=denver["id"])
        assert read["retired"] and read["valid_to"] == denver["valid_from"]
        assert read["retire_reason"] == "never lived there"
        assert set((await _facts(client, denver["id"])).values()) == {denver["valid_from"]}
        read = await ok(client, "memory_read", id=austin["id"])
        assert read["valid_to"] is None and read["superseded_by"] == []
        assert set((await _facts(client, austin["id"])).values()) == {None}
        hits = (await ok(client, "memory_recall", query=WHERE))["results"]
        assert hits[0]["id"] == austin["id"] and hits[0]["superseded_by"] == []
        # no time finds Denver now; as known before, it held until the first retirement
        then = [h["id"] for h in (await ok(client, "memory_recall", query=WHERE, as_of=days(-5)))["results"]]
        assert then[:1] == [austin["id"]] and denver["id"] not in then
        known = (await ok(client, "memory_recall", query=WHERE, as_of=days(-5), known_at=between))["results"]
        assert known[0]["id"] == denver["id"] and known[0]["retired"] and austin["id"] not in [h["id"] for h in known]
        known = (await ok(client, "memory_recall", query=WHERE, known_at=before))["results"]
        assert known[0]["id"] == denver["id"] and not known[0]["retired"] and known[0]["valid_to"] is None
        # once never true, a retire with or without wrong changes nothing
        for wrong_again in (True, False):
            again = await ok(client, "memory_retire", id=denver["id"], reason="again", wrong=wrong_again)
            assert again["already_retired"] and again["valid_to"] == denver["valid_from"]
        assert (await ok(client, "memory_read", id=denver["id"]))["retire_reason"] == "never lived there"

