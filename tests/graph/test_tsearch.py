"""The lexical lane's ranking on PostgreSQL (worlddb.graph.tsearch): texts holding only a
common word are left unscored when the rarer words settle the top `limit`, and the answer
is the one the whole query gives - the same rows, scores and order - and the one FTS5
gives on SQLite."""

from __future__ import annotations

import pytest

from tests import pg
from worlddb.core.records import Node
from worlddb.graph import lexical, tsearch
from worlddb.graph.database import WorldDB

FILLER = ["quiet", "morning", "garden", "river", "market", "window", "letter", "bridge"]


def _texts() -> list[str]:
    texts = []
    for i in range(60):  # "weather" in 60 of 90 texts: more than half, so bm25 gives it no weight
        texts.append(" ".join(["weather"] + FILLER[: 1 + i % 8] + [f"w{i}"]))
    for i in range(18):  # "harbour" in 18 of 90: a weighted common word
        texts.append(" ".join(["harbour"] + FILLER[: 2 + i % 6] + [f"h{i}"]))
    for i in range(9):
        texts.append(" ".join(["storm", "weather"] + FILLER[: 1 + i % 7] + [f"s{i}"]))
    texts += ["lighthouse storm", "lighthouse keeper log", "storm over the lighthouse and the harbour"]
    return texts


def _load(target) -> tuple[WorldDB, str]:
    db = WorldDB.open(target)
    with db.write() as w:
        scope = w.scope("user", "t")
        for text in _texts():
            anchor = w.add(Node("Memory", content=text), parents=[scope])
            w.index_text(anchor, text)
    return db, db.store.scope_anchor("user", "t")


@pytest.fixture
def pg_store():
    url = pg.new_database()
    db, scope = _load(url)
    yield db.store, scope
    db.close()
    pg.drop_database(url)


def _contents(store, rows) -> list[str]:
    anchors = store.anchors_for_rowids([r for r, _ in rows])
    return [store.get(anchors[r]).content for r, _ in rows]


QUERIES = ["weather storm lighthouse", "harbour storm", "lighthouse harbour weather", "keeper weather", "weather"]


def test_both_backends_rank_the_same_texts_in_the_same_order(tmp_path):
    url = pg.new_database()
    try:
        answers = []
        for target in (str(tmp_path / "m.db"), url):
            db, scope = _load(target)
            try:
                answers.append([[(text, round(score, 6)) for text, (_, score) in zip(
                    _contents(db.store, found), found)] for found in
                    (lexical.lexical(db.store, q, [scope], 10) for q in QUERIES)])
            finally:
                db.close()
    finally:
        pg.drop_database(url)
    sqlite, postgresql = answers
    assert sqlite == postgresql
    assert [text for text, _ in sqlite[0][:3]] == ["lighthouse storm", "storm over the lighthouse and the harbour",
                                                   "lighthouse keeper log"]
    assert all(len(found) == 10 for found in sqlite)


def test_pruned_ranking_equals_the_whole_querys(pg_store, monkeypatch):
    store, scope = pg_store
    asked: list[str] = []
    execute = store.conn.execute

    def recording(sql, params=(), *args, **kwargs):
        if "ts_filter" in sql:  # a ranking statement: its match is the tsquery bound first
            asked.append(next(p for p in params if isinstance(p, str) and p.startswith("'")))
        return execute(sql, params, *args, **kwargs)

    monkeypatch.setattr(store.conn, "execute", recording)
    pruned = {q: tsearch.ranked(store, lexical.query_words(q), [scope], 10, None) for q in QUERIES}
    assert asked == [
        "'lighthous' | 'storm'",  # "weather" (60 of 90 texts) weighs nothing: its other texts are never scored
        "'storm'", "'harbour' | 'storm'",  # "harbour" could outscore storm's texts: the whole query in the end
        "'lighthous' | 'harbour'",  # "lighthouse" alone is in too few texts to try
        "'keeper' | 'weather'",  # "keeper" alone is in too few texts: the whole query
        "'weather'",
    ]
    monkeypatch.setattr(tsearch, "_candidates", lambda *args: [])
    for q in QUERIES:
        assert tsearch.ranked(store, lexical.query_words(q), [scope], 10, None) == pruned[q], q
