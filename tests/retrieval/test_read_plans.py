"""Read paths whose cost must not grow with the size of a scope: the SQL they run is
driven from the candidate rows (checked with EXPLAIN QUERY PLAN), and the answers are
the ones a direct computation gives."""

from __future__ import annotations

import sqlite3
from collections import defaultdict

import pytest

from worlddb.core.records import Node
from worlddb.core.timeutil import now_us
from worlddb.graph import anyword, lexical
from worlddb.memory.engine import Engine
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.scopes import ScopeSet
from worlddb.retrieval import propagation
from worlddb.vectors.embedder import HashEmbedder

ALICE = ScopeSet((("user", "alice"),))
BOB = ScopeSet((("user", "bob"),))


@pytest.fixture
def engine(tmp_path):
    eng = Engine.open(tmp_path / "m.db", embedder=HashEmbedder(), query_model=True)
    yield eng
    eng.close()


def _plan(conn: sqlite3.Connection, sql: str, params) -> list[str]:
    return [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params)]


def _conversation(tag: str, sessions: int = 3, turns: int = 6) -> list[SessionIn]:
    return [SessionIn(date=f"2023-05-0{s + 1}T10:00:00Z", turns=tuple(
        TurnIn(speaker=("Ann" if t % 2 else "Ben"), text=f"{tag} session {s} turn {t} about kayaks and tea")
        for t in range(turns))) for s in range(sessions)]


def test_precedes_neighbourhoods_are_read_through_the_edge_indexes(engine):
    engine.ingest_conversation(_conversation("a"), ALICE)
    plan = _plan(engine.store.conn, propagation.NEIGHBOURS_SQL.format(marks="?,?"), [1, 2, 1, 2])
    assert not [step for step in plan if step.startswith("SCAN")], plan
    assert any("edges_src" in step for step in plan) and any("edges_dst" in step for step in plan)


def test_precedes_neighbourhoods_match_a_walk_over_the_edges(engine):
    engine.ingest_conversation(_conversation("a"), ALICE)
    conn = engine.store.conn
    adjacency = defaultdict(set)
    for a, b in conn.execute("SELECT e.src, e.dst FROM edges e WHERE e.type='precedes' AND e.seq_removed IS NULL"):
        adjacency[a].add(b)
        adjacency[b].add(a)
    turns = [row[0] for row in conn.execute("SELECT rowid FROM nodes WHERE type='Turn' ORDER BY rowid")]
    picked = turns[::4]
    expected = defaultdict(set)
    for origin in picked:
        frontier, seen = {origin}, {origin}
        for _ in range(propagation.WINDOW):
            frontier = {n for f in frontier for n in adjacency[f]} - seen
            seen |= frontier
        for other in seen - {origin}:
            expected[origin].add(other)
            expected[other].add(origin)
    got = propagation.neighbourhoods(conn, picked)
    assert {k: v for k, v in got.items() if v} == dict(expected)


def test_lexical_search_checks_scope_per_match_and_stays_in_scope(engine):
    engine.write_memory("Alice keeps a red kayak by the lake", ALICE)
    engine.write_memory("Bob keeps a blue kayak at the harbour", BOB)
    alice = engine.store.scope_anchor("user", "alice")
    sql = lexical.lexical_sql(1, "AND (n.valid_to IS NULL OR n.valid_to > ?)")
    plan = _plan(engine.store.conn, sql, ['"kayak"', alice, alice, 0, 10])
    # the closure is asked about each match (node and world), never listed for the scope;
    # the only lists are the queried worlds' rowids, looked up by anchor
    assert not [step for step in plan if step.startswith("SCAN c")
                or (step.startswith("SEARCH c") and "(node=? AND world=?)" not in step)], plan
    lists = [i for i, step in enumerate(plan) if step.startswith("LIST SUBQUERY")]
    assert lists and all(plan[i + 1].startswith("SEARCH nodes") and "(anchor=?)" in plan[i + 1] for i in lists), plan
    found = lexical.lexical(engine.store, "kayak", [alice], 10)
    texts = [engine.store.get(a).content for a in engine.store.anchors_for_rowids([r for r, _ in found]).values()]
    assert texts == ["Alice keeps a red kayak by the lake"]


def _memories(engine, scope: ScopeSet, texts: list[str]) -> None:
    for text in texts:
        engine.write_memory(text, scope, entities=[])


ALICE_KAYAKS = ["my old kayak is red and was bought second hand at the lake shop last spring",
                "a kayak paddle, two life vests and a dry bag are in the garage next to the bikes",
                "kayak lessons on monday evenings at the rowing club with the beginners group"]


