"""What memory_read lists comes in an order that means something: a memory's entities in the
order the write linked them, its facts in the order they were written, and an entity's facts
newest reference first - never the order records happen to come back from the store in."""

from __future__ import annotations

import pytest

from tests.support import ALICE

pytestmark = pytest.mark.both_backends

PEOPLE = ["Zoe Quinn", "Yusuf Okafor", "Anna Lind", "Marek Nowak", "Ines Duarte", "Kofi Mensah"]


def test_a_memory_lists_its_entities_and_facts_in_the_order_they_were_written(engine):
    facts = [{"subject": name, "relation": "attended", "object": "the reunion"} for name in PEOPLE]
    written = engine.write_memory("Everyone came to the reunion in Porto.", ALICE,
                                  entities=[{"name": name, "type": "person"} for name in PEOPLE], facts=facts)
    detail = engine.read_memory(written.id, ALICE)
    linked = [e.name for e in written.entities]
    assert [e.name for e in detail.entities] == linked
    assert [n for n in linked if n in PEOPLE] == PEOPLE
    assert [f.subject for f in detail.facts] == PEOPLE


def test_an_entity_lists_its_facts_newest_reference_first(engine):
    for day, place in enumerate(["Lisbon", "Quito", "Osaka", "Leeds", "Perth", "Tromso"], start=1):
        engine.write_memory(f"Zoe Quinn visited {place}.", ALICE, valid_from=f"2024-03-0{day}T10:00:00Z",
                            entities=[{"name": "Zoe Quinn", "type": "person"}],
                            facts=[{"subject": "Zoe Quinn", "relation": "visited", "object": place}])
    zoe = engine.find_entities("Zoe Quinn", ALICE)[0]
    detail = engine.read_memory(zoe.id, ALICE).entity
    assert [f.object for f in detail.facts] == ["Tromso", "Perth", "Leeds", "Osaka", "Quito", "Lisbon"]
