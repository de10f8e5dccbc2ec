"""The PostgreSQL backend: a store shared by any number of servers, with pgvector.

    worlddb serve --transport http --db postgresql://worlddb@db.internal/worlddb

Contract (worlddb.core.backends)
- Connections come from a psycopg 3 pool (psycopg_pool), one pool per URL per process,
  closed with the last store that uses it; each open store holds one connection. Before a
  pool is made, one connection is made directly: a URL that cannot connect (password,
  host, database, an option) is a StorageError at once with the driver's reason. A
  connection runs in autocommit mode, asks for binary results, and is given the store's
  settings when it is made: `lock_timeout` (the store's timeout), `synchronous_commit`
  (off for SQLite's NORMAL or OFF: a crash may lose the last commits, never corrupt) and
  pgvector's search settings. A connection found broken between transactions (a server
  restart, a fail-over) is replaced from the pool before the next statement.
- SQL arrives with `?` placeholders (worlddb.core.backends) and is turned into psycopg's
  (`%s`, with literal `%` doubled) once per distinct statement; a list bound to
  `IN (?, ?, ...)` is sent as one array (`= ANY(%s)`, `pg_statement`), so a statement's
  text does not depend on the list's length; psycopg prepares the statements a
  connection runs repeatedly.
- One writer at a time, across every server: a write transaction starts by taking the
  transaction-scoped advisory lock WRITE_LOCK (`pg_advisory_xact_lock`), the counterpart of
  SQLite's BEGIN IMMEDIATE. A second writer waits (up to lock_timeout) and then reads,
  in READ COMMITTED, everything the first one committed: transaction sequence numbers are
  allocated and committed in order, and every world's versions stay one linear history.
  Readers never wait. (Row locks per world would let writers to different worlds overlap,
  but the store-wide sequence numbers that transaction-time reads and every process's
  catch-up rely on would then commit out of order.)
- Change detection is the highest committed transaction sequence number.
- Migrations are worlddb.core.backends.postgres_schema's, numbered as SQLite's and
  tracked in the `schema_version` table; they run under an advisory lock, so servers
  starting together migrate once.
- Vectors: `vector_data.vec` is pgvector's `vector`; `vector_param` binds the engine's
  float32 bytes in pgvector's binary format, and reads of the column load back as the
  same little-endian float32 bytes. When a store's model is first claimed,
  `vector_model_claimed` creates the HNSW index for its dimension (cosine), so it is kept
  by every insert from then on (worlddb.vectors.pgvector searches it).
- Locks for background runners: session advisory locks, `pg_try_advisory_lock`, keyed by
  the runner's name; held until `unlock` or until the connection ends. A connection that
  ends while holding one (a restart, a fail-over, a dropped connection) has lost it: the
  replacement connection is not given the lock back, so every statement on it fails
  (StorageError) until the holder calls `unlock`, and the run stops instead of carrying
  on unlocked beside another server's.
- Erasure: `compact` runs VACUUM FULL on every WorldDB table, which rewrites each table,
  its TOAST table and its indexes into new files and unlinks the old ones: afterwards no
  table or index file of the database holds an erased byte (PostgreSQL never zeroes the
  unlinked files; the filesystem reuses their blocks). The write-ahead log still holds
  the rows as they were written until its segments are recycled, and so do WAL archives,
  base backups and replicas' logs: erasure there is a matter of their retention. VACUUM
  FULL takes an exclusive lock on each table in turn, so other servers wait while it runs.
- Text PostgreSQL cannot store (a NUL character) is refused as InvalidInput, worded as the
  records refuse it before a write on either backend (worlddb.core.records).
"""

from __future__ import annotations

import json
import re
import struct
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from worlddb.core import schema
from worlddb.core.errors import IntegrityError, InvalidInput, SchemaError, StorageError, WorldDBError
from worlddb.core.records import nul_refused

#: the advisory lock every write transaction holds (two int4 keys: "WDB", 1)
WRITE_LOCK = (0x574442, 1)
#: namespace of the session locks background runners take by name (`try_lock`)
RUNNER_LOCKS = 0x574443
#: connections per pool: each open store holds one (an engine with background work opens 4-5)
POOL_MAX = 32

