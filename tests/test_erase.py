"""Erasure leaves no content behind: not in vectors, not in the composer's running sums."""

from __future__ import annotations

import pytest

from worlddb.ann import EFFECTIVE
from worlddb.embed import HashEmbedder
from worlddb.engine import Engine
from worlddb.ingest import SessionIn, TurnIn
from worlddb.scopes import ScopeSet

ALICE = ScopeSet((("user", "alice"),))


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_purging_with_erase_leaves_the_session_world_no_composed_vector(db_path, turns):
    session = SessionIn(date="2023-05-01", turns=tuple(TurnIn("Ann", f"secret number {i}") for i in range(turns)))
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        world = engine.ingest_conversation([session], ALICE).sessions[0]
        engine.purge_scope(ALICE, "user:alice", erase=True)
        conn = engine.store.conn
        rowid = engine.store.rowid(world)
        assert conn.execute("SELECT count(*) FROM vectors WHERE node=? AND vec IS NOT NULL", (rowid,)).fetchone()[0] == 0
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
        row = engine.store.conn.execute("SELECT vec FROM vectors WHERE node=? AND kind=?",
                                        (engine.store.rowid(world), EFFECTIVE)).fetchone()
        assert row[0] is not None
