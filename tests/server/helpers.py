"""Shared helpers for the server tests: calling tools, configs, table dumps, and a real
HTTP server on a loopback port with clients that present a bearer token."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager

import httpx2
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support import dump  # noqa: F401 - the server tests' 'nothing was written' check
from worlddb.core.store import Store
from worlddb.memory import principals
from worlddb.server import ServerConfig, uvicorn_server
from worlddb.vectors.embedder import HashEmbedder


def make_config(path, default_user: str | None = "alice", **options) -> ServerConfig:
    # The hash embedder keeps these tests fast; query_model gives its vector lanes a query
    # vector (the model-free static table only fits the MiniLM space).
    return ServerConfig(db=str(path), default_user=default_user, background=False,
                        engine_options={"embedder": HashEmbedder(), "query_model": True, **options})




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


@contextmanager
def serving(config: ServerConfig, **options) -> Iterator[str]:
    """`uvicorn_server(config, **options)` on a free loopback port, in a thread; yields the
    MCP URL and stops the server (closing its engine) on the way out."""
    sock = loopback_socket()
    server = uvicorn_server(config, host="127.0.0.1", port=sock.getsockname()[1], **options)
    with in_thread(server, sock) as base:
        yield f"{base}/mcp"


def loopback_socket() -> socket.socket:
    """A socket bound to a free loopback port, for a server to take over."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


@contextmanager
def in_thread(server: uvicorn.Server, sock: socket.socket) -> Iterator[str]:
    """Run a uvicorn server on `sock` in a thread until it has started; yield its base URL
    and stop it (closing what its lifespan opened) on the way out."""
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


@asynccontextmanager
async def client_with(url: str, token: str | None):
    """A real MCP client over streamable HTTP, sending `token` as its bearer token."""
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


def add_tokens(path, grants: dict[str, list[str]], admins: tuple[str, ...] = ()) -> dict[str, str]:
    """A token per principal name, granted `grants[name]`, stored in the file at `path`."""
    store = Store.open(path)
    try:
        return {name: principals.add_token(store, name, keys, admin=name in admins) for name, keys in grants.items()}
    finally:
        store.close()
