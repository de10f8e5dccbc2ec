"""Consolidator inference: one-pass transitive closure and the functional-relation contradiction sweep."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from worlddb.consolidator import Consolidator
from worlddb.core.records import Edge, Node
from worlddb.extract.summarize import ExtractiveSummarizer
from worlddb.graph.database import WorldDB
from worlddb.graph.facts import fact_edges, fact_node
from worlddb.handlers import HandlerRegistry
from worlddb.handlers.causes import Causes

T0 = 1_700_000_000_000_000
DAY = 86_400_000_000


def consolidator(db, **options):
    return Consolidator(db, summarizer=ExtractiveSummarizer(), min_age_secs=0, **options)


def nodes(db, scope, labels, type="Event"):
    with db.write() as w:
        return {k: w.add(Node(type, name=k, content=k), parents=[scope], valid_from=T0) for k in labels}


def chain(db, ids, edge_type, pairs, **kw):
    with db.write() as w:
        for s, d in pairs:
            w.link(Edge(edge_type, ids[s], ids[d], **kw))
    return {(s, d): Edge(edge_type, ids[s], ids[d], **kw).id for s, d in pairs}


def pairs(db, ids, edge_type, inferred):
    back = {v: k for k, v in ids.items()}
    return {(back[e.src], back[e.dst]) for e in db.store.edges(type=edge_type) if e.edge.inferred == inferred}


@pytest.fixture
def scope(db):
    with db.write() as w:
        return w.scope("user", "alice")


@pytest.mark.parametrize("edge_type", ["causes", "subtype_of"])
def test_a_chain_is_closed_in_one_pass_with_inferred_edges_that_name_their_premises(db, scope, edge_type):
    ids = nodes(db, scope, "abcd")
    premise = chain(db, ids, edge_type, [("a", "b"), ("b", "c"), ("c", "d")])
    report = consolidator(db).run()
    assert pairs(db, ids, edge_type, inferred=True) == {("a", "c"), ("a", "d"), ("b", "d")}
    assert pairs(db, ids, edge_type, inferred=False) == {("a", "b"), ("b", "c"), ("c", "d")}
    (a_to_d,) = db.store.edges(src=ids["a"], dst=ids["d"], type=edge_type)
    assert dict(a_to_d.props) == {"inferred": True, "via": [premise["a", "b"], premise["b", "c"], premise["c", "d"]]}
    assert len(report.inferred) == 3 and report.transactions == 1 and report.refused == []


def test_rerunning_the_closure_on_an_unchanged_graph_writes_nothing(db, scope):
    ids = nodes(db, scope, "abcd")
    chain(db, ids, "causes", [("a", "b"), ("b", "c"), ("c", "d")])
    consolidator(db).run()
    tx = db.store.last_seq()
    report = consolidator(db).run()
    assert report.inferred == [] and report.transactions == 0 and db.store.last_seq() == tx


def test_an_asserted_edge_is_never_duplicated_by_an_inferred_one(db, scope):
    ids = nodes(db, scope, "abc")
    chain(db, ids, "causes", [("a", "b"), ("b", "c"), ("a", "c")])
    assert consolidator(db).run().inferred == []


def test_a_causal_loop_infers_no_self_loops(db, scope):
    ids = nodes(db, scope, "abc")
    chain(db, ids, "causes", [("a", "b"), ("b", "c"), ("c", "a")])
    consolidator(db).run()
    assert pairs(db, ids, "causes", inferred=True) == {("a", "c"), ("b", "a"), ("c", "b")}


def test_a_chain_through_a_retired_node_is_not_closed(db, scope):
    ids = nodes(db, scope, "abc")
    chain(db, ids, "causes", [("a", "b"), ("b", "c")])
    with db.write() as w:
        w.retire(ids["b"], "never happened")
    assert consolidator(db).run().inferred == []


def test_premises_inside_one_world_give_an_inferred_edge_in_that_world(db, scope):
    ids = nodes(db, scope, "abc")
    chain(db, ids, "causes", [("a", "b"), ("b", "c")], world=scope)
    consolidator(db).run()
    (inferred,) = db.store.edges(src=ids["a"], dst=ids["c"], type="causes")
    assert inferred.world == scope


def test_inferred_edges_are_valid_where_all_their_premises_are(db, scope):
    ids = nodes(db, scope, "abc")
    with db.write() as w:
        w.link(Edge("causes", ids["a"], ids["b"]), valid_from=T0 + DAY)
        w.link(Edge("causes", ids["b"], ids["c"]), valid_from=T0 + 2 * DAY)
    consolidator(db).run()
    (inferred,) = db.store.edges(src=ids["a"], dst=ids["c"], type="causes")
    assert (inferred.valid_from, inferred.valid_to) == (T0 + 2 * DAY, None)


def inferred_edge(db, ids, s, d, edge_type="causes"):
    (edge,) = [e for e in db.store.edges(src=ids[s], dst=ids[d], type=edge_type) if e.edge.inferred]
    return edge


def test_an_inferred_edge_is_withdrawn_when_a_premise_is_unlinked(db, scope):
    ids = nodes(db, scope, "abc")
    chain(db, ids, "causes", [("a", "b"), ("b", "c")])
    consolidator(db).run()
    drawn = inferred_edge(db, ids, "a", "c")
    with db.write() as w:
        w.unlink(Edge("causes", ids["b"], ids["c"]))
    report = consolidator(db).run()
    assert report.withdrawn == [drawn.id] and report.inferred == []
    assert pairs(db, ids, "causes", inferred=True) == set()
    # withdrawn, not erased: what was believed before stays readable at that transaction time
    assert drawn.id in {e.id for e in db.store.edges(type="causes", known_at=drawn.t_added)}


def test_a_withdrawn_inference_is_drawn_again_along_another_path(db, scope):
    ids = nodes(db, scope, "abcd")
    p = chain(db, ids, "causes", [("a", "b"), ("b", "c"), ("a", "d"), ("d", "c")])
    consolidator(db).run()
    through_b, through_d = [p["a", "b"], p["b", "c"]], [p["a", "d"], p["d", "c"]]
    first = inferred_edge(db, ids, "a", "c").props["via"]
    assert first in (through_b, through_d)  # which of two shortest paths depends on the ids
    cut, other = (("b", "c"), through_d) if first == through_b else (("d", "c"), through_b)
    with db.write() as w:
        w.unlink(Edge("causes", ids[cut[0]], ids[cut[1]]))
    report = consolidator(db).run()
    assert len(report.withdrawn) == 1 and len(report.inferred) == 1
    assert inferred_edge(db, ids, "a", "c").props["via"] == other


def test_an_inference_drawn_through_a_withdrawn_one_goes_with_it(db, scope):
    ids = nodes(db, scope, "abcd")
    chain(db, ids, "causes", [("a", "b"), ("b", "c")])
    consolidator(db).run()
    a_to_c = inferred_edge(db, ids, "a", "c")
    chain(db, ids, "causes", [("c", "d")])
    consolidator(db).run()
    assert a_to_c.id in inferred_edge(db, ids, "a", "d").props["via"]  # the premise is itself inferred
    with db.write() as w:
        w.unlink(Edge("causes", ids["b"], ids["c"]))
    report = consolidator(db).run()
    assert len(report.withdrawn) == 3 and report.inferred == []  # a->c, a->d, b->d
    assert pairs(db, ids, "causes", inferred=True) == set()


def test_retiring_a_node_on_the_path_withdraws_the_inference(db, scope):
    ids = nodes(db, scope, "abc")
    chain(db, ids, "causes", [("a", "b"), ("b", "c")])
    consolidator(db).run()
    with db.write() as w:
        w.retire(ids["b"], "never happened")
    assert len(consolidator(db).run().withdrawn) == 1
    assert pairs(db, ids, "causes", inferred=True) == set()


class EndingCauses(Causes):
    """A plug-in whose edges may end an earlier causes edge of the same source: props
    {"ends_at": t} closes the source's other asserted causes edges at t (as a functional
    relation closes earlier values)."""

    def on_insert(self, ctx, edge):
        super().on_insert(ctx, edge)
        if "ends_at" in edge.props:
            for prior in ctx.edges(src=edge.src, type="causes"):
                if prior.id != edge.id and not prior.props.get("inferred"):
                    ctx.close_edge_validity(prior.id, edge.props["ends_at"])


@contextmanager
def with_handler(db_path, handler):
    """A store whose `causes` edges go through `handler`, and alice's scope in it."""
    registry = HandlerRegistry.default()
    registry.register(handler, replace=True)
    with WorldDB.open(db_path, registry=registry) as db:
        with db.write() as w:
            scope = w.scope("user", "alice")
        yield db, scope


