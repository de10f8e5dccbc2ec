from __future__ import annotations

import pytest

from worlddb.core.errors import Refused
from worlddb.core.records import Edge, Node


def test_refers_to_is_the_edge_a_scoped_query_may_cross(db, graph):
    fact = graph.add("Alice works at Acme")
    with db.write() as w:
        shared = w.scope("app", "directory")
        acme = w.add(Node("Entity", name="Acme"), parents=[shared])
        w.link(Edge("refers_to", fact, acme))
        w.link(Edge("causes", fact, acme))
    crossed = db.query(worlds=[graph.scope]).seed(fact).expand(["refers_to"]).run()
    assert set(crossed.nodes) == {fact, acme}
    assert [e.type for e in crossed.edges] == ["refers_to"]
    blocked = db.query(worlds=[graph.scope]).seed(fact).expand(["causes"]).run()
    assert set(blocked.nodes) == {fact}


def test_a_node_cannot_refer_to_itself(db, graph):
    fact = graph.add("x")
    with pytest.raises(Refused):
        with db.write() as w:
            w.link(Edge("refers_to", fact, fact))
