"""`worlddb serve --transport http` as an operator starts it: a store that cannot be opened is
one line and exit 2, as over stdio, with nothing announced; `--port 0` announces the port the
system chose, and the server answers there."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import httpx2

from bench.serverproc import child_env


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
