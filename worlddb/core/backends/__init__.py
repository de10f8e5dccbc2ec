"""Storage backends: the one place per engine where SQL and its driver differ.

    backend = backends.for_target("memory.db")                       # SQLite (the default)
    backend = backends.for_target("postgresql://db.example/worlddb")  # PostgreSQL + pgvector

A store (worlddb.core.store) is opened on a *target*: a file path, or ":memory:", selects
SQLite (worlddb.core.backends.sqlite); a ``postgresql://`` or ``postgres://`` URL selects
PostgreSQL with pgvector (worlddb.core.backends.postgres). Nothing above core knows which
one it runs on, except through the members below and the two search backends that differ
in kind (the lexical lane, worlddb.graph.lexical vs worlddb.graph.tsearch; vector search,
worlddb.vectors.hnsw vs worlddb.vectors.pgvector), each chosen by `Backend.name`.

Contract
- SQL written anywhere else is standard SQL both engines accept, with `?` placeholders:
  INSERT ... ON CONFLICT DO NOTHING (never INSERT OR IGNORE), RETURNING (never
  cursor.lastrowid), CASE (never the two-argument min/max), explicit `rowid` columns. The
  PostgreSQL connection turns `?` into its driver's placeholders; SQLite runs it as is.
- `connect(target, ...)` returns a connection with the sqlite3 surface the engine uses:
  `execute(sql, params)` -> a cursor (fetchone, fetchall, fetchmany, iteration,
  rowcount), `executemany`, `in_transaction`, `close()`. Outside a write transaction it
  is in autocommit: every statement reads the latest committed state.
- `begin(conn)` opens a write transaction holding the one writer lock of the store:
  SQLite's BEGIN IMMEDIATE, PostgreSQL's transaction-scoped advisory lock. Writers are
  serialized, so transaction sequence numbers commit in order and each world's versions
  form a linear history however many processes or servers write; readers never wait.
- `change_token(conn)` changes whenever any connection commits a write transaction
  (PRAGMA data_version; the highest transaction sequence number): caches kept from SQL
  (the resolver's names, HNSW indexes) compare it before a read to skip catching up.
- `exists(target)` tells whether a store is there (the file; the schema in the database)
  without creating one.
- `migrate(conn)` brings the schema to `schema.LATEST`, each backend from its own
  numbered migrations (the same numbers on both), refusing a newer one.
- `Error` is the driver's exception base and `translate(exc)` maps it into the engine's
  error tree (worlddb.core.errors); nothing else inspects driver errors.
- `vector_param(bytes)` is how a vector (float32, little-endian) is bound for
  `vector_data.vec`; reads of that column give the same bytes back on both backends.
- `try_lock(conn, name)` / `unlock(conn, name)`: a lock held by one runner at a time
  across every process and server on the store (PostgreSQL advisory locks), for
  background work meant to run once; on SQLite, always granted.
- `conn.backend` is the connection's backend, for code that holds only a connection;
  `index_hint(index)` is what names a partial index in a FROM clause (SQLite's INDEXED
  BY; nothing on PostgreSQL, whose planner matches the condition itself).
- `json_field(column, key)` is the SQL of one top-level field of a JSON text column, as
  text (SQLite's json_extract; PostgreSQL's ->> on jsonb).
- `compact(conn)` removes erased bytes from storage after an erase (`erasing(conn)`
  brackets the erase itself); what "no byte remains" means on each backend is said there.
- `snapshot(conn)` brackets reads that must all see one committed state while other
  connections write (worlddb.core.copy): a read transaction on SQLite's WAL, REPEATABLE
  READ on PostgreSQL.
- `resume_ids(conn)`, after rows were inserted with the ids they had elsewhere (a copy):
  the ids the store hands out next follow the highest ones there are (PostgreSQL's
  identity sequences; SQLite's rowids always do).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

SCHEMES = ("postgresql://", "postgres://")


def is_url(target: str | Path) -> bool:
    """Whether `target` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(SCHEMES)


class Backend(Protocol):
    """What a store needs of its database engine (see the module docstring)."""

    #: "sqlite" or "postgresql"
    name: str
    #: the driver's exception base class
    Error: type[BaseException]

    def exists(self, target: str) -> bool: ...
    def connect(self, target: str, *, timeout: float, synchronous: str, cache_mib: int) -> Any: ...
    def migrate(self, conn: Any) -> int: ...
    def begin(self, conn: Any) -> None: ...
    def commit(self, conn: Any) -> None: ...
    def rollback(self, conn: Any) -> None: ...
    def change_token(self, conn: Any) -> object: ...
    def translate(self, exc: BaseException, target: str = "") -> Exception: ...
    def close(self, conn: Any) -> None: ...
    def page_cache(self, conn: Any, mib: int) -> None: ...
    def vector_param(self, vector: bytes) -> Any: ...
    def vector_model_claimed(self, conn: Any, dim: int) -> None: ...
    def try_lock(self, conn: Any, name: str) -> bool: ...
    def unlock(self, conn: Any, name: str) -> None: ...
    def erasing(self, conn: Any) -> AbstractContextManager[None]: ...
    def compact(self, conn: Any) -> None: ...
    def snapshot(self, conn: Any) -> AbstractContextManager[None]: ...
    def resume_ids(self, conn: Any) -> None: ...
    def display(self, target: str) -> str: ...
    def index_hint(self, index: str) -> str: ...
    def json_field(self, column: str, key: str) -> str: ...


def for_target(target: str | Path) -> Backend:
    """The backend for `target`: PostgreSQL for a postgresql:// URL, else SQLite."""
    if is_url(target):
        from worlddb.core.backends.postgres import PostgresBackend

        return PostgresBackend()
    from worlddb.core.backends.sqlite import SqliteBackend

    return SqliteBackend()

