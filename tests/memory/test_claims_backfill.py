"""The claims backfill (worlddb.memory.claims_backfill): a store upgraded from before the claims
index gets the rows a write records, in resumable batches, once.

Two kinds of old store: `tests/fixtures/schema8.db`, written by the code of schema 8
(tests/fixtures/make_schema8.py), and, on both backends, a store written now and taken back
to schema 8's layout - the claims and readings tables dropped and the schema number set to 8,
which is all migrations 9 to 12 added - so that the upgrade runs them on PostgreSQL too."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.fixtures import make_schema8
from tests.support import ALICE, BOB, dump, open_engine, take_back
from worlddb.core import schema
from worlddb.core.store import Store
from worlddb.graph.database import WorldDB
from worlddb.memory import claims, claims_backfill, slot_readings
from worlddb.memory.scopes import ScopeSet

pytestmark = pytest.mark.both_backends

FIXTURE = Path(__file__).parent.parent / "fixtures" / "schema8.db"
SCHEMA8 = "a schema-8 file written by the code of schema 8"
BOTH = ScopeSet((("user", "alice"), ("agent", "helper")))

#: what each claims row says: (text, scope key, subject, attribute)
ROWS = ("SELECT n.anchor, s.kind, s.sid, c.subject, c.attribute FROM claims c JOIN nodes n ON n.rowid = c.node "
        "JOIN nodes w ON w.rowid = c.world JOIN scopes s ON s.anchor = w.anchor")


def rows(store: Store, current_only: bool = False) -> set[tuple[str, str, str, str]]:
    """Every claims row, by the memory's text, its scope and key (current memories only, if asked)."""
    found = store.conn.execute(ROWS).fetchall()
    views = store.get_many({r[0] for r in found})
    return {(views[a].content, f"{kind}:{sid}", subject, attribute) for a, kind, sid, subject, attribute in found
            if not current_only or views[a].valid_to is None}


def to_schema_8(target) -> None:
    """Take a store written now back to schema 8's layout: what migrations 9 and 12 added goes."""
    take_back(target, 8, tables=("claims", "readings"), meta=(schema.CLAIMS_BACKFILL_KEY,))


def write_old_store(target) -> set:
    """Memories with claims in two scopes and both at once, client facts, an amended one and
    one without claims, written now; returns the current memories' rows the writes recorded,
    after taking the store back to schema 8."""
    with open_engine(target) as engine:
        engine.write_memories([{"text": text} for text in (
            "I live in Austin, Texas.", "I have a golden retriever named Max.", "I'm allergic to peanuts.",
            "The office coffee machine broke again.", "My sister Nora lives in Chicago.")], ALICE)
        engine.write_memory("Alice works at Acme as a designer.", ALICE,
                            facts=[{"subject": "Alice", "relation": "works_at", "object": "Acme"}])
        editor = engine.write_memory("My favourite editor is Vim.", ALICE)
        engine.amend(editor.id, "My favourite editor is Helix.", ALICE)
        engine.write_memory("The team standup is at 10am on Mondays.", BOTH)
        engine.write_memories([{"text": "I live in Oslo."}, {"text": "I work at Equinor as a geologist."},
                               {"text": "Bob keeps bees behind the shed."}], BOB)
        recorded = rows(engine.store, current_only=True)
    to_schema_8(target)
    return recorded


def memories_max(store: Store) -> int:
    return store.conn.execute("SELECT max(rowid) FROM nodes WHERE type = 'Memory'").fetchone()[0]


