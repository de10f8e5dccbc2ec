"""A session's model step runs beside its readings: while the model embeds the turns on a
thread of its own (worlddb.memory.ahead.beside), the caller's thread reads them for entities
and slot claims (worlddb.memory.ingest.prepare_session), and what is written is what the
steps one after the other write."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.support import ALICE, open_engine
from worlddb.vectors.embedder import HashEmbedder

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
