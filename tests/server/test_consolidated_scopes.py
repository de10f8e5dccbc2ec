"""What a client lists and counts after a consolidation pass: its memories and turns, never
the consolidator's summaries; and retire_all leaves none of those summaries current."""

from __future__ import annotations

from mcp import Client

from tests.support import open_engine
from worlddb.consolidator import Consolidator

from .helpers import fails, ok

GARDEN = [f"The {plant} in the garden needs water every {day}." for plant in ("tomato", "basil", "rose", "tulip")
          for day in ("morning", "evening")]
MUSIC = [f"I practised the {piece} on the piano for an hour today." for piece in ("sonata", "etude", "nocturne")]
TURNS = [{"role": "user", "content": "My dentist is Dr. Patel."}, {"role": "assistant", "content": "Noted."}]


def consolidate(db_file) -> list[str]:
    """One real consolidation pass over the server's file: the current summaries it leaves."""
    with open_engine(db_file) as engine:
        report = Consolidator(engine.db, min_age_secs=0).run()
        assert report.summaries
        return current_summaries(engine)


def current_summaries(engine) -> list[str]:
    rows = engine.store.conn.execute("SELECT anchor FROM nodes WHERE type = 'Summary' AND retired_at IS NULL")
    return [anchor for (anchor,) in rows]


async def listed(client, **arguments) -> list[dict]:
    return (await ok(client, "memory_list", limit=100, **arguments))["memories"]


async def counts(client) -> tuple[int, int, int]:
    (scope,) = (await ok(client, "memory_list_scopes"))["scopes"]
    return scope["memories"], scope["upcoming"], scope["retired"]


async def test_lists_and_counts_are_of_memories_and_turns_not_summaries(server, db_file):
    async with Client(server) as client:
        for text in GARDEN + MUSIC:
            await ok(client, "memory_write", text=text)
        await ok(client, "memory_write", session="chat-1", messages=TURNS)
        before = await listed(client)
        assert len(before) == len(GARDEN + MUSIC + TURNS)
        assert await counts(client) == (len(before), 0, 0)

        summaries = consolidate(db_file)
        assert summaries
        for arguments in ({}, {"include_retired": True}):
            after = await listed(client, **arguments)
            assert [m["id"] for m in after] == [m["id"] for m in before]
            assert {m["type"] for m in after} == {"Memory", "Turn"}
        assert await counts(client) == (len(before), 0, 0)
        # a summary is derived: amending or retiring one is refused, as for any id that is not a memory
        assert "is a Summary, not a memory" in await fails(client, "memory_amend", id=summaries[0], text="Edited.")

        result = await ok(client, "memory_retire_all", user_id="alice")
        assert result["retired"] == len(before)
        assert await counts(client) == (0, 0, len(before))
        assert await listed(client) == []
        assert (await ok(client, "memory_recall", query="garden water piano dentist"))["results"] == []
    with open_engine(db_file) as engine:
        # the summaries of what was retired were closed with it: none outlives its members
        assert current_summaries(engine) == []
