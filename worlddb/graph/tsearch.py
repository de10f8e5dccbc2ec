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

A text's tf for each query lexeme comes from its tsvector cut down to the query's
lexemes (`setweight` marks them, `ts_filter` keeps the marked ones), summed in a scalar
subquery: unnesting the whole tsvector and grouping the rows back cost three to four
times as much per matching text.

Cost: one statement for the lexemes, one for their document counts, then the ranking of
the matching texts inside the asked worlds (checked as on SQLite: the parent column, else
the closure). Scoring costs a few microseconds per matching text whatever the LIMIT, so
a word held by tens of thousands of texts would dominate every query naming it. The
ranking therefore first asks for the texts holding the query's rarer lexemes only,
rarest first (`_candidates`): a text holding none of them scores less than the sum of
idf x (k1 + 1) over the others - BM25's bound for one lexeme in any text - so once
`limit` texts holding a rarer lexeme score at least that bound, the common lexemes'
other texts cannot enter and are never scored. The answer is the one the whole query
gives, the same rows with the same scores; when the bound is not met (the rarer
lexemes match too few texts in scope, or score too little) the next lexeme joins the
rare ones, and at the end the whole query is ranked. The FTS5 lane's narrowing of
common words (worlddb.graph.lexical) is not repeated here: it changes answers, this
does not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from worlddb.core.store import Store, list_params, rowids_sql

#: FTS5's bm25 defaults (worlddb.graph.anyword)
K1 = 1.2
B = 0.75

_SCORE = (
    "SELECT f.rowid, (SELECT sum(q.idf * t.tf * (? + 1.0) / (t.tf + ? * (1.0 - ? + ? * f.len / ?))) "
    "FROM (SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf "
    "FROM unnest(ts_filter(setweight(f.tsv, 'A', ?::text[]), '{{a}}')) u) t "
    "JOIN unnest(?::text[], ?::float8[]) AS q(lex, idf) ON q.lex = t.lexeme) AS s "
    "FROM fts f {join}WHERE f.tsv @@ ?::tsquery {where} ORDER BY s DESC, f.rowid LIMIT ?"
)


def _inside(n_worlds: int) -> str:
    """store.inside_sql's condition on the nodes row `n`, with the closure lookup kept a
    per-row probe (OFFSET 0): otherwise PostgreSQL may hash the asked worlds' whole
    closure for every ranking - 31k rows, 7 ms, to check seven texts of a 30k-node scope -
    where the parent column settles most rows without a lookup."""
    worlds = rowids_sql(n_worlds)
    return (f"(+n.parent IN {worlds} OR EXISTS (SELECT 1 FROM closure c WHERE c.node = n.rowid "
            f"AND c.world IN {worlds} OFFSET 0))")


def lexemes(store: Store, words: Sequence[str]) -> list[str]:
    """The distinct lexemes of `words` under the texts' configuration (those that can be
    quoted into a tsquery)."""
    rows = store.conn.execute("SELECT lexeme FROM unnest(to_tsvector('worlddb', ?))", (" ".join(words),))
    return [lexeme for (lexeme,) in rows if "\\" not in lexeme]


def tsquery(found: Sequence[str], op: str = "|") -> str:
    """The tsquery text matching any of the lexemes `found` (op "&": all of them), each quoted."""
    return f" {op} ".join("'" + lexeme.replace("'", "''") + "'" for lexeme in found)


def _weights(store: Store, found: list[str], query: str) -> tuple[list[float], float, list[int]]:
    """idf of each lexeme, the average text length in tokens, and how many texts hold each
    lexeme: one statement, so the counts and the totals come from one snapshot even while
    other servers write."""
    counts = ", ".join(["count(*) FILTER (WHERE tsv @@ ?::tsquery)"] * len(found))
    docs, tokens, *held = store.conn.execute(
        f"SELECT (SELECT docs FROM fts_stats), (SELECT tokens FROM fts_stats), {counts} FROM fts "
        "WHERE tsv @@ ?::tsquery", (*(tsquery([lexeme]) for lexeme in found), query)).fetchone()
    idf = []
    for n in held:
        ratio = (docs - n + 0.5) / (n + 0.5) if docs else 0.0
        idf.append(math.log(ratio) if ratio > 1 else 1e-6)
    return idf, (tokens / docs if docs else 1.0), list(held)


def _rank(store: Store, words: Sequence[str], limit: int, join: str, where: str, params: Sequence,
          every: bool = False) -> list[tuple[int, float]]:
    found = lexemes(store, words)
    if not found or limit < 1:
        return []
    query = tsquery(found)
    idf, average, held = _weights(store, found, query)
    sql = _SCORE.format(join=join, where=where)

    def best(match: str) -> list[tuple[int, float]]:
        rows = store.conn.execute(sql, (K1, K1, B, B, average, found, found, idf, match, *params, limit))
        return [(rowid, float(score)) for rowid, score in rows]

    if every:
        return best(tsquery(found, "&"))
    for rare, bound in _candidates(found, idf, held, limit):
        rows = best(tsquery(rare))
        if len(rows) == limit and rows[-1][1] > bound:
            return rows
    return best(query)


def _candidates(found: list[str], idf: list[float], held: list[int], limit: int) -> list[tuple[list[str], float]]:
    """(rarer lexemes, the most a text holding none of them can score) for each split of
    the query's lexemes, rarest first, that leaves out a lexeme and whose rarer lexemes
    are held by at least `limit` texts in the whole store (module docstring)."""
    order = sorted(range(len(found)), key=lambda i: -idf[i])
    return [([found[i] for i in order[:cut]], sum(idf[i] * (K1 + 1.0) for i in order[cut:]))
            for cut in range(1, len(found)) if sum(held[i] for i in order[:cut]) >= limit]


def ranked(store: Store, words: Sequence[str], worlds: Sequence[str] | None, limit: int,
           open_only_at: int | None, *, every: bool = False) -> list[tuple[int, float]]:
    """(rowid, bm25 score; higher is better) of the best `limit` text nodes holding any of
    `words` (with `every`: all of them), inside `worlds` (None: anywhere) and, with
    `open_only_at`, open then."""
    if worlds is None:
        return _rank(store, words, limit, "", "", (), every)
    where, params = f"AND {_inside(len(worlds))}", [*list_params(worlds), *list_params(worlds)]
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
