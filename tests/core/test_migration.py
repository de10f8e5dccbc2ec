"""Schema migrations upgrade a file written by an older WorldDB in place, all or nothing.

The fixture `tests/fixtures/schema3.db` was written by the code of schema 3
(tests/fixtures/make_schema3.py), with the answers it gave then beside it. Opening it
now migrates it to the latest schema; it must then verify, and answer recall, list and
read as recorded. A change that alters those answers on purpose re-records them:
`python -m tests.fixtures.make_schema3 --answers`.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.fixtures.make_schema3 import FUNCTIONAL, QUESTIONS, scopes_of
from worlddb.core import schema
from worlddb.core.errors import SchemaError
from worlddb.graph import text_index
from worlddb.memory.engine import Engine
from worlddb.vectors import hnsw
from worlddb.vectors.embedder import HashEmbedder

FIXTURES = Path(__file__).parent.parent / "fixtures"
RERECORD = ("if recall, list or read answer differently on purpose, re-record the answers: "
            "python -m tests.fixtures.make_schema3 --answers")


@pytest.fixture
def old_file(tmp_path) -> Path:
    path = tmp_path / "old.db"
    shutil.copy(FIXTURES / "schema3.db", path)
    return path


@pytest.fixture(scope="module")
def answers() -> dict:
    return json.loads((FIXTURES / "schema3-answers.json").read_text())


def open_old(path: Path) -> Engine:
    return Engine.open(path, embedder=HashEmbedder(), functional=FUNCTIONAL, query_model=True)


def user_version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def test_the_fixture_is_a_schema_3_file(old_file):
    assert user_version(old_file) == 3 < schema.LATEST


def layout(conn: sqlite3.Connection) -> tuple:
    """Everything a file's schema holds: its user_version, every sqlite_master row, and the
    rows of every table (a virtual table's shadow tables among them)."""
    master = sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall(), key=repr)
    tables = [name for kind, name, _, sql in master if kind == "table" and not (sql or "").startswith("CREATE VIRTUAL")]
    return (conn.execute("PRAGMA user_version").fetchone()[0], master,
            {name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr) for name in tables})


def test_a_new_file_holds_what_the_migrations_make_of_an_empty_one(tmp_path):
    # a new file is made at the latest layout at once; running every migration instead must
    # leave the same tables, indexes, statements and rows
    new = sqlite3.connect(tmp_path / "new.db", isolation_level=None)
    stepped = sqlite3.connect(tmp_path / "stepped.db", isolation_level=None)
    try:
        assert schema.migrate(new) == 0
        stepped.execute("BEGIN")
        schema._run_migrations(stepped, 0)
        stepped.execute("COMMIT")
        made = layout(new)
        assert made == layout(stepped)
        assert made[0] == schema.LATEST and dict(made[2]["meta"])[schema.CLAIMS_READER_KEY] == str(schema.CLAIMS_READER)
        assert {"nodes", "edges", "fts", "fts_data", "validity_log_cause"} <= {row[1] for row in made[1]}
    finally:
        new.close()
        stepped.close()


def test_a_migrated_file_verifies_and_answers_as_before(old_file, answers):
    assert_migrated_and_answering(old_file, answers)


def assert_migrated_and_answering(old_file: Path, answers: dict) -> None:
    with open_old(old_file) as engine:
        assert user_version(old_file) == schema.LATEST
        report = engine.db.verify()
        assert report.ok, report.mismatches
        before = answers["verify"]
        now = report.summary()
        assert {k: now[k] for k in before if k != "snapshots"} == {k: v for k, v in before.items() if k != "snapshots"}
        for (query, scope, options), recorded in zip(QUESTIONS, answers["recall"], strict=True):
            hits = [dataclasses.asdict(h) for h in engine.recall(query, scopes_of(scope), **options).results]
            assert hits == recorded["hits"], (query, scope, options, RERECORD)
        for scope, recorded in answers["list"].items():
            page = engine.list_memories(scopes_of(scope), limit=100, include_retired=True)
            assert [dataclasses.asdict(m) for m in page.memories] == recorded, RERECORD
            for item in page.memories:
                detail = dataclasses.asdict(engine.read_memory(item.id, scopes_of(scope)))
                assert detail == answers["read"][f"{scope} {item.id}"], RERECORD


