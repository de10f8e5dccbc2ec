"""Fixtures for the MCP server tests: a real server object over a temp database, and clients."""

from __future__ import annotations

import pytest
from mcp import Client

from worlddb.embed import HashEmbedder
from worlddb.server import ServerConfig, build_server


def make_config(path, default_user: str | None = "alice", **options) -> ServerConfig:
    # The hash embedder keeps these tests fast; query_model gives its vector lanes a query
    # vector (the model-free static table only fits the MiniLM space).
    return ServerConfig(db=str(path), default_user=default_user, background=False,
                        engine_options={"embedder": HashEmbedder(), "query_model": True, **options})


@pytest.fixture
def db_file(tmp_path):
    return tmp_path / "memory.db"


@pytest.fixture
def server(db_file):
    return build_server(make_config(db_file))


@pytest.fixture(params=["auto", "legacy"])
def connect(server, request):
    """`async with connect() as client:` - a client in each protocol era: the 2026 stateless
    one and the initialize handshake today's desktop clients use. (A yield fixture cannot
    hold the client: its task group must be entered and left in the same task.)"""
    return lambda: Client(server, mode=request.param)


async def ok(client, tool: str, **arguments) -> dict:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def fails(client, tool: str, **arguments) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} should have failed: {result.structured_content}"
    text = result.content[0].text
    assert "Traceback" not in text
    return text
