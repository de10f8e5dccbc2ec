"""WAL checkpoints off the writer's path (the SQLite backend).

SQLite checkpoints in the connection that commits, once the log holds 1000 pages: with a
single memory_write writing about 40 pages, every 25th write or so copied some 8 MB of pages
into the file and synced it (7-15 ms) before it could answer. A connection that writes
therefore runs with SQLite's automatic checkpoint off, and a `Checkpointer` thread, on a
connection of its own, runs the same PASSIVE checkpoint once a commit leaves
CHECKPOINT_PAGES pages in the log that are not copied into the file yet. Writers and readers
go on meanwhile: in WAL mode a checkpoint runs beside them.

Durability is unchanged: a commit is durable once its frames are synced to the log
(synchronous=FULL), before any checkpoint; a checkpoint syncs the log before it copies and
the file after, on this connection as on the writer's.

How many pages wait is read from the wal-index header at the start of the -shm file
(mxFrame of its first copy, and nBackfill of the checkpoint record after the two copies:
https://www.sqlite.org/walformat.html), without a lock: a torn read moves a checkpoint by
a commit at most.

The log restarts from its beginning only at a write that finds every frame copied. When
writes keep arriving while the thread copies, that may not happen, so once the log holds
RESTART_PAGES pages the thread runs a RESTART checkpoint instead, which holds writers off
(for at most RESTART_WAIT seconds) until the log can start over - as SQLite's own
checkpoint did, eight times less often.

The thread starts at the first checkpoint due (a connection that writes little never has
one). `paused()` holds it off, for a caller that needs no other checkpointer running (a
TRUNCATE checkpoint); `close()` stops it and closes its connection, before the writer's
connection closes (the last connection to close checkpoints the whole log, as before).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger("worlddb.core")

#: pages not yet copied into the file that make a checkpoint due (SQLite's own default)
CHECKPOINT_PAGES = 1000
#: pages in the log that make the thread restart it, holding writers off briefly
RESTART_PAGES = 8 * CHECKPOINT_PAGES
#: how long a RESTART checkpoint may wait for readers of the log (and hold writers off)
RESTART_WAIT = 1.0
#: where the wal-index header keeps mxFrame, and the checkpoint record nBackfill
_MX_FRAME, _BACKFILL = 16, 96


def log_pages(shm: str) -> tuple[int, int] | None:
    """(frames in the log, frames of it copied into the file), from the -shm file at `shm`;
    None if it cannot be read."""
    try:
        fd = os.open(shm, os.O_RDONLY)
    except OSError:
        return None
    try:
        head = os.pread(fd, _BACKFILL + 4, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(head) < _BACKFILL + 4:
        return None
    return (int.from_bytes(head[_MX_FRAME:_MX_FRAME + 4], sys.byteorder),
            int.from_bytes(head[_BACKFILL:_BACKFILL + 4], sys.byteorder))


class Checkpointer:
    """Checkpoints of the SQLite file at `path` on a thread of their own (module docstring)."""

    def __init__(self, path: str, synchronous: str):
        self.path = path
        self.synchronous = synchronous
        self.shm = path + "-shm"
        #: checkpoints run, for tests and benchmarks
        self.runs = 0
        self._due = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def committed(self) -> None:
        """Told after each commit of the writing connection: wakes the thread if a
        checkpoint is due. Costs one small read of the -shm file."""
        pages = log_pages(self.shm)
        if pages is None or self._closed:
            return
        frames, copied = pages
        if frames - copied >= CHECKPOINT_PAGES or frames >= RESTART_PAGES:
            if self._thread is None or not self._thread.is_alive():  # not started, or gone (a fork)
                self._thread = threading.Thread(target=self._run, name="worlddb-checkpoint", daemon=True)
                self._thread.start()
            self._due.set()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No checkpoint of this thread runs inside the block."""
        with self._lock:
            yield

    def close(self) -> None:
        self._closed = True
        self._due.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=RESTART_WAIT)
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
        except sqlite3.Error as exc:
            log.warning("WAL checkpoints of %s stay with the writer: %s", self.path, exc)
            return
        try:
            while True:
                self._due.wait()
                self._due.clear()
                with self._lock:
                    if self._closed:
                        return
                    self._checkpoint(conn)
        finally:
            conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        pages = log_pages(self.shm)
        mode = "RESTART" if pages is not None and pages[0] >= RESTART_PAGES else "PASSIVE"
        try:
            conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()
            self.runs += 1
        except sqlite3.Error as exc:
            # the log keeps its frames; the next commit makes the checkpoint due again
            log.warning("a WAL checkpoint of %s failed: %s", self.path, exc)