def test_closing_a_premise_narrows_the_inference_to_where_it_still_holds(db_path):
    with with_handler(db_path, EndingCauses()) as (db, scope):
        ids = nodes(db, scope, "abcdx")

        def interval(s, d):
            edge = inferred_edge(db, ids, s, d)
            return edge.valid_from, edge.valid_to

        with db.write() as w:
            w.link(Edge("causes", ids["a"], ids["b"]), valid_from=T0)
            w.link(Edge("causes", ids["b"], ids["c"]), valid_from=T0)
        consolidator(db).run()
        chain(db, ids, "causes", [("c", "d")])
        consolidator(db).run()
        assert interval("a", "c") == (T0, None)
        assert inferred_edge(db, ids, "a", "c").id in inferred_edge(db, ids, "a", "d").props["via"]
        with db.write() as w:  # from T0 + DAY, b causes x instead of c
            w.link(Edge("causes", ids["b"], ids["x"], props={"ends_at": T0 + DAY}), valid_from=T0 + DAY)
        report = consolidator(db).run()
        assert report.withdrawn == [] and len(report.redrawn) == 3  # a->c, b->d, and a->d drawn through a->c
        assert interval("a", "c") == interval("b", "d") == interval("a", "d") == (T0, T0 + DAY)
        assert interval("a", "x") == (T0 + DAY, None)
        tx = db.store.last_seq()
        assert consolidator(db).run().transactions == 0 and db.store.last_seq() == tx


