"""The speaker lane: what the entities a query names said themselves, nearest first to the rest
of the query, confined to the asked scopes; the same list past the exact filter's cap; and an
aggregation question's smaller spread along precedes edges. The answer_type lane: the same
turns, nearest to the rest of the query plus the word naming what it asks for."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import ALICE, BOB, ingest_turns
from worlddb.core.schema import VECTOR_FROM
from worlddb.core.timeutil import now_us
from worlddb.retrieval import lanes as lanes_module
from worlddb.retrieval import propagation
from worlddb.retrieval.lanes import run_lanes
from worlddb.vectors.hnsw import UNIT

TURNS = [
    ("Ann", "I signed up for a pottery class yesterday"),
    ("Ben", "Ann, your pottery bowls looked great at the fair"),
    ("Ann", "The kids and I went swimming at the lake"),
    ("Ben", "I finally fixed the bike chain"),
    ("Ann", "Work has been busy with the quarterly report"),
    ("Ben", "Ann told me the lake was cold"),
]


def _ingest(engine, scopes=ALICE) -> dict[str, str]:
    return ingest_turns(engine, TURNS, scopes)


def _speaker_lane(engine, query, scopes=ALICE, lane="speaker") -> list[str]:
    worlds = [engine.store.scope_anchor(kind, sid) for kind, sid in scopes]
    rows = run_lanes(engine.services.sources, query, worlds, 100, open_only_at=now_us())[lane]
    anchors = engine.store.anchors_for_rowids(rows)
    return [anchors[r] for r in rows]


def test_the_lane_holds_only_what_the_named_speaker_said_nearest_first(engine):
    turns = _ingest(engine)
    ann = {turns[f"D1:{i}"] for i, (speaker, _) in enumerate(TURNS, start=1) if speaker == "Ann"}
    lane = _speaker_lane(engine, "What pottery has Ann made?")
    # Ben's turns that name Ann are mentions, not her words
    assert set(lane) == ann
    assert lane[0] == turns["D1:1"]
    assert _speaker_lane(engine, "Where did Ann go swimming?")[0] == turns["D1:3"]


def test_a_query_naming_no_speaker_has_an_empty_lane(engine):
    _ingest(engine)
    assert _speaker_lane(engine, "What did the kids do at the lake?") == []


def test_the_lane_never_leaves_the_asked_scope(engine):
    _ingest(engine, BOB)
    mine = _ingest(engine, ALICE)
    assert _speaker_lane(engine, "What pottery has Ann made?", BOB) != []
    assert set(_speaker_lane(engine, "What pottery has Ann made?", ALICE)) <= set(mine.values())


def test_the_lane_is_the_exact_cosine_order_of_the_speakers_sentences(engine):
    turns = _ingest(engine)
    sources = engine.services.sources
    query = "What pottery has Ann made?"
    rest = sources.query_vector("What pottery has made?")
    ann = [engine.store.rowid(turns[f"D1:{i}"]) for i, (speaker, _) in enumerate(TURNS, start=1) if speaker == "Ann"]
    best = {}
    for node, blob in engine.store.conn.execute(
            f"SELECT v.node, d.vec FROM {VECTOR_FROM} WHERE v.kind=? AND v.node IN ({','.join('?' * len(ann))})",
            (UNIT, *ann)):
        unit = np.frombuffer(blob, dtype=np.float32)
        best[node] = max(best.get(node, -1.0), float(unit @ rest) / float(np.linalg.norm(unit) * np.linalg.norm(rest)))
    anchors = engine.store.anchors_for_rowids(list(best))
    assert _speaker_lane(engine, query) == [anchors[r] for r in sorted(best, key=lambda r: -best[r])]


@pytest.mark.parametrize("cap", ["EXACT_MAX", "SPEAKER_FILTER_MAX"])
def test_past_each_cap_the_lane_is_the_same(engine, monkeypatch, cap):
    _ingest(engine)
    query = "What pottery has Ann made?"
    exact = _speaker_lane(engine, query)
    monkeypatch.setattr(lanes_module, "EXACT_MAX", 0)
    monkeypatch.setattr(lanes_module, cap, 0)
    assert _speaker_lane(engine, query) == exact


def test_an_aggregation_question_spreads_less(engine, monkeypatch):
    _ingest(engine)
    spreads: list[float] = []
    ranked = propagation.ranked

    def recording(conn, scores, admit=None, spread=propagation.PROPAGATION, own=None):
        spreads.append(spread)
        return ranked(conn, scores, admit, spread=spread, own=own)

    monkeypatch.setattr(propagation, "ranked", recording)
    engine.recall("What activities does Ann do?", ALICE, limit=5)
    engine.recall("Where did Ann go swimming?", ALICE, limit=5)
    assert spreads == [propagation.AGGREGATE_PROPAGATION, propagation.PROPAGATION]
    assert propagation.AGGREGATE_PROPAGATION < propagation.PROPAGATION


def test_the_answer_type_lane_ranks_the_named_persons_words_by_what_the_question_asks_for(engine, monkeypatch):
    turns = _ingest(engine)
    ann = {turns[f"D1:{i}"] for i, (speaker, _) in enumerate(TURNS, start=1) if speaker == "Ann"}
    lane = _speaker_lane(engine, "What classes has Ann signed up for?", lane="answer_type")
    assert set(lane) == ann
    assert lane[0] == turns["D1:1"]
    # past the exact filter's cap, the same list
    monkeypatch.setattr(lanes_module, "SPEAKER_FILTER_MAX", 1)
    assert _speaker_lane(engine, "What classes has Ann signed up for?", lane="answer_type") == lane


def test_the_word_naming_what_is_asked_for_weighs_more_there_than_in_the_speaker_lane(engine):
    turns = _ingest(engine)
    query = "Which kids does Ann talk about in the quarterly report?"
    # the rest of the question leans to the report; the answer_type lane also to the kids
    assert _speaker_lane(engine, query)[0] == turns["D1:5"]
    assert _speaker_lane(engine, query, lane="answer_type")[0] == turns["D1:3"]


def test_the_answer_type_lane_is_empty_without_a_word_naming_the_answer(engine):
    _ingest(engine)
    # names a speaker, but asks for no kind of thing
    assert _speaker_lane(engine, "Where did Ann go swimming?", lane="answer_type") == []
    # names a kind of thing, but no speaker
    assert _speaker_lane(engine, "What classes did the kids take?", lane="answer_type") == []


def test_the_answer_type_lane_moves_the_fused_order_and_reports_its_ranks(engine):
    _ingest(engine)
    hits = engine.recall("What classes has Ann signed up for?", ALICE, limit=6).results
    assert any("answer_type" in hit.lanes for hit in hits)
