"""Recall's graph step: the lazy ranking equals the full computation, order, scores and lifts."""

from __future__ import annotations

import random

import pytest

from tests.support import ALICE
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.retrieval import propagation


def _conversation(sessions: int, turns: int) -> list[SessionIn]:
    return [SessionIn(date=f"2023-05-{s + 1:02d}T10:00:00Z", turns=tuple(
        TurnIn(speaker=("Ann" if t % 2 else "Ben"), text=f"session {s} turn {t} about kayaks")
        for t in range(turns))) for s in range(sessions)]


@pytest.fixture
def chained(engine):
    """Turns chained by precedes edges (8 sessions of 15), and plain memories beside them."""
    engine.ingest_conversation(_conversation(8, 15), ALICE)
    engine.write_memories([{"text": f"loose note {i}"} for i in range(40)], ALICE)
    return [row[0] for row in engine.store.conn.execute(
        "SELECT rowid FROM nodes WHERE type IN ('Turn', 'Memory') ORDER BY rowid")]


def _full(conn, scores, admit, spread=propagation.PROPAGATION, own=None):
    final, lifted = propagation.propagate(conn, scores, spread, own)
    joined = [n for n in final if n not in scores]
    allowed = admit(joined) if joined else set()
    kept = [n for n in final if n in scores or n in allowed]
    return [(n, final[n], lifted.get(n)) for n in sorted(kept, key=lambda n: (-final[n], n))]


@pytest.mark.parametrize("spread", [propagation.PROPAGATION, propagation.AGGREGATE_PROPAGATION])
def test_lazy_ranking_equals_the_full_propagation(engine, chained, spread):
    def admit(rowids):
        return {r for r in rowids if r % 3}

    conn = engine.store.conn
    for seed in range(150):
        rng = random.Random(seed)
        # fused scores as RRF makes them: sums of a few w / (10 + rank), so ties are common
        picked = rng.sample(chained, rng.randint(1, len(chained)))
        scores = {n: sum(w / (10 + rng.randint(1, 40)) for w in rng.sample([1.0, 0.5, 1.0, 0.25], rng.randint(1, 4)))
                  for n in picked}
        assert list(propagation.ranked(conn, scores, admit, spread=spread)) == _full(conn, scores, admit, spread), seed
        # a node may keep less of its own score than it lifts its neighbours by (a turn that asks)
        own = {n: s * rng.choice([1.0, 1.0, 0.5, 0.0, rng.random()]) for n, s in scores.items()}
        assert list(propagation.ranked(conn, scores, admit, spread=spread, own=own)) == \
            _full(conn, scores, admit, spread, own), seed


def test_a_node_that_keeps_less_of_its_own_score_still_lifts_its_neighbours_by_all_of_it(engine, chained):
    conn = engine.store.conn
    first, second = chained[0], chained[1]
    final, lifted = propagation.propagate(conn, {first: 1.0, second: 0.1}, own={first: 0.2, second: 0.1})
    assert final[first] == 0.2 + propagation.PROPAGATION * 0.1
    assert final[second] == 0.1 + propagation.PROPAGATION * 1.0 and lifted[second] == first
    order = [node for node, _, _ in propagation.ranked(conn, {first: 1.0, second: 0.1}, own={first: 0.2, second: 0.1})]
    assert order.index(second) < order.index(first)


def test_reading_a_prefix_of_the_ranking_reads_few_neighbourhoods(engine, chained, monkeypatch):
    scores = {n: 1.0 / (10 + i) for i, n in enumerate(chained)}
    asked: list[int] = []
    full = propagation.neighbourhoods

    def counting(conn, rowids):
        rowids = list(rowids)
        asked.extend(rowids)
        return full(conn, rowids)

    monkeypatch.setattr(propagation, "neighbourhoods", counting)
    ranking = propagation.ranked(engine.store.conn, scores)
    top = [next(ranking) for _ in range(10)]
    assert len(asked) < len(scores) / 2
    assert [n for n, _, _ in top] == [n for n, _, _ in _full(engine.store.conn, scores, lambda r: set(r))][:10]


def _neighbourhood_reads(engine, query: str) -> int:
    statements: list[str] = []
    conn = engine.store.conn
    if conn.backend.name == "sqlite":
        conn.set_trace_callback(statements.append)
        engine.recall(query, ALICE, limit=5)
        conn.set_trace_callback(None)
    else:  # a PostgreSQL connection is ours: its execute is traced in place
        def traced(sql, *args, _execute=conn.execute):
            statements.append(sql)
            return _execute(sql, *args)
        conn.execute = traced
        try:
            engine.recall(query, ALICE, limit=5)
        finally:
            del conn.execute
    return sum("e.type='precedes'" in sql for sql in statements)


def test_a_store_without_precedes_edges_reads_no_neighbourhoods(engine):
    engine.write_memories([{"text": f"loose note {i} about kayaks"} for i in range(40)], ALICE)
    assert not propagation.has_precedes(engine.store.conn)
    assert _neighbourhood_reads(engine, "kayaks") == 0
    scores = {n: 1.0 / (10 + n) for n in range(1, 30)}
    assert list(propagation.ranked(engine.store.conn, scores)) == _full(engine.store.conn, scores, set)


def test_neighbourhoods_are_read_once_a_precedes_edge_exists_and_not_after_it_goes(engine, chained):
    conn = engine.store.conn
    assert propagation.has_precedes(conn) and _neighbourhood_reads(engine, "kayaks") > 0
    with engine.db.write() as w:
        for edge in engine.store.edges(type="precedes"):
            assert w.unlink(edge.edge)
    assert not propagation.has_precedes(conn) and _neighbourhood_reads(engine, "kayaks") == 0


@pytest.mark.sqlite_only("SQLite's query plans (EXPLAIN QUERY PLAN); PostgreSQL's planner chooses its own")
def test_the_precedes_probe_reads_one_entry_of_its_partial_index(engine):
    plan = [row[3] for row in engine.store.conn.execute("EXPLAIN QUERY PLAN " + propagation.HAS_PRECEDES_SQL.format(
        hint="INDEXED BY edges_precedes"))]
    assert plan == ["SCAN edges USING INDEX edges_precedes"]