class PickyCauses(Causes):
    """Refuses any causes edge that ends at a node named 'd'."""

    def on_insert(self, ctx, edge):
        super().on_insert(ctx, edge)
        if ctx.node(edge.dst).name == "d" and edge.inferred:
            ctx.refuse("d has no inferred causes")


def test_a_refused_inferred_edge_costs_only_itself(db_path):
    with with_handler(db_path, PickyCauses()) as (db, scope):
        ids = nodes(db, scope, "abcd")
        p = chain(db, ids, "causes", [("a", "b"), ("b", "c"), ("c", "d")])
        report = consolidator(db).run()
        assert pairs(db, ids, "causes", inferred=True) == {("a", "c")}
        via_a = [p["a", "b"], p["b", "c"], p["c", "d"]]
        a_to_d = Edge("causes", ids["a"], ids["d"], props={"inferred": True, "via": via_a})
        b_to_d = Edge("causes", ids["b"], ids["d"], props={"inferred": True, "via": via_a[1:]})
        assert sorted(report.refused) == sorted([(a_to_d.id, "d has no inferred causes"),
                                                 (b_to_d.id, "d has no inferred causes")])
        # the batch of three rolled back and was replayed one edge per transaction: only a->c committed
        assert report.transactions == 1


def fact(w, scope, subject, relation, obj, *, valid_from):
    node = fact_node(subject=subject, relation=relation, obj=obj, object_is_entity=True, text=None,
                     subject_name="Alice", object_name="?", provenance={}, created_at=valid_from)
    anchor = w.add(node, parents=[scope], valid_from=valid_from)
    for edge in fact_edges(node):
        w.link(edge)
    return anchor


@pytest.fixture
def town(db, scope):
    with db.write() as w:
        ents = {n: w.add(Node("Entity", name=n), valid_from=0) for n in ("Alice", "Austin", "Denver", "Boston", "Tea")}
    return ents


def test_a_subject_with_two_current_values_of_a_functional_relation_gets_a_contradicts_edge(db, scope, town):
    with db.write() as w:
        austin = fact(w, scope, town["Alice"], "lives_in", town["Austin"], valid_from=T0)
        denver = fact(w, scope, town["Alice"], "lives_in", town["Denver"], valid_from=T0 + DAY)
        fact(w, scope, town["Alice"], "likes", town["Tea"], valid_from=T0)
        fact(w, scope, town["Alice"], "likes", town["Austin"], valid_from=T0)
    report = consolidator(db, functional={"Lives In"}).run()
    (edge,) = db.store.edges(type="contradicts")
    assert (edge.src, edge.dst, dict(edge.props)) == (denver, austin, {"inferred": True, "relation": "lives_in"})
    assert report.contradictions == [edge.id]
    sub = db.query(worlds=[scope]).seed(austin).run()
    assert sub.conflicts == {austin: [denver]}
    assert consolidator(db, functional={"lives_in"}).run().transactions == 0


