"""Fixtures for the MCP server tests: a real server object over a temp database, and clients."""

from __future__ import annotations

import pytest
from mcp import Client

from worlddb.server import build_server

from .helpers import make_config


@pytest.fixture
def db_file(db_path):
    return db_path


@pytest.fixture
def server(db_file):
    return build_server(make_config(db_file))


@pytest.fixture(params=["auto", "legacy"])
def connect(server, request):
    """`async with connect() as client:` - a client in each protocol era: the 2026 stateless
    one and the initialize handshake today's desktop clients use. (A yield fixture cannot
    hold the client: its task group must be entered and left in the same task.)"""
    return lambda: Client(server, mode=request.param)