def test_an_upgraded_store_gets_the_rows_its_writes_recorded_and_resumes_after_a_crash(db_path, monkeypatch):
    recorded = write_old_store(db_path)
    assert ("I live in Austin, Texas.", "user:alice", "me", "home") in recorded
    assert ("The team standup is at 10am on Mondays.", "agent:helper", "standup", "when") in recorded
    with WorldDB.open(db_path) as db:  # the upgrade: migrations 9 and 10
        assert rows(db.store) == set()
        assert claims_backfill.pending(db.store) == memories_max(db.store)
        assert claims_backfill.step(db, batch=4)[0] == 4
        first = rows(db.store)
        assert first and first < recorded
        cursor = claims_backfill.pending(db.store)
        # the next batch dies inside its transaction: neither its rows nor its cursor stay
        real, calls = claims.record, []

        def dying(*args):
            if calls:
                raise RuntimeError("killed")
            calls.append(args)
            real(*args)

        monkeypatch.setattr(claims, "record", dying)
        with pytest.raises(RuntimeError, match="killed"):
            claims_backfill.step(db, batch=4)
        monkeypatch.setattr(claims, "record", real)
        assert calls and rows(db.store) == first
        assert claims_backfill.pending(db.store) == cursor
    with WorldDB.open(db_path) as db:  # another process resumes it
        report = claims_backfill.backfill(db, batch=4)
        assert report.done and report.batches >= 2
        assert claims_backfill.pending(db.store) is None
        # the amended memory is no longer current: its rows would never be read
        assert rows(db.store) == recorded
    before = dump(db_path)
    with WorldDB.open(db_path) as db:
        again = claims_backfill.backfill(db)
    assert (again.done, again.batches, again.memories) == (True, 0, 0)
    assert dump(db_path) == before


def test_a_new_store_never_runs_the_pass(db_path):
    with open_engine(db_path) as engine:
        engine.write_memory("I live in Austin, Texas.", ALICE)
        assert claims_backfill.pending(engine.store) is None
        before = dump(db_path)
        assert claims_backfill.backfill(engine.db).batches == 0
        assert dump(db_path) == before
        engine.start_background(recluster=False)
        assert engine.backfill_task is None


def test_the_server_runs_the_pass_in_the_background_and_stops_between_batches(db_path):
    recorded = write_old_store(db_path)
    with open_engine(db_path) as engine:
        assert claims_backfill.pending(engine.store) is not None
        engine.start_background(recluster=False)
        task = engine.backfill_task
        assert task is not None and task.join(timeout=60)
        assert task.report.done and task.last_error is None
        assert claims_backfill.pending(engine.store) is None
        assert rows(engine.store) == recorded
        engine.stop_background()
        assert engine.backfill_task is None


@pytest.fixture
def schema8(tmp_path) -> Path:
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    return path


@pytest.mark.sqlite_only(SCHEMA8)
def test_the_fixture_is_a_schema_8_store_and_the_upgrade_marks_the_pass(schema8):
    conn = sqlite3.connect(schema8)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 8
        assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'claims'").fetchall()
    finally:
        conn.close()
    with WorldDB.open(schema8) as db:
        assert claims_backfill.pending(db.store) == memories_max(db.store)
        assert db.store.conn.execute("SELECT count(*) FROM claims").fetchone()[0] == 0


@pytest.mark.sqlite_only(SCHEMA8)
def test_the_rows_of_a_written_before_store_are_those_a_write_of_the_same_memories_records(schema8, tmp_path):
    with WorldDB.open(schema8) as db:
        report = claims_backfill.backfill(db, batch=7)
        assert report.done and report.batches == 6  # 40 current memories, 7 at a time
        backfilled = rows(db.store)
    # the same writes, retirement and erasure in a new store, which records claims as it writes
    with open_engine(tmp_path / "new.db") as engine:
        make_schema8.fill(engine)
        fresh = rows(engine.store, current_only=True)
    # the rows of every current memory of the old store; the superseded editor, the retired
    # and the erased memories have none
    texts = {row[0] for row in backfilled}
    assert {make_schema8.AUSTIN, make_schema8.PETS, "Alice works at Acme as a designer."} <= texts
    assert "My favourite editor is Vim." not in texts
    assert backfilled == fresh


