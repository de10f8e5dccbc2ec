"""HTTP transport security: loopback by default, foreign Origin/Host refused, bearer token
enforced before anything runs, and the token never written to any log.

Every refused request is a real tools/call memory_write that would have succeeded with
the right credentials; the file's fingerprint proves it changed nothing.
"""

from __future__ import annotations

import logging
import socket
import threading
import time

import httpx2
import psutil
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bench.serverproc import HttpServer, call
from worlddb.cli import build_parser
from worlddb.server import ServerConfig, http_app
from worlddb.vectors.embedder import HashEmbedder

from .support import fingerprint

TOKEN = "wdb-test-token-7f3a9c1e5b"
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2025-06-18"}


def write_request(text: str = "a write that must not land") -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "memory_write", "arguments": {"text": text}}}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """`worlddb serve --transport http` with WORLDDB_TOKEN set, as a child process."""
    db = tmp_path_factory.mktemp("http") / "memory.db"
    server = HttpServer(db, env={"WORLDDB_TOKEN": TOKEN}).start()
    # one authorised write, so the file exists and has something to lose
    response = httpx2.post(server.url, json=write_request("the first memory"),
                           headers={**HEADERS, "Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200 and '"isError":false' in response.text
    yield server, db
    server.stop()


def test_the_server_binds_to_loopback_unless_told_otherwise(guarded):
    server, _ = guarded
    listening = [c.laddr for c in psutil.Process(server.pid).net_connections(kind="inet")
                 if c.status == psutil.CONN_LISTEN]
    assert listening and all(addr.ip == "127.0.0.1" for addr in listening)
    assert build_parser().parse_args(["serve"]).host == "127.0.0.1"


@pytest.mark.parametrize("headers, status", [
    ({}, 401),
    ({"Authorization": "Bearer wrong-token"}, 401),
    ({"Authorization": f"Bearer {TOKEN}x"}, 401),
    ({"Authorization": f"Bearer {TOKEN[:-1]}"}, 401),
    ({"Authorization": TOKEN}, 401),
    ({"Authorization": f"Basic {TOKEN}"}, 401),
    ({"Authorization": f"bearer  {TOKEN}"}, 401),
    ({"X-Token": TOKEN}, 401),
    ({"Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}, 403),
    ({"Authorization": f"Bearer {TOKEN}", "Origin": "null"}, 403),
    ({"Authorization": f"Bearer {TOKEN}", "Origin": "http://127.0.0.1.evil.example:80"}, 403),
    ({"Authorization": f"Bearer {TOKEN}", "Host": "evil.example:8765"}, 421),
    ({"Origin": "http://evil.example"}, 401),
], ids=["none", "wrong", "longer", "shorter", "no-scheme", "basic", "lowercase", "other-header", "foreign-origin",
        "null-origin", "lookalike-origin", "foreign-host", "no-token-foreign-origin"])
def test_requests_without_the_right_credentials_or_from_a_foreign_origin_change_nothing(guarded, headers, status):
    server, db = guarded
    before = fingerprint(db)
    response = httpx2.post(server.url, json=write_request(), headers={**HEADERS, **headers})
    assert response.status_code == status
    assert TOKEN not in response.text
    assert fingerprint(db) == before


@pytest.mark.parametrize("method, path", [("GET", "/mcp"), ("DELETE", "/mcp"), ("GET", "/"), ("POST", "/other"),
                                          ("POST", f"/mcp?token={TOKEN}"), ("POST", f"/mcp?access_token={TOKEN}")])
def test_every_route_needs_the_header_and_a_token_in_the_url_is_not_accepted(guarded, method, path):
    server, db = guarded
    before = fingerprint(db)
    response = httpx2.request(method, f"http://127.0.0.1:{server.port}{path}", json=write_request(), headers=HEADERS)
    assert response.status_code == 401
    assert fingerprint(db) == before


async def test_the_right_token_from_a_local_origin_is_served_and_never_logged(guarded):
    server, db = guarded
    headers = {"Authorization": f"Bearer {TOKEN}", "Origin": f"http://localhost:{server.port}"}
    async with httpx2.AsyncClient(headers=headers) as http:
        async with Client(streamable_http_client(server.url, http_client=http)) as client:
            written = await call(client, "memory_write", text="a memory sent with the token")
            assert (await call(client, "memory_read", id=written["id"]))["text"] == "a memory sent with the token"
            assert (await client.call_tool("memory_read", {"id": "0" * 64})).is_error
    log = server.log()
    assert "Invalid Origin header" in log  # the refused requests above were logged...
    assert TOKEN not in log                # ...without the token


def test_the_token_appears_in_no_log_record_even_at_debug_level(tmp_path, caplog):
    """Every logger of the stack (uvicorn, mcp, starlette, worlddb, the client's httpx2)
    at DEBUG, through allowed, refused and failing requests."""
    for name in ("", "uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi", "mcp", "starlette", "worlddb",
                 "httpx2", "httpcore2", "asyncio"):
        caplog.set_level(logging.DEBUG, logger=name)
    config = ServerConfig(db=str(tmp_path / "memory.db"), default_user="u", background=False,
                          engine_options={"embedder": HashEmbedder(), "query_model": True})
    app = http_app(config, token=TOKEN)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(app, log_level="debug", log_config=None, lifespan="on"))
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uv.started:
        assert thread.is_alive() and time.monotonic() < deadline
        time.sleep(0.01)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        good = {**HEADERS, "Authorization": f"Bearer {TOKEN}"}
        assert httpx2.post(url, json=write_request("logged write"), headers=good).status_code == 200
        bad_tool = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "memory_read", "arguments": {"id": "0" * 64}}}
        assert '"isError":true' in httpx2.post(url, json=bad_tool, headers=good).text
        assert httpx2.post(url, content=b"{not json", headers=good).status_code == 400
        evil = {**good, "Origin": "http://evil.example"}
        assert httpx2.post(url, json=write_request(), headers=evil).status_code == 403
        for wrong in (f"Bearer {TOKEN}0", f"Basic {TOKEN}", TOKEN):
            forged = {**HEADERS, "Authorization": wrong}
            assert httpx2.post(url, json=write_request(), headers=forged).status_code == 401
    finally:
        uv.should_exit = True
        thread.join(30)
        sock.close()
    assert len(caplog.records) > 10  # the capture works: the stack did log, at debug level
    for record in caplog.records:
        text = record.getMessage() + repr(record.args) + (record.exc_text or "") + repr(record.__dict__)
        assert TOKEN not in text, f"{record.name}: {record.getMessage()[:200]}"
