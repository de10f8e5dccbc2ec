"""Whole-text vectors, and a one-sentence text's one vector, are made without the date (the
sentences of a longer text keep it), and a store of the older form (the date in every
embedded text) keeps that form until it is re-embedded: never both."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import ALICE, dump, open_engine
from worlddb.core.timeutil import parse_time
from worlddb.graph import text_index
from worlddb.graph.reembed import reembed
from worlddb.graph.text_index import DATED, WHOLE_UNDATED, EmbeddingMismatch
from worlddb.vectors import hnsw
from worlddb.vectors.embedder import HashEmbedder

pytestmark = pytest.mark.both_backends

EMBEDDER = HashEmbedder()
TEXT = "We adopted a grey cat. She sleeps on the piano."
AT = "2023-05-08T13:56:00Z"


def vectors_of(engine, anchor: str) -> tuple[np.ndarray, np.ndarray]:
    """A text node's whole-text vector and its sentence vectors, as stored."""
    store = engine.store
    whole = np.frombuffer(store.vector(anchor, hnsw.CONTENT), dtype=np.float32)
    units = [np.frombuffer(store.vector(anchor, hnsw.UNIT, i), dtype=np.float32) for i in range(2)]
    return whole, np.stack(units)


def expected(engine, anchor: str, form: str) -> tuple[np.ndarray, np.ndarray]:
    view = engine.store.get(anchor)
    whole = EMBEDDER.embed([text_index.vector_text(view, view.valid_from, form)])[0]
    return whole, EMBEDDER.embed(text_index.unit_texts(view, view.valid_from, form))


def test_a_new_store_embeds_a_whole_text_without_the_date_and_its_sentences_with_it(db_path):
    with open_engine(db_path, embedder=EMBEDDER) as engine:
        written = engine.write_memory(TEXT, ALICE, metadata={"speaker": "Melanie"}, valid_from=AT)
        assert engine.store.meta_get(text_index.VECTOR_TEXT_KEY) == WHOLE_UNDATED
        view = engine.store.get(written.id)
        assert text_index.vector_text(view, view.valid_from) == "Melanie: " + TEXT
        dated = "[1:56 pm on 8 May, 2023] Melanie: "
        assert text_index.unit_texts(view, view.valid_from) == [dated + "We adopted a grey cat.",
                                                                 dated + "She sleeps on the piano."]
        whole, units = vectors_of(engine, written.id)
        want_whole, want_units = expected(engine, written.id, WHOLE_UNDATED)
        assert np.allclose(whole, want_whole, atol=1e-6) and np.allclose(units, want_units, atol=1e-6)
        # the date stays in what the bm25 lane searches
        hit = engine.recall("8 May, 2023", ALICE, limit=1).results[0]
        assert hit.id == written.id and "bm25" in hit.lanes


def test_a_one_sentence_text_has_one_vector_without_the_date(db_path):
    with open_engine(db_path, embedder=EMBEDDER) as engine:
        written = engine.write_memory("We adopted a grey cat.", ALICE, metadata={"speaker": "Melanie"},
                                      valid_from=AT)
        view = engine.store.get(written.id)
        text = text_index.vector_text(view, view.valid_from)
        assert text_index.unit_texts(view, view.valid_from) == [text] == ["Melanie: We adopted a grey cat."]
        assert text_index.index_text(view, view.valid_from) == "[1:56 pm on 8 May, 2023] " + text
        rows = engine.store.conn.execute("SELECT count(*), count(DISTINCT data) FROM vectors WHERE node=?",
                                         (engine.store.rowid(written.id),)).fetchone()
        assert rows == (3, 1)  # content, effective and sentence rows share one vector
        stored = np.frombuffer(engine.store.vector(written.id, hnsw.UNIT), dtype=np.float32)
        assert np.allclose(stored, EMBEDDER.embed([text])[0], atol=1e-6)


def test_a_store_of_the_dated_form_keeps_it_until_it_is_reembedded(db_path):
    with open_engine(db_path, embedder=EMBEDDER) as engine:
        first = engine.write_memory(TEXT, ALICE, metadata={"speaker": "Melanie"}, valid_from=AT)
        reembed(engine.db, EMBEDDER, form=DATED)  # as every store written before the undated form
    with open_engine(db_path, embedder=EMBEDDER) as engine:
        assert engine.store.meta_get(text_index.VECTOR_TEXT_KEY) == DATED
        second = engine.write_memory("Our dog chases the grey cat. He never catches her.", ALICE,
                                     valid_from="2023-06-01T09:00:00Z")
        for anchor in (first.id, second.id):
            whole, units = vectors_of(engine, anchor)
            want_whole, want_units = expected(engine, anchor, DATED)
            assert np.allclose(whole, want_whole, atol=1e-6) and np.allclose(units, want_units, atol=1e-6)
        assert engine.recall("grey cat piano", ALICE).results[0].id == first.id
    # what `worlddb reembed` does: the same model, the texts in the current form
    with open_engine(db_path, embedder=EMBEDDER, reembed=True) as engine:
        assert engine.store.meta_get(text_index.VECTOR_TEXT_KEY) == WHOLE_UNDATED
        for anchor in (first.id, second.id):
            whole, units = vectors_of(engine, anchor)
            want_whole, want_units = expected(engine, anchor, WHOLE_UNDATED)
            assert np.allclose(whole, want_whole, atol=1e-6) and np.allclose(units, want_units, atol=1e-6)
        assert engine.recall("grey cat piano", ALICE).results[0].id == first.id
        assert engine.db.verify().ok