def forget_claims(engine, reader: str | None) -> None:
    """Leave the store as an older slot reader would: no rows for the claims it could not read
    (here: none at all) and its number recorded (`reader`; None: a store from before the key)."""
    with engine.db.write("test") as w:
        w.tx.conn.execute("DELETE FROM claims")
        w.tx.conn.execute("DELETE FROM meta WHERE key = ?", (claims_backfill.READER_KEY,))
        if reader is not None:
            w.tx.conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (claims_backfill.READER_KEY, reader))


@pytest.mark.parametrize("reader", [None, "0"], ids=["unrecorded", "older"])
def test_a_store_an_older_reader_recorded_is_read_again_once(db_path, reader):
    with open_engine(db_path) as engine:
        # a new store is recorded as read by this code's reader: nothing to do
        assert engine.store.meta_get(claims_backfill.READER_KEY) == str(slot_readings.CLAIMS_READER)
        engine.write_memories([{"text": "I live in Austin, Texas."}, {"text": "My sister Nora lives in Chicago."}],
                              ALICE)
        engine.write_memory("I work at Dell as a tester.", BOTH)
        engine.write_memory("I live in Denver.", ALICE, metadata={"speaker": "Tom"})
        engine.write_messages([{"role": "user", "content": "I drive a Honda Civic."},
                               {"role": "Caroline", "content": "I live in Boston."},
                               {"role": "assistant", "content": "I live in the cloud."},
                               {"role": "assistant", "content": "Noted - you drive a Honda Civic."}], ALICE)
        recorded = rows(engine.store)
        assert ("I work at Dell as a tester.", "agent:helper", "me", "employer") in recorded
        # conversation turns too (reader 10), each in its speaker's voice; an assistant claims
        # nothing of itself, and what it restates of the user in the user's voice (reader 13)
        assert {("I drive a Honda Civic.", "user:alice", "me", "turn:car"),
                ("I live in Boston.", "user:alice", "caroline", "turn:home"),
                ("Noted - you drive a Honda Civic.", "user:alice", "me", "turn:car")} <= recorded
        assert not any(row[0] == "I live in the cloud." for row in recorded)
        # a named speaker's first person is keyed under the speaker, by a write and by the pass
        assert ("I live in Denver.", "user:alice", "tom", "home") in recorded
        assert ("I live in Denver.", "user:alice", "me", "home") not in recorded
        assert claims_backfill.mark_stale(engine.db) is False
        forget_claims(engine, reader)
    with open_engine(db_path) as engine:
        engine.start_background(recluster=False)
        task = engine.backfill_task
        assert task is not None and task.join(timeout=60) and task.last_error is None
        assert rows(engine.store) == recorded
        assert engine.store.meta_get(claims_backfill.READER_KEY) == str(slot_readings.CLAIMS_READER)
    with open_engine(db_path) as engine:  # once: the next start finds the reader recorded
        before = dump(db_path)
        engine.start_background(recluster=False)
        assert engine.backfill_task is None and claims_backfill.pending(engine.store) is None
        engine.stop_background()
    assert dump(db_path) == before


def test_an_older_reader_leaves_a_store_a_newer_one_recorded(db_path, monkeypatch):
    with open_engine(db_path) as engine:
        engine.write_memory("I live in Austin, Texas.", ALICE)
        monkeypatch.setattr(slot_readings, "CLAIMS_READER", slot_readings.CLAIMS_READER + 1)
        assert claims_backfill.mark_stale(engine.db) is True  # the newer code reads it again
        claims_backfill.backfill(engine.db)
        monkeypatch.undo()
        newer = str(slot_readings.CLAIMS_READER + 1)
        assert engine.store.meta_get(claims_backfill.READER_KEY) == newer
        assert claims_backfill.mark_stale(engine.db) is False
        assert claims_backfill.pending(engine.store) is None
        assert engine.store.meta_get(claims_backfill.READER_KEY) == newer
