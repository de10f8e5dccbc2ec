"""`worlddb serve --transport http` as an operator starts it: a store that cannot be opened, or a
port that cannot be bound, is one line and exit 2, as over stdio, with nothing announced; a start
that fails later (a store embedded with another model) is one line and exit 2 too, after the
announcement; `--port 0` announces the port the system chose, and the server answers there."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time

import httpx2

from bench.serverproc import child_env
from worlddb.memory.engine import Engine
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import HashEmbedder


def _serve_http(db, *extra: str) -> list[str]:
    return [sys.executable, "-m", "worlddb.cli", "serve", "--db", str(db), "--transport", "http", "--port", "0",
            "--audit-log", "off", "--consolidate-every", "0", "--embedder", "hash", *extra]


def test_a_store_that_cannot_be_opened_is_one_line_and_nothing_is_announced(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_text("this is not a database\n" * 100)
    for target, says in ((junk, "not a WorldDB database"), (tmp_path, "unable to open")):  # no database; a directory
        out = subprocess.run(_serve_http(target), env=child_env(), stdin=subprocess.DEVNULL, capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 2, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert out.stderr.startswith("worlddb serve: ") and says in out.stderr, out.stderr


def test_a_port_that_cannot_be_bound_is_one_line_and_nothing_is_announced(tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        for host, says in (("127.0.0.1", "in use"), ("192.0.2.1", "assign")):  # taken; an address not this machine's
            argv = _serve_http(tmp_path / "m.db", "--host", host)
            argv[argv.index("--port") + 1] = str(port)
            out = subprocess.run(argv, env=child_env(), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                 timeout=60)
            assert out.returncode == 2, out.stderr
            assert out.stderr.strip().splitlines() == [f"worlddb serve: cannot listen on {host}:{port}: "
                                                       + out.stderr.split(": ", 2)[2].strip()], out.stderr
            assert says in out.stderr.lower(), out.stderr
    finally:
        taken.close()


def test_a_start_that_fails_later_is_one_line_after_the_announcement(tmp_path):
    db = tmp_path / "hash.db"
    with Engine.open(db, embedder=HashEmbedder(), query_model=True) as engine:
        engine.write_memory("written with the hash embedder", ScopeSet((("user", "u"),)))
    argv = _serve_http(db)
    argv[argv.index("--embedder") + 1] = "minilm"  # the store's vectors are the hash embedder's
    out = subprocess.run(argv, env=child_env(), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 3 and "WorldDB MCP server on" in lines[0] and "memory inspector on" in lines[1], out.stderr
    assert lines[2].startswith("worlddb serve: this database was embedded with hash-v1-256"), out.stderr


def test_port_0_announces_the_port_bound_and_the_server_answers_there(tmp_path):
    proc = subprocess.Popen(_serve_http(tmp_path / "m.db"), env=child_env(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stderr.readline(), proc.stderr.readline()]
        mcp = re.search(r"WorldDB MCP server on http://127\.0\.0\.1:(\d+)/mcp", lines[0])
        ui = re.search(r"memory inspector on http://127\.0\.0\.1:(\d+)/ui/", lines[1])
        assert mcp and ui, lines
        port = int(mcp.group(1))
        assert port != 0 and int(ui.group(1)) == port
        # the announcement comes before the app has started: the port is refused until it has, then answers
        deadline = time.monotonic() + 60
        while True:
            try:
                reply = httpx2.get(f"http://127.0.0.1:{port}/ui/", timeout=10, follow_redirects=False)
                break
            except httpx2.ConnectError:
                assert time.monotonic() < deadline and proc.poll() is None, "the announced port never answered"
                time.sleep(0.2)
        assert reply.status_code in (200, 303)
    finally:
        proc.terminate()
        proc.communicate(timeout=20)
