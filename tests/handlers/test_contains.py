from __future__ import annotations

from dataclasses import replace

import pytest

from worlddb.core.errors import Refused
from worlddb.core.records import Edge, Node


def test_a_query_inside_a_world_never_returns_another_worlds_nodes(db, graph):
    mine = graph.add("mine")
    with db.write() as w:
        bob = w.scope("user", "bob")
        theirs = w.add(Node("Fact", content="theirs"), parents=[bob])
        w.link(Edge("causes", mine, theirs))  # a non-crossing edge between worlds
    sub = db.query(worlds=[graph.scope]).seed(mine, theirs).expand(direction="both", hops=3).run()
    assert set(sub.nodes) == {mine}
    assert db.query(worlds=[bob]).seed(mine).run().nodes == {}


def test_a_world_cannot_contain_itself_or_an_ancestor(db, graph):
    inner = graph.add("inner", "Topic")
    with pytest.raises(Refused):
        with db.write() as w:
            w.link(Edge("contains", inner, graph.scope))
    with pytest.raises(Refused):
        with db.write() as w:
            w.link(Edge("contains", inner, inner))


def test_a_scope_world_is_never_inside_another_world(db, graph):
    """A scope's world is a root: were it inside another world, whoever may read that world
    would read the scope's memories through it, without a grant for the scope."""
    with db.write() as w:
        bob = w.scope("user", "bob")
        secret = w.add(Node("Memory", content="bob's secret"), parents=[bob])
    topic = graph.add("topic", "Topic")
    before = (db.get(graph.scope).version, db.get(topic).version)
    for outer in (graph.scope, topic):
        with pytest.raises(Refused, match="scope"):
            with db.write() as w:
                w.link(Edge("contains", outer, bob))
    with pytest.raises(Refused, match="scope"):
        with db.write() as w:
            w.add(Node("Topic", content="wrapper", name="wrapper"), parents=[graph.scope])
            w.add(Node("Scope", name="user:carol", meta={"kind": "user", "id": "carol"}, created_at=0),
                  parents=[graph.scope])
    assert (db.get(graph.scope).version, db.get(topic).version) == before
    assert db.query(worlds=[graph.scope]).seed(secret).run().nodes == {}
    assert set(db.store.ancestors(secret)) == {bob}
    assert db.verify().ok


def test_removing_containment_takes_the_node_out_of_the_world(db, graph):
    fact = graph.add("x")
    version = db.get(graph.scope).version
    with db.write() as w:
        w.unlink(Edge("contains", graph.scope, fact))
    assert db.get(graph.scope).version != version
    assert fact not in db.store.children(graph.scope)
    assert db.query(worlds=[graph.scope]).seed(fact).run().nodes == {}
    assert db.verify().ok


def test_a_node_in_two_scopes_is_inside_both(db, graph):
    with db.write() as w:
        agent = w.scope("agent", "helper")
        shared = w.add(Node("Memory", content="shared"), parents=[graph.scope, agent])
    assert set(db.store.ancestors(shared)) == {graph.scope, agent}
    for scope in (graph.scope, agent):
        assert set(db.query(worlds=[scope]).seed(shared).run().nodes) == {shared}


def test_a_child_held_by_two_contains_edges_stays_until_the_last_is_removed(db, graph):
    fact = graph.add("x")
    noted = Edge("contains", graph.scope, fact, props={"note": "pinned"})
    with db.write() as w:
        w.link(noted)
    with db.write() as w:
        w.unlink(Edge("contains", graph.scope, fact))
    assert fact in db.store.children(graph.scope)
    assert set(db.query(worlds=[graph.scope]).seed(fact).run().nodes) == {fact}
    with db.write() as w:
        w.unlink(noted)
    assert fact not in db.store.children(graph.scope)
    assert db.query(worlds=[graph.scope]).seed(fact).run().nodes == {}
    assert db.verify().ok


def test_a_hub_expands_to_its_in_world_neighbours_and_crosses_only_where_allowed(db, graph):
    hub = graph.add("hub", "Entity")
    mine = [graph.add(f"mine {i}") for i in range(30)]
    with db.write() as w:
        bob = w.scope("user", "bob")
        theirs = [w.add(Node("Fact", content=f"theirs {i}"), parents=[bob]) for i in range(5)]
        for node in mine:
            w.link(Edge("refers_to", node, hub, props={"role": "mention"}))
        for node in theirs:
            w.link(Edge("causes", node, hub))
    # inside the scope only through a nested world, and through a second world once its
    # first container let go of it
    topic = graph.add("topic", "Topic")
    nested = graph.add("nested", parent=topic)
    moved = graph.add("moved")
    with db.write() as w:
        w.link(Edge("contains", topic, moved))
        w.unlink(Edge("contains", graph.scope, moved))
        for node in (nested, moved):
            w.link(Edge("refers_to", node, hub, props={"role": "mention"}))
    q = db.query(worlds=[graph.scope]).seed(hub).expand(direction="both", hops=1)
    assert set(q.run().nodes) == {hub, *mine, nested, moved}
    crossing = replace(q, plan=q.plan.allow_crossing("causes"))
    assert set(crossing.run().nodes) == {hub, *mine, nested, moved, *theirs}
    # from inside the nested world, the hub (directly in the outer scope) is outside, and
    # causes (unlike refers_to, which reaches shared entities) does not cross
    with db.write() as w:
        w.link(Edge("causes", nested, hub))
    inner = db.query(worlds=[topic]).seed(hub, nested)
    assert set(inner.expand(["causes"], direction="both", hops=1).run().nodes) == {nested}
    assert set(inner.expand(["refers_to"], direction="both", hops=1).run().nodes) == {nested, hub}


def test_the_refusal_of_an_erased_scopes_world_names_no_empty_scope(db, graph):
    with db.write() as w:
        bob = w.scope("user", "bob")
    with db.write() as w:
        w.erase(bob)
    with pytest.raises(Refused, match="an erased scope would be readable"):
        with db.write() as w:
            w.link(Edge("contains", graph.scope, bob))
