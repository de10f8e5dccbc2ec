"""Conversation ingest: bad input anywhere in the conversation writes nothing."""

from __future__ import annotations

import pytest

from tests.support import dump
from worlddb.core.errors import InvalidInput
from worlddb.memory.engine import Engine
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import HashEmbedder

pytestmark = pytest.mark.both_backends

ALICE = ScopeSet((("user", "alice"),))
GOOD = SessionIn(date="2023-05-01", turns=(TurnIn("Ann", "hello there"), TurnIn("Bob", "hi Ann")))


def _rows(engine) -> list[str]:
    """Every row of the engine's store (tests.support.dump)."""
    return dump(engine.store.path)


@pytest.mark.parametrize("bad", [
    SessionIn(date="2023-02-30", turns=(TurnIn("Ann", "later"),)),
    SessionIn(date="2023-05-02", turns=(TurnIn(" ", "no speaker"),)),
], ids=["bad date", "blank speaker"])
def test_a_bad_later_session_leaves_the_earlier_ones_unwritten(db_path, bad):
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        before = _rows(engine)
        with pytest.raises(InvalidInput):
            engine.ingest_conversation([GOOD, bad], ALICE)
        assert _rows(engine) == before


def test_a_good_conversation_is_ingested_session_by_session(db_path):
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        result = engine.ingest_conversation([GOOD, SessionIn(date="2023-05-02", turns=(TurnIn("Ann", "bye"),))], ALICE)
        assert len(result.sessions) == 2 and len(result.turns) == 3


def test_ingesting_an_erased_turn_again_leaves_it_a_tombstone(db_path):
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        first = engine.ingest_conversation([GOOD], ALICE)
        engine.purge_scope(ALICE, "user:alice", erase=True)
        again = engine.ingest_conversation([SessionIn(date=GOOD.date, turns=GOOD.turns, name="again")], ALICE)
        assert again.turns == first.turns  # the same records, so the same (erased) nodes
        conn = engine.store.conn
        for turn in again.turns.values():
            rowid = engine.store.rowid(turn)
            assert engine.store.get(turn).erased
            assert conn.execute("SELECT count(*) FROM fts WHERE rowid=?", (rowid,)).fetchone()[0] == 0
            assert conn.execute("SELECT count(*) FROM vectors WHERE node=? AND data IS NOT NULL",
                                (rowid,)).fetchone()[0] == 0
        assert engine.recall("hello there", ALICE).results == []


def test_ingesting_the_same_conversation_twice_counts_its_words_once(db_path):
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        engine.ingest_conversation([GOOD], ALICE)
        docs = engine.store.meta_get("text_docs")
        engine.ingest_conversation([GOOD], ALICE)
        assert engine.store.meta_get("text_docs") == docs
