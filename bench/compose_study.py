"""Synthetic study: mean pooling (v1) vs content-query attention pooling (v2).

Run: ``python -m bench.compose_study`` (prints JSON to stdout; about a second).

Setup (seed 20240601, numpy default_rng; synthetic vectors, no model):

* Space: dim 384, the width of MiniLM vectors. ``noisy(v)`` is
  ``normalise(v + g)`` with ``g ~ N(0, I/dim)`` (so |g| ~ 1): a unit vector
  with cosine ~0.71 to ``v``. One noise level is used everywhere, so the
  setup has no per-role tuning knob.
* 50 worlds, each with a theme: a random unit vector.
* Each world has 20 children: 19 are ``noisy(theme)``; one is the dominant
  noise child, ``D * noisy(other_theme)``, where ``other_theme`` is the theme
  of a different, randomly chosen world. This is the case that hurts a mean:
  a world whose largest member is about something else (a session in which
  a long document about another project was pasted). Its norm ``D`` is its
  weight in the pooled sum; the headline uses ``D = 19``, i.e. the dominant
  child weighs as much as the rest of the world together.
* The world's content embedding (the query of v2) is ``noisy(theme)``.
* 100 held-out queries: query j is a fresh ``noisy(theme of world j % 50)``,
  never used in building.
* For each query, worlds are ranked by cosine to their composed embedding;
  top-1 accuracy is the share of queries whose own world ranks first.

Also reported, with the same worlds and queries:

* ``sweep_dominant_norm``: accuracy as ``D`` goes from 1 (an ordinary unit
  child, as every Embedder produces) to 40.
* ``headline_other_seeds``: the headline setup drawn with seeds 1..5.
* ``control_random_direction``: the dominant child points in a random
  direction instead of at another world's theme. In 384 dimensions a random
  direction is nearly orthogonal to every theme, so it only shrinks the
  signal and does not change which world ranks first.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass

import numpy as np

from worlddb.vectors.pooling import DEFAULT_TEMPERATURE, attention_pool, mean_pool

SEED = 20240601
DIM = 384
WORLDS = 50
CHILDREN = 20
QUERIES = 100
HEADLINE_NORM = float(CHILDREN - 1)
SWEEP_NORMS = (1.0, 5.0, 10.0, 12.0, 15.0, 19.0, 25.0, 40.0)
OTHER_SEEDS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class Corpus:
    themes: np.ndarray  # (W, d)
    on_theme: np.ndarray  # (W, C-1, d) unit children
    off_theme_dir: np.ndarray  # (W, d) unit direction of the dominant child
    random_dir: np.ndarray  # (W, d) unit random direction (control)
    content: np.ndarray  # (W, d)
    queries: np.ndarray  # (Q, d)
    targets: np.ndarray  # (Q,) world index of each query


@dataclass(frozen=True)
class Result:
    dominant_norm: float
    v1_mean_top1: float
    v2_attention_top1: float


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.linalg.norm(m, axis=-1, keepdims=True)


def build(seed: int = SEED) -> Corpus:
    rng = np.random.default_rng(seed)

    def noisy(v: np.ndarray) -> np.ndarray:
        return _unit(v + rng.normal(0.0, 1.0 / np.sqrt(DIM), size=v.shape))

    themes = _unit(rng.normal(size=(WORLDS, DIM)))
    on_theme = noisy(np.repeat(themes[:, None, :], CHILDREN - 1, axis=1))
    # Another world's theme for each world: a random offset in 1..W-1 never
    # lands on the world itself.
    other = (np.arange(WORLDS) + rng.integers(1, WORLDS, size=WORLDS)) % WORLDS
    off_theme_dir = noisy(themes[other])
    random_dir = _unit(rng.normal(size=(WORLDS, DIM)))
    content = noisy(themes)
    targets = np.arange(QUERIES) % WORLDS
    queries = noisy(themes[targets])
    return Corpus(themes, on_theme, off_theme_dir, random_dir, content, queries, targets)


def _top1(world_vecs: np.ndarray, c: Corpus) -> float:
    scores = c.queries @ _unit(world_vecs).T
    return float((scores.argmax(axis=1) == c.targets).mean())


def evaluate(c: Corpus, dominant_norm: float, random_direction: bool = False) -> Result:
    direction = c.random_dir if random_direction else c.off_theme_dir
    v1, v2 = [], []
    for w in range(WORLDS):
        children = np.vstack([c.on_theme[w], dominant_norm * direction[w]])
        v1.append(mean_pool(children))
        v2.append(attention_pool(c.content[w], children, DEFAULT_TEMPERATURE))
    return Result(dominant_norm, _top1(np.array(v1), c), _top1(np.array(v2), c))


def run(seed: int = SEED) -> dict:
    c = build(seed)
    head = evaluate(c, HEADLINE_NORM)
    return {
        "setup": {
            "seed": seed,
            "dim": DIM,
            "worlds": WORLDS,
            "children_per_world": CHILDREN,
            "queries": QUERIES,
            "noise": "normalise(v + N(0, I/dim)), cosine ~0.71 to v",
            "dominant_child": "norm D, direction noisy(theme of another world)",
            "headline_dominant_norm": HEADLINE_NORM,
            "temperature": DEFAULT_TEMPERATURE,
        },
        "v1_mean_top1": head.v1_mean_top1,
        "v2_attention_top1": head.v2_attention_top1,
        "sweep_dominant_norm": [asdict(evaluate(c, d)) for d in SWEEP_NORMS],
        "control_random_direction": asdict(evaluate(c, HEADLINE_NORM, random_direction=True)),
        # The headline with other seeds, to show how much of it is the draw.
        "headline_other_seeds": {
            str(s): asdict(evaluate(build(s), HEADLINE_NORM)) for s in OTHER_SEEDS
        },
    }


def main() -> int:
    json.dump(run(), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
