from __future__ import annotations

import pytest

from worlddb.errors import Refused
from worlddb.model import Edge


def test_subtype_of_edges_are_stored_and_traversable_both_ways(db, graph):
    a, b, c = graph.add("a"), graph.add("b"), graph.add("c")
    with db.write() as w:
        w.link(Edge("subtype_of", a, b))
        w.link(Edge("subtype_of", b, c))
    forward = db.query(worlds=[graph.scope]).seed(a).expand(["subtype_of"], hops=2).run()
    assert set(forward.nodes) == {a, b, c}
    assert {(e.src, e.dst) for e in forward.edges} == {(a, b), (b, c)}
    backward = db.query(worlds=[graph.scope]).seed(c).expand(["subtype_of"], direction="in").run()
    assert set(backward.nodes) == {c, b}


def test_an_inferred_subtype_of_edge_is_marked_and_kept(db, graph):
    a, b = graph.add("a"), graph.add("b")
    edge = Edge("subtype_of", a, b, props={"inferred": True, "via": []})
    with db.write() as w:
        assert w.link(edge)
    stored = db.store.edges(src=a, type="subtype_of")
    assert [e.id for e in stored] == [edge.id] and stored[0].edge.inferred


def test_a_subtype_of_self_loop_is_refused(db, graph):
    a = graph.add("a")
    with pytest.raises(Refused):
        with db.write() as w:
            w.link(Edge("subtype_of", a, a))

def test_a_subtype_of_cycle_is_refused(db, graph):
    a, b, c = graph.add("a"), graph.add("b"), graph.add("c")
    with db.write() as w:
        w.link(Edge("subtype_of", a, b))
        w.link(Edge("subtype_of", b, c))
    with pytest.raises(Refused, match="cycle"):
        with db.write() as w:
            w.link(Edge("subtype_of", c, a))
    assert db.store.edges(src=c, type="subtype_of") == []