#: the tables compact() rewrites: every table a store has (the erased rows of claims and
#: readings, which hold values read from a text, included)
TABLES = (*schema.TABLES, "fts_stats")


def _driver():
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:  # pragma: no cover - the extra is missing
        raise StorageError("the PostgreSQL backend needs psycopg and psycopg-pool: "
                           "pip install 'worlddb[postgres]'") from exc
    return psycopg, psycopg_pool


# ---------------------------------------------------------------------- placeholders
_PLACEHOLDERS: dict[str, str] = {}
_JSON_LIST = r"json_each\(\s*\?\s*\)"
_TOKEN = re.compile(rf"'(?:[^']|'')*'|{_JSON_LIST}|\?|%")
#: SQLite's json_each over a bound JSON array (worlddb.core.store.list_sql), as PostgreSQL says it
_JSON_EACH = "jsonb_array_elements_text(CAST(%s AS jsonb))"


def pg_sql(sql: str) -> str:
    """`sql` with `?` placeholders as psycopg's `%s` (and `%` as `%%`), and `json_each(?)`
    as jsonb_array_elements_text (its values as text, in a column also named `value`);
    string literals are left alone. Remembered per statement."""
    found = _PLACEHOLDERS.get(sql)
    if found is None:
        def swap(match: re.Match) -> str:
            token = match.group(0)
            if token.startswith("json_each"):
                return _JSON_EACH
            return "%s" if token == "?" else "%%" if token == "%" else token
        found = _TOKEN.sub(swap, sql)
        if len(_PLACEHOLDERS) < 20_000:
            _PLACEHOLDERS[sql] = found
    return found


_LISTS: dict[str, tuple[str, tuple[int, ...]] | None] = {}
_LIST_TOKEN = re.compile(r"'(?:[^']|'')*'|\b(NOT\s+)?IN\s*\(\s*(?:\?(?:\s*,\s*\?)*|"
                         rf"SELECT\s+value\s+FROM\s+{_JSON_LIST})\s*\)|\?|%", re.IGNORECASE)
#: the Python types a list of values is bound as an array of (str: text[], int: int8[], ...)
_ARRAY_TYPES = (str, int, bytes, float)


#: in a list form's shape: the placeholder binds one JSON array (worlddb.core.store.list_params)
JSON_ARRAY = -1


def _list_form(sql: str) -> tuple[str, tuple[int, ...]] | None:
    """`sql` with every `IN (?, ?, ...)` and `IN (SELECT value FROM json_each(?))` as
    `= ANY(%s)` (`NOT IN` as `<> ALL(%s)`), and how many `?` each placeholder of the new
    text stands for (0: a single value; JSON_ARRAY: one JSON array of the values); None
    when the statement has no such list."""
    found = _LISTS.get(sql, False)
    if found is not False:
        return found
    shape: list[int] = []

    def swap(match: re.Match) -> str:
        token = match.group(0)
        if token == "?":
            shape.append(0)
            return "%s"
        if token == "%":
            return "%%"
        if token.startswith("'"):
            return token
        shape.append(JSON_ARRAY if "json_each" in token.lower() else token.count("?"))
        return "<> ALL(%s)" if match.group(1) else "= ANY(%s)"

    text = _LIST_TOKEN.sub(swap, sql)
    found = (text, tuple(shape)) if any(shape) else None
    if len(_LISTS) < 20_000:
        _LISTS[sql] = found
    return found


def pg_statement(sql: str, params: Sequence) -> tuple[str, Sequence]:
    """The statement and parameters psycopg runs for `sql` with `?` placeholders: each list
    of values bound to `IN (?, ?, ...)` goes as one array parameter (`= ANY(%s)`, the
    same comparison with the same NULL rules), so the text does not change with the
    list's length - psycopg then prepares it as it prepares any statement it runs
    repeatedly, and the server plans it once rather than once per length. A list whose
    values are not all of one plain type keeps its placeholders."""
    form = _list_form(sql)
    if form is None:
        return pg_sql(sql), params
    text, shape = form
    out: list = []
    at = 0
    for count in shape:
        if count == 0:
            out.append(params[at])
            at += 1
            continue
        if count == JSON_ARRAY:
            values = json.loads(params[at])
            at += 1
        else:
            values = list(params[at:at + count])
            at += count
        kinds = {type(v) for v in values if v is not None}
        if len(kinds) != 1 or next(iter(kinds)) not in _ARRAY_TYPES:
            return pg_sql(sql), params
        out.append(values)
    return text, out


