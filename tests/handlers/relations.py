"""What every typed relation promises (implies, derived_from, instance_of, subtype_of, causes,
precedes): stored and traversable both ways, inferred edges kept with their mark, no self-loop;
and, by type, either cycles between distinct nodes are allowed or they are refused. Each
handler's own test file runs these for its type."""

from __future__ import annotations

import pytest

from worlddb.core.errors import Refused
from worlddb.core.records import Edge


def stored_and_traversable_both_ways(db, graph, etype: str) -> None:
    a, b, c = graph.add("a"), graph.add("b"), graph.add("c")
    with db.write() as w:
        w.link(Edge(etype, a, b))
        w.link(Edge(etype, b, c))
    forward = db.query(worlds=[graph.scope]).seed(a).expand([etype], hops=2).run()
    assert set(forward.nodes) == {a, b, c}
    assert {(e.src, e.dst) for e in forward.edges} == {(a, b), (b, c)}
    backward = db.query(worlds=[graph.scope]).seed(c).expand([etype], direction="in").run()
    assert set(backward.nodes) == {c, b}


def inferred_edge_is_marked_and_kept(db, graph, etype: str) -> None:
    a, b = graph.add("a"), graph.add("b")
    edge = Edge(etype, a, b, props={"inferred": True, "via": []})
    with db.write() as w:
        assert w.link(edge)
    stored = db.store.edges(src=a, type=etype)
    assert [e.id for e in stored] == [edge.id] and stored[0].edge.inferred


def self_loop_is_refused(db, graph, etype: str) -> None:
    a = graph.add("a")
    with pytest.raises(Refused):
        with db.write() as w:
            w.link(Edge(etype, a, a))
    assert db.store.edges(type=etype) == []


def cycle_between_distinct_nodes_is_allowed(db, graph, etype: str) -> None:
    a, b = graph.add("a"), graph.add("b")
    with db.write() as w:
        w.link(Edge(etype, a, b))
        w.link(Edge(etype, b, a))
    assert len(db.store.edges(type=etype)) == 2


def cycle_is_refused(db, graph, etype: str) -> None:
    a, b, c = graph.add("a"), graph.add("b"), graph.add("c")
    with db.write() as w:
        w.link(Edge(etype, a, b))
        w.link(Edge(etype, b, c))
    with pytest.raises(Refused, match="cycle"):
        with db.write() as w:
            w.link(Edge(etype, c, a))
    assert db.store.edges(src=c, type=etype) == []
