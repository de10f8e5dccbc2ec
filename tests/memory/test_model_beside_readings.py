"""A write's model step runs beside its readings: while the model embeds the texts on a
thread of its own (worlddb.memory.ahead.beside), the caller's thread reads them for entities
and slot claims - a session's turns (worlddb.memory.ingest.prepare_session) and a plain
memory (worlddb.memory.write.prepare) alike - and what is written is what the steps one
after the other write."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.support import ALICE, open_engine
from worlddb.vectors.embedder import HashEmbedder, default_embedder

pytestmark = pytest.mark.both_backends

WAIT = 10.0
MESSAGES = [
    {"role": "Caroline", "content": "I went to a support group yesterday. It helped a lot.", "ref": "D1:1"},
    {"role": "Melanie", "content": "I painted a lake at sunrise with my kids in Denver.", "ref": "D1:2"},
]


class Watched(HashEmbedder):
    """An embedder that says when a call has begun, and on which thread."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.threads: list[str] = []

    def embed(self, texts) -> np.ndarray:
        self.threads.append(threading.current_thread().name)
        self.entered.set()
        return super().embed(texts)


def test_the_turns_are_read_while_the_model_embeds_them(db_path):
    embedder = Watched()
    engine = open_engine(db_path, embedder=embedder)
    try:
        extract = engine.services.extractor.extract
        readers: list[str] = []

        def reading(*args, **kwargs):
            # the first turn is read only once the model has begun: run one after the
            # other (readings first), this would wait in vain
            assert embedder.entered.wait(WAIT), "the model did not run while the turns were read"
            readers.append(threading.current_thread().name)
            return extract(*args, **kwargs)

        engine.services.extractor.extract = reading
        written = engine.write_messages(MESSAGES, ALICE, session="chat-1", valid_from="2023-05-08T13:56:00Z")
        assert [t.ref for t in written.turns] == ["D1:1", "D1:2"]
        assert embedder.threads[0].startswith("worlddb-beside")
        assert set(readers) == {threading.current_thread().name}
        assert {e.name for e in written.entities} >= {"Caroline", "Melanie", "Denver"}
        hit = engine.recall("Who painted a lake?", ALICE, limit=1).results[0]
        assert hit.text.startswith("I painted a lake")
    finally:
        engine.close()


class WatchedModel:
    """The real model, saying when a call has begun and on which thread."""

    def __init__(self) -> None:
        self.inner = default_embedder()
        self.model_id, self.dim = self.inner.model_id, self.inner.dim
        self.entered = threading.Event()
        self.threads: list[str] = []

    def embed(self, texts) -> np.ndarray:
        self.threads.append(threading.current_thread().name)
        self.entered.set()
        return self.inner.embed(texts)


def test_a_memory_is_read_while_the_model_embeds_it(db_path):
    embedder = WatchedModel()
    engine = open_engine(db_path, embedder=embedder)
    try:
        extract = engine.services.extractor.extract

        def reading(*args, **kwargs):
            assert embedder.entered.wait(WAIT), "the model did not run while the memory was read"
            return extract(*args, **kwargs)

        engine.services.extractor.extract = reading
        austin = engine.write_memory("I live in Austin and work at Dell.", ALICE, valid_from="2023-06-01")
        denver = engine.write_memory("I moved to Denver last month.", ALICE, valid_from="2024-03-01")
        assert embedder.threads[0].startswith("worlddb-beside")
        assert {e.name for e in austin.entities} >= {"Austin", "Dell"}
        assert denver.revised == [austin.id]  # a memory of two slots is marked, not closed
        hit = engine.recall("Where do I live?", ALICE, limit=1).results[0]
        assert hit.id == denver.id
    finally:
        engine.close()
