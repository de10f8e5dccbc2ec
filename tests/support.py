"""Helpers shared across the test tree: scopes, an engine on a real store with the fast
deterministic embedder, a dump of a store on either backend, a conversation of one session
ingested, a write lock taken just after another server's commit, a probe of SQLite's locks from
outside a process, and the metaschema check of each distinct JSON schema made once per test
process."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from contextlib import contextmanager

from tests import pg
from worlddb.core.backends import is_url
from worlddb.memory.engine import Engine
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import HashEmbedder

ALICE = ScopeSet((("user", "alice"),))
BOB = ScopeSet((("user", "bob"),))


def open_engine(path, **options) -> Engine:
    options.setdefault("embedder", HashEmbedder())
    options.setdefault("query_model", True)
    return Engine.open(path, synchronous="NORMAL", **options)


def locks_after(monkeypatch, engine: Engine, other_commits) -> None:
    """`engine`'s next write transaction begins just after `other_commits()` has committed (on
    another connection): another server's write that came in while this one was checked."""
    database = engine.services.db
    opened = database.write

    @contextmanager
    def write(kind: str = "write"):
        monkeypatch.setattr(database, "write", opened)
        other_commits()
        with opened(kind) as w:
            yield w

    monkeypatch.setattr(database, "write", write)


def take_back(target, version: int, *, tables: tuple[str, ...], meta: tuple[str, ...] = ()) -> None:
    """Take a store written now (a SQLite file or a PostgreSQL URL) back to an older schema
    `version`: the `tables` later migrations made are dropped and the `meta` keys they set
    deleted, so that opening it runs those migrations again."""
    if is_url(str(target)):
        import psycopg

        with psycopg.connect(str(target), autocommit=True) as conn:
            for table in tables:
                conn.execute(f"DROP TABLE {table}")
            for key in meta:
                conn.execute("DELETE FROM meta WHERE key = %s", (key,))
            conn.execute("UPDATE schema_version SET version = %s", (version,))
        return
    conn = sqlite3.connect(target, isolation_level=None)
    try:
        for table in tables:
            conn.execute(f"DROP TABLE {table}")
        for key in meta:
            conn.execute("DELETE FROM meta WHERE key = ?", (key,))
        conn.execute(f"PRAGMA user_version = {version}")
    finally:
        conn.close()


def dump(target) -> list[str]:
    """Every row of every table of the store at `target` (a SQLite file or a PostgreSQL
    URL), as text in a stable order: for 'nothing was written' checks."""
    if is_url(str(target)):
        return pg.dump(str(target))
    conn = sqlite3.connect(target)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


#: where SQLite's unix VFS keeps its dead-man-switch lock in the -shm file: every process with
#: the database open holds it shared, and a process that can take it alone takes itself for
#: the only one and rebuilds the file (os_unix.c: UNIX_SHM_DMS)
DMS_BYTE = 128


def dms_is_held_elsewhere(path) -> bool:
    """Whether another process holds the dead-man-switch lock of the database at `path`."""
    fd = os.open(f"{path}-shm", os.O_RDWR)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, DMS_BYTE)
    except OSError:
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, DMS_BYTE)
        return False
    finally:
        os.close(fd)  # this process holds no lock on the file that closing could drop


def ingest_turns(engine: Engine, turns: list[tuple[str, str]], scopes: ScopeSet) -> dict[str, str]:
    """One session of (speaker, text) turns, ids "D1:1", "D1:2", ..., ingested into `scopes`:
    turn id -> node id."""
    session = SessionIn(date="2023-05-08T13:56:00Z", turns=tuple(
        TurnIn(speaker=speaker, text=text, turn_id=f"D1:{i}") for i, (speaker, text) in enumerate(turns, start=1)))
    return engine.ingest_conversation([session], scopes).turns


def check_each_schema_once() -> None:
    """Make jsonschema's metaschema check of a draft 2020-12 schema run once per distinct schema
    in this process. The MCP client checks each tool's output schema against the metaschema on
    a session's first call of that tool, and the suite opens a client per test: those checks of
    the same nine schemas took about a fifth of the CPU of the server tests. The check is a
    function of the schema alone, so its answer is kept; a schema that fails it fails every
    time (nothing is kept), and every tool result is still validated against its schema."""
    from jsonschema.validators import Draft202012Validator

    check = Draft202012Validator.check_schema.__func__
    passed: set[str] = set()

    def once(cls, schema, *args, **kwargs) -> None:
        key = json.dumps(schema, sort_keys=True, default=repr)
        if key not in passed:
            check(cls, schema, *args, **kwargs)
            passed.add(key)

    Draft202012Validator.check_schema = classmethod(once)
