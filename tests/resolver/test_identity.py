"""No silent merge anywhere; scope isolation; accept/reject round trips; export and erasure."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worlddb.core.errors import Conflict
from worlddb.core.records import Edge, Node
from worlddb.resolver import (
    Ambiguous,
    New,
    Resolved,
    Resolver,
    accept_merge,
    equivalence_class,
    normalize_name,
    reject_merge,
)

NAMES = ["Sarah", "sarah", "Sara", "Sarai", "Phillip", "Filip", "Jon", "John", "Joan", "Anna", "Hanna",
         "Bob", "Robert", "NYC", "New York City", "Stephen", "Steven", "Jordan"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=12))
def test_resolution_never_merges_silently(tmp_path_factory, synonyms, names):
    from worlddb.graph.database import WorldDB

    db = WorldDB.open(tmp_path_factory.mktemp("silent") / "memory.db")
    resolver = Resolver(db, embedder=synonyms)
    with db.write() as w:
        scope = w.scope("user", "alice")
    known: dict[str, set[str]] = {}  # entity -> the normalised names it was created with
    for name in names:
        with db.write() as w:
            outcome = resolver.resolve(w, scope, (name,))
        if isinstance(outcome, Resolved) and outcome.tier == "exact":
            assert normalize_name(name) in known[outcome.entity]  # reuse only on the same normalised name
            assert outcome.proposals == ()
        else:
            assert outcome.entity not in known  # anything else is a new entity ...
            known[outcome.entity] = {normalize_name(name)}
            expected = {Resolved: 1, New: 0}.get(type(outcome))
            n = len(outcome.options) if isinstance(outcome, Ambiguous) else expected
            assert len(outcome.proposals) == n  # ... with one pending proposal per match
    statuses = {row[0] for row in db.store.conn.execute("SELECT status FROM proposals")}
    assert statuses <= {"pending"}
    for entity in known:
        assert equivalence_class(db.store, entity) == {entity}
    resolver.close()
    db.close()


def test_entities_of_one_scope_are_never_matched_in_another(db, resolve, synonyms):
    resolver = Resolver(db, embedder=synonyms)
    with db.write() as w:
        alice = w.scope("user", "alice")
    originals = resolve(resolver, alice, "Sarah", "Phillip", "Robert", "NYC")
    for i, mention in enumerate(["Sarah", "Sara", "Filip", "Bob", "New York City"]):  # one per tier
        with db.write() as w:
            elsewhere = w.scope("user", f"other-{i}")
        assert resolver.find_mentions([elsewhere], mention) == []
        (outcome,) = resolve(resolver, elsewhere, mention)
        assert isinstance(outcome, New), (mention, outcome)
        assert db.store.parents(outcome.entity) == [elsewhere]
    assert {m.anchor for m in resolver.find_mentions([alice], "Sarah, Phillip")} == {
        originals[0].entity, originals[1].entity}


def test_the_hnsw_search_of_a_large_scope_stays_inside_it(db, resolve, synonyms):
    from worlddb.resolver.tiers import BRUTE_FORCE_MAX

    resolver = Resolver(db, embedder=synonyms)
    with db.write() as w:
        big, small = w.scope("user", "big"), w.scope("user", "small")
    with db.write() as w:
        for i in range(BRUTE_FORCE_MAX + 20):  # past brute force: the HNSW path with a scope filter
            filler = w.add(Node("Entity", name=f"filler {i}", created_at=i), valid_from=0, parents=[big])
            resolver.register(w, big, filler)
    (robert,) = resolve(resolver, big, "Robert")
    (bob_small,) = resolve(resolver, small, "Bob")
    assert isinstance(bob_small, New)
    (bob_big,) = resolve(resolver, big, "Bob")
    assert bob_big.tier == "embedding" and bob_big.match.anchor == robert.entity


def test_a_memory_written_for_two_scopes_resolves_in_each_separately(db, resolver):
    with db.write() as w:
        alice, team = w.scope("user", "alice"), w.scope("app", "team")
        memory = w.add(Node("Memory", content="Sarah called"), parents=[alice, team])
        in_alice = resolver.resolve(w, alice, ("Sarah",), provenance={"memory": memory})
        in_team = resolver.resolve(w, team, ("Sarah",), provenance={"memory": memory})
    assert in_alice.entity != in_team.entity
    assert db.store.parents(in_alice.entity) == [alice]
    assert db.store.parents(in_team.entity) == [team]


def test_accept_then_reject_round_trips(db, resolver, scope, resolve):
    sarah, sara, sarra = resolve(resolver, scope, "Sarah", "Sara", ("Sarrah", None, ["Sarahh"]))
    with db.write() as w:
        accepted = accept_merge(w, sara.proposals[0])
    assert accepted.status == "accepted"
    assert equivalence_class(db.store, sara.entity) == {sarah.entity, sara.entity}
    with db.write() as w:
        for pid in sarra.proposals:
            rejected = reject_merge(w, pid, reason="a different Sarah")
            assert (rejected.status, rejected.reason) == ("rejected", "a different Sarah")
    assert sarra.entity not in equivalence_class(db.store, sarah.entity)
    with pytest.raises(Conflict):
        with db.write() as w:
            accept_merge(w, sara.proposals[0])


def test_export_identity_lists_every_member_and_source(db, resolver, scope):
    with db.write() as w:
        m1 = w.add(Node("Memory", content="Sarah likes tea", created_at=1), parents=[scope])
        sarah = resolver.resolve(w, scope, ("Sarah", "person"), provenance={"memory": m1, "turn": "t1"})
        w.link(Edge("refers_to", m1, sarah.entity))
    with db.write() as w:
        m2 = w.add(Node("Memory", content="Sara moved", created_at=2), parents=[scope])
        sara = resolver.resolve(w, scope, ("Sara", "person"), provenance={"memory": m2, "turn": "t2"})
        w.link(Edge("refers_to", m2, sara.entity))
    with db.write() as w:
        accept_merge(w, sara.proposals[0])
    export = resolver.export_identity(sarah.entity)
    members = {m["id"]: m for m in export["members"]}
    assert set(members) == {sarah.entity, sara.entity}
    assert members[sarah.entity]["provenance"] == {"memory": m1, "turn": "t1"}
    assert members[sara.entity]["provenance"] == {"memory": m2, "turn": "t2"}
    assert members[sarah.entity]["mentioned_by"] == [m1]
    assert members[sara.entity]["mentioned_by"] == [m2]
    assert [n["norm"] for n in members[sara.entity]["resolver_names"]] == ["sara"]
    assert [p["status"] for p in export["proposals"]] == ["accepted"]


def test_an_erased_entity_leaves_no_names_and_matches_nothing(db, resolver, scope, resolve):
    (sarah,) = resolve(resolver, scope, ("Sarah", None, ["Sally"]))
    with db.write() as w:
        w.erase(sarah.entity)
    rows = db.store.conn.execute("SELECT norm, phon, etype FROM resolver_names").fetchall()
    assert rows and all(row == (None, None, None) for row in rows)
    assert resolver.find_mentions([scope], "Sarah and Sally") == []
    for mention in ("Sarah", "Sally", "Sara"):
        (outcome,) = resolve(resolver, scope, mention)
        assert outcome.entity != sarah.entity


def test_a_rolled_back_write_leaves_no_names_behind(db, resolver, scope, resolve):
    with pytest.raises(RuntimeError):
        with db.write() as w:
            resolver.resolve(w, scope, ("Sarah",))
            raise RuntimeError("the caller's write fails later")
    assert db.store.conn.execute("SELECT count(*) FROM resolver_names").fetchone()[0] == 0
    (sara,) = resolve(resolver, scope, "Sara")
    assert isinstance(sara, New)


def test_two_writers_on_one_file_create_sarah_once(db_path, scope):
    import threading

    from worlddb.graph.database import WorldDB

    barrier = threading.Barrier(2)
    out = []

    def writer():
        own = WorldDB.open(db_path)
        resolver = Resolver(own)
        barrier.wait()
        with own.write() as w:
            out.append(resolver.resolve(w, scope, ("Sarah",)))
        resolver.close()
        own.close()

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(type(o).__name__ for o in out) == ["New", "Resolved"]
    assert len({o.entity for o in out}) == 1


def test_prepared_vectors_keep_the_model_out_of_the_write(db, scope, synonyms):
    resolver = Resolver(db, embedder=synonyms)
    prepared = resolver.prepare([("Robert",), ("Bob",)])
    calls = synonyms.calls
    with db.write() as w:
        robert = resolver.resolve(w, scope, ("Robert",), prepared=prepared)
    with db.write() as w:
        bob = resolver.resolve(w, scope, ("Bob",), prepared=prepared)
    assert synonyms.calls == calls
    assert bob.match.anchor == robert.entity and bob.tier == "embedding"


def test_one_embedding_model_per_database(db, scope, resolve, synonyms):
    from worlddb.vectors.embedder import HashEmbedder

    resolve(Resolver(db, embedder=synonyms), scope, "Sarah")
    with pytest.raises(Conflict):
        Resolver(db, embedder=HashEmbedder())


def test_an_entity_taken_out_of_its_scope_is_no_longer_matched_there(db, resolver, scope, resolve):
    (sarah,) = resolve(resolver, scope, "Sarah")
    with db.write() as w:
        bob = w.scope("user", "bob")
        w.unlink(Edge("contains", scope, sarah.entity))
        w.link(Edge("contains", bob, sarah.entity))
    (again,) = resolve(resolver, scope, "Sarah")
    assert again.entity != sarah.entity and db.store.in_worlds([scope], [again.entity])
    assert not again.proposals
