"""WAL checkpoints on a thread of their own (worlddb.core.backends.checkpoint), SQLite only."""

from __future__ import annotations

import sqlite3
import time

from tests.support import ALICE, open_engine
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
    # with a writer that never lets a checkpoint finish between two commits, the log would
    # only grow: past RESTART_PAGES the thread restarts it
    monkeypatch.setattr(checkpoint, "CHECKPOINT_PAGES", 10**9)
    monkeypatch.setattr(checkpoint, "RESTART_PAGES", 60)
    path = tmp_path / "memory.db"
    with open_engine(path) as engine:
        shm = str(path) + "-shm"
        for i in range(200):
            engine.write_memory(f"Note {i}: Chen booked a dentist appointment.", ALICE)
            if engine.store.conn.checkpointer.runs:
                break
        assert wait_for(lambda: engine.store.conn.checkpointer.runs >= 1)
        engine.write_memory("Dara planted tomatoes.", ALICE)  # the next writer starts the log over
        assert checkpoint.log_pages(shm)[0] < 60
