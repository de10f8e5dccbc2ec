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
import sqlite3
from pathlib import Path

import pytest

from tests.fixtures.make_schema3 import FUNCTIONAL, QUESTIONS, scopes_of
from worlddb.core import schema
from worlddb.core.errors import SchemaError
from worlddb.memory.engine import Engine
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


def test_a_migrated_file_verifies_and_answers_as_before(old_file, answers):
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
                assert detail == answers["read"][item.id], RERECORD


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
        written = engine.write_memory("Alice adopted a cat named Pixel.", alice)
        assert engine.recall("cat named Pixel", alice).results[0].id == written.id
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