# ---------------------------------------------------------------------- vectors
class VectorParam(bytes):
    """Float32 little-endian bytes bound as a pgvector `vector` (see `vector_param`)."""


def _vector_adapters(raw, oid: int) -> None:
    from psycopg.adapt import Dumper, Loader
    from psycopg.pq import Format

    class VectorDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj: bytes) -> bytes:
            values = np.frombuffer(obj, dtype="<f4")
            return struct.pack(">HH", len(values), 0) + values.astype(">f4").tobytes()

    class VectorLoader(Loader):
        format = Format.BINARY

        def load(self, data) -> bytes:
            data = bytes(data)
            dim = struct.unpack_from(">H", data)[0]
            return np.frombuffer(data, dtype=">f4", count=dim, offset=4).astype("<f4").tobytes()

    VectorDumper.oid = oid
    raw.adapters.register_dumper(VectorParam, VectorDumper)
    raw.adapters.register_loader(oid, VectorLoader)


def _number_adapters(raw) -> None:
    """numeric results (sum() over integers) as int, or float when fractional: what
    SQLite's sum() and avg() return."""
    from psycopg.types.numeric import NumericBinaryLoader

    class NumberLoader(NumericBinaryLoader):
        def load(self, data):
            value = super().load(data)
            return int(value) if value == value.to_integral_value() else float(value)

    raw.adapters.register_loader("numeric", NumberLoader)


# ---------------------------------------------------------------------- connections
class _PipelinedCursor:
    """A cursor whose statement was queued in the write transaction's pipeline: reading
    anything of it (rows, rowcount) first collects the results of everything queued."""

    __slots__ = ("_conn", "_cursor")

    def __init__(self, conn: PgConnection, cursor):
        self._conn = conn
        self._cursor = cursor

    def _ready(self):
        self._conn.sync()
        return self._cursor

    @property
    def rowcount(self) -> int:
        return self._ready().rowcount

    def fetchone(self):
        return self._ready().fetchone()

    def fetchall(self):
        return self._ready().fetchall()

    def fetchmany(self, size: int = 0):
        return self._ready().fetchmany(size)

    def __iter__(self):
        return iter(self._ready())


