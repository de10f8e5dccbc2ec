"""A person a slot's value names, named again in other words, through the real MCP client: the
partner "My partner Alex" names is the partner "Alexander Reyes is my partner" names (a first
name and its full name, a nickname and its long form, or two names an operator accepted as one
person), so the old memory stays unmarked and its fact open; another person is a change."""

from __future__ import annotations

import pytest

from tests.support import ALICE, open_engine

from .helpers import ok

OLD = "My partner Alex loves cooking."


async def _partner_facts(client, memory: str) -> tuple[list[tuple[str, str | None]], dict]:
    """The (object, valid_to) of a memory's facts whose relation names a partner ("has_partner",
    "has_boyfriend"), and the memory as read; it is current."""
    read = await ok(client, "memory_read", id=memory)
    assert read["valid_to"] is None
    partners = ("has_partner", "has_boyfriend", "has_girlfriend", "has_husband", "has_wife")
    return [(f["object"], f["valid_to"]) for f in read["facts"] if f["relation"] in partners], read


@pytest.mark.parametrize(("old", "new", "named"), [
    # the first name's full name, the partner's by its own rule or in full and the long form
    (OLD, "Alexander Reyes is my partner.", "Alex"),
    (OLD, "Alex Reyes is my partner.", "Alex"),
    (OLD, "Alex Reyes and I have been together for years.", "Alex"),
    # a nickname's long form, with a surname (worlddb.extract.given_names, as the resolver reads it)
    ("My partner Bob loves cooking.", "My partner is Robert Smith.", "Bob"),
    ("My partner Peggy loves cooking.", "I'm married to Margaret Moss.", "Peggy"),
    ("My boyfriend Bill is a nurse.", "I'm dating William Tran.", "Bill"),
])
async def test_the_full_name_of_the_partner_named_before_is_no_new_partner(connect, old, new, named):
    async with connect() as client:
        first = await ok(client, "memory_write", text=old, valid_from="2025-01-01")
        full = await ok(client, "memory_write", text=new, valid_from="2025-03-01")
        assert full["revised"] == [] and full["superseded"] == [] and full["conflicts"] == []
        facts, read = await _partner_facts(client, first["id"])
        assert facts == [(named, None)] and read["annotations"].get("revised_by", []) == []


@pytest.mark.parametrize(("old", "new"), [
    (OLD, "My partner is Jordan now."),
    (OLD, "Jordan and I are together now, Alex and I split."),
    # a different person of the same surname, and of the same first name
    ("My partner Alex Reyes loves cooking.", "Maria Reyes is my partner."),
    ("My partner Alex Reyes loves cooking.", "My partner is Alex Kim now."),
])
async def test_another_partner_still_changes_the_partner(connect, old, new):
    async with connect() as client:
        first = await ok(client, "memory_write", text=old, valid_from="2025-01-01")
        second = await ok(client, "memory_write", text=new, valid_from="2025-03-01")
        assert first["id"] in second["revised"] + second["superseded"]


async def test_two_names_accepted_as_one_person_are_one_partner(connect, db_file):
    async with connect() as client:
        old = await ok(client, "memory_write", text="My partner Sarah Connor loves cooking.", valid_from="2025-01-01")
        other = await ok(client, "memory_write", text="Sara Conner works at Boeing.", valid_from="2025-02-01")
        sara = next(e for e in other["entities"] if e["name"] == "Sara Conner")
        assert sara["resolution"] == "proposed_merge"
    # accepting is the operator's act (the CLI or the inspector), not a tool the model calls
    with open_engine(db_file) as engine:
        engine.accept_merge(sara["proposals"][0], ALICE)
    async with connect() as client:
        new = await ok(client, "memory_write", text="Sara Conner is my partner.", valid_from="2025-03-01")
        assert new["revised"] == [] and new["superseded"] == [] and new["conflicts"] == []
        facts, read = await _partner_facts(client, old["id"])
        assert facts == [("Sarah Connor", None)] and read["annotations"].get("revised_by", []) == []


async def test_two_names_nobody_accepted_as_one_are_two_partners(connect):
    async with connect() as client:
        old = await ok(client, "memory_write", text="My partner Sarah Connor loves cooking.", valid_from="2025-01-01")
        await ok(client, "memory_write", text="Sara Conner works at Boeing.", valid_from="2025-02-01")
        new = await ok(client, "memory_write", text="Sara Conner is my partner.", valid_from="2025-03-01")
        assert old["id"] in new["revised"] + new["superseded"]
