"""The any-word plan against FTS5 itself: the same texts and scores as the plain ranked
statement, and bounds that no text exceeds."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worlddb.core.records import Node
from worlddb.graph import anyword
from worlddb.graph.database import WorldDB

# "run" / "running" / "runs" share a stem; "cloud" and "heron" are held by most texts
VOCAB = ["heron", "cloud", "kayak", "lisbon", "run", "running", "runs", "tea", "storm", "paddle",
         "marmot", "quince", "zither"]
WEIGHTS = [30, 60, 12, 9, 4, 3, 3, 8, 6, 5, 2, 1, 1]
ABSENT = "xylograph"
#: words FTS5 tokenizes to nothing, or to two tokens
ODD = ["_", "kayak_tea", "2023"]


def _texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        words = rng.choices(VOCAB, WEIGHTS, k=rng.randint(1, 12))
        if rng.random() < 0.1:
            words += [words[0]] * rng.randint(1, 6)  # the same word many times
        texts.append(" ".join(words))
    texts += ["kayak " * 40, "quince", "zither quince", "marmot"]
    return texts


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    db = WorldDB.open(tmp_path_factory.mktemp("anyword") / "m.db")
    with db.write() as w:
        for i, text in enumerate(_texts(7, 600)):
            anchor = w.add(Node("Memory", content=text, meta={"n": i}))
            w.index_text(anchor, text)
    with pytest.MonkeyPatch.context() as patch:
        # plan even this small table, so the plan is what gets checked
        patch.setattr(anyword, "MIN_POSTINGS", 1)
        patch.setattr(anyword, "PER_FETCHED", 1)
        yield db.store.conn
    db.close()


def _plain(conn, words, fetch):
    return conn.execute("SELECT rowid, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?",
                        (anyword.any_of(words), fetch)).fetchall()


def _assert_same_ranking(got, plain):
    assert [round(rank, 9) for _, rank in got] == [round(rank, 9) for _, rank in plain]
    if plain:
        cutoff = plain[-1][1] - 1e-9  # texts tied with the last one may be any of the tied
        assert {r for r, rank in got if rank < cutoff} == {r for r, rank in plain if rank < cutoff}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(VOCAB + [ABSENT] + ODD), min_size=2, max_size=3, unique=True),
       st.integers(min_value=1, max_value=40))
def test_the_plan_ranks_as_fts5_ranks_any_of_the_words(conn, words, fetch):
    got = anyword.best_of_any(conn, words, fetch)
    if got is not None:
        _assert_same_ranking(got, _plain(conn, words, fetch))


@pytest.mark.parametrize("words, fetch", [
    (["kayak", "lisbon"], 10),            # two words: the pairs are their intersection
    (["kayak", "lisbon", "tea"], 10),     # three: texts holding all three are counted twice
    (["marmot", "cloud", "quince"], 5),   # a rare word's texts outrank common ones
    (["run", "running", "storm"], 8),     # two words with one stem
    (["cloud", "heron", "zither"], 3),    # common words pruned by their bound
    (["cloud", "_", "kayak"], 10),        # a word with no token matches nothing
    (["kayak_tea", "storm"], 10),         # a word of two tokens is a phrase
])
def test_the_plan_runs_and_ranks_as_fts5_ranks(conn, words, fetch):
    got = anyword.best_of_any(conn, words, fetch)
    assert got is not None
    _assert_same_ranking(got, _plain(conn, words, fetch))


@pytest.mark.parametrize("words", [["kayak"], ["a", "b", "c", "d"]])
def test_one_word_or_more_than_three_is_left_to_the_plain_statement(conn, words):
    assert anyword.best_of_any(conn, words, 10) is None


def test_few_matches_are_left_to_the_plain_statement(conn, monkeypatch):
    monkeypatch.setattr(anyword, "MIN_POSTINGS", 10_000)
    assert anyword.best_of_any(conn, ["kayak", "tea"], 10) is None


def test_totals_are_the_row_count_and_average_length_fts5_uses(conn):
    rows, average = anyword.totals(conn)
    assert rows == conn.execute("SELECT count(*) FROM fts_docsize").fetchone()[0]
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, fts, row)")
    tokens = conn.execute("SELECT sum(cnt) FROM temp.fts_terms").fetchone()[0]
    assert average == pytest.approx(tokens / rows)


@pytest.mark.parametrize("word", VOCAB)
def test_no_text_scores_above_the_bound_of_its_word(conn, word):
    rows, average = anyword.totals(conn)
    held = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (anyword.phrase(word),)).fetchone()[0]
    best = conn.execute("SELECT min(rank) FROM fts WHERE fts MATCH ?", (anyword.phrase(word),)).fetchone()[0]
    assert 0 < -best < anyword.bound(rows, held, average)
