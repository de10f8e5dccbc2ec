"""What gets indexed, and the lexical lane over it.

Text nodes - Memory, Turn, Summary - are the units recall returns. Each is found by its
*index text*: "[<valid-from date>] <Speaker>: <text> [image: <caption>]" - the date,
speaker and shared image are part of what a memory is about, and questions name them.
In the node's own write transaction it gets:
  - one FTS5 row of that text (BM25 lane);
  - a content embedding of that text, which is also its effective embedding (vector
    lane; for worlds the composer writes the effective one);
  - one *unit* embedding per sentence (and one for an image caption), each carrying
    the same date/speaker prefix (sentence lane: a long turn is found by its best
    sentence, not by the blur of all of them);
  - +1 document frequency for each distinct wordpiece, which weights model-free query
    vectors (worlddb.vectors.static_query).

The vectors table records the model id and dimension of every vector. The first vector
written fixes the database's model (meta `embed_model`/`embed_dim`); opening it with a
different embedder is refused with EmbeddingMismatch, unless the caller asks to re-embed
everything (`Engine.reembed`). Vectors of two models are never mixed.

`lexical(...)` turns free text into a safe FTS5 query - every word quoted, OR-ed, so
user input such as `"`, `*`, `NEAR(` or `) OR (` is matched as words, never parsed as
query syntax - and ranks with SQLite's bm25(). Three things keep its cost near the size of
the answer rather than the size of the store:
  - FTS5 ranks its matches itself (ORDER BY rank), about five times cheaper per match
    than joining every match to nodes and closure; so the best matches are fetched
    first and checked against scope and validity, widening the fetch only when too few
    pass, and ranking inside the scope directly when it holds a small share of them.
  - A word found in a large share of all text nodes (COMMON_SHARE of them, and at least
    COMMON_MIN_DOCS) is dropped from a query that has rarer words, if the rarer words
    alone match at least `limit` nodes. Its idf is at most log(19), a fraction of what
    a rare word weighs, so it reorders near-ties at most - while it alone can make FTS5
    score half the store.
  - Before that, a query whose words are all held together by at least `limit` nodes
    asks for all of them (AND): those nodes are what bm25 ranks first in the great
    majority of cases, and FTS5 scores their intersection instead of every text that
    names any word ("what did Ana do in Lisbon" in a store full of Ana and Lisbon).
  Both count matches in the whole store; when the asked scopes hold fewer than `limit`
  of the narrowed query's matches, it is asked again with any word.
  - Otherwise, a word held by at least half of all text nodes is dropped if other words
    remain: FTS5 clamps its idf to 1e-6, so it changes no score that matters, but it
    would make FTS5 score every text that holds it, and the texts it alone matches fill
    the end of the lane in an order that says nothing but their length. Such a query
    returns fewer than `limit` nodes, and that is its answer.
  Stores under COMMON_MIN_DOCS text nodes are never narrowed: their queries are cheap.
A query that still asks for any of two or three words is answered by `anyword`, which
gets the same ranking from FTS5 while scoring only the texts that can be among the best:
those holding two words or more, and the single-word texts of words rare enough to beat
them. It starts at `limit` texts, not the overfetch, since it pays for every text asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from worlddb.graph import anyword
from worlddb.core.errors import Conflict
from worlddb.core.records import Node, NodeView
from worlddb.core.store import Store, inside_sql

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


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")


def render_date(us: int) -> str:
    """'1:56 pm on 8 May, 2023': how people write a moment in a conversation."""
    moment = datetime.fromtimestamp(us / 1e6, tz=timezone.utc)
    hour = moment.hour % 12 or 12
    half = "am" if moment.hour < 12 else "pm"
    return f"{hour}:{moment.minute:02d} {half} on {moment.day} {_MONTHS[moment.month - 1]}, {moment.year}"


def _prefix(node: Node | NodeView, valid_from: int) -> str:
    speaker = node.meta.get("speaker") if node.type == "Turn" else None
    return f"[{render_date(valid_from)}] " + (f"{speaker}: " if speaker else "")


def index_text(node: Node | NodeView, valid_from: int) -> str:
    """The text a node is found by (see the module docstring)."""
    text = _prefix(node, valid_from) + (node.content or "")
    caption = node.meta.get("caption")
    if caption:
        text += f" [image: {caption}]"
    return text


def unit_texts(node: Node | NodeView, valid_from: int) -> list[str]:
    """One text per sentence, and one for an attached image caption, each with the prefix."""
    from worlddb.extract.builtin import split_sentences

    prefix = _prefix(node, valid_from)
    content = node.content or ""
    units = [prefix + content[a:b].strip() for a, b in split_sentences(content) if content[a:b].strip()]
    caption = node.meta.get("caption")
    if caption:
        units.append(f"{prefix}[image: {caption}]")
    return units or [prefix + content]


@dataclass(frozen=True)
class Prepared:
    """Everything model-made for one text node, computed before the write lock is taken."""

    text: str
    vector: np.ndarray
    units: np.ndarray
    pieces: frozenset[int]


def prepare(embedder, encoder, nodes: Sequence[tuple[Node, int]], also: Sequence[str] = ()
            ) -> list[Prepared]:
    """Embed index texts and sentence units of (node, valid_from) pairs in one batch.
    A node whose only unit is its whole text reuses that vector instead of embedding twice.
    `also`: more texts to embed in the same model call; their vectors are returned by
    `prepare_with`."""
    return prepare_with(embedder, encoder, nodes, also)[0]


def prepare_with(embedder, encoder, nodes: Sequence[tuple[Node, int]], also: Sequence[str] = ()
                 ) -> tuple[list[Prepared], dict[str, np.ndarray]]:
    texts = [index_text(node, start) for node, start in nodes]
    units = [unit_texts(node, start) for node, start in nodes]
    extra = [u for text, group in zip(texts, units) if group != [text] for u in group]
    also = list(dict.fromkeys(also))
    batch = texts + extra + also
    matrix = embedder.embed(batch) if batch else np.zeros((0, embedder.dim), np.float32)
    others = {text: matrix[len(texts) + len(extra) + i] for i, text in enumerate(also)}
    out, cursor = [], len(texts)
    for i, (text, group) in enumerate(zip(texts, units)):
        if group == [text]:
            unit_vectors = matrix[i:i + 1]
        else:
            unit_vectors = matrix[cursor:cursor + len(group)]
            cursor += len(group)
        pieces = frozenset(encoder.doc_pieces([text])[0]) if encoder is not None else frozenset()
        out.append(Prepared(text=text, vector=matrix[i], units=unit_vectors, pieces=pieces))
    return out, others


def write_index(w, anchor: str, prepared: Prepared, model: str, dim: int) -> None:
    """FTS row, content/effective/unit vectors and document frequencies of one text node."""
    from worlddb.vectors.hnsw import CONTENT, EFFECTIVE, UNIT

    w.index_text(anchor, prepared.text)
    blob = as_blob(prepared.vector)
    w.put_vector(anchor, EFFECTIVE, model, blob, dim)  # first: see composer.on_vector
    w.put_vector(anchor, CONTENT, model, blob, dim)
    for i, unit in enumerate(prepared.units):
        w.put_vector(anchor, UNIT, model, as_blob(unit), dim, ord=i)
    conn = w.tx.conn
    conn.executemany("INSERT INTO token_df(token, df) VALUES (?, 1) ON CONFLICT(token) DO UPDATE SET df = df + 1",
                     [(piece,) for piece in prepared.pieces])
    conn.execute("INSERT INTO meta(key, value) VALUES ('text_docs', '1') "
                 "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")


def document_frequencies(store: Store, pieces: Sequence[int]) -> tuple[dict[int, int], int]:
    """df of the given wordpieces and the number of text nodes, for query weighting."""
    if not pieces:
        return {}, 0
    rows = store.conn.execute(
        f"SELECT token, df FROM token_df WHERE token IN ({','.join('?' * len(pieces))})", list(pieces))
    n = int(store.meta_get("text_docs") or 0)
    return dict(rows), n


#: see the module docstring
COMMON_SHARE = 0.05
COMMON_MIN_DOCS = 10_000
#: the first fetch is max(FETCH_FLOOR, OVERFETCH * limit) best matches, widened 8x at a
#: time up to FETCH_MAX before ranking inside the scope directly
OVERFETCH = 4
FETCH_FLOOR = 40
FETCH_MAX = 2_560


def query_words(text: str) -> list[str]:
    words = [w.lower() for w in _WORD.findall(text)]
    kept = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(kept))[:64]


def fts_query(text: str) -> str | None:
    words = query_words(text)
    return anyword.any_of(words) if words else None


def lexical(store: Store, text: str, worlds: Sequence[str], limit: int, *, open_only_at: int | None = None
            ) -> list[tuple[int, float]]:
    """(rowid, bm25 score; higher is better) of text nodes inside `worlds`, best first."""
    words = query_words(text)
    if not words or not worlds:
        return []
    narrowed, every, final = _narrow(store, words, limit)
    hits = _ranked(store, narrowed, every, worlds, limit, open_only_at)
    if len(hits) < limit and not final:
        # the narrowing counted matches in the whole store; these scopes may hold too few
        hits = _ranked(store, words, False, worlds, limit, open_only_at)
    return hits


def _ranked(store: Store, words: list[str], every: bool, worlds: Sequence[str], limit: int,
            open_only_at: int | None) -> list[tuple[int, float]]:
    """The best `limit` texts inside `worlds` holding all of `words` (`every`) or any."""
    match = anyword.all_of(words) if every else anyword.any_of(words)
    fetch = max(FETCH_FLOOR, OVERFETCH * limit)
    # FTS5 scores every match whatever the LIMIT, so overfetching costs it nothing; the
    # any-word plan scores fewer texts the fewer it is asked for, so it starts at `limit`
    planned = not every
    depth = limit if planned else fetch
    while depth <= FETCH_MAX:
        rows = anyword.best_of_any(store.conn, words, depth) if planned else None
        if rows is None:
            planned, depth = False, max(depth, fetch)
            rows = store.conn.execute("SELECT rowid, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?",
                                      (match, depth)).fetchall()
        ranked = _first_admitted(store, rows, limit, worlds, open_only_at)
        if len(ranked) >= limit or len(rows) < depth:
            return ranked
        depth *= 8
    # the scope holds a small share of the matches: rank inside it directly
    params: list = [match, *worlds, *worlds]
    validity = ""
    if open_only_at is not None:
        validity = "AND (n.valid_to IS NULL OR n.valid_to > ?)"
        params.append(open_only_at)
    params.append(limit)
    rows = store.conn.execute(lexical_sql(len(worlds), validity), params)
    return [(rowid, -score) for rowid, score in rows]


def _narrow(store: Store, words: list[str], limit: int) -> tuple[list[str], bool, bool]:
    """The words to ask FTS5 for, whether texts must hold all of them, and whether that
    is final (module docstring): any of them; but in a large store, all of them if at
    least `limit` nodes hold them all, else without the words found in a large share of
    the store if the rarer words alone match `limit` nodes, else without the words held
    by half the store. The first two count matches in the whole store, so `lexical` asks
    again with any word when the scopes hold too few; the last ranks exactly as any word
    would."""
    if len(words) < 2:
        return words, False, True
    docs = int(store.meta_get("text_docs") or 0)
    threshold = max(COMMON_MIN_DOCS, int(COMMON_SHARE * docs))
    if docs < threshold:
        return words, False, True
    count = "SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)"
    if store.conn.execute(count, (anyword.all_of(words), limit)).fetchone()[0] >= limit:
        return words, True, False
    common = {w for w in words if store.conn.execute(count, (anyword.phrase(w), threshold)).fetchone()[0] >= threshold}
    rare = [w for w in words if w not in common]
    if common and rare and store.conn.execute(count, (anyword.any_of(rare), limit)).fetchone()[0] >= limit:
        return rare, False, False
    # bm25's idf is log((N - n + 0.5) / (n + 0.5)), and FTS5 replaces anything <= 0 by
    # 1e-6: a word held by half of the N texts or more adds at most 2.2e-6 to any score,
    # while every text holding it must be scored. Without it the same texts rank in the
    # same order, minus those it alone matched (at the bottom, ordered by length). N is
    # FTS5's own row count (its averages record; text_docs leaves out summaries),
    # so no word FTS5 gives weight to is dropped.
    rows = anyword.row_count(store.conn)
    if rows is None:
        rows = store.conn.execute("SELECT count(*) FROM fts_docsize").fetchone()[0]
    half = (rows + 1) // 2
    void = {w for w in common if store.conn.execute(count, (anyword.phrase(w), half)).fetchone()[0] >= half}
    kept = [w for w in words if w not in void]
    return (kept if kept else words), False, True


def _first_admitted(store: Store, rows: list[tuple[int, float]], limit: int, worlds: Sequence[str],
                    open_only_at: int | None) -> list[tuple[int, float]]:
    """(rowid, score; higher is better) of the best `limit` of the ranked `rows` that lie
    inside `worlds`. Checked a slice at a time in rank order: each check reads a node row
    at a random place in a large file, and where the scopes hold most matches the first
    slice settles the answer and the rest of the overfetch is never read."""
    ranked: list[tuple[int, float]] = []
    step = max(1, limit)
    for start in range(0, len(rows), step):
        chunk = rows[start:start + step]
        passed = _admitted(store, [rowid for rowid, _ in chunk], worlds, open_only_at)
        ranked.extend((rowid, -score) for rowid, score in chunk if rowid in passed)
        if len(ranked) >= limit:
            break
    return ranked[:limit]


def _admitted(store: Store, rowids: list[int], worlds: Sequence[str], open_only_at: int | None) -> set[int]:
    """Which of `rowids` lie inside `worlds` (and are open at open_only_at, if given)."""
    if not rowids:
        return set()
    validity, extra = ("AND (n.valid_to IS NULL OR n.valid_to > ?)", [open_only_at]) \
        if open_only_at is not None else ("", [])
    rows = store.conn.execute(
        f"SELECT n.rowid FROM nodes n WHERE n.rowid IN ({','.join('?' * len(rowids))}) {validity} "
        f"AND {inside_sql('n', len(worlds))}",
        (*rowids, *extra, *worlds, *worlds))
    return {row[0] for row in rows}


def lexical_sql(n_worlds: int, validity: str = "") -> str:
    """Ranking inside the scope: matches checked against it one by one (`store.inside_sql`:
    the parent column, else the closure primary key); `anchor IN (SELECT node FROM closure
    ...)` would list the scope's whole closure. Binds: the match, the worlds twice, what
    `validity` needs, the limit."""
    return (
        "SELECT fts.rowid, bm25(fts) AS s FROM fts JOIN nodes n ON n.rowid = fts.rowid "
        f"WHERE fts MATCH ? AND {inside_sql('n', n_worlds)} {validity} ORDER BY s LIMIT ?"
    )


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
