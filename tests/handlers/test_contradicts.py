from __future__ import annotations

import pytest

from worlddb.core.errors import Refused
from worlddb.core.records import Edge


def test_contradicts_keeps_both_sides_and_surfaces_the_conflict_on_either(db, graph):
    a, b = graph.add("The meeting is on Monday"), graph.add("The meeting is on Tuesday")
    with db.write() as w:
        w.link(Edge("contradicts", b, a))
    assert w.receipt.conflicts == [(b, a)]
    assert db.get(a).valid_to is None and db.get(b).valid_to is None
    for side, other in ((a, b), (b, a)):
        sub = db.query(worlds=[graph.scope]).seed(side).run()
        assert set(sub.nodes) == {side}
        assert sub.conflicts == {side: [other]}
    both = db.query(worlds=[graph.scope]).seed(a, b).run()
    assert set(both.nodes) == {a, b}


def test_a_node_cannot_contradict_itself(db, graph):
    a = graph.add("x")
    with pytest.raises(Refused):
        with db.write() as w:
            w.link(Edge("contradicts", a, a))


def test_a_conflict_with_another_scopes_node_is_not_revealed(db, graph):
    from worlddb.core.records import Node

    mine = graph.add("Alice is vegetarian")
    with db.write() as w:
        bob = w.scope("user", "bob")
        theirs = w.add(Node("Fact", content="Alice eats meat"), parents=[bob])
        w.link(Edge("contradicts", theirs, mine))
    sub = db.query(worlds=[graph.scope]).seed(mine).run()
    assert sub.conflicts == {}
    assert db.query(worlds=[bob]).seed(theirs).run().conflicts == {}
