"""A seeded synthetic corpus for scale benchmarks, and the embedder that goes with it.

    corpus = Corpus(nodes=100_000, edges=250_000, seed=7)
    for chunk in corpus.chunks(5_000): ...          # NodeChunk: types, texts, vectors, edges
    corpus.embedder.embed(["kalo vetri"])           # query vectors in the same space

Everything is a pure function of (nodes, edges, seed), so a run can be repeated
exactly and the probes of one size are drawn the same way as those of another.

Shape of the graph
- Node i's type follows a fixed pattern of 20: 3 Entity, 10 Memory, 5 Fact, 2 Event
  (15 / 50 / 25 / 10 %).
- Words are pseudo-words over a 30,000-word vocabulary. A text draws half its words
  from its topic's 64 words (512 topics) and half from a Zipf(1.07) law over the whole
  vocabulary, the way real text mixes subject words with common ones.
- Every non-Entity node refers_to 2 or 3 Entities (evenly spread so the total is
  exactly `edges`), chosen uniformly, and mentions their names in its text; an Entity's
  name is two capitalised words. Entity in-degree is therefore about edges / entities
  (about 17 at the default ratio) at every size, so per-query work should not grow.

Embeddings
`BagOfWordsEmbedder` gives each vocabulary word a fixed 384-dim direction: half its
topic's centre, the rest its own random direction (TOPIC_PULL = 0.5; a word in no
topic list gets a random topic). A text's vector is the idf-weighted sum of its
words' directions, L2-normalised. Texts sharing rare words are close, texts of one
topic cluster, unrelated texts are near orthogonal - the structure sentence embeddings
have, and what approximate search is built for (with independent random word
directions the space has no clusters at all, and HNSW at M=16, ef=96 found only 74 %
of the exact top 10 at 50k vectors; with the topic pull, 96 %). A query text embeds
into the same space as the stored vectors - which is what lets the engine's hybrid
recall run unmodified with `query_model=True`. It is not a language model and claims
nothing about meaning; it is cheap and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

TYPES = ("Entity", "Memory", "Fact", "Event")
#: node i has type TYPES[_PATTERN[i % 20]]
_PATTERN = np.array([0] * 3 + [1] * 10 + [2] * 5 + [3] * 2, dtype=np.int8)
_LENGTHS = {1: (10, 25), 2: (6, 13), 3: (6, 13)}  # words per text, [lo, hi)
VOCAB = 30_000
TOPICS = 512
TOPIC_WORDS = 64
ZIPF_S = 1.07
TOPIC_PULL = 0.5
DIM = 384
#: nodes per seeded generator block
BLOCK = 1000
_SYLLABLES = [c + v for c in "bcdfgklmnprstvz" for v in "aeiou"] + ["ka", "lo", "mi", "ren", "tas", "vor"]
_WORD = re.compile(r"\w+")


def _vocabulary(rng: np.random.Generator) -> list[str]:
    from worlddb.graph.text_index import STOPWORDS

    words: list[str] = []
    seen: set[str] = set()
    while len(words) < VOCAB:
        n = int(rng.integers(2, 5))
        word = "".join(_SYLLABLES[i] for i in rng.integers(0, len(_SYLLABLES), n))
        if word not in seen and word not in STOPWORDS:
            seen.add(word)
            words.append(word)
    return words


def _unit_rows(m: np.ndarray) -> np.ndarray:
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


class BagOfWordsEmbedder:
    """idf-weighted sum of fixed random word directions (see the module docstring)."""

    def __init__(self, words: Sequence[str], idf: np.ndarray, topic_of: np.ndarray, seed: int, dim: int = DIM):
        self.dim = dim
        self.model_id = f"bench-bow-{dim}-s{seed}"
        self._index = {w: i for i, w in enumerate(words)}
        rng = np.random.default_rng([seed, 1])
        own = _unit_rows(rng.standard_normal((len(words), dim)))
        centres = _unit_rows(rng.standard_normal((int(topic_of.max()) + 1, dim)))
        directions = np.zeros((len(words) + 1, dim), dtype=np.float32)  # last row: padding
        directions[:-1] = _unit_rows(TOPIC_PULL * centres[topic_of] + np.sqrt(1 - TOPIC_PULL ** 2) * own)
        self._weighted = directions * np.append(idf, 0.0).astype(np.float32)[:, None]
        self._fallback = np.zeros(dim, dtype=np.float32)
        self._fallback[0] = 1.0

    def embed_ids(self, rows: np.ndarray) -> np.ndarray:
        """Vectors of texts given as word-id rows padded with -1."""
        out = np.empty((len(rows), self.dim), dtype=np.float32)
        for start in range(0, len(rows), 2048):
            block = rows[start:start + 2048]
            out[start:start + len(block)] = self._weighted[block].sum(axis=1)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        empty = norms[:, 0] == 0.0
        out /= np.where(norms == 0.0, 1.0, norms)
        out[empty] = self._fallback
        return out

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        ids = [[self._index[w] for w in _WORD.findall(t.lower()) if w in self._index] for t in texts]
        width = max((len(r) for r in ids), default=0) or 1
        rows = np.full((len(ids), width), -1, dtype=np.int64)
        for i, r in enumerate(ids):
            rows[i, :len(r)] = r
        return self.embed_ids(rows)


@dataclass
class NodeChunk:
    start: int                 # global index of the first node
    types: np.ndarray          # int8 index into TYPES
    names: list[str]           # Entity names ('' for other types)
    texts: list[str]           # content ('' for Entities)
    vectors: np.ndarray        # (n, DIM) float32, unit rows
    edge_src: np.ndarray       # global node indices
    edge_dst: np.ndarray


class Corpus:
    def __init__(self, nodes: int, edges: int, seed: int = 7):
        if nodes < 20:
            raise ValueError("at least 20 nodes")
        self.nodes, self.edges, self.seed = nodes, edges, seed
        rng = np.random.default_rng([seed, 0])
        self.words = _vocabulary(rng)
        ranks = np.arange(1, VOCAB + 1, dtype=np.float64)
        p = ranks ** -ZIPF_S
        p /= p.sum()
        self._cdf = np.cumsum(p)
        self._topic_words = rng.integers(200, VOCAB, size=(TOPICS, TOPIC_WORDS))
        # a word's expected share of all words: half Zipf, half topic words
        share = 0.5 * p + 0.5 * np.bincount(self._topic_words.ravel(), minlength=VOCAB) / (TOPICS * TOPIC_WORDS)
        topic_of = rng.integers(0, TOPICS, VOCAB)
        for topic in range(TOPICS):
            topic_of[self._topic_words[topic]] = topic
        self.embedder = BagOfWordsEmbedder(self.words, np.log(1.0 / np.maximum(share, 1e-9)), topic_of, seed)
        self.types = _PATTERN[np.arange(nodes) % len(_PATTERN)]
        self.entity_nodes = np.flatnonzero(self.types == 0)
        self.source_nodes = np.flatnonzero(self.types != 0)
        self._entity_words = rng.integers(200, VOCAB, size=(len(self.entity_nodes), 2))
        # source k (k-th non-Entity node) gets out-degree floor(E(k+1)/S) - floor(Ek/S)
        s = len(self.source_nodes)
        bounds = (np.arange(s + 1, dtype=np.int64) * edges) // s
        self._out_degree = np.diff(bounds)
        self._edge_offset = bounds[:-1]
        self._source_rank = np.full(nodes, -1, dtype=np.int64)
        self._source_rank[self.source_nodes] = np.arange(s)

    def entity_name(self, entity_rank: int) -> str:
        a, b = self._entity_words[entity_rank]
        return f"{self.words[a].capitalize()} {self.words[b].capitalize()}"

    def chunks(self, size: int) -> Iterator[NodeChunk]:
        """Consecutive chunks of about `size` nodes (whole blocks of BLOCK nodes)."""
        step = max(1, size // BLOCK) * BLOCK
        for start in range(0, self.nodes, step):
            yield self.chunk(start, min(self.nodes, start + step))

    def chunk(self, start: int, stop: int) -> NodeChunk:
        """Nodes [start, stop); start must be a multiple of BLOCK. Each block draws from its
        own seeded generator, so a node's text never depends on how the run was chunked."""
        if start % BLOCK:
            raise ValueError(f"chunks start at multiples of {BLOCK}")
        parts = [self._block(b, min(stop, b + BLOCK)) for b in range(start, stop, BLOCK)]
        return NodeChunk(start=start, types=self.types[start:stop], names=[x for p in parts for x in p[0]],
                         texts=[x for p in parts for x in p[1]], vectors=np.vstack([p[2] for p in parts]),
                         edge_src=np.concatenate([p[3] for p in parts]),
                         edge_dst=np.concatenate([p[4] for p in parts]))

    def _block(self, start: int, stop: int):
        rng = np.random.default_rng([self.seed, 2, start // BLOCK])
        n = stop - start
        types = self.types[start:stop]
        topics = rng.integers(0, TOPICS, n)
        ranks = self._source_rank[start:stop]
        degree = np.where(ranks >= 0, self._out_degree[np.maximum(ranks, 0)], 0)
        width = _LENGTHS[1][1] + 2 * int(degree.max(initial=0))
        rows = np.full((n, width), -1, dtype=np.int64)
        names, texts, src, dst = [], [], [], []
        n_entities = len(self.entity_nodes)
        for i in range(n):
            kind = int(types[i])
            if kind == 0:
                rank = int(np.searchsorted(self.entity_nodes, start + i))
                rows[i, :2] = self._entity_words[rank]
                names.append(self.entity_name(rank))
                texts.append("")
                continue
            lo, hi = _LENGTHS[kind]
            length = int(rng.integers(lo, hi))
            own = int(rng.binomial(length, 0.5))
            ids = np.concatenate([
                self._topic_words[topics[i], rng.integers(0, TOPIC_WORDS, own)],
                np.minimum(np.searchsorted(self._cdf, rng.random(length - own)), VOCAB - 1),
            ])
            rng.shuffle(ids)
            targets = rng.choice(n_entities, size=int(degree[i]), replace=False)
            mention = self._entity_words[targets].ravel()
            rows[i, :length] = ids
            rows[i, length:length + len(mention)] = mention
            words = [self.words[j] for j in ids]
            words += [self.words[j].capitalize() for j in mention]
            names.append("")
            texts.append(" ".join(words))
            src.extend([start + i] * len(targets))
            dst.extend(self.entity_nodes[targets].tolist())
        return (names, texts, self.embedder.embed_ids(rows), np.asarray(src, dtype=np.int64),
                np.asarray(dst, dtype=np.int64))

    def probes(self, count: int, seed: int) -> list[Probe]:
        """`count` random Memory nodes, each with a 3-word query drawn from its own text."""
        rng = np.random.default_rng([self.seed, 3, seed])
        memories = np.flatnonzero(self.types == 1)
        out = []
        for node in rng.choice(memories, size=min(count, len(memories)), replace=False).tolist():
            text = self.text_of(node)
            words = list(dict.fromkeys(text.split()))
            picked = rng.choice(len(words), size=min(3, len(words)), replace=False)
            query = " ".join(words[j] for j in sorted(picked.tolist()))
            out.append(Probe(node=node, seed_node=int(rng.integers(0, self.nodes)), query=query))
        return out

    def text_of(self, node: int) -> str:
        start = (node // BLOCK) * BLOCK
        return self._block(start, min(self.nodes, start + BLOCK))[1][node - start]


@dataclass(frozen=True)
class Probe:
    node: int        # the Memory node whose words make the query
    seed_node: int   # a uniformly random node to expand from
    query: str
