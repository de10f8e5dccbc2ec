"""A write in steps (prepare, names, commit) decides at its commit, against the store as it is
then: what happened between its steps counts as if it had come first."""

from __future__ import annotations

import pytest

from tests.support import ALICE, open_engine
from worlddb.core.errors import InvalidInput


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
