"""worlddb.graph.facts.facts_about: a subject's facts, found among everything that names it."""

from __future__ import annotations

import pytest

from tests.support import ALICE, open_engine
from worlddb.graph.facts import facts_about

pytestmark = pytest.mark.both_backends


def test_facts_about_reads_the_subjects_facts_not_the_memories_that_name_it(db_path):
    with open_engine(db_path, functional=("drives",)) as engine:
        engine.write_memories([{"text": f"Ana went for a walk, day {i}."} for i in range(40)], ALICE)
        civic = engine.write_memory("Car note.", ALICE,
                                    facts=[{"subject": "Ana", "relation": "drives", "object": "Civic"}])
        engine.write_memory("Work note.", ALICE, facts=[{"subject": "Ana", "relation": "works_at", "object": "Acme"}])
        # Ana as the object of someone else's fact is no fact about her
        engine.write_memory("Ben note.", ALICE, facts=[{"subject": "Ben", "relation": "knows", "object": "Ana"}])
        ana = next(e.id for e in civic.entities if e.name == "Ana")
        drives = facts_about(engine.store, ana, "drives")
        assert [(f.relation, f.object) for f in drives] == [("drives", "Civic")]
        assert [f.anchor for f in drives] == [civic.facts[0].id]
        assert sorted(f.relation for f in facts_about(engine.store, ana)) == ["drives", "works_at"]
        assert facts_about(engine.store, ana, "plays_for") == []
        # the functional relation still replaces the earlier value through them
        tesla = engine.write_memory("Car note two.", ALICE,
                                    facts=[{"subject": "Ana", "relation": "drives", "object": "Tesla"}])
        assert civic.id in tesla.superseded
        # in the order they were written, the replaced one too
        assert [f.object for f in facts_about(engine.store, ana, "drives")] == ["Civic", "Tesla"]
