"""Shared helpers for the server tests: calling tools, configs, and table dumps."""

from __future__ import annotations

import sqlite3

from worlddb.server import ServerConfig
from worlddb.vectors.embedder import HashEmbedder


def make_config(path, default_user: str | None = "alice", **options) -> ServerConfig:
    # The hash embedder keeps these tests fast; query_model gives its vector lanes a query
    # vector (the model-free static table only fits the MiniLM space).
    return ServerConfig(db=str(path), default_user=default_user, background=False,
                        engine_options={"embedder": HashEmbedder(), "query_model": True, **options})


def dump(path) -> list[str]:
    """Every row of every table, for 'nothing was written' checks."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


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