def test_every_disagreeing_pair_is_joined_once_and_agreeing_facts_are_not(db, scope, town):
    with db.write() as w:
        a1 = fact(w, scope, town["Alice"], "lives_in", town["Austin"], valid_from=T0)
        a2 = fact(w, scope, town["Alice"], "lives_in", town["Austin"], valid_from=T0 + DAY)
        d = fact(w, scope, town["Alice"], "lives_in", town["Denver"], valid_from=T0 + 2 * DAY)
    with db.write() as w:
        w.link(Edge("contradicts", a1, d))  # already known, in the other direction
    consolidator(db, functional={"lives_in"}).run()
    assert {(e.src, e.dst) for e in db.store.edges(type="contradicts")} == {(a1, d), (d, a2)}


def test_a_superseded_value_is_no_contradiction(db, scope, town):
    with db.write() as w:
        austin = fact(w, scope, town["Alice"], "lives_in", town["Austin"], valid_from=T0)
        denver = fact(w, scope, town["Alice"], "lives_in", town["Denver"], valid_from=T0 + DAY)
        w.link(Edge("supersedes", denver, austin))
    report = consolidator(db, functional={"lives_in"}).run()
    assert report.contradictions == [] and db.store.edges(type="contradicts") == []


def test_facts_in_different_scopes_are_never_paired(db, scope, town):
    with db.write() as w:
        bob = w.scope("user", "bob")
        fact(w, scope, town["Alice"], "lives_in", town["Austin"], valid_from=T0)
        fact(w, bob, town["Alice"], "lives_in", town["Denver"], valid_from=T0)
    assert consolidator(db, functional={"lives_in"}).run().contradictions == []


def test_without_functional_relations_the_sweep_writes_nothing(db, scope, town):
    with db.write() as w:
        fact(w, scope, town["Alice"], "lives_in", town["Austin"], valid_from=T0)
        fact(w, scope, town["Alice"], "lives_in", town["Denver"], valid_from=T0)
    assert consolidator(db).run().transactions == 0


def test_a_pass_infers_at_most_max_inferred_edges_and_says_so(db, scope):
    ids = nodes(db, scope, "abcd")
    chain(db, ids, "causes", [("a", "b"), ("b", "c"), ("c", "d")])
    first = consolidator(db, max_inferred=2).run()
    assert len(first.inferred) == 2 and first.truncated
    second = consolidator(db, max_inferred=2).run()
    assert len(second.inferred) == 1 and not second.truncated
    assert pairs(db, ids, "causes", inferred=True) == {("a", "c"), ("a", "d"), ("b", "d")}


def test_an_inferred_edge_the_store_cannot_hold_is_listed_and_the_pass_goes_on(db, scope):
    ids = nodes(db, scope, "abcxyz")
    with db.write() as w:
        room = w.add(Node("Topic", name="room"), parents=[scope])
        for k in "abc":
            w.link(Edge("contains", room, ids[k]))
    chain(db, ids, "causes", [("a", "b"), ("b", "c")], world=room)
    chain(db, ids, "causes", [("x", "y"), ("y", "z")])
    with db.write() as w:
        w.unlink(Edge("contains", room, ids["c"]))  # c leaves the world its premise edge lives in
    report = consolidator(db).run()
    assert pairs(db, ids, "causes", inferred=True) == {("x", "z")}
    (refused,) = report.refused
    assert "is not inside world" in refused[1]


def test_an_edge_another_writer_marked_inferred_is_left_alone(db, scope):
    ids = nodes(db, scope, "abc")
    p = chain(db, ids, "causes", [("a", "b")])
    with db.write() as w:  # drawn by some other reasoning, citing what it pleases
        w.link(Edge("causes", ids["a"], ids["c"], props={"inferred": True, "via": ["memory 12", p["a", "b"]]}))
        w.link(Edge("causes", ids["b"], ids["c"], props={"inferred": True, "via": []}))
    with db.write() as w:
        w.unlink(Edge("causes", ids["a"], ids["b"]))
    report = consolidator(db).run()
    assert report.withdrawn == [] and report.redrawn == []
    assert pairs(db, ids, "causes", inferred=True) == {("a", "c"), ("b", "c")}
