"""Malformed bytes on the wire, below the tools: what reaches the server over stdio (as a
desktop app sends it, newline-delimited JSON-RPC) and over HTTP.

- invalid UTF-8: the stdio transport decodes with replacement (U+FFFD), so the text is
  stored with replacement characters; HTTP answers 400 (JSON-RPC parse error).
- a lone surrogate escape (\\ud800), JSON nested 100,000 deep, non-JSON, arguments that
  are not an object, a body over 4 MiB (HTTP: 413): refused, nothing written.
After each, the server answers the next request.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys

import httpx2
import pytest

from bench.serverproc import HttpServer, child_env, serve_args

from .support import fingerprint

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}


def tool_line(request_id: int, name: str, arguments: str) -> bytes:
    return (b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}'
            % (request_id, name.encode(), arguments.encode("latin-1")))


REFUSED_LINES = {
    "lone surrogate": tool_line(10, "memory_write", '{"text":"lone \\ud800 surrogate"}'),
    "deep nesting": tool_line(11, "memory_write", '{"text":"x","metadata":' + "[" * 100_000 + "]" * 100_000 + "}"),
    "not json": b"this is not json {",
    "arguments not an object": tool_line(12, "memory_write", '"text"'),
    "truncated": tool_line(13, "memory_write", '{"text":"cut off')[:-3],
}


class RawStdio:
    def __init__(self, db):
        self.proc = subprocess.Popen([sys.executable, *serve_args(db)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=child_env())

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 30.0) -> dict | None:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return json.loads(self.proc.stdout.readline()) if ready else None

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(30)


@pytest.fixture(scope="module")
def raw_stdio(tmp_path_factory):
    db = tmp_path_factory.mktemp("wire") / "memory.db"
    server = RawStdio(db)
    server.send(json.dumps(INIT).encode())
    assert server.receive()["result"]["protocolVersion"] == "2025-06-18"
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    server.send(tool_line(1, "memory_write", '{"text":"the first memory"}'))
    assert server.receive()["result"]["isError"] is False
    yield server, db
    assert server.close() == 0


@pytest.mark.parametrize("name", list(REFUSED_LINES))
def test_a_malformed_line_over_stdio_writes_nothing_and_the_server_keeps_serving(raw_stdio, name):
    server, db = raw_stdio
    before = fingerprint(db)
    server.send(REFUSED_LINES[name])
    answer = server.receive(timeout=1.0)  # the SDK answers some with an error and drops others
    assert answer is None or "error" in answer or answer["result"]["isError"] is True
    assert fingerprint(db) == before
    server.send(tool_line(2, "memory_list", "{}"))
    answer = server.receive()
    assert answer["id"] == 2 and answer["result"]["isError"] is False


def test_invalid_utf8_over_stdio_is_stored_with_replacement_characters(raw_stdio):
    server, _ = raw_stdio
    server.send(tool_line(3, "memory_write", '{"text":"bad \xff\xfe bytes"}'))
    written = server.receive()["result"]["structuredContent"]
    server.send(tool_line(4, "memory_read", json.dumps({"id": written["id"]})))
    assert server.receive()["result"]["structuredContent"]["text"] == "bad \ufffd\ufffd bytes"


@pytest.fixture(scope="module")
def http_server(tmp_path_factory):
    db = tmp_path_factory.mktemp("wire-http") / "memory.db"
    with HttpServer(db) as server:
        yield server, db


HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2025-06-18"}
HTTP_REFUSED = {
    "invalid utf-8": (tool_line(5, "memory_write", '{"text":"bad \xff bytes"}'), 400),
    **{name: (line, 400) for name, line in REFUSED_LINES.items() if name != "arguments not an object"},
    "over 4 MiB": (tool_line(6, "memory_write", '{"text":"' + "x" * (5 << 20) + '"}'), 413),
}


@pytest.mark.parametrize("name", list(HTTP_REFUSED))
def test_a_malformed_body_over_http_is_refused_and_writes_nothing(http_server, name):
    server, db = http_server
    httpx2.post(server.url, content=tool_line(1, "memory_list", "{}"), headers=HEADERS)  # the file exists
    before = fingerprint(db)
    body, status = HTTP_REFUSED[name]
    response = httpx2.post(server.url, content=body, headers=HEADERS)
    assert response.status_code == status
    assert fingerprint(db) == before
    after = httpx2.post(server.url, content=tool_line(7, "memory_write", '{"text":"still serving"}'), headers=HEADERS)
    assert after.status_code == 200 and '"isError":false' in after.text
