"""The typed lane: texts naming an entity of the type the question asks for ("which cities":
place), confined to the asked scopes, without the speakers of a conversation for "person",
and fused into recall."""

from __future__ import annotations

import pytest

from tests.support import ALICE, BOB, ingest_turns
from worlddb.core.timeutil import now_us
from worlddb.retrieval.lanes import run_lanes
from worlddb.retrieval.typed_lane import asked_type

TURNS = [
    ("Jon", "Took a short trip last week to Rome to clear my mind."),
    ("Gina", "Nice! I watched \"Inception\" again last night."),
    ("Jon", "The dance studio lease is finally signed."),
    ("Gina", "Jon, the grand opening will be amazing."),
    ("Jon", "My cousin Dara helped me paint the walls."),
    ("Gina", "I went to the beach in Tampa with my sister."),
]


def _ingest(engine, scopes=ALICE) -> dict[str, str]:
    return ingest_turns(engine, TURNS, scopes)


def _lane(engine, query, scopes=ALICE) -> set[str]:
    worlds = [engine.store.scope_anchor(kind, sid) for kind, sid in scopes]
    rows = run_lanes(engine.services.sources, query, worlds, 100, open_only_at=now_us())["typed"]
    anchors = engine.store.anchors_for_rowids(rows)
    return {anchors[r] for r in rows}


@pytest.mark.parametrize("query, expected", [
    ("Which cities has Jon visited?", ("place", "cities")),
    ("Which city have both Gina and Jon been to?", ("place", "city")),
    ("What areas of the U.S. has John been to?", ("place", "areas")),
    ("What video games does Nate play?", ("work", "games")),
    ("What are the names of John's children?", ("person", "names")),
    ("What pets does Nate have?", ("animal", "pets")),
    ("Which TV series does Tim watch?", ("work", "series")),
    ("What time is the team standup?", None),  # it asks for a time: "team" is past a function word
    ("What is my job title?", None),
    ("What job title does Ana have?", None),  # a job's title is no work
    ("Where did Jon go last week?", None),  # no asked-for word
    ("What did Jon say about the city?", None),  # the word is past the reach of "what"
])
def test_the_asked_type_is_read_from_the_word_after_what_or_which(query, expected):
    assert asked_type(query) == expected


def test_a_place_question_draws_the_texts_naming_a_place(engine):
    turns = _ingest(engine)
    assert _lane(engine, "Which cities have Jon and Gina visited?") == {turns["D1:1"], turns["D1:6"]}
    assert _lane(engine, "What movies has Gina seen?") == {turns["D1:2"]}
    assert _lane(engine, "What did Jon sign?") == set()


def test_a_person_question_leaves_out_the_speakers_and_the_people_it_names(engine):
    turns = _ingest(engine)
    # "Jon, the grand opening ..." names Jon, who speaks here: not an answer about people
    assert _lane(engine, "What people have helped Jon?") == {turns["D1:5"]}
    assert _lane(engine, "What people has Dara helped?") == set()


def test_the_lane_never_leaves_the_asked_scope(engine):
    _ingest(engine, BOB)
    mine = _ingest(engine, ALICE)
    found = _lane(engine, "Which cities have Jon and Gina visited?", ALICE)
    assert found and found <= set(mine.values())


def test_recall_reports_the_typed_lane_on_its_hits(engine):
    turns = _ingest(engine)
    hits = engine.recall("Which city has Jon been to?", ALICE, limit=10).results
    by_id = {hit.id: hit for hit in hits}
    assert "typed" in by_id[turns["D1:1"]].lanes
    assert all("typed" not in hit.lanes for hit in hits if hit.id not in (turns["D1:1"], turns["D1:6"]))


def test_the_lane_is_ranked_exactly_and_a_text_without_a_vector_still_follows(engine, monkeypatch):
    turns = _ingest(engine)
    sources = engine.services.sources
    worlds = [engine.store.scope_anchor(kind, sid) for kind, sid in ALICE]
    query = "Which cities have Jon and Gina visited?"
    places = {engine.store.rowid(turns["D1:1"]), engine.store.rowid(turns["D1:6"])}
    vector = sources.query_vector(query) + sources.query_vector("cities")
    exact = [rowid for rowid, _ in sources.units.nearest_among(vector, places, 10)]
    assert sorted(exact) == sorted(places)
    assert run_lanes(sources, query, worlds, 100, open_only_at=now_us())["typed"] == exact
    among = sources.units.nearest_among
    monkeypatch.setattr(sources.units, "nearest_among", lambda v, nodes, k: among(v, nodes, k)[:1])
    assert run_lanes(sources, query, worlds, 100, open_only_at=now_us())["typed"] == exact[:1] + [
        r for r in sorted(places, reverse=True) if r != exact[0]]
