"""A whole store copied between targets (worlddb.core.copy): every table carried on both
backends, a snapshot while another connection writes, ids that go on after the copied ones,
and refusals or failures that leave the destination as it was."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from tests import pg
from tests.support import ALICE, BOB, dump, open_engine
from worlddb.core import schema
from worlddb.core.copy import LAYOUT, copy_store
from worlddb.core.errors import InvalidInput
from worlddb.core.store import Store
from worlddb.graph.database import WorldDB


def _tables_and_columns(store: Store) -> dict[str, set[str]]:
    """The store's own tables and their columns, less what a backend derives (SQLite's fts5
    shadow tables; PostgreSQL's schema_version, fts_stats and the fts row's tsvector)."""
    conn = store.conn
    if store.backend.name == "sqlite":
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                 if not n.startswith(("sqlite_", "fts_"))]
        found = {}
        for name in names:
            columns = {row[1] for row in conn.execute(f"PRAGMA table_info({name})")}
            has_rowid = not conn.execute("SELECT sql FROM sqlite_master WHERE name = ?",
                                         (name,)).fetchone()[0].rstrip().upper().endswith("WITHOUT ROWID")
            found[name] = columns | ({"rowid"} if has_rowid and name in ("member_log", "fts") else set())
        return found
    rows = conn.execute("SELECT table_name, column_name FROM information_schema.columns "
                        "WHERE table_schema = current_schema()").fetchall()
    found: dict[str, set[str]] = {}
    for table, column in rows:
        if table not in ("schema_version", "fts_stats") and (table, column) not in (("fts", "tsv"), ("fts", "len")):
            found.setdefault(table, set()).add(column)
    return found


def test_the_copy_carries_every_table_and_column_of_both_layouts(target):
    store = Store.open(target)
    try:
        found = _tables_and_columns(store)
    finally:
        store.close()
    assert set(found) == set(schema.TABLES) == set(LAYOUT)
    for table, (columns, key) in LAYOUT.items():
        assert found[table] == set(columns), table
        assert set(key) <= set(columns)


def _fill(path) -> dict[str, str]:
    """A store with history in it: a supersession, a revision, a retirement, a conversation
    session, a merge proposal accepted, an erased scope's tombstones and a principal."""
    from worlddb.memory import principals

    with open_engine(path) as engine:
        ids = {
            "austin": engine.write_memory("I live in Austin and work at Dell.", ALICE).id,
            "denver": engine.write_memory("We moved to Denver.", ALICE).id,
            "tea": engine.write_memory("I drink green tea every morning.", ALICE).id,
        }
        engine.retire(ids["tea"], ALICE, reason="no longer true")
        engine.write_memory("My manager Sarah Connor approved the Q3 budget.", ALICE)
        engine.write_memory("Sara Conner wants the quarterly report by Friday.", ALICE)
        (proposal,) = engine.merge_proposals(ALICE).proposals
        engine.accept_merge(proposal.id, ALICE)
        engine.write_memory("Bob's secret is the blue door.", BOB)
        engine.purge_scope(BOB, "user:bob", erase=True)
        principals.add_token(engine.store, "reader", ["user:alice"])
    return ids


def _rows(target) -> dict[str, list[tuple]]:
    """Every row of every table, in key order."""
    store = Store.open(target)
    try:
        return {table: [tuple(r) for r in store.conn.execute(
                    f"SELECT {', '.join(columns)} FROM {table} ORDER BY {', '.join(key)}").fetchall()]
                for table, (columns, key) in LAYOUT.items()}
    finally:
        store.close()


def _same_rows(a, b) -> None:
    first, second = _rows(a), _rows(b)
    for table in LAYOUT:
        assert first[table] == second[table], table


@pytest.mark.parametrize("destination", ["sqlite", "postgresql"])
def test_a_copy_holds_every_row_verifies_and_goes_on_from_where_the_source_was(tmp_path, destination):
    source = tmp_path / "memory.db"
    ids = _fill(source)
    target = str(tmp_path / "copy.db") if destination == "sqlite" else pg.new_database()
    try:
        report = copy_store(source, target, page=5)  # many pages: each table is read by its key, page by page
        assert report.rows["nodes"] > 10 and report.rows["proposals"] == 1 and report.rows["principals"] == 1
        with WorldDB.open(target) as db:
            assert db.verify().ok
        # back to a new file: the round trip through the other backend gives the same rows
        back = tmp_path / "back.db"
        copy_store(target, back, page=5)
        _same_rows(source, back)
        with open_engine(target) as engine:
            assert engine.recall("Where do I live?", ALICE).results[0].id == ids["denver"]
            assert ids["tea"] not in [hit.id for hit in engine.recall("green tea", ALICE).results]
            # written after the copy: the store's ids go on past the copied ones
            later = engine.write_memory("We moved to Boulder.", ALICE)
            assert engine.recall("Where do I live?", ALICE).results[0].id == later.id
            assert engine.services.db.verify().ok
    finally:
        if destination == "postgresql":
            pg.drop_database(target)


