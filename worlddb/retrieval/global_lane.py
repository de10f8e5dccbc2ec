"""The global lane: members of the topic worlds the query selects (worlddb.consolidator.topics).

The query selects topics top-down. Starting from each asked scope's root topic, the topics
of one level are ranked by two signals fused by reciprocal rank (k = TOPIC_K): the cosine
of the query vector with the topic's composed embedding (the mean of its children, kept by
the composer), and the bm25 of the topic's current summary among its siblings' (the query
words of the bm25 lane, lower-cased, unstemmed; computed over the siblings' summaries, a few
dozen short texts, rather than asked of FTS5, which walks each word's doclist over the whole
index first). The best BRANCH topics of a level are opened and their children
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

`answer_head` reads, by the same kind of rule, the word naming what a question asks for
("activities" in "What activities does Melanie partake in?", "events" in "What LGBTQ+
events has ..."): the speaker lanes use it (worlddb.retrieval.lanes).

Cost: a handful of indexed reads per level (at most FANOUT topics each): their vectors and
summaries, and the vectors of the drawn topics' members. Deterministic; no model.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from worlddb.consolidator.topics import children, topic_root, vectors_of
from worlddb.core.store import Store
from worlddb.graph.lexical import query_words
from worlddb.graph.text_index import STOPWORDS, WORD

#: reciprocal-rank constant fusing a topic's vector and summary ranks
TOPIC_K = 5
#: Okapi BM25's usual constants, for ranking sibling topics' summaries
BM25_K1 = 1.2
BM25_B = 0.75
#: topics opened per level on the way down
BRANCH = 2
#: topics drawn at the last level, and members drawn per topic
DRAWN = 1
PER_TOPIC = 16
#: how much an aggregation query widens DRAWN and PER_TOPIC
WIDEN = 2
#: answer_head looks this many words past "what" / "which" for the plural noun
HEAD_REACH = 3

_COUNT = re.compile(r"\b(how (many|much|often|long)|since when)\b", re.I)
_LIST = re.compile(r"\b((what|which) (kinds?|types?|sorts?) of|list|name (all|every))\b", re.I)
_HEAD = re.compile(r"\b(?:what|which) ([a-z]+)\b", re.I)
_KIND_OF = re.compile(r"\b(?:what|which)\s+(?:kinds?|types?|sorts?)\s+of\s+([a-z]+)", re.I)
_WHAT = re.compile(rf"\b(?:what|which)((?:\s+[\w+-]+){{1,{HEAD_REACH}}})", re.I)


def aggregates(query: str) -> bool:
    """Whether the query asks for a list, a count or a span (module docstring)."""
    if _COUNT.search(query) or _LIST.search(query):
        return True
    return any(_plural(match.group(1)) for match in _HEAD.finditer(query))


def answer_head(query: str) -> str | None:
    """The word naming what the question asks for, or None: X in "what/which kinds (types,
    sorts) of X", else the first plural noun among the HEAD_REACH words after "what" or
    "which" ("What LGBTQ+ events has ...", "Which cities ..."). Read from the question's
    form only, as `aggregates` is; the speaker lanes (worlddb.retrieval.lanes) search the
    named person's words for it."""
    kind = _KIND_OF.search(query)
    if kind:
        return kind.group(1).lower()
    for match in _WHAT.finditer(query):
        for word in match.group(1).split():
            if _plural(word):
                return word.lower()
    return None


def _plural(word: str) -> bool:
    """A plural noun as the rules read one: four letters or more, ending in "s" but not
    "ss", not a function word."""
    word = word.lower()
    return len(word) >= 4 and word.endswith("s") and not word.endswith("ss") and word not in STOPWORDS


def global_lane(store: Store, query: str, vector: np.ndarray | None, worlds: list[str], depth: int, *,
                open_only_at: int | None) -> list[int]:
    """Rowids of members of the topics `query` selects inside `worlds`, best first."""
    conn = store.conn
    level = [(rowid, anchor) for rowid, anchor in
             ((store.rowid(topic_root(world).id), topic_root(world).id) for world in worlds) if rowid is not None]
    if not level:
        return []
    wide = WIDEN if aggregates(query) else 1
    words = query_words(query)
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


def _rank_topics(store: Store, topics: list[tuple[int, str]], vector: np.ndarray | None, words: list[str],
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


def _by_summary(store: Store, topics: list[int], words: list[str], open_only_at: int | None) -> list[int]:
    """Topic rowids ranked by the bm25 of their current summary's text against the query
    words, among these sibling topics (their document frequencies, BM25_K1, BM25_B); topics
    without a summary, or whose summary holds no query word, are left out. Computed here
    over at most FANOUT short texts: asking FTS5, even one rowid at a time, first walks each
    word's doclist over the whole index."""
    conn = store.conn
    validity, extra = ("AND (s.valid_to IS NULL OR s.valid_to > ?)", [open_only_at]) if open_only_at else ("", [])
    rows = conn.execute(
        "SELECT e.dst, s.anchor FROM edges e JOIN nodes s ON s.rowid = e.src "
        f"WHERE e.dst IN ({','.join('?' * len(topics))}) AND e.type='summarizes' AND e.seq_removed IS NULL "
        f"AND s.retired_at IS NULL AND s.erased_at IS NULL {validity} ORDER BY e.dst, s.rowid",
        (*topics, *extra)).fetchall()
    texts = {topic: _tokens(store, anchor) for topic, anchor in rows}
    texts = {topic: found for topic, found in texts.items() if found is not None}
    if not texts:
        return []
    wanted = set(words)
    df = {w: sum(1 for (counts, _) in texts.values() if w in counts) for w in wanted}
    n, mean = len(texts), (sum(length for _, length in texts.values()) / len(texts)) or 1.0
    scores = {}
    for topic, (counts, length) in texts.items():
        score = sum(math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5)) * counts[w] * (BM25_K1 + 1)
                    / (counts[w] + BM25_K1 * (1 - BM25_B + BM25_B * length / mean)) for w in wanted if counts[w])
        if score > 0:
            scores[topic] = score
    return sorted(scores, key=lambda t: (-scores[t], t))


#: summary anchor -> its words counted, and how many: a summary's text never changes (its
#: anchor is its hash) and only summaries that are not erased are looked up
_TOKENS: dict[str, tuple[Counter, int]] = {}
_TOKENS_MAX = 8192


def _tokens(store: Store, anchor: str) -> tuple[Counter, int] | None:
    found = _TOKENS.get(anchor)
    if found is None:
        view = store.get(anchor)
        if view is None:
            return None
        words = [w.lower() for w in WORD.findall(view.content or "")]
        if len(_TOKENS) >= _TOKENS_MAX:
            _TOKENS.clear()
        found = _TOKENS[anchor] = (Counter(words), len(words))
    return found