def test_a_write_prepared_in_another_form_than_the_stores_is_refused_and_writes_nothing(db_path):
    with open_engine(db_path, embedder=EMBEDDER) as engine:
        engine.write_memory(TEXT, ALICE, valid_from=AT)
        with open_engine(db_path, embedder=EMBEDDER) as other:
            reembed(other.db, EMBEDDER, form=DATED)  # another process re-embeds meanwhile
        before = dump(db_path)
        with pytest.raises(EmbeddingMismatch, match="dated form"):
            engine.write_memory("Our dog chases the grey cat.", ALICE)
        assert dump(db_path) == before


def test_an_unknown_form_is_refused_when_the_store_is_opened(db_path):
    with open_engine(db_path, embedder=EMBEDDER) as engine:
        engine.write_memory(TEXT, ALICE, valid_from=AT)
        with engine.db.write("test") as w:
            w.tx.set_meta(text_index.VECTOR_TEXT_KEY, "telegraphic")
    with pytest.raises(EmbeddingMismatch, match="telegraphic"):
        open_engine(db_path, embedder=EMBEDDER)


def test_a_session_of_turns_is_embedded_in_the_stores_form(db_path):
    messages = [{"role": "Caroline", "content": "I went to a support group yesterday. It was powerful."},
                {"role": "Melanie", "content": "That sounds lovely!"}]
    with open_engine(db_path, embedder=EMBEDDER) as engine:
        turns = engine.write_messages(messages, ALICE, valid_from=AT).turns
        assert engine.store.meta_get(text_index.VECTOR_TEXT_KEY) == WHOLE_UNDATED
        turn = engine.store.get(turns[0].id)
        assert turn.valid_from == parse_time(AT)
        whole, units = vectors_of(engine, turns[0].id)
        want_whole, want_units = expected(engine, turns[0].id, WHOLE_UNDATED)
        assert np.allclose(whole, want_whole, atol=1e-6) and np.allclose(units, want_units, atol=1e-6)


def expected_late(engine, anchor: str, form: str) -> tuple[np.ndarray, np.ndarray]:
    """What a late form's one run over a node's text pools, by the embedder's own
    embed_spans."""
    view = engine.store.get(anchor)
    text, pools = text_index.late_pools(view, view.valid_from)
    vectors = EMBEDDER.embed_spans([text], [pools])[0]
    return vectors[0], vectors[1:]


def test_a_store_of_the_late_form_pools_whole_text_and_sentences_from_one_run(db_path):
    form = text_index.LATE_UNDATED
    with open_engine(db_path, embedder=EMBEDDER) as engine:
        first = engine.write_memory(TEXT, ALICE, metadata={"speaker": "Melanie"}, valid_from=AT)
        reembed(engine.db, EMBEDDER, form=form)
    with open_engine(db_path, embedder=EMBEDDER) as engine:
        assert engine.store.meta_get(text_index.VECTOR_TEXT_KEY) == form
        second = engine.write_memory("Our dog chases the grey cat. He never catches her.", ALICE,
                                     valid_from="2023-06-01T09:00:00Z")
        for anchor in (first.id, second.id):
            view = engine.store.get(anchor)
            text, pools = text_index.late_pools(view, view.valid_from)
            assert len(pools) == 3  # the whole text, and its two sentences
            assert text == text_index.vector_text(view, view.valid_from)  # one run, over the undated text
            whole, units = vectors_of(engine, anchor)
            want_whole, want_units = expected_late(engine, anchor, form)
            assert np.allclose(whole, want_whole, atol=1e-6) and np.allclose(units, want_units, atol=1e-6)
        # the whole-text vector is the one the current form makes
        assert np.allclose(vectors_of(engine, first.id)[0], expected(engine, first.id, WHOLE_UNDATED)[0], atol=1e-6)
        assert engine.recall("grey cat piano", ALICE).results[0].id == first.id
        # another process moves the store to another form: this one's next write is refused
        with open_engine(db_path, embedder=EMBEDDER) as other:
            reembed(other.db, EMBEDDER, form=WHOLE_UNDATED)
        before = dump(db_path)
        with pytest.raises(EmbeddingMismatch, match=f"refusing vectors of the {form} form"):
            engine.write_memory("The cat naps. The dog barks.", ALICE)
        assert dump(db_path) == before
