from __future__ import annotations

import pytest

from worlddb.errors import Refused
from worlddb.model import Edge


def test_derived_from_edges_are_stored_and_traversable_both_ways(db, graph):
    a, b, c = graph.add("a"), graph.add("b"), graph.add("c")
    with db.write() as w:
        w.link(Edge("derived_from", a, b))
        w.link(Edge("derived_from", b, c))
    forward = db.query(worlds=[graph.scope]).seed(a).expand(["derived_from"], hops=2).run()
    assert set(forward.nodes) == {a, b, c}
    assert {(e.src, e.dst) for e in forward.edges} == {(a, b), (b, c)}
    backward = db.query(worlds=[graph.scope]).seed(c).expand(["derived_from"], direction="in").run()
    assert set(backward.nodes) == {c, b}


def test_an_inferred_derived_from_edge_is_marked_and_kept(db, graph):
    a, b = graph.add("a"), graph.add("b")
    edge = Edge("derived_from", a, b, props={"inferred": True, "via": []})
    with db.write() as w:
        assert w.link(edge)
    stored = db.store.edges(src=a, type="derived_from")
    assert [e.id for e in stored] == [edge.id] and stored[0].edge.inferred


def test_a_derived_from_self_loop_is_refused(db, graph):
    a = graph.add("a")
    with pytest.raises(Refused):
        with db.write() as w:
            w.link(Edge("derived_from", a, a))

def test_derived_from_allows_cycles_between_distinct_nodes(db, graph):
    a, b = graph.add("a"), graph.add("b")
    with db.write() as w:
        w.link(Edge("derived_from", a, b))
        w.link(Edge("derived_from", b, a))
    assert len(db.store.edges(type="derived_from")) == 2