def test_a_migrated_file_stores_each_vector_of_a_node_once(old_file):
    old = sqlite3.connect(old_file)
    rows, distinct = old.execute("SELECT count(*), count(DISTINCT node || ':' || hex(vec)) FROM vectors "
                                 "WHERE vec IS NOT NULL").fetchone()
    old.close()
    assert distinct < rows  # the fixture holds duplicates to fold
    with open_old(old_file) as engine:
        conn = engine.store.conn
        assert conn.execute("SELECT count(*) FROM vectors WHERE data IS NOT NULL").fetchone()[0] == rows
        assert conn.execute("SELECT count(*) FROM vector_data").fetchone()[0] == distinct


def test_a_migrated_file_takes_new_writes_and_erasure(old_file):
    with open_old(old_file) as engine:
        alice = scopes_of("alice")
        written = engine.write_memory("Alice adopted a cat named Pixel. He is grey.", alice)
        assert engine.recall("cat named Pixel", alice).results[0].id == written.id
        # its vectors were made with the date in every text: it keeps the form it was written in
        assert engine.store.meta_get(text_index.VECTOR_TEXT_KEY) == text_index.DATED
        view = engine.store.get(written.id)
        stored = np.frombuffer(engine.store.vector(written.id, hnsw.CONTENT), dtype=np.float32)
        assert np.allclose(stored, HashEmbedder().embed([text_index.index_text(view, view.valid_from)])[0], atol=1e-6)
        engine.purge_scope(alice, "user:alice", erase=True)
        assert engine.db.verify().ok
    data = old_file.read_bytes()
    for fragment in (b"Pixel", b"tomatoes", b"Denver"):
        assert fragment not in data, fragment


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def test_a_migration_that_fails_changes_nothing(old_file, monkeypatch):
    before = dump(old_file)
    failing = [*schema.MIGRATIONS[:-1], [*schema.MIGRATIONS[-1], "INSERT INTO no_such_table VALUES (1)"]]
    monkeypatch.setattr(schema, "MIGRATIONS", failing)
    with pytest.raises(SchemaError, match="no_such_table"):
        open_old(old_file)
    assert user_version(old_file) == 3
    assert dump(old_file) == before


#: opens the file at argv[1] and kills the process just before migration argv[2] runs its
#: first statement, inside the transaction that already holds the migrations before it;
#: a small page cache makes SQLite spill those uncommitted pages into the log first
DIE_MID_MIGRATION = """
import os, signal, sys
from worlddb.core import schema
from worlddb.memory.engine import Engine
from worlddb.vectors.embedder import HashEmbedder

first = schema.MIGRATIONS[int(sys.argv[2]) - 1][0]
migrate = schema.migrate


class Dying:
    def __init__(self, conn):
        self.conn = conn
        conn.execute("PRAGMA cache_size=2")

    def __getattr__(self, name):
        return getattr(self.conn, name)

    def execute(self, sql, *args):
        if sql == first:
            os.kill(os.getpid(), signal.SIGKILL)
        return self.conn.execute(sql, *args)


schema.migrate = lambda conn: migrate(Dying(conn))
Engine.open(sys.argv[1], embedder=HashEmbedder())
"""


@pytest.mark.parametrize("number", [5, schema.LATEST])
def test_a_process_killed_mid_migration_leaves_the_file_as_it_was(old_file, answers, number):
    before = dump(old_file)
    died = subprocess.run([sys.executable, "-c", DIE_MID_MIGRATION, str(old_file), str(number)],
                          capture_output=True, text=True, timeout=120)
    assert died.returncode == -signal.SIGKILL, died.stderr
    assert Path(f"{old_file}-wal").stat().st_size > 0  # it had written part of the migration
    assert user_version(old_file) == 3
    assert dump(old_file) == before
    assert_migrated_and_answering(old_file, answers)  # and the next open migrates it whole


def _rows(conn, sql: str) -> list[tuple]:
    return sorted(conn.execute(sql).fetchall(), key=repr)


