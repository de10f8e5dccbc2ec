"""Every client configuration shown in the README starts, exactly as written, and works.

The JSON blocks are read from README.md itself, so the documentation cannot drift from what
runs. Only the placeholder path is filled in (this checkout), and the database is pointed at
a temporary file through WORLDDB_DB so the test never touches a real home directory. These
tests run the real default embedding model, as a desktop install would.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from .helpers import ok

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = "/ABSOLUTE/PATH/TO/worlddb"


def readme_config(name: str) -> dict:
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"<!-- config: {name} -->\s*```json\n(.*?)```", text, re.S)
    assert match, f"README has no {name} configuration block"
    return json.loads(match.group(1).replace(PLACEHOLDER, str(ROOT)))


def entry(config: dict) -> dict:
    servers = config.get("mcpServers") or config.get("servers")
    return servers["worlddb"]


def command_available(command: str) -> bool:
    return Path(command).exists()


@pytest.mark.parametrize("name", ["claude-desktop", "vscode"])
async def test_the_stdio_configuration_starts_and_serves(name, tmp_path):
    server = entry(readme_config(name))
    if server.get("type", "stdio") != "stdio":
        pytest.fail(f"{name} should be a stdio configuration")
    if not command_available(server["command"]):
        pytest.skip(f"{server['command']} is not installed here (make test creates it)")
    env = {"WORLDDB_DB": str(tmp_path / "desktop.db"), "HOME": str(tmp_path)}
    params = StdioServerParameters(command=server["command"], args=server["args"], env=env)
    async with Client(params, mode="legacy") as client:
        written = await ok(client, "memory_write", text="I keep my bike in the blue shed")
        assert written["scopes"] == ["user:me"]  # --default-user me
        hits = (await ok(client, "memory_recall", query="where is my bike"))["results"]
        assert hits[0]["id"] == written["id"]
    assert (tmp_path / "desktop.db").exists()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_the_http_configuration_reaches_worlddb_serve_over_http(tmp_path):
    url = entry(readme_config("http"))["url"]
    assert url == "http://127.0.0.1:8765/mcp"
    worlddb = ROOT / ".venv" / "bin" / "worlddb"
    command = [str(worlddb)] if worlddb.exists() else [sys.executable, "-m", "worlddb.cli"]
    port = free_port()  # the documented 8765, moved so parallel runs cannot collide
    env = {**os.environ, "WORLDDB_DB": str(tmp_path / "http.db")}
    process = subprocess.Popen(command + ["serve", "--transport", "http", "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stderr.read().decode()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "worlddb serve --transport http did not start listening"
                time.sleep(0.2)
        listening = [line.split()[1] for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
                     if line.split()[3] == "0A" and line.split()[1].endswith(f":{port:04X}")]
        assert listening == [f"0100007F:{port:04X}"], "the HTTP server must bind to loopback only"
        async with Client(url.replace("8765", str(port))) as client:
            assert "no scope given" in (await client.call_tool("memory_write", {"text": "x"})).content[0].text
            assert (await ok(client, "memory_write", text="over http", user_id="u"))["scopes"] == ["user:u"]
    finally:
        process.terminate()
        process.wait(30)
