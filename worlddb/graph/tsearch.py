"""The lexical lane on PostgreSQL: BM25 over tsvector rows, ranked inside the database.

worlddb.graph.lexical hands the query's words here when the store runs on PostgreSQL
(worlddb.core.backends). The fts table holds each text node's index text, its tsvector
under the `worlddb` configuration (English Snowball stems, no stop words, accents folded:
worlddb.core.backends.postgres_schema) and its length in tokens; a GIN index finds the
texts holding a word.

Ranking is FTS5's bm25 with its defaults (k1 = 1.2, b = 0.75), computed in SQL rather
than PostgreSQL's ts_rank, so that both backends rank the same texts the same way:

    score = sum over the query's lexemes l held by the text of
            idf(l) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen))
    idf(l) = ln((N - n_l + 0.5) / (n_l + 0.5)), or 1e-6 where that is not positive

with tf the number of positions of l in the text's tsvector, N and avglen from the
fts_stats row (kept by triggers) and n_l counted through the GIN index in one statement.
The query's words become lexemes through the same configuration as the texts, and the
tsquery is built from those lexemes, quoted: user input is never parsed as tsquery syntax.

Cost: one statement for the lexemes, one for their document counts, one that ranks every
matching text inside the asked worlds (checked as on SQLite: the parent column, else the
closure) and returns the best `limit`. It scores every match in scope, like FTS5 does;
the FTS5 lane's narrowing of common words (worlddb.graph.lexical) is not repeated here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from worlddb.core.store import Store, inside_sql, list_params

#: FTS5's bm25 defaults (worlddb.graph.anyword)
K1 = 1.2
B = 0.75

_SCORE = (
    "SELECT f.rowid, sum(q.idf * t.tf * (? + 1.0) / (t.tf + ? * (1.0 - ? + ? * f.len / ?))) AS s "
    "FROM fts f {join}"
    "CROSS JOIN LATERAL (SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf FROM unnest(f.tsv) u) t "
    "JOIN unnest(?::text[], ?::float8[]) AS q(lex, idf) ON q.lex = t.lexeme "
    "WHERE f.tsv @@ ?::tsquery {where} GROUP BY f.rowid ORDER BY s DESC, f.rowid LIMIT ?"
)


def lexemes(store: Store, words: Sequence[str]) -> list[str]:
    """The distinct lexemes of `words` under the texts' configuration (those that can be
    quoted into a tsquery)."""
    rows = store.conn.execute("SELECT lexeme FROM unnest(to_tsvector('worlddb', ?))", (" ".join(words),))
    return [lexeme for (lexeme,) in rows if "\\" not in lexeme]


def tsquery(found: Sequence[str], op: str = "|") -> str:
    """The tsquery text matching any of the lexemes `found` (op "&": all of them), each quoted."""
    return f" {op} ".join("'" + lexeme.replace("'", "''") + "'" for lexeme in found)


def _weights(store: Store, found: list[str], query: str) -> tuple[list[float], float]:
    """idf of each lexeme, and the average text length in tokens: one statement, so the
    counts and the totals come from one snapshot even while other servers write."""
    counts = ", ".join(["count(*) FILTER (WHERE tsv @@ ?::tsquery)"] * len(found))
    docs, tokens, *held = store.conn.execute(
        f"SELECT (SELECT docs FROM fts_stats), (SELECT tokens FROM fts_stats), {counts} FROM fts "
        "WHERE tsv @@ ?::tsquery", (*(tsquery([lexeme]) for lexeme in found), query)).fetchone()
    idf = []
    for n in held:
        ratio = (docs - n + 0.5) / (n + 0.5) if docs else 0.0
        idf.append(math.log(ratio) if ratio > 1 else 1e-6)
    return idf, (tokens / docs if docs else 1.0)


def _rank(store: Store, words: Sequence[str], limit: int, join: str, where: str, params: Sequence,
          every: bool = False) -> list[tuple[int, float]]:
    found = lexemes(store, words)
    if not found or limit < 1:
        return []
    query = tsquery(found)
    idf, average = _weights(store, found, query)
    sql = _SCORE.format(join=join, where=where)
    match = tsquery(found, "&") if every else query
    rows = store.conn.execute(sql, (K1, K1, B, B, average, found, idf, match, *params, limit))
    return [(rowid, float(score)) for rowid, score in rows]


def ranked(store: Store, words: Sequence[str], worlds: Sequence[str] | None, limit: int,
           open_only_at: int | None, *, every: bool = False) -> list[tuple[int, float]]:
    """(rowid, bm25 score; higher is better) of the best `limit` text nodes holding any of
    `words` (with `every`: all of them), inside `worlds` (None: anywhere) and, with
    `open_only_at`, open then."""
    if worlds is None:
        return _rank(store, words, limit, "", "", (), every)
    where, params = f"AND {inside_sql('n', len(worlds))}", [*list_params(worlds), *list_params(worlds)]
    if open_only_at is not None:
        where += " AND (n.valid_to IS NULL OR n.valid_to > ?)"
        params.append(open_only_at)
    return _rank(store, words, limit, "JOIN nodes n ON n.rowid = f.rowid ", where, params, every)


def matching(store: Store, words: Sequence[str], rowids: Sequence[int]) -> set[int]:
    """Which of `rowids` hold any of `words`."""
    found = lexemes(store, words)
    if not found:
        return set()
    rows = store.conn.execute("SELECT rowid FROM fts WHERE rowid = ANY(?) AND tsv @@ ?::tsquery",
                              (list(rowids), tsquery(found)))
    return {rowid for (rowid,) in rows}
