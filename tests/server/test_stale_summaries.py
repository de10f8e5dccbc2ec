"""What a client is shown of a conversation's summary once it retired or amended a turn the
summary quotes: from the moment the call returns, no current summary says it - not in
recall, nor as memory_read's current state - and the next consolidation pass summarizes the
conversation again without it."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.support import open_engine
from worlddb.consolidator import Consolidator

from .helpers import ok

pytestmark = pytest.mark.both_backends

SAID = "My favourite sweet is marzipan from Lubeck."
TURNS = [{"role": "user", "content": SAID}, {"role": "assistant", "content": "Noted."},
         {"role": "user", "content": "I work as a welder in Rotterdam."}, {"role": "assistant", "content": "Got it."}]


def consolidate(db_file) -> None:
    with open_engine(db_file) as engine:
        Consolidator(engine.db, min_age_secs=0).run()


async def summaries_recalled(client, query: str) -> list[dict]:
    hits = (await ok(client, "memory_recall", query=query, limit=50))["results"]
    return [hit for hit in hits if hit["type"] == "Summary"]


async def conversation(client, db_file) -> tuple[str, dict]:
    """The id of the turn that said SAID, and the summary recall finds quoting it."""
    written = await ok(client, "memory_write", session="chat-1", messages=TURNS)
    consolidate(db_file)
    (summary,) = await summaries_recalled(client, "marzipan Lubeck sweet")
    assert SAID in summary["text"]
    return written["turns"][0]["id"], summary


async def shows_it_nowhere(client, summary: dict) -> None:
    for query in ("marzipan Lubeck sweet", "welder Rotterdam"):
        assert all("marzipan" not in hit["text"] for hit in await summaries_recalled(client, query))
    read = await ok(client, "memory_read", id=summary["id"])
    assert read["retired"] is True
    assert all(m["type"] != "Summary" for m in (await ok(client, "memory_list", limit=100))["memories"])


async def summarized_again(client, db_file, summary: dict) -> None:
    """The next pass summarizes the conversation again, from the turns still current."""
    consolidate(db_file)
    (again,) = await summaries_recalled(client, "welder Rotterdam")
    assert again["id"] != summary["id"] and "welder" in again["text"] and "marzipan" not in again["text"]


async def test_a_retired_turn_leaves_no_current_summary_quoting_it(server, db_file):
    async with Client(server) as client:
        turn, summary = await conversation(client, db_file)
        await ok(client, "memory_retire", id=turn, reason="forget that I said that")
        await shows_it_nowhere(client, summary)
        await summarized_again(client, db_file, summary)


async def test_an_amended_turn_leaves_no_current_summary_quoting_it(server, db_file):
    async with Client(server) as client:
        turn, summary = await conversation(client, db_file)
        await ok(client, "memory_amend", id=turn, text="My favourite sweet is nougat.")
        await shows_it_nowhere(client, summary)
        await summarized_again(client, db_file, summary)
