"""The claims index (worlddb.memory.claims, worlddb.retrieval.claims): what a write records, what
a write finds by it."""

from __future__ import annotations

import pytest

from tests.support import ALICE, BOB
from worlddb.core.timeutil import now_us
from worlddb.memory import slot_readings, update_candidates
from worlddb.memory.scopes import scope_anchors
from worlddb.retrieval import claims

pytestmark = pytest.mark.both_backends


def claiming(engine, scopes, text: str) -> list[str]:
    """The anchors the index gives for what `text` claims, as a write in `scopes` finds them."""
    wanted = slot_readings.claim_keys(text, [], scopes.pairs[0][1])
    rowids = claims.claiming(engine.store, scope_anchors(engine.store, scopes), wanted,
                             limit=update_candidates.MAX_CLAIMED, now=now_us())
    anchors = engine.store.anchors_for_rowids(rowids)
    return [anchors[r] for r in rowids]


def rows_of(engine, anchor: str) -> int:
    return engine.store.conn.execute("SELECT count(*) FROM claims WHERE node = ?",
                                     (engine.store.rowid(anchor),)).fetchone()[0]


def test_the_index_finds_the_scopes_current_memories_about_the_same_subject_and_family(engine):
    home = engine.write_memory("I live in Austin, Texas.", ALICE, valid_from="2025-01-01T00:00:00Z")
    job = engine.write_memory("I work at Dell as a tester.", ALICE, valid_from="2025-01-02T00:00:00Z")
    nora = engine.write_memory("My sister Nora lives in Chicago.", ALICE, valid_from="2025-01-03T00:00:00Z")
    engine.write_memory("The office coffee machine broke again.", ALICE, valid_from="2025-01-04T00:00:00Z")
    engine.write_memory("I live in Boston.", BOB, valid_from="2025-01-05T00:00:00Z")
    # the same subject ("me" is the scope's user) and attribute; not Nora's home, not Bob's
    assert claiming(engine, ALICE, "I moved to Denver last month.") == [home.id]
    # a role belongs to the employer's family
    assert claiming(engine, ALICE, "I'm a staff engineer now.") == [job.id]
    assert claiming(engine, ALICE, "Nora moved to Denver.") == [nora.id]
    assert claiming(engine, ALICE, "The office coffee machine broke again.") == []


def test_a_write_supersedes_a_memory_the_vectors_cannot_find_and_the_index_keeps_only_the_current(engine):
    # hashed vectors share no word between the two texts: only the index finds the old one
    old = engine.write_memory("I live in Austin, Texas.", ALICE, valid_from="2025-01-01T00:00:00Z")
    new = engine.write_memory("We moved to Phoenix in the spring.", ALICE)
    assert new.superseded == [old.id]
    assert claiming(engine, ALICE, "I moved to Denver last month.") == [new.id]


def test_a_batch_records_its_claims_and_erasing_the_scope_deletes_them(engine):
    written = engine.write_memories([{"text": "I have a golden retriever named Max."},
                                     {"text": "My favourite band is Radiohead."},
                                     {"text": "The office coffee machine broke again."}], BOB)
    assert [rows_of(engine, w.id) > 0 for w in written] == [True, True, False]
    engine.purge_scope(BOB, "user:bob", erase=True)
    assert [rows_of(engine, w.id) for w in written] == [0, 0, 0]


def test_a_full_name_is_found_by_its_first_name_and_one_write_changes_it(engine):
    # hashed vectors share no word between the two texts: only the index finds the old one
    ana = engine.write_memory("My sister Ana Souza lives in Porto.", ALICE, valid_from="2025-01-01T00:00:00Z")
    assert claiming(engine, ALICE, "Ana moved to Lisbon.") == [ana.id]
    moved = engine.write_memory("Ana moved to Lisbon.", ALICE)
    # (changed in part: the old memory also says who Ana is, the speaker's sister)
    assert moved.revised == [ana.id] and moved.superseded == []
    # another Ana of the scope: which one "Ana" is is not known, so no full name is changed
    # ("Ana moved to Lisbon" says the same words, and is)
    lima = engine.write_memory("Ana Lima lives in Braga.", ALICE, valid_from="2025-01-02T00:00:00Z")
    again = engine.write_memory("Ana moved to Faro.", ALICE)
    assert again.superseded == [moved.id] and engine.store.get(lima.id).valid_to is None


def test_a_person_is_found_by_the_kin_word_the_text_gives_and_another_of_the_same_name_is_left(engine):
    # hashed vectors share few words between the texts: the index finds the old one
    sam = engine.write_memory("My brother Sam works at Intel.", ALICE, valid_from="2025-01-01T00:00:00Z")
    assert claiming(engine, ALICE, "My brother left Intel for AMD.") == [sam.id]
    # a cousin of the same first name is someone else: found by the name, judged apart
    cousin = engine.write_memory("My cousin Sam works at Nvidia.", ALICE, valid_from="2025-01-02T00:00:00Z")
    assert cousin.superseded == [] and engine.store.get(sam.id).valid_to is None
    left = engine.write_memory("My brother left Intel for AMD.", ALICE)
    # (changed in part: the old memory also says who the brother is, Sam)
    assert left.revised == [sam.id] and engine.store.get(cousin.id).valid_to is None
    assert "revised_by" not in engine.read_memory(cousin.id, ALICE).annotations


def test_a_memory_write_finds_the_claimed_memory_behind_newer_turns_that_claim_the_same(engine):
    # hashed vectors share no word between the texts: only the index finds the old memory, and
    # the turns' newer rows for the same key must not take the places the judge reads
    old = engine.write_memory("I live in Austin, Texas.", ALICE, valid_from="2025-01-01T00:00:00Z")
    engine.write_messages([{"role": "user", "content": f"I live in {city}."} for city in ("Reno", "Tulsa", "Omaha")],
                          ALICE, valid_from="2025-02-01T00:00:00Z")
    assert len(claiming(engine, ALICE, "I moved to Denver last month.")) == update_candidates.MAX_CLAIMED
    new = engine.write_memory("We moved to Phoenix in the spring.", ALICE)
    assert new.superseded == [old.id]
