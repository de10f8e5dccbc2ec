"""The global lane: topic worlds selected top-down, their members (never their summaries) in
the fusion, confined to the asked scopes; the aggregation rule."""

from __future__ import annotations

import pytest

from tests.consolidator.test_topics import GARDEN, MUSIC, consolidate, scope_of, write_all
from tests.support import ALICE, BOB
from worlddb.core.timeutil import now_us
from worlddb.retrieval.global_lane import _by_summary, aggregates, answer_head, global_lane


@pytest.mark.parametrize("query", [
    "What activities does Melanie partake in?", "Which cities has Jon visited?", "How many times did it rain?",
    "Since when has she played the cello?", "What kinds of music does Bob like?", "how often do you run",
    "List the books I read",
])
def test_lists_counts_and_spans_aggregate(query):
    assert aggregates(query)


@pytest.mark.parametrize("query", [
    "What is Caroline's identity?", "Which city did Jon visit first?", "When did Maria meet Jean?",
    "What does Melanie do to destress?", "Where was John last week?",
])
def test_single_answers_do_not(query):
    assert not aggregates(query)


@pytest.mark.parametrize(("query", "head"), [
    ("What activities does Melanie partake in?", "activities"), ("Which cities has Jon visited?", "cities"),
    ("What kinds of music does Bob like?", "music"), ("What LGBTQ+ events has Caroline attended?", "events"),
    ("what type of volunteering have they done", "volunteering"),
    ("What is Caroline's identity?", None), ("Which city did Jon visit first?", None),
    ("When did Maria meet Jean?", None), ("What did Ann bring to the party last week?", None),
])
def test_the_word_naming_what_a_question_asks_for(query, head):
    assert answer_head(query) == head


def lane(engine, query, scopes=ALICE):
    vector = engine.services.sources.query_vector(query)
    return global_lane(engine.store, query, vector, [scope_of(engine, scopes)], 100, open_only_at=now_us())


def test_a_scope_without_topics_has_an_empty_lane(engine):
    write_all(engine, GARDEN)
    assert lane(engine, "water the tomato") == []


def test_the_lane_draws_members_of_the_topic_the_query_selects(engine):
    ids = write_all(engine, GARDEN + MUSIC)
    consolidate(engine).topics()
    consolidate(engine).summarize(types=["Topic"])
    rows = lane(engine, "practised the sonata on the piano")
    anchors = engine.store.anchors_for_rowids(rows)
    texts = [engine.store.get(anchors[r]).content for r in rows]
    assert texts and set(texts) <= set(MUSIC)
    assert {anchors[r] for r in rows} <= set(ids)


def test_recall_reports_the_lane_and_never_returns_a_topic_summary(engine):
    write_all(engine, GARDEN + MUSIC)
    consolidate(engine).topics()
    report = consolidate(engine).summarize(types=["Topic"])
    assert report.summaries
    hits = engine.recall("sonata piano practised", ALICE, limit=30).results
    assert any("global" in hit.lanes for hit in hits)
    assert all(hit.type == "Memory" for hit in hits)


def test_the_lane_never_leaves_the_asked_scope(engine):
    write_all(engine, MUSIC, BOB)
    write_all(engine, GARDEN, ALICE)
    consolidate(engine).topics()
    rows = lane(engine, "practised the sonata on the piano")
    alice = scope_of(engine, ALICE)
    anchors = engine.store.anchors_for_rowids(rows)
    assert rows and engine.store.in_worlds([alice], anchors.values()) == set(anchors.values())
    hits = engine.recall("practised the sonata on the piano", ALICE, limit=30).results
    assert all(hit.scopes == ["user:alice"] for hit in hits)


def test_a_retired_members_words_leave_the_topic_ranking_with_the_retire(engine):
    write_all(engine, GARDEN + MUSIC)
    said = engine.write_memory("I practised the toccata on the harpsichord for an hour today.", ALICE).id
    consolidate(engine).topics()
    consolidate(engine).summarize(types=["Topic"])
    topics = [row[0] for row in engine.store.conn.execute("SELECT rowid FROM nodes WHERE type = 'Topic'")]
    assert _by_summary(engine.store, topics, ["toccata"], now_us())  # its topic's summary quotes it
    engine.retire(said, ALICE, reason="forget that I said it")
    for open_only_at in (now_us(), None):  # current reads, and reads pinned to a time
        assert _by_summary(engine.store, topics, ["toccata"], open_only_at) == []
    consolidate(engine).summarize(types=["Topic"])
    assert _by_summary(engine.store, topics, ["toccata"], now_us()) == []
    assert _by_summary(engine.store, topics, ["sonata"], now_us())  # its topic has a summary again
