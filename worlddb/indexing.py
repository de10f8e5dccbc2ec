"""What gets indexed, and the lexical lane over it.

Text nodes - Memory, Turn, Summary - are the units recall returns. Each gets one FTS5
row (BM25 lane) and a content embedding; for leaves the effective embedding (what the
HNSW lane searches) is the content embedding, for worlds the composer writes it. Both
are written in the node's own write transaction.

The vectors table records the model id and dimension of every vector. The first vector
written fixes the database's model (meta `embed_model`/`embed_dim`); opening it with a
different embedder is refused with EmbeddingMismatch, unless the caller asks to re-embed
everything (`Engine.reembed`). Vectors of two models are never mixed.

`lexical(...)` turns free text into a safe FTS5 query - every word quoted, OR-ed, so
user input such as `"`, `*`, `NEAR(` or `) OR (` is matched as words, never parsed as
query syntax - and ranks with SQLite's bm25().
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from worlddb.errors import Conflict
from worlddb.model import Node, NodeView
from worlddb.store import Store

TEXT_TYPES = ("Memory", "Turn", "Summary")
_WORD = re.compile(r"\w+", re.UNICODE)
#: Words too common to help ranking; dropped from queries unless nothing else is left.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves did does ever also
""".split())


class EmbeddingMismatch(Conflict):
    """The database's vectors were made by another model than the configured embedder."""


def index_text(node: Node | NodeView) -> str:
    """The text a node is found by. Turns carry their speaker so "what did Ann say" matches;
    an attached image caption is part of what was shared."""
    parts = []
    speaker = node.meta.get("speaker") if node.type == "Turn" else None
    if speaker:
        parts.append(f"{speaker}:")
    parts.append(node.content or "")
    caption = node.meta.get("caption")
    if caption:
        parts.append(f"[shared an image: {caption}]")
    return " ".join(parts)


def fts_query(text: str) -> str | None:
    words = [w.lower() for w in _WORD.findall(text)]
    kept = [w for w in words if w not in STOPWORDS] or words
    unique = list(dict.fromkeys(kept))[:64]
    if not unique:
        return None
    return " OR ".join(f'"{w}"' for w in unique)


def lexical(store: Store, text: str, worlds: Sequence[str], limit: int, *, open_only_at: int | None = None
            ) -> list[tuple[int, float]]:
    """(rowid, bm25 score; higher is better) of text nodes inside `worlds`, best first."""
    match = fts_query(text)
    if match is None or not worlds:
        return []
    params: list = [match, *worlds]
    validity = ""
    if open_only_at is not None:
        validity = "AND (n.valid_to IS NULL OR n.valid_to > ?)"
        params.append(open_only_at)
    params.append(limit)
    rows = store.conn.execute(
        "SELECT fts.rowid, bm25(fts) AS s FROM fts JOIN nodes n ON n.rowid = fts.rowid "
        f"WHERE fts MATCH ? AND n.anchor IN (SELECT node FROM closure WHERE world IN ({','.join('?' * len(worlds))})) "
        f"{validity} ORDER BY s LIMIT ?",
        params,
    )
    return [(rowid, -score) for rowid, score in rows]


def check_model(store: Store, model_id: str, dim: int) -> None:
    """Refuse an embedder whose vectors would mix with another model's."""
    stored = store.meta_get("embed_model")
    if stored is None:
        return
    stored_dim = int(store.meta_get("embed_dim") or 0)
    if stored != model_id or stored_dim != dim:
        raise EmbeddingMismatch(
            f"this database was embedded with {stored} ({stored_dim} dims); the configured embedder is "
            f"{model_id} ({dim} dims). Open it with the same model, or re-embed it on purpose "
            f"(worlddb reembed) - vectors of two models are never mixed"
        )


def as_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()
