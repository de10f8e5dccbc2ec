"""`worlddb serve` over stdio (worlddb.server.stdio): with pipes for stdin and stdout, as a
client starts it, the event loop reads and writes them itself - no worker thread is started for
the wire - and what the SDK's transport guaranteed still holds: stray output on fd 1 (a print,
a child process) misses the wire and lands on stderr, a reply larger than the pipe arrives
whole, CR LF lines are read, and fd 1 is given back when serving ends. A stdout that is
a file is served by the SDK's own transport."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench.serverproc import child_env, stdio_params
from worlddb.server.stdio import split_lines

from .helpers import ok

#: `worlddb serve`'s own server on the file argv[1] (hash embedder), with three tools only a
#: test has: one that prints to stdout and has a child process write to it, one that answers
#: 300 kB (over four pipe buffers), one that names the threads running. After the session:
#: a line on fd 1, which must be the wire again
SERVER = textwrap.dedent("""
    import os, subprocess, sys, threading
    from worlddb.server import ServerConfig, build_server
    from worlddb.server.stdio import loop_can_serve
    from worlddb.vectors.embedder import HashEmbedder

    server = build_server(ServerConfig(db=sys.argv[1], default_user="alice", background=False,
                                       engine_options={"embedder": HashEmbedder(), "query_model": True}))

    @server.tool()
    async def shout() -> str:
        print("stray print", flush=True)
        subprocess.run(["echo", "stray child"], check=True)
        return "shouted"

    @server.tool()
    async def big() -> str:
        return "x" * 300_000

    @server.tool()
    async def threads() -> list[str]:
        return sorted(t.name for t in threading.enumerate())

    print("loop serves:", loop_can_serve(), file=sys.stderr, flush=True)
    server.run()
    os.write(1, b"fd 1 is the wire again\\n")
""")


def server_params(tmp_path) -> StdioServerParameters:
    script = tmp_path / "serve.py"
    script.write_text(SERVER)
    return StdioServerParameters(command=sys.executable, args=[str(script), str(tmp_path / "wire.db")],
                                 env=child_env())


async def test_over_pipes_the_loop_serves_the_wire_and_stray_output_goes_to_stderr(tmp_path):
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as errlog:
        async with Client(stdio_client(server_params(tmp_path), errlog=errlog), read_timeout_seconds=60) as client:
            written = await ok(client, "memory_write", text="Ana painted the fence in Leeds.")
            assert (await client.call_tool("shout", {})).content[0].text == "shouted"
            assert (await client.call_tool("big", {})).content[0].text == "x" * 300_000
            hits = await ok(client, "memory_recall", query="who painted the fence?")
            assert hits["results"][0]["id"] == written["id"]
            names = (await client.call_tool("threads", {})).structured_content["result"]
    assert not [n for n in names if "AnyIO" in n]  # no worker thread carried a line or a reply
    err = errors.read_text()
    assert "loop serves: True" in err
    assert "stray print" in err and "stray child" in err  # on stderr, not on the wire


def request(request_id: int, method: str, params: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()


HANDSHAKE = [request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "raw", "version": "1"}}),
             json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()]
WRITE = request(1, "tools/call", {"name": "memory_write", "arguments": {"text": "Ana painted the fence."}})
RECALL = request(2, "tools/call", {"name": "memory_recall", "arguments": {"query": "fence"}})


def serve_raw(tmp_path, stdout, end: bytes) -> tuple[subprocess.Popen, Callable[[bytes], None]]:
    """The server script with stdin a pipe this side writes lines to (each ended by `end`)."""
    script = tmp_path / "serve.py"
    script.write_text(SERVER)
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path / "raw.db")], stdin=subprocess.PIPE,
                            stdout=stdout, stderr=subprocess.PIPE, env=child_env())

    def send(line: bytes) -> None:
        proc.stdin.write(line + end)
        proc.stdin.flush()

    for line in HANDSHAKE:
        send(line)
    return proc, send


def test_crlf_lines_are_read_and_fd_1_is_the_wire_again_when_serving_ends(tmp_path):
    proc, send = serve_raw(tmp_path, subprocess.PIPE, b"\r\n")
    try:
        assert json.loads(proc.stdout.readline())["id"] == 0
        send(WRITE)
        written = json.loads(proc.stdout.readline())["result"]
        send(RECALL)
        recalled = json.loads(proc.stdout.readline())["result"]
        proc.stdin.close()
        assert proc.stdout.read() == b"fd 1 is the wire again\n"  # after the replies, on the pipe
        assert proc.wait(60) == 0
    finally:
        proc.kill()
    assert not written["isError"] and not recalled["isError"]
    assert recalled["structuredContent"]["results"][0]["id"] == written["structuredContent"]["id"]
    assert "loop serves: True" in proc.stderr.read().decode()


def test_a_stdout_that_is_a_file_is_served_by_the_sdk_transport(tmp_path):
    out = tmp_path / "out.jsonl"
    with out.open("wb") as stdout:
        proc, send = serve_raw(tmp_path, stdout, b"\n")
    try:
        send(WRITE)
        deadline = time.monotonic() + 60
        while b'"id":1' not in out.read_bytes() and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.stdin.close()
        assert proc.wait(60) == 0
    finally:
        proc.kill()
    assert "loop serves: False" in proc.stderr.read().decode()
    written = [json.loads(line) for line in out.read_text().splitlines() if line.startswith("{")][-1]
    assert written["id"] == 1 and not written["result"]["isError"]


@pytest.mark.parametrize(("text", "lines"), [
    ('{"a": 1}\n', ['{"a": 1}\n']),
    ('{"a": 1}\r\n', ['{"a": 1}\n']),
    ('{"a":\r 1}\n', ['{"a":\n', ' 1}\n']),  # a lone CR ends a line, as for Python's text reader
    ('{"a": 1}', ['{"a": 1}']),  # the last line of the stream, without its LF
])
def test_lines_split_as_the_sdk_text_reader_splits_them(text, lines):
    assert split_lines(text) == lines


async def test_the_command_line_server_answers_over_pipes(tmp_path):
    async with Client(stdio_client(stdio_params(tmp_path / "cli.db", embedder="hash")),
                      read_timeout_seconds=60) as client:
        written = await ok(client, "memory_write", text="Bo keeps bees in Leeds.")
        assert (await ok(client, "memory_recall", query="bees"))["results"][0]["id"] == written["id"]


async def test_a_descriptor_that_cannot_be_claimed_leaves_the_wire_to_the_sdk_transport(monkeypatch):
    from contextlib import asynccontextmanager

    from worlddb.server import stdio

    served = []

    @asynccontextmanager
    async def sdk_transport(*streams):
        served.append(streams)
        yield "read", "write"

    def no_duplicate(claim, fd, diversion):
        raise OSError("no descriptor left")

    monkeypatch.setattr(stdio, "loop_can_serve", lambda: True)
    monkeypatch.setattr(stdio._Claim, "__init__", no_duplicate)
    monkeypatch.setattr(stdio, "stdio_server", sdk_transport)
    async with stdio.serving_stdio() as streams:
        assert streams == ("read", "write")
    assert served == [()]  # the SDK's transport, on the process's own stdin and stdout