class PgConnection:
    """A pooled psycopg connection with the surface of sqlite3's that the engine uses.

    Inside a write transaction the connection is in pipeline mode: a statement is sent
    without waiting for its result, and the first read of any result (a row, a rowcount)
    or the commit collects the results of everything sent before it in one round trip.
    Statements whose results nobody reads (index rows, closure rows, log rows) therefore
    cost no round trip of their own. An error surfaces at that read or at the commit,
    still inside the transaction, which then rolls back as a whole.
    `statements` and `round_trips` count what the connection has sent and waited for."""

    backend: PostgresBackend

    def __init__(self, pool: _Pool):
        self._pool = pool
        self.raw = pool.take()
        self._ready = False
        self._settings: dict[str, str] = {}
        self._pipeline = None
        self._pipeline_cm = None
        self._pending = False
        self.statements = 0
        self.round_trips = 0
        #: names of the session locks (PostgresBackend.try_lock) this connection's session
        #: holds, and of those lost with a session that ended: a lost lock makes every
        #: statement fail until its holder unlocks it, so that work meant to run once
        #: never carries on, unlocked, on the replacement connection
        self.locks: set[str] = set()
        self.lost_locks: set[str] = set()

    def prepare(self) -> None:
        """Adapters that need the schema (the vector type): after migrating."""
        if self._ready:
            return
        from psycopg.types import TypeInfo

        info = TypeInfo.fetch(self.raw, "vector")
        if info is None:
            raise SchemaError("the pgvector extension is missing from this database")
        _vector_adapters(self.raw, info.oid)
        _number_adapters(self.raw)
        self._ready = True

    def _live(self):
        raw = self.raw
        if (raw.closed or raw.broken) and self._pool is not None and self._pipeline is None:
            # lost between transactions: a fresh connection carries on where it left off,
            # except that session locks die with their session (see `locks`)
            self._pool.give_back(raw)
            self.raw = self._pool.take()
            self._ready = False
            self._settings = {}
            self.lost_locks |= self.locks
            self.locks = set()
            self.prepare()
        if self.lost_locks:
            raise StorageError(f"the connection holding the runner lock {sorted(self.lost_locks)[0]!r} was lost "
                               "(a restart, a fail-over, a dropped connection), and the lock with it: another "
                               "server may be running the same work now, so this run stops here")
        return self.raw

    def execute(self, sql: str, params: Sequence | None = ()) -> Any:
        cursor = self._live().cursor(binary=True)
        self.statements += 1
        if params:
            cursor.execute(*pg_statement(sql, params))
        else:
            cursor.execute(sql)
        if self._pipeline is not None:
            self._pending = True
            return _PipelinedCursor(self, cursor)
        self.round_trips += 1
        return cursor

    def executemany(self, sql: str, seq) -> Any:
        cursor = self._live().cursor(binary=True)
        rows = list(seq)
        self.statements += len(rows)
        cursor.executemany(pg_sql(sql), rows)
        if self._pipeline is not None:
            self._pending = True
            return _PipelinedCursor(self, cursor)
        self.round_trips += 1  # psycopg pipelines the rows of one executemany
        return cursor

    # ------------------------------------------------------------------ pipeline mode
    def start_pipeline(self) -> None:
        """Enter pipeline mode (PostgresBackend.begin)."""
        if self._pipeline is None:
            self._pipeline_cm = self._live().pipeline()
            self._pipeline = self._pipeline_cm.__enter__()
            self._pending = False

    def sync(self) -> None:
        """Collect the results of every statement sent so far (one round trip)."""
        if self._pending and self._pipeline is not None:
            self._pending = False
            self.round_trips += 1
            self._pipeline.sync()

    def end_pipeline(self, failed: bool = False) -> None:
        """Leave pipeline mode, collecting what is still outstanding; on `failed`, an
        error already reported is not raised again."""
        pipeline, self._pipeline = self._pipeline_cm, None
        if pipeline is None:
            return
        self._pipeline_cm = None
        pending, self._pending = self._pending, False
        self.round_trips += pending
        if failed:
            try:
                pipeline.__exit__(None, None, None)
            except Exception:  # the transaction's error, already raised once; it rolls back
                pass
        else:
            pipeline.__exit__(None, None, None)

    def setting(self, name: str, value: str) -> None:
        """SET a session setting, unless this connection already has that value."""
        if self._settings.get(name) != value:
            self.execute(f"SET {name} = '{value}'")
            self._settings[name] = value

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self._pipeline is not None or self.raw.info.transaction_status != TransactionStatus.IDLE

    def close(self) -> None:
        if self._pool is not None:
            if self._pipeline is not None:
                self.end_pipeline(failed=True)
            self._pool.give_back(self.raw)
            self._pool.release()
            self._pool = None


class _Pool:
    """One psycopg_pool.ConnectionPool per (URL, settings), shared by the stores of this
    process, opened with the first and closed with the last."""

    _lock = threading.Lock()
    _open: dict[tuple, _Pool] = {}

    def __init__(self, key: tuple, url: str, settings: dict[str, str]):
        _, psycopg_pool = _driver()
        self.key = key
        self.users = 0

        def configure(conn) -> None:
            _configure(conn, settings)

        self.pool = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=POOL_MAX, kwargs={"autocommit": True}, configure=configure,
            check=psycopg_pool.ConnectionPool.check_connection, open=False, name="worlddb")

    @classmethod
    def acquire(cls, url: str, settings: dict[str, str], timeout: float) -> _Pool:
        key = (url, tuple(sorted(settings.items())))
        with cls._lock:
            pool = cls._open.get(key)
            if pool is None:
                _probe(url, settings, timeout)
                pool = cls(key, url, settings)
                try:
                    pool.pool.open(wait=True, timeout=timeout)
                except Exception as exc:
                    pool.pool.close()
                    raise StorageError(f"cannot connect to {_display(url)}: {exc}") from exc
                cls._open[key] = pool
            pool.users += 1
            return pool

    def take(self):
        psycopg, psycopg_pool = _driver()
        try:
            return self.pool.getconn()
        except (psycopg_pool.PoolTimeout, psycopg.Error) as exc:
            raise StorageError(f"no connection to {_display(self.key[0])}: {exc}") from exc

    def give_back(self, raw) -> None:
        try:
            self.pool.putconn(raw)
        except Exception:  # a connection the pool no longer knows (closed with it)
            pass

    def release(self) -> None:
        with self._lock:
            self.users -= 1
            if self.users <= 0:
                self._open.pop(self.key, None)
                self.pool.close()


