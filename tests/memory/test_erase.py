"""Erasure leaves no content behind: not in vectors, not in the composer's running sums."""

from __future__ import annotations

import pytest

from worlddb.core.records import Node
from worlddb.memory.engine import Engine
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import HashEmbedder
from worlddb.vectors.hnsw import EFFECTIVE

ALICE = ScopeSet((("user", "alice"),))


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_purging_with_erase_leaves_the_session_world_no_composed_vector(db_path, turns):
    session = SessionIn(date="2023-05-01", turns=tuple(TurnIn("Ann", f"secret number {i}") for i in range(turns)))
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        world = engine.ingest_conversation([session], ALICE).sessions[0]
        engine.purge_scope(ALICE, "user:alice", erase=True)
        conn = engine.store.conn
        rowid = engine.store.rowid(world)
        kept = conn.execute("SELECT count(*) FROM vectors WHERE node=? AND data IS NOT NULL", (rowid,)).fetchone()
        assert kept[0] == 0
        assert conn.execute("SELECT count(*) FROM vector_data").fetchone()[0] == 0  # nothing of it, nor of its turns
        assert conn.execute("SELECT count(*) FROM compose WHERE world=?", (world,)).fetchone()[0] == 0
        engine.index.sync()
        assert engine.index.nodes() == set()
        assert engine.db.verify().ok


def test_erasing_one_turn_recomposes_the_live_session_from_the_others(db_path):
    session = SessionIn(date="2023-05-01", turns=(TurnIn("Ann", "tea in the garden"), TurnIn("Bob", "secret plan")))
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        result = engine.ingest_conversation([session], ALICE)
        world, secret = result.sessions[0], result.turns["1:2"]
        with engine.db.write() as w:
            w.erase(secret)
        kept = engine.store.conn.execute(
            "SELECT n FROM compose WHERE world=?", (world,)).fetchone()[0]
        assert kept == 1
        assert engine.store.vector(world, EFFECTIVE) is not None


def _shared_under_an_erased_world(engine):
    """A Session of alice's holding a world that bob's scope holds too; alice's scope is
    then purged with erase, which erases her Session but keeps the shared world."""
    with engine.db.write() as w:
        alice, bob = w.scope("user", "alice"), w.scope("user", "bob")
        session = w.add(Node("Session", name="s", content="alice's session"), parents=[alice])
        shared = w.add(Node("Session", name="shared", content="a shared world"), parents=[session, bob])
    engine.purge_scope(ALICE, "user:alice", erase=True)
    return session, shared


def test_a_world_erased_with_one_scope_still_takes_changes_from_another(db_path):
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        session, shared = _shared_under_an_erased_world(engine)
        before = engine.store.get(session).version
        with engine.db.write() as w:
            w.add(Node("Memory", content="bob writes inside the shared world", created_at=5), parents=[shared])
        erased = engine.store.get(session)
        assert erased.erased and erased.version != before  # the interior changed, so the version did
        assert engine.db.verify().ok


def test_a_forged_version_of_an_erased_world_is_found(db_path):
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        session, shared = _shared_under_an_erased_world(engine)
        with engine.db.write() as w:
            w.add(Node("Memory", content="bob writes inside the shared world", created_at=5), parents=[shared])
        conn = engine.store.conn
        seq = conn.execute("SELECT max(seq) FROM versions WHERE anchor=?", (session,)).fetchone()[0]
        conn.execute("UPDATE versions SET id=? WHERE anchor=? AND seq=?", ("0" * 64, session, seq))
        conn.execute("UPDATE nodes SET version=? WHERE anchor=?", ("0" * 64, session))
        report = engine.db.verify()
        assert [(m.kind, m.id) for m in report.mismatches if m.kind == "version"] == [("version", "0" * 64)]