def test_a_copy_is_a_snapshot_while_another_connection_writes(tmp_path):
    source = tmp_path / "memory.db"
    with open_engine(source) as engine:
        for i in range(20):
            engine.write_memory(f"Note {i}: the plant on shelf {i} needs water.", ALICE)
    stop = threading.Event()
    written = []

    def writer() -> None:
        with open_engine(source) as engine:
            i = 0
            while not stop.is_set():
                engine.write_memory(f"Later note {i}: shelf {i} was dusted.", ALICE)
                written.append(i)
                i += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while len(written) < 3:
            threading.Event().wait(0.01)
        report = copy_store(source, tmp_path / "copy.db", page=7)  # many pages: the writer runs between them
    finally:
        stop.set()
        thread.join()
    assert written, "the writer should have run during the copy"
    with WorldDB.open(tmp_path / "copy.db") as db:
        assert db.verify().ok
        memories = db.store.conn.execute("SELECT count(*) FROM nodes WHERE type = 'Memory'").fetchone()[0]
    assert report.rows["nodes"] == db_rows(tmp_path / "copy.db")
    assert 20 + 3 <= memories < 20 + len(written) + 1


def db_rows(path) -> int:
    store = Store.open(path)
    try:
        return store.conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    finally:
        store.close()


def test_a_store_with_data_the_same_store_or_no_store_is_refused_and_nothing_changes(tmp_path):
    source, other = tmp_path / "memory.db", tmp_path / "other.db"
    _fill(source)
    with open_engine(other) as engine:
        engine.write_memory("Something else entirely.", ALICE)
    before = dump(other)
    with pytest.raises(InvalidInput, match="already holds a store"):
        copy_store(source, other)
    assert dump(other) == before
    with pytest.raises(InvalidInput, match="the same store"):
        copy_store(source, tmp_path / "." / "memory.db")
    with pytest.raises(InvalidInput, match="no store at"):
        copy_store(tmp_path / "missing.db", tmp_path / "new.db")
    assert not (tmp_path / "new.db").exists() and not (tmp_path / "missing.db").exists()


class Interrupted(Exception):
    pass


def _fail_after(pages: int):
    seen = []

    def progress(rows: int) -> None:
        seen.append(rows)
        if len(seen) >= pages:
            raise Interrupted
    return progress


def test_a_copy_that_fails_midway_leaves_no_file_and_an_empty_database_takes_a_second_copy(tmp_path):
    source = tmp_path / "memory.db"
    _fill(source)
    with pytest.raises(Interrupted):
        copy_store(source, tmp_path / "copy.db", progress=_fail_after(5), page=3)
    assert not any(p.name.startswith("copy.db") for p in tmp_path.iterdir())
    url = pg.new_database()
    try:
        with pytest.raises(Interrupted):
            copy_store(source, url, progress=_fail_after(5), page=3)
        store = Store.open(url)
        try:
            assert all(store.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] == 0
                       for t in schema.TABLES if t != "meta")
        finally:
            store.close()
        assert copy_store(source, url).rows["nodes"] > 10
        with WorldDB.open(url) as db:
            assert db.verify().ok
    finally:
        pg.drop_database(url)


def test_a_text_holding_a_nul_is_named_by_its_node_and_refused_before_postgresql_gets_a_row(tmp_path):
    # stores of older versions took a NUL on SQLite; PostgreSQL's text cannot hold one
    source = tmp_path / "memory.db"
    with open_engine(source) as engine:
        engine.write_memory("I live in Austin.", ALICE)
        written = engine.write_memory("Serial number ABCD on the router.", ALICE)
    conn = sqlite3.connect(source)
    with conn:
        conn.execute("UPDATE fts SET text = ? WHERE rowid = (SELECT rowid FROM nodes WHERE anchor = ?)",
                     ("Serial number AB\x00CD on the router.", written.id))
    conn.close()
    url = pg.new_database()
    try:
        with pytest.raises(InvalidInput, match=f"node {written.id}: fts.text contains a NUL character"):
            copy_store(source, url)
        store = Store.open(url)
        try:
            assert store.conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 0
        finally:
            store.close()
    finally:
        pg.drop_database(url)