def _configure(conn, settings: dict[str, str]) -> None:
    for name, value in settings.items():
        conn.execute(f"SET {name} = '{value}'")


def _probe(url: str, settings: dict[str, str], timeout: float) -> None:
    """One connection made directly, before a pool is: a URL that cannot connect (a wrong
    password, host, database or option) fails here at once with the driver's reason, which
    the pool would only log while it retried until its timeout."""
    psycopg, _ = _driver()
    try:
        limit = {} if "connect_timeout" in psycopg.conninfo.conninfo_to_dict(url) else {
            "connect_timeout": max(1, round(timeout))}
        with psycopg.connect(url, autocommit=True, **limit) as conn:
            _configure(conn, settings)
    except psycopg.Error as exc:
        raise StorageError(f"cannot connect to {_display(url)}: {' '.join(str(exc).split())}") from exc


def _display(url: str) -> str:
    """The URL without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def _lock_key(name: str) -> int:
    """An int4 advisory-lock key for a runner's name (stable across processes)."""
    import hashlib

    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big", signed=True)


class PostgresBackend:
    name = "postgresql"

    @property
    def Error(self) -> type[BaseException]:
        return _driver()[0].Error

    def exists(self, target: str) -> bool:
        psycopg, _ = _driver()
        try:
            with psycopg.connect(target, autocommit=True, connect_timeout=30) as conn:
                return conn.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()[0]
        except psycopg.Error as exc:
            raise StorageError(f"cannot connect to {_display(target)}: {exc}") from exc

    def connect(self, target: str, *, timeout: float = 30.0, synchronous: str = "FULL",
                cache_mib: int = 64) -> PgConnection:
        durable = synchronous.upper() not in ("NORMAL", "OFF")
        settings = {"lock_timeout": f"{int(timeout * 1000)}ms", "synchronous_commit": "on" if durable else "off",
                    "hnsw.iterative_scan": "relaxed_order"}
        pool = _Pool.acquire(target, settings, timeout)
        try:
            conn = PgConnection(pool)
        except BaseException:
            pool.release()
            raise
        try:
            self.migrate(conn)
            conn.prepare()
        except self.Error as exc:
            conn.close()
            raise self.translate(exc, target) from exc
        except BaseException:
            conn.close()
            raise
        return conn

    def migrate(self, conn: PgConnection) -> int:
        from worlddb.core.backends import postgres_schema

        return postgres_schema.migrate(conn)

    def begin(self, conn: PgConnection) -> None:
        # sent without waiting: the transaction's first read waits for the lock with them
        conn.start_pipeline()
        conn.execute("BEGIN")
        conn.execute("SELECT pg_advisory_xact_lock(?, ?)", WRITE_LOCK)

    def commit(self, conn: PgConnection) -> None:
        conn.execute("COMMIT")
        conn.end_pipeline()

    def rollback(self, conn: PgConnection) -> None:
        conn.end_pipeline(failed=True)
        if conn.raw.closed:
            return
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except self.Error:
                pass  # the connection is gone; its transaction went with it

    def change_token(self, conn: PgConnection) -> object:
        return conn.execute("SELECT max(seq) FROM tx").fetchone()[0]

    def translate(self, exc: BaseException, target: str = "") -> Exception:
        return translate(exc, target)

    def close(self, conn: PgConnection) -> None:
        conn.close()

    def page_cache(self, conn: PgConnection, mib: int) -> None:
        return None  # shared_buffers is the server's

    def vector_param(self, vector: bytes) -> VectorParam:
        return VectorParam(vector)

    def vector_model_claimed(self, conn: PgConnection, dim: int) -> None:
        """The HNSW index for vectors of `dim` dimensions; an index for another dimension
        (a model since replaced) is dropped, as its rows are gone."""
        dim = int(dim)
        for (name,) in conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
                                    "AND tablename = 'vector_data' AND indexname LIKE 'vector_data_hnsw_%'").fetchall():
            if name != f"vector_data_hnsw_{dim}":
                conn.execute(f'DROP INDEX "{name}"')
        # partial: rows of another dimension (a re-embedding deletes them in the same
        # transaction, and an index build still sees them) are neither cast nor indexed
        conn.execute(f"CREATE INDEX IF NOT EXISTS vector_data_hnsw_{dim} ON vector_data "
                     f"USING hnsw ((vec::vector({dim})) vector_cosine_ops) WITH (m = 16, ef_construction = 100) "
                     f"WHERE vector_dims(vec) = {dim}")

    def try_lock(self, conn: PgConnection, name: str) -> bool:
        granted = bool(conn.execute("SELECT pg_try_advisory_lock(?, ?)",
                                    (RUNNER_LOCKS, _lock_key(name))).fetchone()[0])
        if granted:
            conn.locks.add(name)
        return granted

    def unlock(self, conn: PgConnection, name: str) -> None:
        if name in conn.lost_locks:
            conn.lost_locks.discard(name)  # it went with its session: nothing to release
            return
        conn.locks.discard(name)
        conn.execute("SELECT pg_advisory_unlock(?, ?)", (RUNNER_LOCKS, _lock_key(name)))

    @contextmanager
    def erasing(self, conn: PgConnection) -> Iterator[None]:
        yield  # nothing to switch on: compact() rewrites what the erase left behind

    def compact(self, conn: PgConnection) -> None:
        conn.execute(f"VACUUM (FULL, ANALYZE) {', '.join(TABLES)}")

    @contextmanager
    def snapshot(self, conn: PgConnection) -> Iterator[None]:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        try:
            yield
        finally:
            if not conn.raw.closed:
                conn.execute("COMMIT")

    def resume_ids(self, conn: PgConnection) -> None:
        """Each identity column's sequence continues after the column's highest value."""
        for table, column in conn.execute(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND is_identity = 'YES'").fetchall():
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                         f"coalesce((SELECT max({column}) FROM {table}), 0) + 1, false)")

    def display(self, target: str) -> str:
        return _display(target)

    def index_hint(self, index: str) -> str:
        return ""  # PostgreSQL's planner takes a partial index whose condition the query repeats

    def json_field(self, column: str, key: str) -> str:
        return f"(({column})::jsonb ->> '{key}')"


PgConnection.backend = PostgresBackend()


def translate(exc: BaseException, target: str = "") -> Exception:
    """Map a psycopg exception to the engine's tree. The only place that does so."""
    psycopg, _ = _driver()
    errors = psycopg.errors
    message = str(exc).strip()
    where = f" ({_display(target)})" if target else ""
    if isinstance(exc, WorldDBError):
        return exc
    if isinstance(exc, psycopg.DataError) and ("NUL" in message or "0x00" in message):
        return InvalidInput(nul_refused("text"))
    if isinstance(exc, errors.LockNotAvailable):
        return StorageError(f"the database stayed locked by another writer: {message}")
    if isinstance(exc, errors.DiskFull):
        return StorageError(f"the disk is full; nothing was written: {message}")
    if isinstance(exc, errors.ReadOnlySqlTransaction):
        return StorageError(f"the database is read-only (a replica?): {message}")
    if isinstance(exc, errors.UndefinedTable):
        return SchemaError(f"not a WorldDB database{where}: {message}")
    if isinstance(exc, psycopg.IntegrityError):
        return IntegrityError(message)
    if isinstance(exc, psycopg.DataError):
        return InvalidInput(f"PostgreSQL refused a value: {message}")
    return StorageError(f"{message}{where}")
