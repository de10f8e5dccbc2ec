"""The global lane: members of the topic worlds the query selects (worlddb.consolidator.topics).

The query selects topics top-down. Starting from each asked scope's root topic, the topics
of one level are ranked by two signals fused by reciprocal rank (k = TOPIC_K): the cosine
of the query vector with the topic's composed embedding (the mean of its children, kept by
the composer), and the bm25 of the topic's current summary (FTS5, the same index and query
words as the bm25 lane). The best BRANCH topics of a level are opened and their children
ranked the same way, down to the topics that hold members; of those, the best DRAWN are
drawn. Each drawn topic gives its PER_TOPIC current members nearest the query vector, in
that order, topic after topic: that list is the lane, and it competes in the fusion like
any other. Results are memories and turns; topics and their summaries never are.

Aggregation. A query that asks for a list, a count or a span draws twice as many topics at
the last level and twice as many members per topic (WIDEN), because its answer is spread
over many memories rather than sitting in one. The rule (`aggregates`) looks only at the
question's form, never at its subject:
  - a count or a span: "how many", "how much", "how often", "how long", "since when";
  - a list: "what/which kinds (types, sorts) of", "list", "name all/every", or "what" or
    "which" followed by a plural noun (a word of four letters or more ending in "s", not
    "ss", that is not a function word: "what activities", "which cities").

Cost: a handful of indexed reads per level (at most FANOUT topics each), their vectors, one
FTS5 query restricted to their summaries' rows, and the vectors of the drawn topics'
members. Deterministic; no model.
"""

from __future__ import annotations

import re

import numpy as np

from worlddb.consolidator.topics import children, topic_root, vectors_of
from worlddb.core.store import Store
from worlddb.graph.lexical import fts_query
from worlddb.graph.text_index import STOPWORDS

#: reciprocal-rank constant fusing a topic's vector and summary ranks
TOPIC_K = 5
#: topics opened per level on the way down
BRANCH = 2
#: topics drawn at the last level, and members drawn per topic
DRAWN = 1
PER_TOPIC = 16
#: how much an aggregation query widens DRAWN and PER_TOPIC
WIDEN = 2

_COUNT = re.compile(r"\b(how (many|much|often|long)|since when)\b", re.I)
_LIST = re.compile(r"\b((what|which) (kinds?|types?|sorts?) of|list|name (all|every))\b", re.I)
_HEAD = re.compile(r"\b(?:what|which) ([a-z]+)\b", re.I)


def aggregates(query: str) -> bool:
    """Whether the query asks for a list, a count or a span (module docstring)."""
    if _COUNT.search(query) or _LIST.search(query):
        return True
    for match in _HEAD.finditer(query):
        word = match.group(1).lower()
        if len(word) >= 4 and word.endswith("s") and not word.endswith("ss") and word not in STOPWORDS:
            return True
    return False


def global_lane(store: Store, query: str, vector: np.ndarray | None, worlds: list[str], depth: int, *,
                open_only_at: int | None) -> list[int]:
    """Rowids of members of the topics `query` selects inside `worlds`, best first."""
    conn = store.conn
    level = [(rowid, anchor) for rowid, anchor in
             ((store.rowid(topic_root(world).id), topic_root(world).id) for world in worlds) if rowid is not None]
    if not level:
        return []
    wide = WIDEN if aggregates(query) else 1
    words = fts_query(query)
    chosen: list[tuple[int, str]] = []
    while not chosen:
        below = [child for _, topic in level for child in children(conn, topic, topics=True)]
        if not below:
            return []
        ranked = _rank_topics(store, below, vector, words, open_only_at)
        if children(conn, ranked[0][1], topics=True):
            level = ranked[:BRANCH]
        else:
            chosen = ranked[:DRAWN * wide]
    lane: list[int] = []
    seen: set[int] = set()
    for _, topic in chosen:
        members = _open([rowid for rowid, _ in children(conn, topic, topics=False)], store, open_only_at)
        members = [m for m in members if m not in seen]
        if vector is not None:
            found = vectors_of(store, members)
            members.sort(key=lambda m: (-float(found[m] @ vector) if m in found else 1.0, m))
        drawn = members[:PER_TOPIC * wide]
        seen.update(drawn)
        lane += drawn
    return lane[:depth]


def _open(rowids: list[int], store: Store, open_only_at: int | None) -> list[int]:
    if open_only_at is None or not rowids:
        return rowids
    rows = store.conn.execute(
        f"SELECT rowid FROM nodes WHERE rowid IN ({','.join('?' * len(rowids))}) "
        "AND (valid_to IS NULL OR valid_to > ?) ORDER BY rowid", (*rowids, open_only_at))
    return [row[0] for row in rows]


def _rank_topics(store: Store, topics: list[tuple[int, str]], vector: np.ndarray | None, words: str | None,
                 open_only_at: int | None) -> list[tuple[int, str]]:
    """`topics` best first: reciprocal rank fusion of their cosine to the query vector and
    their summary's bm25; ties to the lower rowid."""
    score = {rowid: 0.0 for rowid, _ in topics}
    if vector is not None:
        found = vectors_of(store, list(score))
        by_vector = sorted(found, key=lambda r: (-float(found[r] @ vector), r))
        for rank, rowid in enumerate(by_vector, start=1):
            score[rowid] += 1.0 / (TOPIC_K + rank)
    if words:
        for rank, rowid in enumerate(_by_summary(store, [r for r, _ in topics], words, open_only_at), start=1):
            score[rowid] += 1.0 / (TOPIC_K + rank)
    return sorted(topics, key=lambda t: (-score[t[0]], t[0]))


def _by_summary(store: Store, topics: list[int], words: str, open_only_at: int | None) -> list[int]:
    """Topic rowids ranked by the bm25 of their current summary (topics without one, or
    whose summary matches no query word, are left out)."""
    conn = store.conn
    validity, extra = ("AND (s.valid_to IS NULL OR s.valid_to > ?)", [open_only_at]) if open_only_at else ("", [])
    summary_of = dict(conn.execute(
        "SELECT e.src, e.dst FROM edges e JOIN nodes s ON s.rowid = e.src "
        f"WHERE e.dst IN ({','.join('?' * len(topics))}) AND e.type='summarizes' AND e.seq_removed IS NULL "
        f"AND s.retired_at IS NULL {validity}", (*topics, *extra)))
    if not summary_of:
        return []
    rows = conn.execute(
        f"SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN ({','.join('?' * len(summary_of))}) ORDER BY rank",
        (words, *summary_of))
    ranked: list[int] = []
    for (summary,) in rows:
        topic = summary_of[summary]
        if topic not in ranked:
            ranked.append(topic)
    return ranked
