"""The SQLite backend: one file in WAL mode, through the standard library's sqlite3.

Contract (worlddb.core.backends)
- `connect` opens the file (creating its folder) in autocommit mode, WAL journal,
  `synchronous` as asked (FULL loses no acknowledged write), a busy timeout, and a page
  cache of `cache_mib`. The connection is sqlite3's own: no wrapper on the hot path.
- The write lock is SQLite's: BEGIN IMMEDIATE takes it up front, so a write never fails
  half-way for want of it; other processes wait up to the busy timeout.
- Change detection is PRAGMA data_version (other connections' commits; the store adds
  its own count).
- Migrations are worlddb.core.schema's, tracked in PRAGMA user_version.
- Checkpoints: a connection to a file checkpoints its log on a thread of its own
  (worlddb.core.backends.checkpoint), not in the commit that fills it; SQLite's automatic
  checkpoint is off for it. `close` stops that thread first.
- Erasure: `erasing` turns secure_delete on, so freed pages are zeroed; `compact`
  checkpoints the WAL into the file and truncates it, merges the FTS5 index, vacuums and
  truncates the WAL again - afterwards no byte of erased content is in the file or its log.
- Locks for background runners are always granted: processes sharing one file are on one
  machine, and SQLite's write lock already serializes what they write.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from worlddb.core import schema
from worlddb.core.backends.checkpoint import Checkpointer
from worlddb.core.errors import StorageError, WorldDBError, translate_sqlite


class SqliteConnection(sqlite3.Connection):
    """sqlite3's own connection, naming its backend (`conn.backend`) for code that has only
    the connection; no method is overridden, so statements cost what they cost."""

    backend: SqliteBackend
    #: the thread that checkpoints the log of a file (None in memory)
    checkpointer: Checkpointer | None = None


class SqliteBackend:
    name = "sqlite"
    Error = sqlite3.Error

    def exists(self, target: str) -> bool:
        return Path(target).exists()

    def connect(self, target: str, *, timeout: float = 30.0, synchronous: str = "FULL",
                cache_mib: int = 64) -> sqlite3.Connection:
        if target != ":memory:":
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=timeout,
                                   factory=SqliteConnection)
        except sqlite3.Error as exc:
            raise translate_sqlite(exc) from exc
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            # only a file not created yet takes it (before WAL mode writes the first page)
            conn.execute(f"PRAGMA page_size = {schema.PAGE_SIZE}")
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if target != ":memory:" and mode.lower() != "wal":
                raise StorageError(f"could not switch {target} to WAL mode (got {mode})")
            conn.execute(f"PRAGMA synchronous={synchronous}")
            if target != ":memory:":
                conn.execute("PRAGMA wal_autocheckpoint=0")
                conn.checkpointer = Checkpointer(target, synchronous)
            self.page_cache(conn, cache_mib)
            conn.execute("PRAGMA foreign_keys=OFF")
            self.migrate(conn)
        except sqlite3.Error as exc:
            conn.close()
            error = translate_sqlite(exc)
            if "unable to open" in str(exc).lower():
                error = StorageError(
                    f"cannot open {target}: {exc} - the file or its folder is missing, unreadable or read-only "
                    f"(WorldDB writes the file and keeps {Path(target).name}-wal and -shm files beside it)")
            raise error from exc
        except WorldDBError:
            conn.close()
            raise
        return conn

    def migrate(self, conn: sqlite3.Connection) -> int:
        return schema.migrate(conn)

    def begin(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")

    def commit(self, conn: sqlite3.Connection) -> None:
        conn.execute("COMMIT")
        checkpointer = getattr(conn, "checkpointer", None)
        if checkpointer is not None:
            checkpointer.committed()

    def rollback(self, conn: sqlite3.Connection) -> None:
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the connection already rolled back (e.g. disk full aborts the transaction)

    def change_token(self, conn: sqlite3.Connection) -> object:
        return conn.execute("PRAGMA data_version").fetchone()[0]

    def translate(self, exc: BaseException, target: str = "") -> Exception:
        return translate_sqlite(exc)

    def close(self, conn: sqlite3.Connection) -> None:
        # Keep the query planner's statistics current, as SQLite advises for connections
        # that close; analysis_limit bounds the cost on large tables.
        checkpointer = getattr(conn, "checkpointer", None)
        if checkpointer is not None:
            checkpointer.close()
        try:
            conn.execute("PRAGMA analysis_limit=400")
            conn.execute("PRAGMA optimize")
        except sqlite3.Error:
            pass  # a read-only or busy file keeps its old statistics; closing must not fail
        conn.close()

    def page_cache(self, conn: sqlite3.Connection, mib: int) -> None:
        conn.execute(f"PRAGMA cache_size=-{int(mib) * 1024}")

    def vector_param(self, vector: bytes) -> bytes:
        return vector

    def vector_model_claimed(self, conn: sqlite3.Connection, dim: int) -> None:
        return None  # the in-process HNSW indexes size themselves

    def try_lock(self, conn: sqlite3.Connection, name: str) -> bool:
        return True

    def unlock(self, conn: sqlite3.Connection, name: str) -> None:
        return None

    @contextmanager
    def erasing(self, conn: sqlite3.Connection) -> Iterator[None]:
        conn.execute("PRAGMA secure_delete = ON")
        try:
            yield
        finally:
            conn.execute("PRAGMA secure_delete = OFF")

    def compact(self, conn: sqlite3.Connection) -> None:
        """Push erased bytes out of every page. The first checkpoint needs no free space and
        already overwrites the erased rows in the file; merging FTS segments and vacuuming
        (which do need space) then drop index terms and free pages. The checkpoint thread
        waits meanwhile: a TRUNCATE checkpoint does nothing while another one runs."""
        checkpointer = getattr(conn, "checkpointer", None)
        with checkpointer.paused() if checkpointer is not None else nullcontext():
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @contextmanager
    def snapshot(self, conn: sqlite3.Connection) -> Iterator[None]:
        """One read transaction: in WAL mode it sees the file as of its first read, whatever
        other connections commit meanwhile."""
        conn.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            conn.execute("COMMIT")

    def resume_ids(self, conn: sqlite3.Connection) -> None:
        return None  # a rowid table's next rowid is always past its highest

    def display(self, target: str) -> str:
        return target

    def index_hint(self, index: str) -> str:
        """`INDEXED BY index`: the planner is told which partial index a statement reads."""
        return f"INDEXED BY {index}"

    def json_field(self, column: str, key: str) -> str:
        return f"json_extract({column}, '$.{key}')"


SqliteConnection.backend = SqliteBackend()
