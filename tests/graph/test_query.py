"""The query pipeline: seeds, typed expansion with direction and hop limits, filters, subgraphs."""

from __future__ import annotations

import pytest

from worlddb.core.errors import InvalidInput
from worlddb.core.records import Edge, Node

T0 = 1_700_000_000_000_000
DAY = 86_400_000_000


@pytest.fixture
def chain(db):
    """a -causes-> b -causes-> c -causes-> d, plus x -implies-> b, all in one scope."""
    with db.write() as w:
        scope = w.scope("user", "alice")
        ids = {k: w.add(Node("Event" if k != "x" else "Fact", content=k), parents=[scope], valid_from=T0)
               for k in "abcdx"}
        for s, d in (("a", "b"), ("b", "c"), ("c", "d")):
            w.link(Edge("causes", ids[s], ids[d]))
        w.link(Edge("implies", ids["x"], ids["b"]))
    return scope, ids


def names(sub, ids):
    back = {v: k for k, v in ids.items()}
    return {back[a] for a in sub.nodes}


def test_expansion_respects_hop_limits(db, chain):
    scope, ids = chain
    for hops, expected in ((1, "ab"), (2, "abc"), (3, "abcd"), (5, "abcd")):
        sub = db.query(worlds=[scope]).seed(ids["a"]).expand(["causes"], hops=hops).run()
        assert names(sub, ids) == set(expected)


@pytest.mark.parametrize("direction, expected", [("out", "bc"), ("in", "abx"), ("both", "abcx")])
def test_expansion_follows_the_requested_direction(db, chain, direction, expected):
    scope, ids = chain
    sub = db.query(worlds=[scope]).seed(ids["b"]).expand(None, direction=direction).run()
    assert names(sub, ids) == set(expected)


def test_results_are_a_subgraph_with_the_traversed_edges(db, chain):
    scope, ids = chain
    sub = db.query(worlds=[scope]).seed(ids["a"]).expand(["causes"], hops=2).run()
    assert {(e.type, e.src, e.dst) for e in sub.edges} == {
        ("causes", ids["a"], ids["b"]), ("causes", ids["b"], ids["c"])}


def test_where_connected_keeps_only_nodes_linked_to_the_given_node(db, chain):
    scope, ids = chain
    everything = db.query(worlds=[scope]).seed(*ids.values())
    assert names(everything.where_connected("causes", "out", ids["c"]).run(), ids) == {"b"}
    assert names(everything.where_connected("causes", "in", ids["b"]).run(), ids) == {"c"}
    assert names(everything.where_connected("implies", "both", ids["b"]).run(), ids) == {"x"}


def test_filter_by_type_and_by_time(db, chain):
    scope, ids = chain
    with db.write() as w:
        w.close(ids["c"], T0 + DAY)
    base = db.query(worlds=[scope]).seed(*ids.values())
    assert names(base.filter(types=["Fact"]).run(), ids) == {"x"}
    assert names(base.run(), ids) == set("abdx")  # c is closed now
    then = db.query(worlds=[scope], as_of=T0 + 1).seed(*ids.values())
    assert names(then.run(), ids) == set("abcdx")


def test_expansion_through_a_hidden_node_stops_there(db, chain):
    scope, ids = chain
    with db.write() as w:
        w.retire(ids["b"], "mistake")
    sub = db.query(worlds=[scope]).seed(ids["a"]).expand(["causes"], hops=3).run()
    assert names(sub, ids) == {"a"}


def test_bad_steps_are_refused(db, chain):
    scope, ids = chain
    with pytest.raises(InvalidInput):
        db.query().seed(ids["a"]).expand(direction="sideways")
    with pytest.raises(InvalidInput):
        db.query().seed(ids["a"]).expand(hops=0)
