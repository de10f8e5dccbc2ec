"""The storage boundary (worlddb.core.backends): the same semantics on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import psycopg
import pytest

from tests import pg
from tests.support import ALICE, BOB, open_engine
from worlddb.core import schema
from worlddb.core.backends import for_target, is_url, postgres_schema
from worlddb.core.backends.postgres import pg_sql, pg_statement
from worlddb.core.errors import IntegrityError, InvalidInput, NotFound, SchemaError, StorageError
from worlddb.core.records import Node
from worlddb.core.store import LIST_INLINE, Store, list_params, list_sql
from worlddb.graph.database import WorldDB


def test_both_backends_number_their_migrations_alike():
    assert postgres_schema.LATEST == schema.LATEST


def test_the_target_names_the_backend(tmp_path):
    assert for_target(str(tmp_path / "m.db")).name == "sqlite"
    assert for_target(":memory:").name == "sqlite"
    assert for_target("postgresql://u@h/db").name == "postgresql"
    assert is_url("postgres://h/db") and not is_url(tmp_path / "postgresql:")


def test_placeholders_become_psycopgs_outside_string_literals():
    assert pg_sql("SELECT ? WHERE a LIKE '%?%' AND b = ?") == "SELECT %s WHERE a LIKE '%?%' AND b = %s"
    assert pg_sql("SELECT a % 2 FROM t WHERE x = 'it''s ?'") == "SELECT a %% 2 FROM t WHERE x = 'it''s ?'"


def test_a_list_bound_to_in_goes_as_one_array_with_the_same_comparisons():
    sql = "SELECT a FROM t WHERE x IN (?, ?,?) AND y = ? AND z NOT IN (?) AND w = 'IN (?)'"
    assert pg_statement(sql, ("a", "b", None, 4, b"k")) == (
        "SELECT a FROM t WHERE x = ANY(%s) AND y = %s AND z <> ALL(%s) AND w = 'IN (?)'",
        [["a", "b", None], 4, [b"k"]])
    # a list of mixed or unusual types keeps its placeholders; JOIN ( is not IN (
    assert pg_statement("SELECT 1 FROM a JOIN (SELECT 1) b WHERE x IN (?,?)", (1, "a")) == (
        "SELECT 1 FROM a JOIN (SELECT 1) b WHERE x IN (%s,%s)", (1, "a"))
    assert pg_statement("SELECT 1 WHERE x IN (?)", (True,))[0] == "SELECT 1 WHERE x IN (%s)"


def test_a_long_list_goes_as_one_json_array_and_answers_alike_on_both(target):
    """A list longer than LIST_INLINE is bound as one JSON array (json_each on SQLite; an
    array on PostgreSQL), so a statement never binds one parameter per value."""
    values = [f"k{i}" for i in range(LIST_INLINE + 200)]
    assert list_sql(len(values)) == "SELECT value FROM json_each(?)" and len(list_params(values)) == 1
    assert list_sql(3) == "?,?,?" and list_params(("a", "b")) == ["a", "b"]
    assert pg_statement("SELECT 1 WHERE x IN (SELECT value FROM json_each(?)) AND y NOT IN "
                        "(SELECT value FROM json_each(?)) AND z = ?", ('["a","b"]', "[1]", 3)) == (
        "SELECT 1 WHERE x = ANY(%s) AND y <> ALL(%s) AND z = %s", [["a", "b"], [1], 3])
    store = Store.open(target)
    try:
        conn = store.conn
        conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", [(v, v) for v in values[::50]])
        got = conn.execute(f"SELECT key FROM meta WHERE key IN ({list_sql(len(values))}) ORDER BY key",
                           list_params(values)).fetchall()
        assert sorted(r[0] for r in got) == sorted(values[::50])
        rest = conn.execute(f"SELECT count(*) FROM meta WHERE key NOT IN ({list_sql(len(values))})",
                            list_params(values)).fetchone()[0]
        assert rest == conn.execute("SELECT count(*) FROM meta").fetchone()[0] - len(values[::50])
    finally:
        store.close()


def test_in_lists_answer_alike_on_both(target):
    """IN and NOT IN over text, integers and bytes, with NULLs among the values: the
    array form PostgreSQL is sent answers exactly what the list does on SQLite."""
    store = Store.open(target)
    try:
        conn = store.conn
        conn.execute("INSERT INTO meta(key, value) VALUES ('k1', 'a'), ('k2', 'b'), ('k3', 'c')")
        keys = "SELECT key FROM meta WHERE key IN ({}) AND value NOT IN ({}) ORDER BY key"
        assert [r[0] for r in conn.execute(keys.format("?,?,?", "?"), ("k1", "k2", "k3", "b"))] == ["k1", "k3"]
        assert conn.execute(keys.format("?", "?,?"), ("k1", "x", None)).fetchall() == []  # NOT IN with a NULL
        assert conn.execute("SELECT count(*) FROM tx WHERE seq IN (?,?)", (1, 2**40)).fetchone()[0] == 0
        assert conn.execute("SELECT 1 WHERE ? IN (?,?)", (b"\x01", b"\x00", b"\x01")).fetchone()[0] == 1
    finally:
        store.close()


def test_an_error_inside_a_pipelined_write_rolls_the_whole_write_back():
    """On PostgreSQL a write transaction sends statements without waiting for those whose
    results nobody reads: an error in one surfaces later - at the next read or the commit -
    and still undoes everything the transaction wrote."""
    target = pg.new_database()
    try:
        with WorldDB.open(target) as db:
            seq = db.store.last_seq()
            conn = db.store.conn
            with pytest.raises(IntegrityError):
                with db.write() as w:
                    w.add(Node("Memory", content="kept only if the write commits", created_at=1),
                          parents=[w.scope("user", "alice")])
                    sent = conn.round_trips
                    conn.execute("INSERT INTO meta(key, value) VALUES ('dup', 'x')")  # not waited for
                    conn.execute("INSERT INTO meta(key, value) VALUES ('dup', 'y')")  # fails, not waited for
                    assert conn.round_trips == sent
            assert db.store.last_seq() == seq
            assert conn.execute("SELECT count(*) FROM nodes WHERE type = 'Memory'").fetchone()[0] == 0
            assert conn.execute("SELECT count(*) FROM meta WHERE key = 'dup'").fetchone()[0] == 0
            with db.write() as w:  # the connection serves the next write
                w.add(Node("Memory", content="after", created_at=1), parents=[w.scope("user", "alice")])
            assert db.verify().ok
    finally:
        pg.drop_database(target)


def test_memory_lifecycle_is_the_same_on_both(target):
    with open_engine(target) as engine:
        before = datetime.now(UTC).isoformat()
        austin = engine.write_memory("I live in Austin, Texas.", ALICE, valid_from="2023-06-01")
        denver = engine.amend(austin.id, "I live in Denver, Colorado.", ALICE, reason="moved")
        engine.write_memory("Bob keeps bees in Oslo.", BOB)
        now = engine.recall("where do I live?", ALICE, limit=5).results
        assert now[0].id == denver.id and austin.id not in [h.id for h in now]
        old = engine.recall("where do I live?", ALICE, as_of="2024-01-01", limit=1).results
        assert old[0].id == austin.id
        known = engine.recall("where do I live?", ALICE, known_at=before, limit=5).results
        assert known == []
        assert engine.read_memory(austin.id[:10], ALICE).superseded_by == [denver.id]
        with pytest.raises(NotFound):
            engine.read_memory(austin.id, BOB)
        assert [h.text for h in engine.recall("bees", BOB).results] == ["Bob keeps bees in Oslo."]
        assert engine.services.db.verify().ok


def test_a_nul_in_any_stored_text_is_refused_alike_on_both_and_nothing_is_written(target):
    # PostgreSQL's text cannot hold one; SQLite could, and a store that did could not move
    refused = "contains a NUL character \\(U\\+0000\\), which is never stored"
    with open_engine(target) as engine:
        first = engine.write_memory("first", ALICE)
        seq = engine.store.last_seq()
        for what, write in (("text", lambda: engine.write_memory("a\x00b", ALICE)),
                            ("metadata", lambda: engine.write_memory("ok", ALICE, metadata={"serial": "AB\x00CD"})),
                            ("metadata", lambda: engine.write_memory("ok", ALICE, metadata={"a\x00": ["x"]})),
                            ("a retire reason", lambda: engine.retire(first.id, ALICE, reason="gone\x00"))):
            with pytest.raises(InvalidInput, match=f"^{what} {refused}$"):
                write()
        assert engine.store.last_seq() == seq


def test_a_url_that_cannot_connect_fails_at_once_with_the_drivers_reason():
    # the pool would retry these for the store's whole timeout, logging the reason only
    base = pg.url("postgres")
    for bad, reason in ((base.replace("/postgres?", "/no_such_database?"), "does not exist"),
                        (base + "&sslmode=bogus", "sslmode")):
        started = time.monotonic()
        with pytest.raises(StorageError, match=reason) as refused:
            Store.open(bad)
        assert time.monotonic() - started < 10
        assert str(refused.value).startswith("cannot connect to ")


def test_a_newer_postgresql_schema_is_refused():
    url = pg.new_database()
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("UPDATE schema_version SET version = %s", (schema.LATEST + 1,))
        with pytest.raises(SchemaError, match="newer"):
            Store.open(url)
    finally:
        pg.drop_database(url)


def test_a_database_holding_other_tables_is_refused():
    url = pg.new_database()
    name = pg.database_name(url)
    try:
        with psycopg.connect(pg.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}_other")
        other = pg.url(f"{name}_other")
        with psycopg.connect(other, autocommit=True) as conn:
            conn.execute("CREATE TABLE invoices(id int)")
        with pytest.raises(SchemaError, match="not WorldDB's"):
            Store.open(other)
        pg.drop_database(other)
    finally:
        pg.drop_database(url)


def test_servers_opening_a_new_database_together_migrate_it_once():
    import threading

    with psycopg.connect(pg.url("postgres"), autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS worlddb_fresh WITH (FORCE)")
        conn.execute("CREATE DATABASE worlddb_fresh")
    url = pg.url("worlddb_fresh")
    errors: list[BaseException] = []

    def open_close() -> None:
        try:
            WorldDB.open(url).close()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_close) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    try:
        assert errors == []
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT version FROM schema_version").fetchall() == [(schema.LATEST,)]
    finally:
        pg.drop_database(url)
