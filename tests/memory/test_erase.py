"""Erasure leaves no content behind: not in vectors, not in the composer's running sums."""

from __future__ import annotations

import pytest

from worlddb.core.records import Node
from worlddb.memory.engine import Engine
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import HashEmbedder
from worlddb.vectors.hnsw import EFFECTIVE

pytestmark = pytest.mark.both_backends

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


def _file_bytes(path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.iterdir() if p.name.startswith(path.name))


def test_erasing_leaves_no_byte_of_a_text_or_its_vectors_in_the_file(tmp_path):
    """Each distinct vector of a node is stored once (a one-sentence memory's content,
    effective and sentence rows name one vector_data row); erasure clears every row, the
    shared bytes go with them, FTS5's shadow tables keep no term, and compaction leaves
    none of it in free pages. (A SQLite file's own test: tests/core/test_postgres_erase.py
    reads PostgreSQL's relation files.)"""
    db_path = tmp_path / "memory.db"
    words = ("zqxvorn", "blipquat", "mrowtail")
    bob = ScopeSet((("user", "bob"),))
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        one = engine.write_memory("Zqxvorn keeps the blipquat key.", ALICE)
        engine.write_memory("Zqxvorn moved the blipquat. Mrowtail hid it under the porch.", ALICE)
        conn, store = engine.store.conn, engine.store
        shared = conn.execute("SELECT count(*), count(DISTINCT data) FROM vectors WHERE node=?",
                              (store.rowid(one.id),)).fetchone()
        assert shared[0] >= 3 and shared[1] == 1
        secrets = [bytes(v) for (v,) in conn.execute("SELECT vec FROM vector_data")]
        assert len(secrets) >= 3
        kept = engine.write_memory("Ferns are watered on Sunday.", bob)
        engine.warm()
        conn.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, fts, 'row')")
        terms = lambda: {t for (t,) in conn.execute("SELECT term FROM temp.vocab")}  # noqa: E731
        assert {"zqxvorn", "blipquat"} <= terms()
        engine.purge_scope(ALICE, "user:alice", erase=True)
        assert not {"zqxvorn", "blipquat", "mrowtail", "porch"} & terms()
        assert conn.execute("SELECT count(*) FROM fts_docsize").fetchone()[0] == 1
        indexed = [text for (text,) in conn.execute("SELECT c0 FROM fts_content")]
        assert len(indexed) == 1 and indexed[0].endswith("] Ferns are watered on Sunday.")
        assert conn.execute("SELECT count(*) FROM vectors v JOIN nodes n ON n.rowid = v.node "
                            "WHERE n.erased_at IS NOT NULL AND v.data IS NOT NULL").fetchone()[0] == 0
        engine.index.sync()
        engine.units.sync()
        assert store.rowid(one.id) not in engine.index.nodes() | engine.units.nodes()
        assert engine.recall("ferns watered", bob).results[0].id == kept.id
        assert engine.db.verify().ok
        conn.execute("DROP TABLE temp.vocab")
    data = _file_bytes(db_path)
    assert b"Ferns are watered" in data
    for word in words:
        assert word.encode() not in data.lower(), word
    for secret in secrets:
        assert secret not in data
