"""WAL checkpoints on a thread of their own (worlddb.core.backends.checkpoint), SQLite only."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time

from tests.support import ALICE, dms_is_held_elsewhere, open_engine
from worlddb.core.backends import checkpoint


def wait_for(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_log_is_checkpointed_by_the_thread_and_not_by_the_commit(tmp_path, monkeypatch):
    monkeypatch.setattr(checkpoint, "CHECKPOINT_PAGES", 40)
    path = tmp_path / "memory.db"
    with open_engine(path) as engine:
        conn = engine.store.conn
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0  # the writer never checkpoints
        shm = str(path) + "-shm"
        written = []
        while True:
            written.append(engine.write_memory(f"Note {len(written)}: Ana painted the fence.", ALICE).id)
            frames, copied = checkpoint.log_pages(shm)
            if frames >= 40:
                break
            assert conn.checkpointer.runs == 0 and copied == 0  # none due yet, and none made by the commit
        assert wait_for(lambda: conn.checkpointer.runs >= 1)
        frames, copied = checkpoint.log_pages(shm)
        assert copied > 0 or frames < 40  # copied into the file, or copied and the log restarted since
        thread = conn.checkpointer._thread
        assert thread is not None and thread.is_alive()
    assert not thread.is_alive()  # closing stops it before the connection closes
    other = sqlite3.connect(path)
    held = {row[0] for row in other.execute("SELECT anchor FROM nodes WHERE type = 'Memory'")}
    other.close()
    assert set(written) <= held


def test_a_log_that_keeps_growing_is_restarted(tmp_path, monkeypatch):
    # A reader holding an old snapshot keeps a PASSIVE checkpoint from copying the frames after
    # it, so the log could only grow; past RESTART_PAGES the thread runs a RESTART, which waits
    # for the reader to let go (within RESTART_WAIT), copies every frame, and lets the next
    # write start the log over. A memory write adds some 30 pages: a log started over holds the
    # last write or two, well under the bound; one that was not holds more than the bound.
    monkeypatch.setattr(checkpoint, "CHECKPOINT_PAGES", 10**9)
    monkeypatch.setattr(checkpoint, "RESTART_PAGES", 150)
    path = tmp_path / "memory.db"
    with open_engine(path) as engine:
        shm = str(path) + "-shm"
        engine.write_memory("Chen moved to Lisbon.", ALICE)
        reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM nodes").fetchone()  # a snapshot at the log's current end
        release = None
        try:
            for i in range(200):
                engine.write_memory(f"Note {i}: Chen booked a dentist appointment.", ALICE)
                if release is None and checkpoint.log_pages(shm)[0] >= checkpoint.RESTART_PAGES:
                    # the checkpoint is due: the reader lets go while the RESTART waits for it
                    release = threading.Timer(0.3, reader.execute, ("COMMIT",))
                    release.start()
                if engine.store.conn.checkpointer.runs:
                    break
            assert wait_for(lambda: engine.store.conn.checkpointer.runs >= 1)
        finally:
            if release is not None:
                release.join()
            reader.close()
        engine.write_memory("Dara planted tomatoes.", ALICE)  # the next writer starts the log over
        assert checkpoint.log_pages(shm)[0] < checkpoint.RESTART_PAGES


HOLDER = """
import sys
from worlddb.core.records import Node
from worlddb.graph.database import WorldDB

db = WorldDB.open(sys.argv[1])
for i, line in enumerate(sys.stdin):
    with db.write() as w:
        w.add(Node("Fact", content=f"note {i}", name=f"note {i}", created_at=i), parents=[w.scope("user", "a")])
    print("committed", flush=True)
db.close()
"""


def test_a_process_that_commits_keeps_its_locks_on_the_wal_index(tmp_path):
    # Reading the log's size used to open and close the -shm file after every commit, and a
    # close drops every POSIX lock the process holds on the file, SQLite's own among them:
    # another process opening the database then rebuilt the -shm file under the first one
    path = tmp_path / "memory.db"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        for _ in range(3):
            holder.stdin.write("commit\n")
            holder.stdin.flush()
            assert holder.stdout.readline().strip() == "committed"
            assert dms_is_held_elsewhere(path)
    finally:
        holder.stdin.close()
        assert holder.wait(30) == 0


def test_a_kept_descriptor_is_closed_once_its_file_is_gone(tmp_path):
    files = checkpoint.ShmFiles()
    first, second = tmp_path / "a-shm", tmp_path / "b-shm"
    first.write_bytes(b"\x01" * 200)
    second.write_bytes(b"\x02" * 200)
    assert files.read(str(first), 4) == b"\x01" * 4
    assert files.read(str(first), 4) == b"\x01" * 4 and files.held() == 1  # one descriptor, kept
    first.unlink()
    assert files.read(str(second), 4) == b"\x02" * 4
    assert files.held() == 1  # the removed file's was closed
    assert files.read(str(first), 4) is None
    # a new file at the same path is read through a new descriptor
    first.write_bytes(b"\x03" * 200)
    assert files.read(str(first), 4) == b"\x03" * 4 and files.held() == 2
