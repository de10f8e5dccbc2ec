"""Embeddings are computed before the write lock is taken: every write path runs the model
outside its transaction, so a reader or another writer on the same file never waits on it."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.support import ALICE, BOB, open_engine
from worlddb.memory.importing import ImportItem
from worlddb.vectors.embedder import HashEmbedder, default_embedder

pytestmark = pytest.mark.both_backends

MESSAGES = [
    {"role": "Caroline", "content": "I went to a support group yesterday. It helped a lot.", "ref": "D1:1"},
    {"role": "Melanie", "content": "I painted a lake at sunrise with my kids.", "ref": "D1:2"},
]


class Watched:
    """An embedder that notes, at each call, whether its engine's connection is inside a
    transaction (SQLite's write lock: every write begins with BEGIN IMMEDIATE)."""

    def __init__(self, inner) -> None:
        self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim
        self.conn = None
        self.calls: list[tuple[int, bool]] = []

    def embed(self, texts) -> np.ndarray:
        self.calls.append((len(texts), self.conn is not None and self.conn.in_transaction))
        return self.inner.embed(texts)


def test_every_write_path_runs_the_model_before_its_transaction(db_path):
    watched = Watched(default_embedder())
    engine = open_engine(db_path, embedder=watched)
    try:
        watched.conn = engine.store.conn
        first = engine.write_memory("Alice moved to Lisbon in March; she works at Acme now.", ALICE,
                                    metadata={"speaker": "Alice"})
        engine.write_messages(MESSAGES, ALICE, session="chat-1", valid_from="2023-05-08T13:56:00Z")
        engine.write_messages([{"role": "Caroline", "content": "Where was the lake?"}], ALICE, session="chat-1")
        engine.write_memories([{"text": "Bob plays chess with Dana on Sundays."}], ALICE)
        engine.import_memories([ImportItem(line=1, scopes=BOB, arguments={"text": "Bob adopted a dog named Rex."})])
        engine.amend(first.id, "Alice moved to Porto in March; she works at Acme now.", ALICE)
        assert len(watched.calls) >= 6 and sum(n for n, _ in watched.calls) > 10
        assert not any(locked for _, locked in watched.calls), watched.calls
        assert engine.recall("who moved to Porto?", ALICE, limit=1).results[0].text.startswith("Alice moved to Porto")
    finally:
        engine.close()


class Gated(HashEmbedder):
    """Blocks inside embed until released, as a slow model run would."""

    def __init__(self) -> None:
        super().__init__()
        self.inside, self.release = threading.Event(), threading.Event()

    def embed(self, texts) -> np.ndarray:
        self.inside.set()
        assert self.release.wait(30), "never released"
        return super().embed(texts)


def test_a_reader_and_another_writer_go_ahead_while_a_write_embeds(tmp_path):
    path = tmp_path / "shared.db"
    open_engine(path).close()  # the file and its schema exist before two engines share it
    gated = Gated()
    slow, other = open_engine(path, embedder=gated), open_engine(path)
    try:
        other.write_memory("Bob keeps bees in his garden.", BOB)
        outcome: list = []
        writer = threading.Thread(target=lambda: outcome.append(
            slow.write_memory("Alice is learning to sail.", ALICE)))
        writer.start()
        assert gated.inside.wait(30)
        # the slow write is inside the model now: the file is not locked for anyone
        other.store.conn.execute("PRAGMA busy_timeout = 0")
        written = other.write_memory("Bob sold honey at the market.", BOB)
        hits = other.recall("bees honey", BOB, limit=5).results
        assert written.id in {h.id for h in hits}
        assert writer.is_alive() and not outcome
        gated.release.set()
        writer.join(30)
        assert outcome and outcome[0].id
        assert other.recall("sailing", ALICE, limit=1).results[0].id == outcome[0].id
    finally:
        gated.release.set()
        slow.close()
        other.close()