@pytest.mark.parametrize("fetch_max", [lexical.FETCH_MAX, lexical.FETCH_FLOOR])  # widen / rank in scope
def test_lexical_search_finds_a_small_scope_among_many_better_matches_elsewhere(engine, monkeypatch, fetch_max):
    monkeypatch.setattr(lexical, "FETCH_MAX", fetch_max)
    _memories(engine, BOB, [f"kayak trip {i}" for i in range(200)])  # short: they outrank Alice's
    _memories(engine, ALICE, ALICE_KAYAKS)
    alice = engine.store.scope_anchor("user", "alice")
    found = lexical.lexical(engine.store, "kayak", [alice], 10)
    texts = {engine.store.get(a).content for a in engine.store.anchors_for_rowids([r for r, _ in found]).values()}
    assert texts == set(ALICE_KAYAKS)
    assert len(lexical.lexical(engine.store, "kayak", [alice], 2)) == 2


def test_lexical_search_hides_closed_memories_when_asked(engine):
    _memories(engine, ALICE, ["the kayak is blue", "the kayak is green"])
    alice = engine.store.scope_anchor("user", "alice")
    old = engine.list_memories(ALICE).memories[-1].id
    engine.retire(old, ALICE)
    open_now = lexical.lexical(engine.store, "kayak", [alice], 10, open_only_at=now_us())
    everything = lexical.lexical(engine.store, "kayak", [alice], 10)
    assert len(everything) == 2 and len(open_now) == 1


def test_words_in_a_large_share_of_the_store_drop_out_only_when_rarer_words_suffice(engine, monkeypatch):
    monkeypatch.setattr(lexical, "COMMON_MIN_DOCS", 20)
    _memories(engine, ALICE, [f"weather report {i} mentions sunshine" for i in range(30)])
    _memories(engine, ALICE, [f"garden diary entry {i}" for i in range(66)])
    _memories(engine, ALICE, ["a storm warning", "storm clouds", "storm surge", "sunshine after the storm"])
    store = engine.store
    alice = store.scope_anchor("user", "alice")
    assert all("storm" in text for text in _lexical_texts(store, "sunshine storm", alice, 3))
    # four texts hold "storm": for ten, the common word (in 31 of 100 texts) stays in the query
    found = _lexical_texts(store, "sunshine storm", alice, 10)
    assert len(found) == 10 and sum("storm" in text for text in found) == 4


def test_a_word_held_by_half_the_store_brings_nothing_into_the_lane(engine, monkeypatch):
    monkeypatch.setattr(lexical, "COMMON_MIN_DOCS", 20)
    _memories(engine, ALICE, [f"weather report {i} mentions sunshine" for i in range(40)])
    _memories(engine, ALICE, ["a storm warning", "storm clouds", "storm surge", "sunshine after the storm"])
    store = engine.store
    alice = store.scope_anchor("user", "alice")
    ranked: list[str] = []
    store.conn.set_trace_callback(lambda sql: ranked.append(sql) if "ORDER BY rank" in sql else None)
    found = _lexical_texts(store, "sunshine storm", alice, 10)
    store.conn.set_trace_callback(None)
    # FTS5 gives "sunshine" (41 of 44 texts) no weight: the lane holds what "storm" finds,
    # in the order FTS5 ranks the query with both words
    assert ranked and not any("sunshine" in sql for sql in ranked)
    both = store.conn.execute('SELECT rowid FROM fts WHERE fts MATCH \'"sunshine" OR "storm"\' ORDER BY rank '
                              "LIMIT 4").fetchall()
    by_rowid = store.anchors_for_rowids([r for r, in both])
    assert found == [store.get(by_rowid[r]).content for r, in both]
    assert sorted(found) == sorted(["a storm warning", "storm clouds", "storm surge", "sunshine after the storm"])


def test_half_the_store_means_every_indexed_text_summaries_included(engine, monkeypatch):
    # FTS5 weighs a word by its share of all its rows; summaries have rows but are not in
    # the text_docs counter, so judging "half" by that counter would drop a weighted word
    monkeypatch.setattr(lexical, "COMMON_MIN_DOCS", 10)
    _memories(engine, ALICE, [f"weather report {i} mentions sunshine" for i in range(16)])
    _memories(engine, ALICE, ["a storm warning", "storm clouds", "storm surge", "sunshine after the storm"])
    with engine.db.write() as w:
        for i in range(20):
            summary = w.add(Node("Summary", content=f"garden summary {i}"))
            w.index_text(summary, f"garden summary {i}")
    store = engine.store
    assert int(store.meta_get("text_docs")) == 20
    found = _lexical_texts(store, "sunshine storm", store.scope_anchor("user", "alice"), 10)
    # "sunshine" is in 17 of 40 rows: weighted, so it stays and fills the lane
    assert len(found) == 10 and sum("storm" in text for text in found) == 4


