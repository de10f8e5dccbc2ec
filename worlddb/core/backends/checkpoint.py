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
a commit at most. The -shm file is read through one descriptor per file that stays open
(`ShmFiles`): closing any descriptor of a file drops every POSIX lock the process holds on
it, SQLite's own among them (https://www.sqlite.org/howtocorrupt.html, section 2.2). With
its locks on the wal-index gone, another process that opened the database - a second
server, a `worlddb` command - took itself for the first, rebuilt the -shm file under the
server's mapping of it, and the server's next commit died of a bus error. A descriptor is
closed only once its file is gone: SQLite removes -shm when the last connection of every
process closes, so no lock on it is left to drop.

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


class ShmFiles:
    """The -shm files this process reads, each through one descriptor kept open (module
    docstring: closing one would drop SQLite's locks on the file). A descriptor whose file
    has since been removed, or replaced by a new one at its path, is closed at the next
    read of any file."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}
        #: descriptors of files that were replaced at their path while still linked elsewhere
        self._stale: list[int] = []
        self._lock = threading.Lock()

    def read(self, path: str, size: int) -> bytes | None:
        """The first `size` bytes of the file at `path`, or None if it cannot be read."""
        with self._lock:
            self._sweep()
            fd = self._open.get(path)
            try:
                if fd is not None and not _same_file(fd, path):
                    self._stale.append(self._open.pop(path))
                    fd = None
                if fd is None:
                    fd = self._open[path] = os.open(path, os.O_RDONLY)
                return os.pread(fd, size, 0)
            except OSError:
                return None

    def held(self) -> int:
        """How many descriptors are open (for tests)."""
        with self._lock:
            return len(self._open) + len(self._stale)

    def _sweep(self) -> None:
        for path, fd in list(self._open.items()):
            if _gone(fd):
                del self._open[path]
                os.close(fd)
        for fd in [fd for fd in self._stale if _gone(fd)]:
            self._stale.remove(fd)
            os.close(fd)


def _gone(fd: int) -> bool:
    """Whether the file open at `fd` has no name left (no connection of any process can use it)."""
    try:
        return os.fstat(fd).st_nlink == 0
    except OSError:
        return True


def _same_file(fd: int, path: str) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


#: the process's open -shm files
SHM_FILES = ShmFiles()


def log_pages(shm: str) -> tuple[int, int] | None:
    """(frames in the log, frames of it copied into the file), from the -shm file at `shm`;
    None if it cannot be read."""
    head = SHM_FILES.read(shm, _BACKFILL + 4)
    if head is None or len(head) < _BACKFILL + 4:
        return None
    return (int.from_bytes(head[_MX_FRAME:_MX_FRAME + 4], sys.byteorder),
            int.from_bytes(head[_BACKFILL:_BACKFILL + 4], sys.byteorder))


class Checkpointer:
    """Checkpoints of the SQLite file at `path` on a thread of their own (module docstring)."""

    def __init__(self, path: str, synchronous: str):
        self.path = path
        self.synchronous = synchronous
        self.shm = path + "-shm"
        #: checkpoints run to their end (a RESTART held off is not one), for tests and benchmarks
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
            busy = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()[0]
            # a RESTART that a writer or reader held off past RESTART_WAIT leaves the log as it
            # was; the next commit finds it still due and asks again
            if not busy:
                self.runs += 1
        except sqlite3.Error as exc:
            # the log keeps its frames; the next commit makes the checkpoint due again
            log.warning("a WAL checkpoint of %s failed: %s", self.path, exc)
