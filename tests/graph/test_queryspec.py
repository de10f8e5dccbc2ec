"""QuerySpec: the cheapest start set first (seeds, then text, then vector); the rest narrows."""

from __future__ import annotations

import pytest

from tests.support import ALICE
from worlddb.core.errors import InvalidInput
from worlddb.graph.query import QuerySpec


@pytest.fixture
def notes(engine):
    ids = {t: engine.write_memory(t, ALICE).id for t in (
        "Feed the sourdough starter daily", "Sourdough needs a hot oven", "Water the ferns weekly")}
    return engine, ids, engine.scope_anchors(ALICE)


def test_the_start_set_follows_cost_order():
    assert QuerySpec(seeds=("a" * 64,), text="x", vector=[0.0]).start() == "seeds"
    assert QuerySpec(text="x", vector=[0.0]).start() == "text"
    assert QuerySpec(vector=[0.0]).start() == "vector"
    with pytest.raises(InvalidInput):
        QuerySpec().start()


def test_text_seeds_come_from_the_lexical_index(notes):
    engine, ids, worlds = notes
    sub = engine.db.run(QuerySpec(text="sourdough", worlds=tuple(worlds)))
    assert set(sub.nodes) == {ids["Feed the sourdough starter daily"], ids["Sourdough needs a hot oven"]}


def test_vector_seeds_come_from_the_hnsw_index(notes):
    engine, ids, worlds = notes
    vector = engine.embedder.embed(["ferns water weekly"])[0]
    sub = engine.db.run(QuerySpec(vector=vector, limit=1, worlds=tuple(worlds)))
    assert list(sub.nodes) == [ids["Water the ferns weekly"]]


def test_text_narrows_a_seed_start(notes):
    engine, ids, worlds = notes
    spec = QuerySpec(seeds=tuple(ids.values()), text="oven", worlds=tuple(worlds))
    assert list(engine.db.run(spec).nodes) == [ids["Sourdough needs a hot oven"]]


def test_steps_run_after_the_start_set(notes):
    engine, ids, worlds = notes
    spec = QuerySpec(text="starter", worlds=tuple(worlds), steps=(("expand", ["refers_to"], "out", 1),
                                                                 ("filter", ["Memory"])))
    assert set(engine.db.run(spec).nodes) == {ids["Feed the sourdough starter daily"]}
