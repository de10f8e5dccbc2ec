"""Behaviour of worlddb.vectors.pooling (v1 mean pool, v2 attention pool) and its study."""

from __future__ import annotations

import math

import numpy as np
import pytest

from worlddb.vectors.pooling import (
    ComposeError,
    attention_pool,
    attention_weights,
    effective_embedding,
    mean_pool,
)


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


# -- hand-computable cases -----------------------------------------------------


def test_mean_pool_is_the_normalised_mean():
    out = mean_pool(np.array([[1.0, 0.0], [0.0, 1.0]]))
    np.testing.assert_allclose(out, [math.sqrt(0.5), math.sqrt(0.5)], rtol=1e-6)
    assert out.dtype == np.float32
    # A row's norm is its weight: (3, 0) and (0, 1) average to (1.5, 0.5).
    np.testing.assert_allclose(mean_pool(np.array([[3.0, 0.0], [0.0, 1.0]])), unit([3, 1]), rtol=1e-6)


def test_attention_weights_are_softmax_of_cosines_over_temperature():
    q = np.array([1.0, 0.0])
    children = np.array([[1.0, 0.0], [0.0, 1.0]])
    w = attention_weights(q, children, temperature=1.0)
    e = math.e
    np.testing.assert_allclose(w, [e / (e + 1), 1 / (e + 1)], rtol=1e-12)
    np.testing.assert_allclose(attention_pool(q, children, temperature=1.0), unit([e, 1]), rtol=1e-6)
    # Cosine, not dot product: lengthening a child does not buy it attention.
    np.testing.assert_allclose(
        attention_weights(q * 5, children * [[7.0], [0.5]], temperature=1.0), w, rtol=1e-12
    )


def test_attention_spans_mean_to_nearest_child_as_temperature_falls():
    rng = np.random.default_rng(7)
    children = rng.normal(size=(6, 16))
    children /= np.linalg.norm(children, axis=1, keepdims=True)
    q = unit(children[2] + 0.3 * children[4])
    np.testing.assert_allclose(attention_pool(q, children, 1e6), mean_pool(children), atol=1e-5)
    np.testing.assert_allclose(attention_pool(q, children, 1e-4), children[2], atol=1e-5)


# -- the reason v2 exists -----------------------------------------------------


def test_attention_downweights_an_off_topic_dominant_child():
    rng = np.random.default_rng(0)
    d = 64
    theme = unit(rng.normal(size=d))
    off = rng.normal(size=d)
    off = unit(off - (off @ theme) * theme)  # off-topic: orthogonal to the theme
    on_topic = np.array([unit(theme + 0.8 * unit(rng.normal(size=d))) for _ in range(9)])
    # One off-topic child that outweighs the other nine together.
    children = np.vstack([on_topic, 12.0 * off])
    content = unit(theme + 0.5 * unit(rng.normal(size=d)))

    v1, v2 = mean_pool(children), attention_pool(content, children)
    assert float(v1 @ off) > float(v1 @ theme)  # the mean is captured by the outlier
    assert float(v2 @ theme) > 0.9 and abs(float(v2 @ off)) < 0.1
    w = attention_weights(content, children)
    assert w[-1] < 0.01 * w[:-1].min()


def test_compose_study_shows_v2_beating_v1_under_a_dominant_child():
    from bench.compose_study import run

    result = run()
    assert result["v2_attention_top1"] == 1.0
    assert result["v1_mean_top1"] < 0.9
    sweep = {r["dominant_norm"]: r for r in result["sweep_dominant_norm"]}
    # With ordinary unit children both compositions find every world.
    assert sweep[1.0]["v1_mean_top1"] == sweep[1.0]["v2_attention_top1"] == 1.0
    assert run() == result  # seeded


# -- zero children and bad input ---------------------------------------------


def test_zero_children_mean_pool_refuses_attention_returns_the_query():
    with pytest.raises(ComposeError, match="at least one child"):
        mean_pool(np.zeros((0, 4)))
    with pytest.raises(ComposeError):
        mean_pool([])
    q = np.array([3.0, 4.0, 0.0, 0.0])
    np.testing.assert_allclose(attention_pool(q, np.zeros((0, 4))), [0.6, 0.8, 0, 0], rtol=1e-6)
    np.testing.assert_allclose(attention_pool(q, []), [0.6, 0.8, 0, 0], rtol=1e-6)
    assert attention_weights(q, []).shape == (0,)


def test_effective_embedding_of_a_leaf_world_is_its_content():
    content = np.array([0.0, 2.0, 0.0])
    for version in ("v1", "v2"):
        np.testing.assert_allclose(effective_embedding(content, np.zeros((0, 3)), version), [0, 1, 0])
    children = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_array_equal(effective_embedding(content, children, "v1"), mean_pool(children))
    np.testing.assert_array_equal(
        effective_embedding(content, children, "v2"), attention_pool(content, children)
    )
    with pytest.raises(ComposeError, match="unknown composition"):
        effective_embedding(content, children, "v3")


@pytest.mark.parametrize(
    "call",
    [
        lambda: mean_pool(np.ones(4)),  # 1-D, not (n, d)
        lambda: mean_pool(np.array([[1.0, 0.0], [-1.0, 0.0]])),  # cancels to zero
        lambda: mean_pool(np.array([[np.nan, 1.0]])),
        lambda: attention_pool(np.ones(3), np.ones((2, 4))),  # dimension mismatch
        lambda: attention_pool(np.zeros(2), np.ones((2, 2))),  # query without direction
        lambda: attention_pool(np.ones(2), np.array([[1.0, 0.0], [0.0, 0.0]])),  # zero child
        lambda: attention_pool(np.ones(2), np.ones((2, 2)), temperature=0.0),
        lambda: attention_pool(np.ones(2), np.ones((2, 2)), temperature=float("nan")),
        lambda: attention_pool(np.array([np.inf, 1.0]), np.ones((2, 2))),
    ],
)
def test_bad_vectors_are_refused_not_turned_into_nan(call):
    with pytest.raises(ComposeError):
        call()


def test_results_are_deterministic_unit_float32():
    rng = np.random.default_rng(3)
    children = rng.normal(size=(20, 384))
    q = rng.normal(size=384)
    for f in (lambda: mean_pool(children), lambda: attention_pool(q, children)):
        a, b = f(), f()
        assert a.dtype == np.float32 and a.shape == (384,)
        assert a.tobytes() == b.tobytes()
        assert abs(float(np.linalg.norm(a)) - 1.0) < 1e-6
