"""Two stdio server processes on one store (a SQLite file, or a PostgreSQL database), called at
once through the real MCP client: two amends of one memory leave it one successor, the other
refused as if it had come second, and the same words written through both are stored once,
the other write naming it as its duplicate. (At once, the two usually race inside the window
between a write's checks and its write lock; whichever way they fall, the outcome is this.)"""

from __future__ import annotations

import asyncio

import pytest
from mcp import Client
from mcp.client.stdio import stdio_client

from bench.serverproc import stdio_params

from .helpers import ok

pytestmark = pytest.mark.both_backends

TRIALS = 3


async def _call(client, tool: str, **arguments) -> dict | str:
    """The tool's structured answer, or its error text."""
    result = await client.call_tool(tool, arguments)
    return result.content[0].text if result.is_error else result.structured_content


async def test_two_servers_amending_or_writing_the_same_at_once_build_one_history(db_path, tmp_path):
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with (Client(stdio_client(stdio_params(db_path), errlog=errlog), read_timeout_seconds=60) as a,
                    Client(stdio_client(stdio_params(db_path), errlog=errlog), read_timeout_seconds=60) as b):
            for n in range(TRIALS):
                base = await ok(a, "memory_write", text=f"Project {n} is due March 3.", valid_from="2023-01-05")
                answers = await asyncio.gather(
                    _call(a, "memory_amend", id=base["id"], text=f"Project {n} is due April 4.",
                          valid_from="2023-02-01"),
                    _call(b, "memory_amend", id=base["id"], text=f"Project {n} is due May 5.",
                          valid_from="2023-02-01"))
                won = [r for r in answers if isinstance(r, dict)]
                refused = [r for r in answers if isinstance(r, str)]
                assert len(won) == 1 and len(refused) == 1, answers
                assert f"superseded by {won[0]['id']}; amend that one" in refused[0]
                assert (await ok(b, "memory_read", id=base["id"]))["superseded_by"] == [won[0]["id"]]

                same = await asyncio.gather(ok(a, "memory_write", text=f"My locker {n} code is 4471."),
                                            ok(b, "memory_write", text=f"My locker {n} code is 4471."))
                first = [r for r in same if r["duplicate_of"] is None]
                assert len(first) == 1, same
                assert [r["duplicate_of"] for r in same if r is not first[0]] == [first[0]["id"]]
