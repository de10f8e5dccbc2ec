"""Background re-clustering: never in the way of the write, and its proposals land after it."""

from __future__ import annotations

import threading

import pytest

from worlddb.core.errors import InvalidInput
from worlddb.core.records import Edge, Node
from worlddb.graph import identity
from worlddb.resolver import Reclusterer, reject_merge


class Gate:
    """A tiebreaker that holds the re-clusterer until the test opens it."""

    name = "gate"

    def __init__(self):
        self.entered = threading.Event()
        self.release = threading.Event()

    def choose(self, mention, options):
        self.entered.set()
        assert self.release.wait(10)
        return None


def imported(w, resolver, scope, *names):
    """Entities written without resolution (an import), then indexed."""
    out = []
    for i, name in enumerate(names):
        anchor = w.add(Node("Entity", name=name, created_at=i), valid_from=0, parents=[scope])
        resolver.register(w, scope, anchor)
        out.append(anchor)
    return out


def pending_pairs(db):
    rows = db.store.conn.execute("SELECT a, b FROM proposals WHERE status='pending'")
    return {frozenset(row) for row in rows}


def test_the_write_returns_before_reclustering_finishes_and_its_proposals_land_after(db, resolver, scope):
    gate = Gate()
    reclusterer = Reclusterer.for_resolver(resolver, tiebreaker=gate)
    with db.write() as w:
        sarah, sarai, sara = imported(w, resolver, scope, "Sarah", "Sarai", "Sara")
        reclusterer.watch(w)
    # The write is committed and back; the re-clusterer is still deciding Sara's tie.
    assert gate.entered.wait(10)
    assert pending_pairs(db) == set()
    with db.write() as w:  # and it holds no lock: other writes go through meanwhile
        resolver.resolve(w, scope, ("Omar",))
    gate.release.set()
    assert reclusterer.drain(10)
    assert pending_pairs(db) == {frozenset((sara, sarah)), frozenset((sara, sarai))}
    for p in identity.proposals(db.store, sara):
        assert p.evidence["origin"] == "recluster" and p.tier == "fuzzy"
    reclusterer.stop()
    assert reclusterer.failures == []


def test_what_was_proposed_or_decided_is_not_proposed_again(db, resolver, scope):
    reclusterer = Reclusterer.for_resolver(resolver)
    with db.write() as w:
        sarah = resolver.resolve(w, scope, ("Sarah",))
    with db.write() as w:
        sara = resolver.resolve(w, scope, ("Sara",))
        reclusterer.watch(w)
    assert reclusterer.drain(10)
    assert reclusterer.staged == []  # the write path had proposed Sara ~ Sarah already
    with db.write() as w:
        reject_merge(w, sara.proposals[0], reason="two people")
    with db.write() as w:
        memory = w.add(Node("Memory", content="Sara and Sarah met"), parents=[scope])
        w.link(Edge("refers_to", memory, sara.entity))
        w.link(Edge("refers_to", memory, sarah.entity))
        reclusterer.watch(w)
    assert reclusterer.drain(10)
    assert reclusterer.staged == []
    reclusterer.stop()


def test_entities_two_hops_from_a_new_node_are_re_resolved(db, resolver, scope):
    with db.write() as w:
        sarah, sara = imported(w, resolver, scope, "Sarah", "Sara")
        fact = w.add(Node("Fact", content="Sara lives in Austin"), parents=[scope])
        w.link(Edge("refers_to", fact, sara))
    reclusterer = Reclusterer.for_resolver(resolver)
    with db.write() as w:
        (omar,) = imported(w, resolver, scope, "Omar")
        w.link(Edge("refers_to", fact, omar))
    reclusterer.submit(nodes=[omar])  # omar <- fact -> sara: two hops
    assert reclusterer.drain(10)
    assert pending_pairs(db) == {frozenset((sara, sarah))}
    reclusterer.stop()


class Boom:
    name = "boom"

    def choose(self, mention, options):
        raise RuntimeError("tiebreaker down")


def test_a_failing_batch_is_recorded_and_the_worker_goes_on(db, resolver, scope):
    reclusterer = Reclusterer.for_resolver(resolver, tiebreaker=Boom())
    with db.write() as w:
        imported(w, resolver, scope, "Sarah", "Sarai", "Sara")
        reclusterer.watch(w)
    assert reclusterer.drain(10)
    assert len(reclusterer.failures) == 1 and "tiebreaker down" in reclusterer.failures[0]
    with db.write() as w:
        imported(w, resolver, scope, "Jonathan Smith", "Jonathon Smith")
        reclusterer.watch(w)
    assert reclusterer.drain(10)
    assert len(reclusterer.staged) == 1
    reclusterer.stop()
    with pytest.raises(InvalidInput):
        reclusterer.submit(nodes=[scope])
