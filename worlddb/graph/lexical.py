"""The lexical lane: BM25 over the FTS5 rows of text nodes (worlddb.graph.text_index).

This module is the lane's entry point on both backends (`lexical`, `lexical_anywhere`,
`lexical_matching`); on PostgreSQL each hands the query's words to worlddb.graph.tsearch,
the same BM25 over tsvector rows. What follows is the SQLite path.

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

from collections.abc import Sequence

from worlddb.core.store import Store, inside_sql, list_params
from worlddb.graph import anyword, tsearch
from worlddb.graph.text_index import STOPWORDS, WORD

#: see the module docstring
COMMON_SHARE = 0.05
COMMON_MIN_DOCS = 10_000
#: the first fetch is max(FETCH_FLOOR, OVERFETCH * limit) best matches, widened 8x at a
#: time up to FETCH_MAX before ranking inside the scope directly
OVERFETCH = 4
FETCH_FLOOR = 40
FETCH_MAX = 2_560


def query_words(text: str) -> list[str]:
    words = [w.lower() for w in WORD.findall(text)]
    kept = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(kept))[:64]


def fts_query(text: str) -> str | None:
    words = query_words(text)
    return anyword.any_of(words) if words else None


def lexical(store: Store, text: str, worlds: Sequence[str], limit: int, *, open_only_at: int | None = None,
            every: bool = False) -> list[tuple[int, float]]:
    """(rowid, bm25 score; higher is better) of text nodes inside `worlds`, best first. With
    `every`, only texts holding every word of the query (its first 64 words but stopwords)
    are ranked: a search for texts that may repeat `text`, which FTS5 answers without scoring
    every text that shares one word with it."""
    words = query_words(text)
    if not words or not worlds:
        return []
    if store.backend.name == "postgresql":
        return tsearch.ranked(store, words, worlds, limit, open_only_at, every=every)
    if every:
        return _ranked(store, words, True, worlds, limit, open_only_at)
    narrowed, every, final = _narrow(store, words, limit)
    hits = _ranked(store, narrowed, every, worlds, limit, open_only_at)
    if len(hits) < limit and not final:
        # the narrowing counted matches in the whole store; these scopes may hold too few
        hits = _ranked(store, words, False, worlds, limit, open_only_at)
    return hits


def lexical_anywhere(store: Store, text: str, limit: int) -> list[tuple[int, float]]:
    """(rowid, bm25 score; higher is better) of the best text nodes of the whole store."""
    words = query_words(text)
    if not words:
        return []
    if store.backend.name == "postgresql":
        return tsearch.ranked(store, words, None, limit, None)
    rows = store.conn.execute("SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?",
                              (anyword.any_of(words), limit))
    return [(r, -score) for r, score in rows]


def lexical_matching(store: Store, rowids: list[int], text: str) -> set[int]:
    """Which of the text nodes `rowids` hold any word of `text`."""
    words = query_words(text)
    if not words or not rowids:
        return set()
    if store.backend.name == "postgresql":
        return tsearch.matching(store, words, rowids)
    return {r for (r,) in store.conn.execute(
        f"SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN ({','.join('?' * len(rowids))})",
        (anyword.any_of(words), *rowids))}


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
    params: list = [match, *list_params(worlds), *list_params(worlds)]
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
        (*rowids, *extra, *list_params(worlds), *list_params(worlds)))
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
