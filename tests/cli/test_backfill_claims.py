"""`worlddb backfill-claims` as an operator runs it on a store written before the claims index:
a JSON report of what it did, the same pass resumed or repeated doing nothing more, and a bad
option or a missing store one clear line that writes nothing."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from bench.serverproc import child_env
from tests.support import dump

FIXTURE = Path(__file__).parent.parent / "fixtures" / "schema8.db"


def claim_rows(path: Path) -> list:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT * FROM claims").fetchall()
    finally:
        conn.close()


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "worlddb.cli", "backfill-claims", *args], env=child_env(),
                          capture_output=True, text=True, timeout=120)


def test_the_command_indexes_an_old_store_once(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    done = run("--db", str(path), "--batch", "16")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    # the schema-8 store holds 40 current memories (tests/fixtures/make_schema8.py)
    assert (report["memories"], report["batches"], report["done"]) == (40, 3, True)
    assert report["claims"] == len(claim_rows(path)) > 0  # a row per claim and scope
    before = dump(path)
    again = run("--db", str(path))
    assert again.returncode == 0, again.stderr
    repeated = json.loads(again.stdout)
    assert (repeated["memories"], repeated["claims"], repeated["batches"], repeated["done"]) == (0, 0, 0, True)
    assert dump(path) == before


def test_a_bad_batch_or_no_store_is_one_line_and_writes_nothing(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    before = dump(path)
    bad = run("--db", str(path), "--batch", "0")
    assert bad.returncode == 2 and bad.stderr.strip() == "worlddb backfill-claims: --batch must be at least 1"
    assert dump(path) == before
    missing = run("--db", str(tmp_path / "none.db"))
    assert missing.returncode == 2 and "no database at" in missing.stderr
    assert not (tmp_path / "none.db").exists()
