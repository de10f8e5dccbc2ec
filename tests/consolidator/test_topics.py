"""Topic worlds: built by the consolidator, joined at write time, kept per scope, levelled."""

from __future__ import annotations

import pytest

from tests.support import ALICE, BOB, open_engine
from worlddb.consolidator import Consolidator
from worlddb.consolidator import topics as topiclib
from worlddb.consolidator.topics import TOPIC, topic_root
from worlddb.memory.scopes import ScopeSet

GARDEN = [f"The {plant} in the garden needs water and sun every {day}." for plant in
          ("tomato", "basil", "rose", "pepper", "tulip", "carrot") for day in ("morning", "evening")]
MUSIC = [f"I practised the {piece} on the {instrument} for an hour today." for piece in
         ("sonata", "etude", "nocturne") for instrument in ("piano", "violin", "cello", "flute")]


def consolidate(engine, **options):
    options.setdefault("min_age_secs", 0)
    return Consolidator(engine.db, **options)


def write_all(engine, texts, scopes=ALICE):
    return [engine.write_memory(text, scopes).id for text in texts]


def tree(engine, scope_anchor):
    """topic anchor -> member anchors, for every current topic holding members in the scope."""
    conn = engine.store.conn
    out, frontier = {}, [topic_root(scope_anchor).id]
    while frontier:
        below = [a for t in frontier for _, a in topiclib.children(conn, t, topics=True)]
        for topic in below:
            members = [a for _, a in topiclib.children(conn, topic, topics=False)]
            if members:
                out[topic] = members
        frontier = below
    return out


def scope_of(engine, scopes):
    ((kind, sid),) = scopes
    return engine.store.scope_anchor(kind, sid)


def test_the_pass_groups_a_scope_into_topic_worlds_inside_it(engine):
    ids = write_all(engine, GARDEN + MUSIC)
    report = consolidate(engine).topics()
    scope = scope_of(engine, ALICE)
    found = tree(engine, scope)
    assert report.topics and len(found) >= 2
    members = [m for group in found.values() for m in group]
    assert sorted(members) == sorted(ids)  # every memory in exactly one topic
    for topic in found:
        view = engine.store.get(topic)
        assert view.type == TOPIC and engine.store.in_worlds([scope], [topic]) == {topic}
    garden = set(ids[:len(GARDEN)])
    # the two subjects do not share a topic
    assert all(set(group) <= garden or not set(group) & garden for group in found.values())
    assert engine.db.verify().ok


def test_an_unchanged_scope_is_not_clustered_again(engine):
    write_all(engine, GARDEN + MUSIC)
    consolidate(engine).topics()
    again = consolidate(engine).topics()
    assert again.transactions == 0 and not again.topics


def test_too_few_memories_get_no_topics(engine):
    write_all(engine, GARDEN[:3])
    report = consolidate(engine).topics()
    assert not report.topics and engine.store.rowid(topic_root(scope_of(engine, ALICE)).id) is None


def test_a_new_memory_joins_its_nearest_topic_in_its_own_write(engine):
    write_all(engine, GARDEN + MUSIC)
    consolidate(engine).topics()
    scope = scope_of(engine, ALICE)
    new = engine.write_memory("I practised the sonata on the piano again this evening.", ALICE).id
    holders = [t for t, members in tree(engine, scope).items() if new in members]
    assert len(holders) == 1
    neighbours = set(tree(engine, scope)[holders[0]]) - {new}
    assert neighbours and {engine.store.get(n).content for n in neighbours} <= set(MUSIC)
    assert engine.db.verify().ok


def test_topics_never_span_scopes(engine):
    both = ScopeSet((("user", "alice"), ("user", "bob")))
    write_all(engine, GARDEN, ALICE)
    write_all(engine, MUSIC, BOB)
    shared = write_all(engine, ["The rose by the fence needs water every morning."], both)[0]
    consolidate(engine).topics()
    for scopes in (ALICE, BOB):
        scope = scope_of(engine, scopes)
        for members in tree(engine, scope).values():
            assert engine.store.in_worlds([scope], members) == set(members)
    holders = [t for s in (ALICE, BOB) for t, members in tree(engine, scope_of(engine, s)).items()
               if shared in members]
    assert len(holders) == 2  # one topic in each scope it was written to


def test_retired_members_leave_and_topics_keep_their_identity(engine, monkeypatch):
    ids = write_all(engine, GARDEN + MUSIC)
    consolidate(engine).topics()
    scope = scope_of(engine, ALICE)
    before = tree(engine, scope)
    for anchor in ids[:4]:
        engine.retire(anchor, ALICE)
    report = consolidate(engine).topics()
    after = tree(engine, scope)
    assert report.topic_moves >= 4
    assert not {m for group in after.values() for m in group} & set(ids[:4])
    assert set(after) & set(before)  # topics that kept most of their members are the same worlds
    assert engine.db.verify().ok


def test_a_large_scope_gets_levels_of_topics(engine, monkeypatch):
    monkeypatch.setattr(topiclib, "TOPIC_MAX", 4)
    monkeypatch.setattr(topiclib, "FANOUT", 3)
    write_all(engine, GARDEN + MUSIC)
    consolidate(engine).topics()
    root = topic_root(scope_of(engine, ALICE)).id
    conn = engine.store.conn
    top = [a for _, a in topiclib.children(conn, root, topics=True)]
    assert 1 <= len(top) <= 3
    below = [a for t in top for _, a in topiclib.children(conn, t, topics=True)]
    assert below and all(engine.store.get(t).meta["level"] >= 2 for t in top)
    # a write descends the levels to a topic that holds memories
    new = engine.write_memory("The basil in the garden needs water every morning.", ALICE).id
    assert any(new in members for members in tree(engine, scope_of(engine, ALICE)).values())
    assert engine.db.verify().ok


def test_purging_a_scope_lets_its_topics_go_of_shared_memories(db_path):
    engine = open_engine(db_path)
    try:
        both = ScopeSet((("user", "alice"), ("user", "bob")))
        shared = write_all(engine, GARDEN, both)
        consolidate(engine).topics()
        alice = scope_of(engine, ALICE)
        engine.purge_scope(ALICE, "user:alice", erase=True)
        assert not engine.store.in_worlds([alice], shared)
        assert engine.recall("water the garden", BOB, limit=5).results
        assert engine.db.verify().ok
    finally:
        engine.close()


@pytest.mark.parametrize("n", [1, 2, 40])
def test_cluster_is_deterministic_and_partitions_every_row(n):
    import numpy as np

    rng = np.random.default_rng(n)
    x = rng.normal(size=(n, 16)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    first = topiclib.cluster(x)
    assert first == topiclib.cluster(x)
    assert sorted(i for group in first for i in group) == list(range(n))
    assert all(len(group) <= topiclib.TOPIC_MAX for group in first)