def test_a_query_of_only_common_words_asks_for_texts_holding_all_of_them(engine, monkeypatch):
    monkeypatch.setattr(lexical, "COMMON_MIN_DOCS", 20)
    _memories(engine, ALICE, [f"Ana spent day {i} of a long and very busy spring week in Lisbon" for i in range(12)])
    _memories(engine, ALICE, [f"Ana note {i}" for i in range(20)] + [f"Lisbon note {i}" for i in range(20)])
    _memories(engine, ALICE, ["Ana", "Lisbon"])  # the shortest texts, which bm25 favours for one word
    alice = engine.store.scope_anchor("user", "alice")
    ranked: list[str] = []
    engine.store.conn.set_trace_callback(lambda sql: ranked.append(sql) if "ORDER BY rank" in sql else None)
    found = _lexical_texts(engine.store, "Ana Lisbon", alice, 10)
    engine.store.conn.set_trace_callback(None)
    assert len(found) == 10 and all("Ana" in text and "Lisbon" in text for text in found)
    # what FTS5 ranked was the intersection, not every text naming either word
    assert ranked and all('"ana" AND "lisbon"' in sql for sql in ranked)
    # fewer than `limit` texts hold both: any of the words will do
    found = _lexical_texts(engine.store, "Ana Lisbon", alice, 20)
    assert len(found) == 20 and sum("Ana" in text and "Lisbon" in text for text in found) == 12


def test_a_narrowed_query_falls_back_when_the_scope_holds_too_few_of_its_matches(engine, monkeypatch):
    monkeypatch.setattr(lexical, "COMMON_MIN_DOCS", 20)
    _memories(engine, BOB, [f"Ana and Lisbon, entry {i}" for i in range(30)])
    _memories(engine, ALICE, ["Ana flew to Lisbon"] + [f"Ana wrote note {i}" for i in range(12)])
    alice = engine.store.scope_anchor("user", "alice")
    found = _lexical_texts(engine.store, "Ana Lisbon", alice, 10)
    assert len(found) == 10 and found[0] == "Ana flew to Lisbon"


@pytest.mark.parametrize("limit", [1, 3, 7, 20])
def test_the_lane_keeps_the_best_in_scope_matches_when_other_scopes_hold_better_ones(engine, limit):
    # bob's texts are short and outrank alice's, so her matches sit behind them in FTS5's
    # order and are admitted a slice at a time
    _memories(engine, BOB, [f"harbour {i}" for i in range(25)])
    _memories(engine, ALICE, [f"the harbour was busy on morning {i} of the long summer" for i in range(12)])
    alice = engine.store.scope_anchor("user", "alice")
    got = [r for r, _ in lexical.lexical(engine.store, "harbour", [alice], limit)]
    exact = [r for r, _ in engine.store.conn.execute(
        lexical.lexical_sql(1), (lexical.fts_query("harbour"), alice, alice, limit))]
    assert got == exact and len(got) == min(limit, 12)


def _lexical_texts(store, query: str, world: str, limit: int) -> list[str]:
    rowids = [r for r, _ in lexical.lexical(store, query, [world], limit)]
    by_rowid = store.anchors_for_rowids(rowids)
    return [store.get(by_rowid[r]).content for r in rowids]


def test_the_lane_ranks_any_word_without_scoring_every_text_and_finds_the_same(engine, monkeypatch):
    _memories(engine, ALICE, [f"weather report {i} mentions sunshine and a long walk" for i in range(40)])
    _memories(engine, ALICE, [f"storm diary {i}" for i in range(15)] + ["storm", "sunshine storm lighthouse"])
    _memories(engine, ALICE, [f"lighthouse keeper log {i}" for i in range(6)])
    store = engine.store
    alice = store.scope_anchor("user", "alice")
    monkeypatch.setattr(anyword, "MAX_WORDS", 0)  # the plain statement
    plain = _lexical_texts(store, "sunshine storm lighthouse", alice, 5)
    monkeypatch.setattr(anyword, "MAX_WORDS", 3)
    monkeypatch.setattr(anyword, "MIN_POSTINGS", 1)
    monkeypatch.setattr(anyword, "PER_FETCHED", 1)
    ranked: list[str] = []
    store.conn.set_trace_callback(lambda sql: ranked.append(sql) if "ORDER BY rank" in sql else None)
    planned = _lexical_texts(store, "sunshine storm lighthouse", alice, 5)
    store.conn.set_trace_callback(None)
    assert planned == plain and plain[0] == "sunshine storm lighthouse"
    # nothing ranked every text holding any word, nor the 40 holding only "sunshine"
    assert ranked and not any(""""sunshine" OR "storm" OR "lighthouse"'""" in sql for sql in ranked)
    assert not any('"sunshine" NOT' in sql for sql in ranked)
