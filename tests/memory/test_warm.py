"""Engine.warm: the in-memory indexes are built from the file before the first read needs them."""

from __future__ import annotations

import dataclasses

import pytest
from mcp import Client

from tests.server.helpers import make_config, ok
from tests.support import ALICE, open_engine
from worlddb.server import build_server

pytestmark = pytest.mark.both_backends


@pytest.mark.sqlite_only("the in-process HNSW indexes; PostgreSQL searches pgvector's index inside the database")
def test_warm_builds_every_index_from_the_file_before_the_first_read(db_path):
    with open_engine(db_path) as writer:
        written = writer.write_memories([{"text": f"Note {i}. It has two sentences."} for i in range(30)], ALICE)
    with open_engine(db_path) as engine:
        assert len(engine.index) == 0 and len(engine.units) == 0
        engine.warm()
        assert engine.index.nodes() == {engine.store.rowid(r.id) for r in written}
        assert len(engine.units) == 60  # two sentence vectors per memory
        engine.warm()  # nothing left to apply: a no-op
        assert len(engine.index) == 30


async def test_a_server_with_background_work_answers_while_its_indexes_are_built(db_path):
    with open_engine(db_path) as writer:
        target = writer.write_memory("The spare key is under the blue flowerpot", ALICE)
        writer.write_memories([{"text": f"Unrelated note {i}"} for i in range(50)], ALICE)
    config = dataclasses.replace(make_config(db_path), background=True)
    async with Client(build_server(config)) as client:
        found = await ok(client, "memory_recall", query="where is the spare key", limit=3)
        assert found["results"][0]["id"] == target.id


@pytest.mark.sqlite_only("HNSW snapshots saved beside a SQLite file")
def test_a_warmed_store_saves_its_indexes_and_the_next_process_loads_them(db_path):
    with open_engine(db_path) as writer:
        writer.write_memories([{"text": f"Reading list entry {i} about topic {i % 37}"} for i in range(2_100)], ALICE)
    with open_engine(db_path) as first:
        first.warm()
        assert first.index.source == "rebuilt"
    with open_engine(db_path) as second:
        second.warm()
        assert (second.index.source, second.units.source) == ("snapshot", "snapshot")
        assert len(second.index) == 2_100
        hits = second.recall("Reading list entry 1234", ALICE, limit=3)
        assert hits.results[0].text == "Reading list entry 1234 about topic 13"
        assert "vector" in hits.results[0].lanes  # the loaded graph answered


def test_warm_builds_the_date_parsers_tables(db_path, monkeypatch):
    from worlddb.extract import temporal

    parsed = []
    real = temporal.dateparser.parse

    def parse(*args, **options):
        parsed.append(options.get("languages"))
        return real(*args, **options)

    monkeypatch.setattr(temporal.dateparser, "parse", parse)
    with open_engine(db_path) as engine:
        engine.warm()
    assert parsed == [["en"]]  # the language the extractor parses dates in, loaded before any write
