"""A full disk and a read-only database: writes fail with a clear tool error, reads go on,
and the store stays whole (integrity_check, verify, every invariant of bench.invariants).

The disk is a small tmpfs mounted for the test (root only; skipped elsewhere), filled to
the brim with a filler file - a real ENOSPC, not a simulation. It holds 48 MB: a test's
writes before the filler may leave up to RESTART_PAGES pages (32 MB) in the log when the
checkpoint thread falls behind them, as it can on a busy machine. SQLite's max_page_count
gives the same failure without root, at the engine level.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest
from mcp import Client

from bench import invariants
from bench.serverproc import call, call_error

from .support import fingerprint, server_for


@pytest.fixture
def small_disk(tmp_path):
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(mount_point)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=True)


def fill(directory, leave: int = 0):
    """Fill the file system holding `directory` until only `leave` bytes are free."""
    path = directory / "filler"
    with open(path, "wb", buffering=0) as filler:
        stats = os.statvfs(directory)
        free = stats.f_bavail * stats.f_frsize - leave
        try:
            while free > 0:
                filler.write(b"\0" * min(free, 1 << 20))
                free -= 1 << 20
            if not leave:
                while True:
                    filler.write(b"\0" * 4096)
        except OSError:
            pass
    return path


def contains(db_path, word: str) -> bool:
    data = b""
    for suffix in ("", "-wal"):
        path = db_path.parent / (db_path.name + suffix)
        if path.exists():
            data += path.read_bytes()
    return word.encode() in data


async def test_purge_with_erase_on_a_full_disk_says_what_happened_and_removes_the_rows_bytes(small_disk):
    db = small_disk / "memory.db"
    async with Client(server_for(db)) as client:
        for i in range(120):
            await call(client, "memory_write", text=f"memory {i} about gardens " + "filler words " * 50)
        for i in range(5):
            await call(client, "memory_write", text=f"Doomedsecret number {i}", run_id="doomed")
        with sqlite3.connect(db) as conn:  # an empty log, so vacuuming needs new space
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        filler = fill(small_disk, leave=300_000)

        error = await call_error(client, "memory_purge_scope", run_id="doomed", confirm="run:doomed", erase=True)
        assert "run:doomed was purged and 5 items erased, but compacting the file failed" in error
        assert "database or disk is full" in error and "run again with erase=true" in error
        # the erase itself committed, and its rows' bytes are gone from the file already
        assert (await call(client, "memory_read", id=(await _doomed_ids(db))[0], run_id="doomed"))["text"] is None
        assert not contains(db, "Doomedsecret number")

        filler.unlink()
        again = await call(client, "memory_purge_scope", run_id="doomed", confirm="run:doomed", erase=True)
        assert again["erased"] == 0  # the call that failed erased them; this one only compacts
        assert not contains(db, "doomedsecret")  # FTS terms too, once compaction could run
    report = invariants.check(db)
    assert report.ok, str(report)


async def _doomed_ids(db) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute(
            "SELECT n.anchor FROM closure c JOIN nodes w ON w.rowid = c.world JOIN nodes n ON n.rowid = c.node "
            "JOIN scopes s ON s.anchor = w.anchor WHERE s.kind='run' AND s.sid='doomed'")]


@pytest.fixture
def read_only_view(tmp_path):
    """(writable folder, read-only view of the same folder) - a bind mount, root only."""
    source, view = tmp_path / "rw", tmp_path / "ro"
    source.mkdir()
    view.mkdir()
    for command in (["mount", "--bind", str(source), str(view)], ["mount", "-o", "remount,bind,ro", str(view)]):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            subprocess.run(["umount", str(view)], capture_output=True)
            pytest.skip(f"cannot make a read-only bind mount here: {done.stderr.strip()}")
    yield source, view
    subprocess.run(["umount", "-l", str(view)], check=True)


def test_a_database_on_read_only_storage_is_refused_at_start_with_a_clear_message(read_only_view):
    source, view = read_only_view
    from worlddb.core.store import Store

    Store.open(source / "memory.db").close()  # a WorldDB file, closed cleanly (no -wal, -shm)
    served = subprocess.run([sys.executable, "-m", "worlddb.cli", "serve", "--db", str(view / "memory.db"),
                             "--embedder", "hash"], input="", capture_output=True, text=True, timeout=60)
    assert served.returncode == 2
    assert served.stderr.strip() == (
        f"worlddb serve: cannot open {view / 'memory.db'}: unable to open database file - the file or its folder "
        "is missing, unreadable or read-only (WorldDB writes the file and keeps memory.db-wal and -shm files "
        "beside it)")


WRITES = [
    ("memory_write", {"text": "a memory for a full disk"}),
    ("memory_write", {"text": "Dana Ruiz lives in Quito", "facts": [
        {"subject": "Dana Ruiz", "relation": "lives_in", "object": "Quito"}]}),
    ("memory_amend", {"id": "$0", "text": "an amendment for a full disk"}),
    ("memory_retire", {"id": "$1"}),
    ("memory_retire_all", {"run_id": "side"}),
    ("memory_purge_scope", {"run_id": "side", "confirm": "run:side"}),
    ("memory_purge_scope", {"run_id": "side", "confirm": "run:side", "erase": True}),
]


async def test_a_full_disk_fails_every_write_clearly_changes_nothing_and_writes_resume_after(small_disk):
    db = small_disk / "memory.db"
    async with Client(server_for(db)) as client:
        acked = {}
        for i in range(20):
            text = f"memory {i} written before the disk filled up"
            acked[(await call(client, "memory_write", text=text))["id"]] = text
        await call(client, "memory_write", text="a side note", run_id="side")
        with sqlite3.connect(db) as conn:  # an empty log: the next write needs new space
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        filler = fill(small_disk)
        ids = list(acked)
        before = fingerprint(db)
        for tool, arguments in WRITES:
            arguments = {k: (ids[int(v[1:])] if isinstance(v, str) and v.startswith("$") else v)
                         for k, v in arguments.items()}
            error = await call_error(client, tool, **arguments)
            assert "the disk is full" in error and "database or disk is full" in error, error
            assert fingerprint(db) == before
        # reads go on
        hits = await call(client, "memory_recall", query="memory written before the disk filled up", limit=50)
        assert {h["id"] for h in hits["results"]} == set(acked)
        assert len((await call(client, "memory_list", limit=100))["memories"]) == 20
        assert (await call(client, "memory_read", id=ids[0]))["text"] == acked[ids[0]]
        assert (await call(client, "memory_list_scopes"))["scopes"]

        filler.unlink()
        later = await call(client, "memory_write", text="written once there was room again")
        await call(client, "memory_amend", id=ids[0], text="amended once there was room again")
        assert (await call(client, "memory_read", id=later["id"]))["text"] == "written once there was room again"
    report = invariants.check(db)
    assert report.ok, str(report)
    with sqlite3.connect(db) as conn:
        stored = {row[0] for row in conn.execute("SELECT anchor FROM nodes WHERE type='Memory'")}
    assert set(acked) <= stored and len(stored) == 23


@pytest.mark.sqlite_only("SQLite's max_page_count caps the file; PostgreSQL has no per-database size cap")
def test_a_database_at_its_page_limit_fails_a_write_and_stays_whole(db_path):
    """The same failure without root: SQLite's max_page_count caps the file."""
    from worlddb.core.errors import StorageError
    from worlddb.memory.engine import Engine
    from worlddb.memory.scopes import ScopeSet
    from worlddb.vectors.embedder import HashEmbedder

    scope = ScopeSet((("user", "alice"),))
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        kept = [engine.write_memory(f"memory {i} " + "words " * 40, scope).id for i in range(10)]
        pages = engine.store.conn.execute("PRAGMA page_count").fetchone()[0]
        engine.store.conn.execute(f"PRAGMA max_page_count = {pages}")
        before = fingerprint(db_path)
        with pytest.raises(StorageError, match="the disk is full; nothing was written"):
            for i in range(50):  # the first write that needs a new page fails
                engine.write_memory(f"overflow {i} " + "more words " * 200, scope)
        written = fingerprint(db_path)["tx"] - before["tx"]
        assert written < 50
        assert len(engine.recall("memory words", scope, limit=50).results) == 10 + written
        engine.store.conn.execute("PRAGMA max_page_count = 1073741823")
        engine.write_memory("after the limit was lifted", scope)
        assert all(engine.read_memory(anchor, scope).text.startswith("memory") for anchor in kept)
    report = invariants.check(db_path)
    assert report.ok, str(report)


async def test_a_read_only_view_of_a_live_database_serves_reads_and_refuses_every_write(read_only_view):
    """A second process opening the file where it cannot write (here: a read-only mount of
    the folder, while another process has it open read-write)."""
    source, view = read_only_view
    async with Client(server_for(source / "memory.db")) as writer:
        first = await call(writer, "memory_write", text="written through the writable path")
        await call(writer, "memory_write", text="a side note", run_id="side")
        before = fingerprint(source / "memory.db")
        async with Client(server_for(view / "memory.db")) as reader:
            assert (await call(reader, "memory_read", id=first["id"]))["text"] == "written through the writable path"
            hits = await call(reader, "memory_recall", query="writable path")
            assert hits["results"][0]["id"] == first["id"]
            for tool, arguments in WRITES:
                arguments = {k: (first["id"] if isinstance(v, str) and v.startswith("$") else v)
                             for k, v in arguments.items()}
                error = await call_error(reader, tool, **arguments)
                assert "the database is read-only" in error, error
            assert fingerprint(source / "memory.db") == before
        # the writer carries on
        await call(writer, "memory_write", text="still writable here")
    report = invariants.check(source / "memory.db")
    assert report.ok, str(report)
