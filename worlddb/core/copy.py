"""A whole store copied to another target: a SQLite file or a PostgreSQL database.

    report = copy_store("memory.db", "postgresql://worlddb@db.internal/worlddb")
    report = copy_store("postgresql://worlddb@db.internal/worlddb", "/backups/memory.db")

This is how a store moves between backends (a SQLite file growing into PostgreSQL, a
PostgreSQL store taken down to one file) and how a SQLite store is backed up while servers
write into it (`worlddb copy`).

Contract
- The source is read inside one snapshot (the backend's `snapshot`: a read transaction on
  SQLite's WAL, REPEATABLE READ on PostgreSQL): servers may go on writing into it, and the
  copy holds exactly what was committed when it began. Opening the source migrates it to
  the latest schema first, as opening any store does.
- The destination must hold no store, or an empty one (nothing written to it but its
  schema); a copy never merges into a store with data, and the source and the destination
  must be two stores. Refusals are InvalidInput, and change nothing.
- Every row of every table of schema.TABLES is carried as it is stored: node records and
  ids, world versions and their logs, edges with their removal times, merge proposals and
  their decisions, scopes, sessions, vectors' bytes and the store's model, the claims index
  and the readings, HTTP principals (token hashes: the tokens go on working) and meta. So
  the destination verifies (`worlddb verify`) and answers as the source did, up to what
  each backend ranks in its own way (FTS5 and tsvector, HNSW in memory and pgvector).
  What each backend derives from the rows is made by it: the text index from each fts
  row's text as it is inserted, PostgreSQL's identity sequences and vector index
  (`resume_ids`, `vector_model_claimed`) once the rows are in, SQLite's HNSW indexes when a
  process opens the file. A source's HNSW snapshot folder is not copied.
- Rows are read a page at a time in key order (keyset paging: no driver holds a whole
  table) and written in one write transaction on the destination: the copy is all or
  nothing. On a failure no row of it stays: a SQLite file the copy created is removed, and a
  PostgreSQL database keeps only the empty schema, which a later copy accepts. A text holding
  a NUL character (which stores of older versions took on SQLite) cannot go to PostgreSQL: the
  copy is refused (InvalidInput) naming the node and the column that holds it. Afterwards
  each table's row count on the destination must equal the snapshot's, else StorageError.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from worlddb.core import backends, schema
from worlddb.core.errors import InvalidInput, StorageError
from worlddb.core.store import Store

#: table -> (its columns, the key it is read in order of); the columns are the layout of
#: worlddb.core.schema on both backends (tests/core/test_copy.py holds them to it)
LAYOUT: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "meta": (("key", "value"), ("key",)),
    "tx": (("seq", "at", "kind"), ("seq",)),
    "nodes": (("rowid", "anchor", "version", "type", "name", "parent", "valid_from", "valid_to", "created_at",
               "t_ingested", "seq", "retired_at", "retire_reason", "n_children", "n_edges", "erased_at", "record"),
              ("rowid",)),
    "validity_log": (("anchor", "seq", "valid_to", "reason", "cause", "seq_withdrawn"), ("anchor", "seq", "cause")),
    "versions": (("anchor", "seq", "id", "children_root", "n_children", "edges_root", "n_edges"), ("anchor", "seq")),
    "members": (("world", "kind", "key"), ("world", "kind", "key")),
    "member_log": (("rowid", "seq", "world", "kind", "key", "op"), ("rowid",)),
    "trie": (("world", "kind", "prefix", "digest", "count"), ("world", "kind", "prefix")),
    "closure": (("world", "node"), ("world", "node")),
    "edges": (("rowid", "id", "type", "src", "dst", "world", "props", "seq_added", "t_added", "seq_removed",
               "t_removed", "valid_from", "valid_to"), ("rowid",)),
    "proposals": (("id", "edge_id", "a", "b", "status", "tier", "score", "evidence", "seq_created", "seq_decided",
                   "reason"), ("id",)),
    "scopes": (("kind", "sid", "anchor"), ("kind", "sid")),
    "fts": (("rowid", "text"), ("rowid",)),
    "vectors": (("id", "node", "kind", "ord", "data", "seq"), ("id",)),
    "vector_data": (("id", "vec"), ("id",)),
    "token_df": (("token", "df"), ("token",)),
    "compose": (("world", "n", "mean_sum", "weight_sum", "attn_sum"), ("world",)),
    "resolver_names": (("id", "node", "scope", "kind", "norm", "phon", "etype", "seq"), ("id",)),
    "sessions": (("scope", "ref", "session", "last_turn", "turns"), ("scope", "ref")),
    "principals": (("name", "token_sha256", "grants", "admin", "created_at", "revoked_at"), ("name",)),
    "claims": (("world", "subject", "attribute", "node"), ("world", "subject", "attribute", "node")),
    "readings": (("node", "body"), ("node",)),
}

#: rows read and written at a time
PAGE = 1000


@dataclass
class CopyReport:
    """What a copy carried: rows per table, and how long it took."""

    source: str
    destination: str
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def summary(self) -> dict:
        return {"from": self.source, "to": self.destination, "rows": dict(self.rows),
                "total_rows": sum(self.rows.values()), "seconds": round(self.seconds, 2)}


def copy_store(source: str | Path, destination: str | Path, *,
               progress: Callable[[int], None] | None = None, total: Callable[[int], None] | None = None,
               page: int = PAGE) -> CopyReport:
    """Copy the store at `source` into `destination` (see the module docstring).

    :param source: a SQLite file or a postgresql:// URL holding a store
    :param destination: where the copy goes: a SQLite file that does not exist yet (or holds an
        empty store), or a PostgreSQL database or schema with no tables (or an empty store)
    :param progress: called with the number of rows of each page written
    :param total: called once, before the first page, with the number of rows to copy
    :param page: rows read and written at a time
    """
    source, destination = str(source), str(destination)
    if page < 1:
        raise InvalidInput("page must be at least 1")
    src_backend, dst_backend = backends.for_target(source), backends.for_target(destination)
    if not src_backend.exists(source):
        raise InvalidInput(f"no store at {src_backend.display(source)} to copy")
    if _same(source, destination):
        raise InvalidInput("the source and the destination are the same store")
    created = not dst_backend.exists(destination)
    started = time.perf_counter()
    report = CopyReport(src_backend.display(source), dst_backend.display(destination))
    src = Store.open(source)
    try:
        with src.backend.snapshot(src.conn):
            counts = {table: _count(src.conn, table) for table in schema.TABLES}
            if total is not None:
                total(sum(counts.values()))
            dst = Store.open(destination)
            try:
                _require_empty(dst)
                _write(src, dst, page, progress)
                found = {table: _count(dst.conn, table) for table in schema.TABLES}
            finally:
                dst.close()
    except BaseException:
        if created and dst_backend.name == "sqlite":
            _remove_file(destination)
        raise
    finally:
        src.close()
    if found != counts:
        differ = sorted(t for t in counts if found[t] != counts[t])
        raise StorageError(f"the copy's row counts differ from the source's in {', '.join(differ)}")
    report.rows = counts
    report.seconds = time.perf_counter() - started
    return report


def _write(src: Store, dst: Store, page: int, progress: Callable[[int], None] | None) -> None:
    """Every table's rows, in one write transaction on `dst`."""
    conn, backend = dst.conn, dst.backend
    try:
        backend.begin(conn)
    except backend.Error as exc:
        backend.rollback(conn)
        raise backend.translate(exc, dst.path) from exc
    try:
        conn.execute("DELETE FROM meta")  # a new store's own meta (its claims reader) gives way to the source's
        for table in schema.TABLES:
            columns, key = LAYOUT[table]
            insert = f"INSERT INTO {table}({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            vec = columns.index("vec") if "vec" in columns else None
            for rows in _pages(src.conn, table, columns, key, page):
                if vec is not None:
                    rows = [(*row[:vec], backend.vector_param(bytes(row[vec])), *row[vec + 1:]) for row in rows]
                if backend.name == "postgresql":
                    _refuse_nul(src, table, columns, rows)
                conn.executemany(insert, rows)
                if progress is not None:
                    progress(len(rows))
        backend.resume_ids(conn)
        dim = conn.execute("SELECT value FROM meta WHERE key = 'embed_dim'").fetchone()
        if dim is not None:
            backend.vector_model_claimed(conn, int(dim[0]))
        backend.commit(conn)
    except backend.Error as exc:
        backend.rollback(conn)
        raise backend.translate(exc, dst.path) from exc
    except BaseException:
        backend.rollback(conn)
        raise


