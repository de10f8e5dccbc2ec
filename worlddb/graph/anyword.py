"""The best texts holding any of several words, without scoring every one of them.

`best_of_any(conn, words, fetch)` returns what

    SELECT rowid, rank FROM fts WHERE fts MATCH '"w1" OR "w2" OR ...' ORDER BY rank LIMIT fetch

returns - the same rows with the same bm25 scores, ties aside - or None when it would not
be cheaper, and the caller runs that statement itself.

Why: FTS5 scores every text that holds any word (about 3 us each: positions, the text's
length from the docsize table, the sorter), so three words held by 5k-20k texts each
cost 100 ms at a million nodes, although the answer is a few dozen texts. Here FTS5
still computes every score - no formula is copied - but only for texts that can win:

  1. Texts holding two or more of the words, ranked by one FTS5 statement over the pairs
     `("a" AND "b") OR ("a" AND "c") OR ...`. bm25 sums over the expression's phrases, and
     FTS5 reports a phrase's hits in a text only where the pair holding it matches, so a
     text holding m of the words scores (m - 1) times its score under the plain query;
     dividing by m - 1 gives the plain score (m is 3 for what `"a" AND "b" AND "c"`
     matches, else 2). Rows
     past the fetch score at most the last one fetched (m - 1 >= 1), so once `fetch` of
     the fetched rows score at least that much, nothing further can enter.
  2. Texts holding one word only, word by word from the rarest, ranked by
     `"w" NOT ("x" OR ...)`: the other words have no hits there, so these are the plain
     scores. bm25 gives one word at most idf x (k1 + 1) in any text, however long or short,
     so a word whose bound does not beat the `fetch`-th best score found so far is never
     ranked - which, for the common words, is where the saving is.
  3. The union, best first.

idf needs the number of texts holding each word and the table's row count, read in the
same read transaction as the rankings (FTS5's averages record holds the row count that
bm25 itself uses). A query of one word or of more than MAX_WORDS (three; with more, telling
how many words a text holds takes more statements than it saves), or whose words are
held by fewer than max(MIN_POSTINGS, PER_FETCHED * fetch) texts, goes to the plain
statement: it is cheap, or too many single-word texts would be ranked anyway.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence

#: bm25's defaults in FTS5 (fts5_aux.c): a word adds
#: idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average length))
K1 = 1.2
B = 0.75
MAX_WORDS = 3
MIN_POSTINGS = 1_500
#: and fewer than this many per text asked for: the deeper the fetch, the more of the
#: single-word texts must be ranked anyway, and the pairs become overhead
PER_FETCHED = 80
#: the pairs are fetched this many times deeper when too few of their rows are settled
WIDEN = 4
MAX_PAIR_FETCH = 4_096

_RANKED = "SELECT rowid, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?"


def phrase(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def any_of(words: Sequence[str]) -> str:
    return " OR ".join(phrase(w) for w in words)


def all_of(words: Sequence[str]) -> str:
    return " AND ".join(phrase(w) for w in words)


def best_of_any(conn: sqlite3.Connection, words: Sequence[str], fetch: int) -> list[tuple[int, float]] | None:
    """(rowid, rank) of the `fetch` best texts holding any of `words`, best (lowest rank)
    first; None when the plain statement is the cheaper way (module docstring)."""
    if not 2 <= len(words) <= MAX_WORDS or fetch < 1:
        return None
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")  # counts and rankings from one snapshot
    try:
        return _best(conn, list(words), fetch)
    finally:
        if own:
            conn.execute("COMMIT")


def _best(conn: sqlite3.Connection, words: list[str], fetch: int) -> list[tuple[int, float]] | None:
    enough = max(MIN_POSTINGS, PER_FETCHED * fetch)
    matches = conn.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)",
                           (any_of(words), enough)).fetchone()[0]
    if matches < enough:
        return None  # cheap for FTS5 as it is
    held = {w: conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (phrase(w),)).fetchone()[0]
            for w in words}
    if sum(held.values()) - max(held.values()) < fetch:
        # the other words cannot fill the fetch, so the most common word's single-word
        # texts would all be ranked: the plan would be the plain statement and then some
        return None
    stats = totals(conn)
    if stats is None:
        return None
    rows, average = stats
    found = _pairs(conn, words, fetch)
    if found is None:
        return None
    for word in sorted(words, key=held.__getitem__):
        if len(found) >= fetch and bound(rows, held[word], average) <= -sorted(found.values())[fetch - 1]:
            continue  # no text holding this word alone can reach the best `fetch`
        others = [w for w in words if w != word]
        query = f"{phrase(word)} NOT ({any_of(others)})"
        found.update(conn.execute(_RANKED, (query, fetch)).fetchall())
    return sorted(found.items(), key=lambda item: item[1])[:fetch]


def _pairs(conn: sqlite3.Connection, words: list[str], fetch: int) -> dict[int, float] | None:
    """rowid -> plain rank of the texts holding two or more words that can be among the
    best `fetch`; None if settling them would take more than MAX_PAIR_FETCH rows."""
    pairs = " OR ".join(f"({phrase(a)} AND {phrase(b)})" for i, a in enumerate(words) for b in words[i + 1:])
    depth = fetch
    while True:
        ranked = conn.execute(_RANKED, (pairs, depth)).fetchall()
        share = _holders(conn, words, [rowid for rowid, _ in ranked])
        exact = {rowid: rank / (share[rowid] - 1) for rowid, rank in ranked}
        if len(ranked) < depth:
            return exact  # every text holding two words is here
        last = ranked[-1][1]  # ranks are negative: rows further down rank >= last
        if sum(1 for rank in exact.values() if rank <= last) >= fetch:
            return exact
        depth *= WIDEN
        if depth > MAX_PAIR_FETCH:
            return None


def _holders(conn: sqlite3.Connection, words: list[str], rowids: list[int]) -> dict[int, int]:
    """How many of `words` (two or three) each of `rowids` holds; all hold two or more.
    With three words, those holding all three are what `"a" AND "b" AND "c"` matches:
    one unranked statement that FTS5 drives from the rarest word. (Asking per rowid costs
    a fresh FTS5 cursor each, 50-80 us.)"""
    if len(words) == 2 or not rowids:
        return dict.fromkeys(rowids, 2)
    every = all_of(words)
    wanted = set(rowids)
    # FTS5 seeks its doclists to a rowid range itself, so the span of the wanted rows
    # costs nothing to ask for and can spare reading the rest
    three = {rowid for (rowid,) in conn.execute(
        "SELECT rowid FROM fts WHERE fts MATCH ? AND rowid BETWEEN ? AND ?", (every, min(wanted), max(wanted)))
        if rowid in wanted}
    return {rowid: 3 if rowid in three else 2 for rowid in rowids}


def bound(rows: int, held: int, average: float) -> float:
    """More than a word held by `held` of `rows` texts adds to the bm25 score of any one
    text: FTS5's idf (clamped to 1e-6 where it would not be positive) times the supremum
    of tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average)). That term falls as
    the text grows and a text is at least tf long, so it is largest at length = tf,
    where it rises with tf towards (K1 + 1) / (1 + K1 * B / average)."""
    idf = math.log((rows - held + 0.5) / (held + 0.5))
    return max(idf, 1e-6) * (K1 + 1) / (1 + K1 * B / average)


def totals(conn: sqlite3.Connection) -> tuple[int, float] | None:
    """(rows, average length in tokens) as FTS5's bm25 sees them: the averages record
    (rowid 1 of the fts_data table) holds the row count and the total token count as
    varints. None if it is missing or empty."""
    row = conn.execute("SELECT block FROM fts_data WHERE id = 1").fetchone()
    if row is None or not row[0]:
        return None
    rows, at = _varint(row[0], 0)
    tokens, _ = _varint(row[0], at)
    if rows <= 0 or tokens <= 0:
        return None
    return rows, tokens / rows


def row_count(conn: sqlite3.Connection) -> int | None:
    """The number of rows FTS5's bm25 counts (see `totals`)."""
    stats = totals(conn)
    return stats[0] if stats else None


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's varint at `at` and the offset after it: big-endian 7-bit groups, the high
    bit set on all but the last; a ninth byte carries 8 bits."""
    value = 0
    for i in range(9):
        byte = data[at + i]
        if i == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    raise AssertionError("unreachable")