def content_before(path: Path) -> dict[str, list[tuple]]:
    """Every row's meaning in the schema-3 file, ids as hex and nodes as anchors."""
    conn = sqlite3.connect(path)
    try:
        return {
            "nodes": [(a, v, t, n, vf, vt, c, ti, p, ra, rr, nc, ne, None if body is None else
                       {k: value for k, value in json.loads(body).items() if k not in ("children", "edges")}, ea)
                      for a, v, t, n, vf, vt, c, ti, p, ra, rr, nc, ne, body, ea in _rows(conn,
                          "SELECT n.anchor, n.version, n.type, n.name, n.valid_from, n.valid_to, n.created_at, "
                          "n.t_ingested, n.parent, n.retired_at, n.retire_reason, n.n_children, n.n_edges, b.body, "
                          "b.erased_at FROM nodes n JOIN blobs b ON b.id = n.anchor")],
            "edges": [(i, t, s, d, w, json.loads(body)["props"], *rest) for i, t, s, d, w, body, *rest in _rows(conn,
                      "SELECT id, type, src, dst, world, body, seq_added, t_added, seq_removed, t_removed, valid_from, "
                      "valid_to FROM edges")],
            "closure": _rows(conn, "SELECT world, node FROM closure"),
            "members": _rows(conn, "SELECT world, kind, key FROM members"),
            "member_log": _rows(conn, "SELECT rowid, seq, world, kind, key, op FROM member_log"),
            "trie": _rows(conn, "SELECT world, kind, prefix, digest, count FROM trie"),
            "vectors": _rows(conn, "SELECT v.id, n.anchor, v.kind, v.ord, v.vec, v.seq FROM vectors v "
                                   "JOIN nodes n ON n.rowid = v.node"),
            "fts": _rows(conn, "SELECT n.anchor, f.text FROM fts f JOIN nodes n ON n.rowid = f.rowid"),
        }
    finally:
        conn.close()


def content_after(store) -> dict[str, list[tuple]]:
    """The same, read from the migrated file through the current layout."""
    conn = store.conn
    anchor = "(SELECT anchor FROM nodes WHERE rowid = {})".format
    return {
        "nodes": [(*row[:13], None if row[13] is None else json.loads(row[13]), row[14]) for row in _rows(conn,
                  "SELECT n.anchor, coalesce(n.version, n.anchor), n.type, n.name, n.valid_from, n.valid_to, "
                  "n.created_at, n.t_ingested, p.anchor, n.retired_at, n.retire_reason, n.n_children, n.n_edges, "
                  "n.record, n.erased_at FROM nodes n LEFT JOIN nodes p ON p.rowid = n.parent")],
        "edges": [(view.id, view.type, view.src, view.dst, view.world, dict(view.props), *times)
                  for view, times in zip(store.edges_added_after(0), conn.execute(
                      "SELECT seq_added, t_added, seq_removed, t_removed, valid_from, valid_to FROM edges "
                      "ORDER BY rowid"))],
        "closure": _rows(conn, f"SELECT {anchor('c.world')}, {anchor('c.node')} FROM closure c"),
        "members": [(w, k, key.hex()) for w, k, key in _rows(conn,
                    f"SELECT {anchor('m.world')}, m.kind, m.key FROM members m")],
        "member_log": [(r, s, w, k, key.hex(), op) for r, s, w, k, key, op in _rows(conn,
                       f"SELECT m.rowid, m.seq, {anchor('m.world')}, m.kind, m.key, m.op FROM member_log m")],
        "trie": _rows(conn, f"SELECT {anchor('t.world')}, t.kind, t.prefix, t.digest, t.count FROM trie t"),
        "vectors": _rows(conn, "SELECT v.id, n.anchor, v.kind, v.ord, d.vec, v.seq FROM vectors v "
                               "JOIN nodes n ON n.rowid = v.node LEFT JOIN vector_data d ON d.id = v.data"),
        "fts": _rows(conn, "SELECT n.anchor, f.text FROM fts f JOIN nodes n ON n.rowid = f.rowid"),
    }


def test_a_migrated_file_holds_every_row_it_held_before(old_file):
    before = content_before(old_file)
    with open_old(old_file) as engine:
        after = content_after(engine.store)
    assert all(before[table] for table in before)  # the fixture has rows in every table
    for table in before:
        assert sorted(after[table], key=repr) == sorted(before[table], key=repr), table
