"""Engine.open(embedder="recorded"): tools that open whatever file they are given (the identity
command, the inspector) use the built-in embedder it was written with, and refuse one they do
not have."""

from __future__ import annotations

import pytest

from tests.support import ALICE, open_engine
from worlddb.core.errors import InvalidInput
from worlddb.core.store import Store
from worlddb.memory.engine import RECORDED, Engine
from worlddb.vectors.embedder import HashEmbedder

pytestmark = pytest.mark.both_backends


def test_a_hash_embedded_file_opens_with_the_hash_embedder_and_recalls(db_path):
    with open_engine(db_path, embedder=HashEmbedder(128)) as engine:
        written = engine.write_memory("The lighthouse door is painted yellow", ALICE)
    with Engine.open(db_path, embedder=RECORDED) as engine:
        assert engine.embedder.model_id == "hash-v1-128"
        hits = engine.recall("lighthouse door", ALICE).results
        assert hits[0].id == written.id and "vector" in hits[0].lanes


def test_an_unknown_model_or_word_is_refused(db_path):
    with open_engine(db_path) as engine:
        engine.write_memory("anything", ALICE)
    store = Store.open(str(db_path))
    store.conn.execute("UPDATE meta SET value='someone-elses-model' WHERE key='embed_model'")
    store.close()
    with pytest.raises(InvalidInput, match="not a built-in embedder"):
        Engine.open(db_path, embedder=RECORDED)
    with pytest.raises(InvalidInput, match="embedder must be"):
        Engine.open(db_path, embedder="minilm")