def _refuse_nul(src: Store, table: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """PostgreSQL's text holds no NUL character, which a SQLite store written before WorldDB
    refused it may hold: the first such value is named by its node and column (InvalidInput)."""
    for row in rows:
        for column, value in zip(columns, row, strict=True):
            if isinstance(value, str) and "\x00" in value:
                raise InvalidInput(f"{_holder(src, table, columns, row)}: {table}.{column} contains a NUL character "
                                   "(U+0000), which PostgreSQL cannot store; amend or purge it in the source first")


def _holder(src: Store, table: str, columns: tuple[str, ...], row: tuple) -> str:
    """The node a row belongs to (the text index's rows are keyed by the node's rowid), else
    the row's key."""
    if "anchor" in columns:
        return f"node {row[columns.index('anchor')]}"
    if table == "fts":
        found = src.conn.execute("SELECT anchor FROM nodes WHERE rowid = ?", (row[0],)).fetchone()
        if found is not None:
            return f"node {found[0]}"
    key = LAYOUT[table][1]
    return f"{table} row " + ", ".join(f"{k}={row[columns.index(k)]!r}" for k in key)


def _pages(conn, table: str, columns: tuple[str, ...], key: tuple[str, ...], page: int):
    """The rows of `table`, `page` at a time, in the order of `key` (each page starts after
    the last key of the one before)."""
    select = f"SELECT {', '.join(columns)} FROM {table}"
    order = f" ORDER BY {', '.join(key)} LIMIT {int(page)}"
    after = f" WHERE ({', '.join(key)}) > ({', '.join('?' * len(key))})"
    at = [columns.index(k) for k in key]
    rows = [tuple(r) for r in conn.execute(select + order).fetchall()]
    while rows:
        yield rows
        if len(rows) < page:
            return
        last = tuple(rows[-1][i] for i in at)
        rows = [tuple(r) for r in conn.execute(select + after + order, last).fetchall()]


def _count(conn, table: str) -> int:
    return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def _require_empty(store: Store) -> None:
    """A destination holding anything but a new store's schema is refused."""
    held = [table for table in schema.TABLES if table != "meta" and _count(store.conn, table)]
    if held:
        nodes = _count(store.conn, "nodes")
        raise InvalidInput(f"{store.label} already holds a store ({nodes} nodes, {_count(store.conn, 'tx')} "
                           "transactions); a copy goes only into a new file or an empty database")


def _same(source: str, destination: str) -> bool:
    if backends.is_url(source) or backends.is_url(destination):
        return source == destination
    if ":memory:" in (source, destination):
        return False
    return Path(source).resolve() == Path(destination).resolve()


def _remove_file(path: str) -> None:
    """The SQLite file a failed copy created, with its log and shared-memory files."""
    for suffix in ("", "-wal", "-shm"):
        Path(path + suffix).unlink(missing_ok=True)
