from __future__ import annotations

import pytest

from worlddb.core.errors import Conflict, Refused
from worlddb.core.records import Edge
from worlddb.graph import identity


def stage(db, a, b, **props):
    with db.write() as w:
        w.link(Edge("same_as", a, b, props=props))
    return w.receipt.proposals[0]


def decide(db, proposal, accept):
    with db.write() as w:
        return identity.decide(w, proposal, accept)


def test_same_as_stages_a_pending_proposal_and_merges_nothing(db, graph):
    a, b = graph.add("Sarah", "Entity"), graph.add("Sara", "Entity")
    proposal = stage(db, a, b, tier="fuzzy", score=0.95)
    found = identity.proposal(db.store, proposal)
    assert (found.a, found.b, found.status, found.tier, found.score) == (a, b, "pending", "fuzzy", 0.95)
    assert identity.equivalence_class(db.store, a) == {a}
    assert identity.equivalence_class(db.store, b) == {b}


def test_accepted_same_as_is_symmetric_and_transitive(db, graph):
    a, b, c = (graph.add(n, "Entity") for n in ("Sarah", "Sara", "S."))
    decide(db, stage(db, a, b), True)
    decide(db, stage(db, c, b), True)
    for member in (a, b, c):
        assert identity.equivalence_class(db.store, member) == {a, b, c}
    sub = db.query(worlds=[graph.scope]).seed(a).run()
    assert sub.equivalents == {a: sorted([b, c])}


def test_a_rejected_proposal_leaves_both_sides_independent(db, graph):
    a, b = graph.add("Jon", "Entity"), graph.add("Joan", "Entity")
    proposal = stage(db, a, b)
    assert decide(db, proposal, False).status == "rejected"
    assert identity.equivalence_class(db.store, a) == {a}
    with pytest.raises(Conflict):
        decide(db, proposal, True)


def test_removing_a_same_as_edge_withdraws_its_proposal(db, graph):
    a, b = graph.add("Ann", "Entity"), graph.add("Anne", "Entity")
    edge = Edge("same_as", a, b)
    with db.write() as w:
        w.link(edge)
        proposal = w.receipt.proposals[0]
    with db.write() as w:
        w.unlink(edge)
    assert identity.proposal(db.store, proposal).status == "rejected"


def test_removing_one_of_two_same_as_edges_keeps_the_other_s_merge(db, graph):
    a, b = graph.add("Katherine", "Entity"), graph.add("Kathryn", "Entity")
    fuzzy = stage(db, a, b, tier="fuzzy", score=0.91)
    vector = stage(db, a, b, tier="embedding", score=0.88)
    decide(db, vector, True)
    with db.write() as w:
        w.unlink(Edge("same_as", a, b, props={"tier": "fuzzy", "score": 0.91}))
    assert identity.proposal(db.store, fuzzy).status == "rejected"
    assert identity.proposal(db.store, vector).status == "accepted"
    assert identity.equivalence_class(db.store, a) == {a, b}


def test_same_as_to_itself_is_refused(db, graph):
    a = graph.add("x", "Entity")
    with pytest.raises(Refused):
        stage(db, a, a)


def test_same_as_with_an_erased_node_is_refused_and_stores_nothing(db, graph):
    a, b = graph.add("Ana Souza", "Entity"), graph.add("Ana", "Entity")
    with db.write() as w:
        w.erase(b)
    for src, dst in ((a, b), (b, a)):
        with pytest.raises(Refused, match="erased"):
            stage(db, src, dst, tier="name_part", evidence={"names": ["Ana Souza", "Ana"]})
    assert db.store.edges(type="same_as") == []
    assert db.store.conn.execute("SELECT count(*) FROM proposals").fetchone()[0] == 0
