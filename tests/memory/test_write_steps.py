"""A write in steps (prepare, names, commit) decides at its commit, against the store as it is
then: what happened between its steps counts as if it had come first. Its first step runs
the extractor while the model embeds its texts."""

from __future__ import annotations

import threading

import pytest

from tests.support import ALICE, open_engine
from worlddb.core.errors import InvalidInput
from worlddb.extract.builtin import BuiltinExtractor
from worlddb.vectors.embedder import HashEmbedder


def test_an_amend_of_a_memory_amended_between_its_steps_is_refused(db_path):
    engine = open_engine(db_path)
    try:
        first = engine.write_memory("Alice lives in Lisbon.", ALICE)
        target = engine.amend_target(first.id, "Alice lives in Porto.", ALICE)
        prepared = engine.complete(engine.prepare_amend(target))
        other = engine.amend(first.id, "Alice lives in Braga.", ALICE)
        with pytest.raises(InvalidInput, match="no longer current"):
            engine.commit_amend(prepared)
        assert [r.id for r in engine.recall("where does Alice live?", ALICE, limit=3).results][:1] == [other.id]
    finally:
        engine.close()


def test_a_write_judged_at_its_commit_sees_a_duplicate_written_between_its_steps(db_path):
    engine = open_engine(db_path)
    try:
        prepared = engine.complete(engine.prepare_write("Alice adopted a dog named Rex.", ALICE))
        first = engine.write_memory("Alice adopted a dog named Rex.", ALICE)
        (second,) = engine.commit_write(prepared)
        assert first.duplicate_of is None and second.duplicate_of == first.id
    finally:
        engine.close()


class Meeting:
    """An embedder and an extractor that each wait, in their call, until the other's call has
    begun: a write whose steps ran one after the other would never finish them."""

    def __init__(self) -> None:
        self.embedder, self.extractor = HashEmbedder(), BuiltinExtractor()
        self.model_id, self.dim, self.name = self.embedder.model_id, self.embedder.dim, self.extractor.name
        self.embedding, self.extracting = threading.Event(), threading.Event()

    def embed(self, texts):
        self.embedding.set()
        assert self.extracting.wait(30), "the extractor never ran while the model did"
        return self.embedder.embed(texts)

    def extract(self, text, ctx):
        self.extracting.set()
        assert self.embedding.wait(30), "the model never ran while the extractor did"
        return self.extractor.extract(text, ctx)


def test_a_write_runs_its_extractor_while_the_model_embeds_its_text(db_path):
    meeting = Meeting()
    engine = open_engine(db_path, embedder=meeting, extractor=meeting)
    try:
        written = engine.write_memory("Ana painted the fence in Leeds.", ALICE)
        assert meeting.embedding.is_set() and meeting.extracting.is_set()
        assert {e.name for e in written.entities} >= {"Ana", "Leeds"}
        found = engine.recall("who painted the fence?", ALICE, limit=1).results
        assert found[0].id == written.id and "vector" in found[0].lanes
    finally:
        engine.close()
