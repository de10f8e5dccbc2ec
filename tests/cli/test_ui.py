"""`worlddb ui` as a person starts it: the inspector alone on a loopback port, opened in the
browser ($BROWSER here records the address it was handed), the token asked for when one is
set; and no database is ever created by it."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import httpx2

from bench.serverproc import child_env
from tests.support import ALICE, open_engine

RECORDER = "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])"


def _start(db, tmp_path, *extra: str, **env: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "worlddb.cli", "ui", "--db", str(db), "--port", "0", *extra],
                            env=child_env(**env), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    found = re.search(r"memory inspector on (http://127\.0\.0\.1:\d+/ui/)", line)
    assert found, line + proc.stderr.read()
    return proc, found.group(1)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.communicate(timeout=20)


def test_ui_serves_the_inspector_and_opens_it_in_the_browser(tmp_path):
    db = tmp_path / "memory.db"
    with open_engine(db) as engine:
        engine.write_memory("The spare key is under the blue pot.", ALICE)
    opened = tmp_path / "opened.txt"
    recorder = tmp_path / "browser.py"
    recorder.write_text(RECORDER)
    proc, url = _start(db, tmp_path, BROWSER=f"{sys.executable} {recorder} {opened} %s")
    try:
        deadline = time.monotonic() + 20
        # the recorder creates the file, then writes the address into it
        while not opened.exists() or not opened.read_text():
            assert time.monotonic() < deadline, "the browser was never asked to open the inspector"
            time.sleep(0.05)
        assert opened.read_text() == url
        page = httpx2.get(url)
        assert page.status_code == 200 and "user:alice" in page.text
        hits = httpx2.get(url, params={"q": "where is the spare key"})
        assert "The spare key is under the blue pot." in hits.text
    finally:
        _stop(proc)


def test_ui_asks_for_the_token_when_one_is_set_and_can_stay_out_of_the_browser(tmp_path):
    db = tmp_path / "memory.db"
    with open_engine(db) as engine:
        engine.write_memory("anything", ALICE)
    proc, url = _start(db, tmp_path, "--no-browser", WORLDDB_TOKEN="ui-token-3c1f", BROWSER="false")
    try:
        first = httpx2.get(url)
        assert first.status_code == 303 and first.headers["location"].startswith("/ui/login")
        login = httpx2.get(url + "login")
        assert login.status_code == 200 and 'type="password"' in login.text and "ui-token-3c1f" not in login.text
    finally:
        _stop(proc)


def test_ui_never_creates_a_database(tmp_path):
    missing = tmp_path / "absent.db"
    out = subprocess.run([sys.executable, "-m", "worlddb.cli", "ui", "--db", str(missing), "--no-browser"],
                         env=child_env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "no database at" in out.stderr and not missing.exists()
