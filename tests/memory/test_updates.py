"""Update detection at write time, through the Engine: supersede, conflict, duplicate, related."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support import ALICE, BOB, open_engine
from worlddb.core.backends import is_url
from worlddb.core.errors import InvalidInput
from worlddb.core.timeutil import parse_time
from worlddb.handlers import HandlerRegistry
from worlddb.handlers.functional import FunctionalRelation
from worlddb.memory import slot_readings, update_candidates, updates
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import default_embedder

pytestmark = pytest.mark.both_backends


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat()


@pytest.fixture
def model_engine(db_path):
    """An engine with the real model: where a candidate is found by meaning alone ("I moved to
    Denver" for "I live in Austin", no word in common), hashed vectors find nothing."""
    opened = open_engine(db_path, embedder=default_embedder())
    yield opened
    opened.close()


def test_a_new_value_supersedes_the_old_memory_and_recall_shows_the_change(model_engine):
    engine = model_engine
    old = engine.write_memory("I live in Austin, Texas.", ALICE, valid_from=ago(200))
    engine.write_memory("I visited Boston in March for a wedding.", ALICE, valid_from=ago(100))
    new = engine.write_memory("I moved to Denver last month.", ALICE)
    assert new.superseded == [old.id] and not new.conflicts and new.duplicate_of is None
    closed = engine.store.get(old.id)
    assert closed.valid_to == parse_time(new.valid_from)
    hits = engine.recall("Where do I live?", ALICE).results
    assert hits[0].id == new.id and hits[0].supersedes == [old.id]
    assert old.id not in [h.id for h in hits]
    history = {h.id: h for h in engine.recall("Where do I live?", ALICE, include_retired=True).results}
    assert history[old.id].superseded_by == [new.id] and history[old.id].valid_to is not None
    listed = {m.id: m for m in engine.list_memories(ALICE, include_retired=True).memories}
    assert listed[old.id].superseded_by == [new.id] and listed[new.id].supersedes == [old.id]
    assert engine.read_memory(old.id, ALICE).superseded_by == [new.id]


def test_a_statement_for_an_earlier_time_is_history_the_stored_one_ends(engine):
    stored = engine.write_memory("My manager is Dana Cole.", ALICE, valid_from=ago(10))
    older = engine.write_memory("My manager is Eli Park.", ALICE, valid_from=ago(40))
    assert older.superseded == [] and older.conflicts == [] and older.superseded_by == [stored.id]
    assert engine.store.get(older.id).valid_to == engine.store.get(stored.id).valid_from
    assert engine.store.get(stored.id).valid_to is None
    hits = engine.recall("Who is my manager?", ALICE).results
    assert hits[0].id == stored.id and older.id not in [h.id for h in hits]
    then = engine.recall("Who is my manager?", ALICE, as_of=ago(20)).results
    assert then[0].id == older.id


def test_the_same_statement_again_writes_nothing_and_names_the_memory(engine):
    first = engine.write_memory("My phone number is 415-555-0198.", ALICE)
    rows = engine.store.conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    again = engine.write_memory("my phone number is 415-555-0198", ALICE)
    assert again.duplicate_of == first.id and again.id == first.id
    assert engine.store.conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == rows
    # a duplicate must already be in every scope named; otherwise it is written
    both = engine.write_memory("My phone number is 415-555-0198.", ScopeSet.of(user="alice", agent="helper"))
    assert both.duplicate_of is None and both.id != first.id


def test_compatible_additions_stay_current_and_are_reported_as_related(engine):
    french = engine.write_memory("I speak French fluently.", ALICE, valid_from=ago(30))
    german = engine.write_memory("I also speak some German from a year in Berlin.", ALICE)
    assert german.superseded == [] and german.conflicts == [] and french.id in german.related
    assert engine.store.get(french.id).valid_to is None
    hit = {h.id: h for h in engine.recall("Which languages do I speak?", ALICE).results}
    assert not hit[french.id].superseded_by and not hit[french.id].conflicts


def test_another_scope_is_never_compared_or_changed(engine):
    alice = engine.write_memory("I live in Austin.", ALICE, valid_from=ago(50))
    bob = engine.write_memory("I moved to Denver.", BOB)
    assert bob.superseded == [] and bob.related == []
    assert engine.store.get(alice.id).valid_to is None


def test_functional_relations_from_facts_and_registered_handlers_hold_one_value(db_path, tmp_path):
    with open_engine(db_path, functional=("drives",)) as engine:
        old = engine.write_memory("Car note one.", ALICE, valid_from=ago(9),
                                  facts=[{"subject": "alice", "relation": "drives", "object": "Civic"}])
        new = engine.write_memory("Car note two.", ALICE,
                                  facts=[{"subject": "alice", "relation": "drives", "object": "Tesla"}])
        assert old.id in new.superseded
    registry = HandlerRegistry.default()
    registry.register(FunctionalRelation("plays_for"))
    with open_engine(tmp_path / "other.db", registry=registry) as engine:
        old = engine.write_memory("Team note one.", ALICE, valid_from=ago(9),
                                  facts=[{"subject": "Ana", "relation": "plays_for", "object": "Benfica"}])
        new = engine.write_memory("Team note two.", ALICE,
                                  facts=[{"subject": "Ana", "relation": "plays_for", "object": "Porto"}])
        assert old.id in new.superseded
    with open_engine(tmp_path / "third.db") as engine:  # without either, two values may hold at once
        engine.write_memory("Team note one.", ALICE, valid_from=ago(9),
                            facts=[{"subject": "Ana", "relation": "plays_for", "object": "Benfica"}])
        assert engine.write_memory("Team note two.", ALICE, facts=[
            {"subject": "Ana", "relation": "plays_for", "object": "Porto"}]).superseded == []


def test_a_process_that_has_not_built_its_indexes_compares_with_the_latest_memories(db_path):
    with open_engine(db_path, embedder=default_embedder()) as first:
        old = first.write_memory("I live in Austin.", ALICE, valid_from=ago(90))
    # nothing read yet: a write does not build the HNSW indexes
    with open_engine(db_path, embedder=default_embedder()) as cold:
        new = cold.write_memory("We moved to Denver last month.", ALICE)
        # on PostgreSQL the search runs in the database (pgvector): there is nothing to build
        assert new.superseded == [old.id]
        assert cold.index.source == ("database" if is_url(str(db_path)) else "empty")


def test_a_batch_import_is_written_as_given(engine):
    old = engine.write_memory("I live in Austin.", ALICE, valid_from=ago(90))
    written = engine.write_memories([{"text": "We moved to Denver."}, {"text": "I work at Stripe."}], ALICE)
    assert all(r.superseded == [] for r in written) and engine.store.get(old.id).valid_to is None


def test_a_candidate_closed_meanwhile_is_left_alone(engine):
    old = engine.write_memory("I live in Austin.", ALICE, valid_from=ago(50))
    engine.retire(old.id, ALICE, reason="wrong")
    closed_at = engine.store.get(old.id).valid_to
    superseded, conflicts = [], []
    with engine.db.write() as w:
        world = w.scope("user", "alice")
        from worlddb.core.records import Node

        anchor = w.add(Node("Memory", content="I moved to Denver."), valid_from=parse_time(ago(1)), parents=[world])
        updates.apply(engine.services, w, anchor, parse_time(ago(1)),
                      updates.Assessment(superseded=(old.id,), revised=((old.id, frozenset({"home"})),)),
                      superseded, conflicts, revised := [])
    assert superseded == [] and conflicts == [] and revised == [] and engine.store.get(old.id).valid_to == closed_at
    assert engine.store.edges(src=anchor, type="revises") == []


def test_retire_takes_when_it_stopped_being_true(engine):
    memory = engine.write_memory("I am training for a marathon.", ALICE, valid_from=ago(100))
    for bad in (ago(-1), ago(200)):
        with pytest.raises(InvalidInput):
            engine.retire(memory.id, ALICE, valid_to=bad)
    assert engine.store.get(memory.id).valid_to is None and not engine.store.get(memory.id).retired
    done = engine.retire(memory.id, ALICE, valid_to=ago(30))
    assert done.retired and engine.store.get(memory.id).valid_to == parse_time(done.valid_to)
    assert abs(parse_time(done.valid_to) - parse_time(ago(30))) < 5_000_000
    assert engine.recall("marathon", ALICE, as_of=ago(50)).results[0].id == memory.id
    assert engine.recall("marathon", ALICE, as_of=ago(10)).results == []


def test_amend_takes_when_the_change_happened(engine):
    memory = engine.write_memory("The standup is at 9:30.", ALICE, valid_from=ago(100))
    with pytest.raises(InvalidInput):
        engine.amend(memory.id, "The standup is at 10:15.", ALICE, valid_from=ago(200))
    assert engine.store.get(memory.id).valid_to is None
    amended = engine.amend(memory.id, "The standup is at 10:15.", ALICE, valid_from=ago(20))
    assert engine.store.get(memory.id).valid_to == parse_time(amended.valid_from)
    assert engine.recall("standup time", ALICE, as_of=ago(50)).results[0].id == memory.id
    assert engine.recall("standup time", ALICE).results[0].id == amended.id


def test_a_statement_without_slot_claims_is_judged_only_against_its_repeats(model_engine):
    engine = model_engine
    # the built-in judge can find nothing in it but a repeat, so its BM25 candidates are
    # the memories holding all of its words
    for i in range(12):
        engine.write_memory(f"Priya planted {i} rows of tomatoes in the garden in Tromso.", ALICE)
    first = engine.write_memory("Priya planted tomatoes in Tromso.", ALICE)
    again = engine.write_memory("priya planted TOMATOES in Tromso", ALICE)
    assert again.duplicate_of == first.id
    # a statement with a slot claim is still compared with the best matches of any word
    home = engine.write_memory("I live in Tromso.", ALICE, valid_from=ago(30))
    assert engine.write_memory("I moved to Leeds.", ALICE).superseded == [home.id]


def test_the_all_words_search_finds_only_texts_holding_every_word(engine):
    from worlddb.graph.lexical import lexical

    texts = ["Ana painted the fence in Lisbon.", "Ana painted a boat.", "Ben painted the fence in Lisbon."]
    ids = [engine.write_memory(t, ALICE).id for t in texts]
    worlds = engine.scope_anchors(ALICE)
    rowids = {engine.store.rowid(a): a for a in ids}
    every = [rowids[r] for r, _ in lexical(engine.store, "ana painted lisbon", worlds, 8, every=True)]
    assert every == [ids[0]]
    some = {rowids[r] for r, _ in lexical(engine.store, "ana painted lisbon", worlds, 8)}
    assert some == set(ids)


def test_the_judges_candidates_are_the_same_whether_or_not_the_bm25_search_runs(engine, monkeypatch):
    # BM25-only finds rank after every vector neighbour, so when the neighbours fill the
    # candidates the search is skipped; the candidates are those of the search run anyway
    searched = []
    monkeypatch.setattr(update_candidates, "lexical", lambda *a, **k: searched.append(a[1]) or lexical(*a, **k))
    from worlddb.graph.lexical import lexical

    def candidates(text: str) -> tuple[dict[str, float], dict[str, float]]:
        worlds, item = engine.scope_anchors(ALICE), engine.services.embedder
        vector = item.embed([text])[0]
        units = vector.reshape(1, -1)
        got = update_candidates.find(engine.services, worlds, text, vector, units)
        # the union of both searches, ranked as before the search could be skipped
        with monkeypatch.context() as m:
            m.setattr(update_candidates, "CANDIDATES", 10**6)
            union = update_candidates.find(engine.services, worlds, text, vector, units)
        return got, dict(sorted(union.items(), key=lambda kv: -kv[1])[:2 * update_candidates.NEIGHBOURS])

    engine.write_memory("Kofi fixed the bike brakes in Leeds.", ALICE)
    searched.clear()
    few, union = candidates("Kofi fixed the bike brakes in Leeds last weekend")
    assert searched and few == union  # too few neighbours: the search ran

    for i in range(40):
        engine.write_memory(f"Kofi fixed the bike brakes in Leeds on day {i}.", ALICE)
    engine.recall("bike", ALICE)  # a serving process has its indexes built
    searched.clear()
    full, union = candidates("Kofi fixed the bike brakes in Leeds yesterday")
    assert len(full) == 2 * update_candidates.NEIGHBOURS and full == union
    assert searched == ["Kofi fixed the bike brakes in Leeds yesterday"]  # only the union asked


def test_a_memory_changed_only_in_part_is_revised_and_keeps_what_is_still_true(model_engine):
    engine = model_engine
    old = engine.write_memory("I live in Austin and work at Dell.", ALICE, valid_from=ago(200),
                              facts=[{"subject": "alice", "relation": "lives_in", "object": "Austin"},
                                     {"subject": "alice", "relation": "works_at", "object": "Dell"}])
    new = engine.write_memory("I moved to Denver last month.", ALICE)
    assert new.revised == [old.id] and new.superseded == [] and not new.conflicts
    assert engine.store.get(old.id).valid_to is None  # "work at Dell" is still true
    detail = engine.read_memory(old.id, ALICE)
    assert detail.annotations == {"revised_by": [new.id]}
    facts = {f.relation: f for f in detail.facts}
    assert facts["lives_in"].valid_to is not None and facts["works_at"].valid_to is None
    assert engine.read_memory(new.id, ALICE).annotations == {"revises": [old.id]}
    # both stay findable, each naming the other; asked about the changed slot the newer comes
    # first, asked about the part left alone the revised memory does
    for question, order in (("Where do I live?", [new.id, old.id]), ("Where do I work?", [old.id, new.id])):
        hits = {h.id: h for h in engine.recall(question, ALICE).results if h.id in (old.id, new.id)}
        assert list(hits) == order, question
        assert hits[old.id].annotations == {"revised_by": [new.id]} and hits[old.id].superseded_by == []


@pytest.mark.parametrize("old_text, new_text", [
    # role and employer are one family: a new job changes both
    ("I'm a nurse at St. Mary's Hospital.", "I now work at a Kaiser Permanente clinic - left the hospital job."),
    # who the husband is, said again
    ("My husband Ravi works at Boeing.", "My husband Ravi has a new job at Microsoft."),
    # where the old manager managed says who the manager was (revisions.HELD_AT)
    ("Bob Smith is my manager at Dell.", "Priya Nair is my manager now."),
    # the rest refers back to the home that changed, or is no statement of anyone else's
    ("I live in Austin and love it here.", "I moved to Denver."),
    ("I live in Austin. My kids love it there.", "I moved to Denver."),
    ("I work at Google. My boss just bought a boat.", "I now work at Meta."),
])
def test_an_update_that_covers_what_the_memory_says_still_supersedes_it(model_engine, old_text, new_text):
    old = model_engine.write_memory(old_text, ALICE, valid_from=ago(300))
    new = model_engine.write_memory(new_text, ALICE)
    assert new.superseded == [old.id] and new.revised == []
    assert model_engine.store.get(old.id).valid_to is not None


def test_a_change_of_someone_the_memory_says_who_they_are_revises_it(model_engine):
    # "my husband Ravi" says who Ravi is, which "Ravi's new job" leaves alone
    old = model_engine.write_memory("My husband Ravi works at Boeing.", ALICE, valid_from=ago(300))
    new = model_engine.write_memory("Ravi's new job at Microsoft comes with a much shorter commute.", ALICE)
    assert new.revised == [old.id] and new.superseded == []
    facts = {f.relation: f.valid_to for f in model_engine.read_memory(old.id, ALICE).facts}
    assert facts["has_husband"] is None and facts["works_at"] is not None


@pytest.mark.parametrize("old_text, new_text, kept", [
    # the speaker's name, read in letters of any script
    ("Hi! I'm Tomás, I work as a sous chef at Bellwether.", "I quit Bellwether, I'm head chef at Fern & Fig now", ""),
    # what is said of the one a changed relation named, but where it held
    ("my girlfriend Sam is a nurse", "Sam and I broke up", "is_a"),
    ("Bob Smith is my manager at Dell and he lives in Austin.", "Priya Nair is my manager now.", ""),
    # news of someone else that no slot reads
    ("I work at Google. My daughter just started kindergarten.", "I now work at Meta.", ""),
    ("I work at Google. Sam got promoted last week.", "I now work at Meta.", ""),
])
def test_an_update_that_leaves_a_statement_of_the_memory_alone_revises_it(model_engine, old_text, new_text, kept):
    old = model_engine.write_memory(old_text, ALICE, valid_from=ago(300), metadata={"speaker": "user"})
    new = model_engine.write_memory(new_text, ALICE, metadata={"speaker": "user"})
    assert new.revised == [old.id] and new.superseded == []
    assert model_engine.store.get(old.id).valid_to is None
    facts = {f.relation: f.valid_to for f in model_engine.read_memory(old.id, ALICE).facts}
    assert kept == "" or facts[kept] is None


@pytest.mark.parametrize("old_text", ["I have a dog named Rex. I also have a cat named Tom.",
                                      "I have a dog named Rex and a cat named Tom."])
@pytest.mark.parametrize("new_text", ["Rex passed away.", "Our dog Rex died."])
def test_one_of_several_values_of_a_slot_ended_leaves_the_others(model_engine, old_text, new_text):
    old = model_engine.write_memory(old_text, ALICE, valid_from=ago(90))
    new = model_engine.write_memory(new_text, ALICE)
    assert new.revised == [old.id] and new.superseded == []
    assert model_engine.store.get(old.id).valid_to is None


def test_a_memory_whose_every_slot_was_changed_one_revision_at_a_time_is_superseded_by_the_last(model_engine):
    engine = model_engine
    old = engine.write_memory("I live in Austin and work at Dell.", ALICE, valid_from=ago(200))
    moved = engine.write_memory("I moved to Denver last month.", ALICE, valid_from=ago(30))
    assert moved.revised == [old.id]
    job = engine.write_memory("I started a new job at Google this week, I left Dell.", ALICE)
    assert job.superseded == [old.id] and job.revised == []
    assert engine.store.get(old.id).valid_to == parse_time(job.valid_from)
    detail = engine.read_memory(old.id, ALICE)
    assert detail.superseded_by == [job.id] and detail.annotations == {"revised_by": [moved.id]}
    assert old.id not in [h.id for h in engine.recall("Where do I work?", ALICE).results]


def test_the_current_facts_of_many_memories_are_read_at_once_as_each_memorys_own(engine):
    """slot_readings.stored_facts_of: each memory's current facts as the extractor's candidates, an
    entity object by its name, in the order they were written; an ended fact and a memory
    without facts give none."""
    car = engine.write_memory("Car note.", ALICE, valid_from=ago(9), facts=[
        {"subject": "alice", "relation": "drives", "object": "Civic"},
        {"subject": "Ana", "relation": "plays_for", "object": "Benfica"}])
    plain = engine.write_memory("The office coffee machine broke again.", ALICE)
    moved = engine.write_memory("I live in Austin.", ALICE, valid_from=ago(30))
    assert [f.object for f in slot_readings.stored_facts_of(engine.store, [moved.id])[moved.id]] == ["Austin"]
    engine.write_memory("I moved to Denver.", ALICE, valid_from=ago(1))
    found = slot_readings.stored_facts_of(engine.store, [car.id, plain.id, moved.id])
    assert [(f.subject, f.relation, f.object) for f in found[car.id]] == [
        ("alice", "drives", "Civic"), ("Ana", "plays_for", "Benfica")]
    assert plain.id not in found and moved.id not in found  # the move ended Austin's fact
    assert found[car.id] == slot_readings.stored_facts(engine.store, car.id)
    assert slot_readings.stored_facts(engine.store, plain.id) == []
    assert slot_readings.stored_facts_of(engine.store, []) == {}
