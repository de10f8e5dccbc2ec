"""Austin -> Denver, through the tools, with the real embedding model and default settings."""

from __future__ import annotations

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import ok

pytestmark = pytest.mark.both_backends


async def test_moving_from_austin_to_denver(tmp_path):
    config = ServerConfig(db=str(tmp_path / "real.db"), default_user="me", background=False)
    async with Client(build_server(config)) as client:
        austin = await ok(client, "memory_write", text="I live in Austin", valid_from="2023-03-01")
        await ok(client, "memory_write", text="My favourite food is ramen")
        await ok(client, "memory_write", text="I work as a nurse at the city hospital")
        denver = await ok(client, "memory_amend", id=austin["id"], text="I moved to Denver")

        now = (await ok(client, "memory_recall", query="where do I live"))["results"]
        assert now[0]["id"] == denver["id"]
        assert austin["id"] not in [h["id"] for h in now]

        everything = (await ok(client, "memory_recall", query="where do I live", include_retired=True))["results"]
        old = next(h for h in everything if h["id"] == austin["id"])
        assert old["valid_to"] == denver["valid_from"] and old["superseded_by"] == [denver["id"]]

        before_move = (await ok(client, "memory_recall", query="where do I live", as_of="2024-01-01"))["results"]
        assert before_move[0]["id"] == austin["id"]
        assert denver["id"] not in [h["id"] for h in before_move]

        detail = await ok(client, "memory_read", id=denver["id"])
        assert detail["supersedes"] == [austin["id"]] and detail["hash_check"]["ok"]
