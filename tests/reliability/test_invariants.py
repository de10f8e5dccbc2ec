"""bench.invariants: the checker the crash and concurrency tests rely on finds each kind of
half-written state, and passes a store written through every engine path."""

from __future__ import annotations

import sqlite3

import pytest

from bench import invariants
from worlddb.core.store import Store
from worlddb.memory.engine import Engine
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors import hnsw_snapshots
from worlddb.vectors.embedder import HashEmbedder
from worlddb.vectors.hnsw import EFFECTIVE, UNIT, AnnIndex

ALICE = ScopeSet((("user", "alice"),))
BOTH = ScopeSet((("user", "alice"), ("agent", "helper")))


@pytest.fixture
def healthy(db_path):
    """A store written through every path: entities with a merge proposal, facts that
    supersede, amend, retire, multi-scope, a conversation, a purge with erase."""
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True, functional=["lives_in"]) as engine:
        ids = {}
        engine.write_memory("Alice Moreau lives in Austin", ALICE, entities=[{"name": "Alice Moreau"}],
                            facts=[{"subject": "Alice Moreau", "relation": "lives_in", "object": "Austin"}])
        ids["moved"] = engine.write_memory(
            "Alise Moreau lives in Denver", ALICE, entities=[{"name": "Alise Moreau"}],
            facts=[{"subject": "Alice Moreau", "relation": "lives_in", "object": "Denver"}]).id
        ids["old"] = engine.write_memory("The car is red", BOTH).id
        ids["new"] = engine.amend(ids["old"], "The car is green", BOTH).id
        ids["retired"] = engine.write_memory("A passing thought", ALICE).id
        engine.retire(ids["retired"], ALICE)
        engine.ingest_conversation([SessionIn(date="2024-01-01", turns=(
            TurnIn("Alice", "Hi Bob"), TurnIn("Bob", "Hi Alice, how is Lisbon?")))], ALICE)
        gone = ScopeSet((("run", "temp"),))
        engine.write_memory("temporary note", gone)
        engine.purge_scope(gone, "run:temp", erase=True)
    return db_path, ids


def test_a_store_written_through_every_path_is_whole(healthy):
    path, _ = healthy
    report = invariants.check(path)
    assert report.ok, str(report)
    assert report.counts["Memory"] == 6 and report.counts["Turn"] == 2
    def edges(conn, type):
        return conn.execute("SELECT count(*) FROM edges WHERE type=?", (type,)).fetchone()[0]

    assert _on_store(path, lambda conn: (edges(conn, "same_as") >= 1, edges(conn, "supersedes") >= 2)) == (True, True)


def _rowid(conn, anchor):
    return conn.execute("SELECT rowid FROM nodes WHERE anchor=?", (anchor,)).fetchone()[0]


CORRUPTIONS = {
    "fts row lost": ("index", lambda c, ids: c.execute("DELETE FROM fts WHERE rowid=?", (_rowid(c, ids["new"]),))),
    "unit vectors lost": ("index", lambda c, ids: c.execute(
        "DELETE FROM vectors WHERE node=? AND kind=3", (_rowid(c, ids["new"]),))),
    "scope membership lost": ("scope", lambda c, ids: c.execute(
        "DELETE FROM closure WHERE node=?", (_rowid(c, ids["retired"]),))),
    "interior member without edge": ("contains", lambda c, ids: c.execute(
        "UPDATE edges SET seq_removed=1 WHERE type='contains' AND dst=?", (_rowid(c, ids["retired"]),))),
    "supersedes without closing": ("supersedes", lambda c, ids: c.execute(
        "UPDATE nodes SET valid_to=NULL WHERE anchor=?", (ids["old"],))),
    "same_as without proposal": ("same_as", lambda c, ids: c.execute("DELETE FROM proposals")),
    "edge to a missing node": ("edges", lambda c, ids: c.execute("DELETE FROM nodes WHERE anchor=?", (ids["old"],))),
    "amend without its edge": ("amend", lambda c, ids: c.execute(
        "DELETE FROM edges WHERE type='supersedes' AND src=?", (_rowid(c, ids["new"]),))),
    "retired but open": ("validity", lambda c, ids: c.execute(
        "UPDATE nodes SET retired_at=1, valid_to=NULL WHERE anchor=?", (ids["moved"],))),
    "record does not re-derive": ("verify", lambda c, ids: _edit_record(c, ids["new"], b"green", b"GREEN")),
}


def _edit_record(conn, anchor, old: bytes, new: bytes) -> None:
    record = bytes(conn.execute("SELECT record FROM nodes WHERE anchor=?", (anchor,)).fetchone()[0])
    assert old in record
    conn.execute("UPDATE nodes SET record=? WHERE anchor=?", (record.replace(old, new), anchor))


def _on_store(path, action):
    """`action(conn)` on a connection of its own to the store, in autocommit (a store's
    connection: the same SQL, with `?` placeholders, on both backends)."""
    store = Store.open(str(path))
    try:
        return action(store.conn)
    finally:
        store.close()


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_each_half_written_state_is_reported(healthy, name):
    path, ids = healthy
    kind, corrupt = CORRUPTIONS[name]
    _on_store(path, lambda conn: corrupt(conn, ids))
    report = invariants.check(path)
    assert not report.ok
    assert any(problem.startswith(kind + ":") for problem in report.problems), str(report)


def _commit_under_a_passed_seq(path, ids) -> None:
    """A vector row committed under seq 1, which every index has already passed (what a
    reused sequence number would do)."""
    conn = sqlite3.connect(str(path))
    with conn:
        data = conn.execute("INSERT INTO vector_data(vec) SELECT d.vec FROM vectors v JOIN vector_data d "
                            "ON d.id = v.data WHERE v.kind=1 LIMIT 1").lastrowid
        conn.execute("INSERT INTO vectors(node, kind, ord, data, seq) VALUES (?, 1, 0, ?, 1)",
                     (_rowid(conn, ids["retired"]) + 1000, data))
    conn.close()


@pytest.mark.sqlite_only("the in-process HNSW index; PostgreSQL searches pgvector's index in the database")
def test_an_ann_index_that_missed_a_commit_is_reported(healthy):
    """A long-lived index catches up by seq; a vector row committed under a seq it has
    already passed (what a reused sequence number would do) must be noticed."""
    path, ids = healthy
    store = Store.open(path)
    kept = [AnnIndex(store, EFFECTIVE), AnnIndex(store, UNIT)]
    for index in kept:
        index.sync()
    assert invariants.check(path, ann_indexes=kept).ok
    _commit_under_a_passed_seq(path, ids)
    report = invariants.check(path, ann_indexes=kept)
    store.close()
    assert any("long-lived index of kind 1" in p for p in report.problems), str(report)


@pytest.mark.sqlite_only("HNSW snapshots are saved beside a SQLite file; PostgreSQL keeps no index outside it")
def test_a_snapshot_that_missed_a_commit_is_reported(healthy):
    path, ids = healthy
    store = Store.open(path)
    index = AnnIndex(store, EFFECTIVE, snapshot_min=1, snapshots=hnsw_snapshots.directory_for(str(path)))
    index.sync()
    assert index.save_snapshot()
    store.close()
    assert invariants.check(path).ok
    _commit_under_a_passed_seq(path, ids)
    report = invariants.check(path)
    assert any("loaded from its snapshot" in p for p in report.problems), str(report)
