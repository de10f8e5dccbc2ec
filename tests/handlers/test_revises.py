from __future__ import annotations

import pytest

from worlddb.core.errors import Refused
from worlddb.core.records import Edge

T0 = 1_700_000_000_000_000
DAY = 86_400_000_000


def test_a_revised_node_stays_current_and_both_ends_name_each_other(db, graph):
    old, new = graph.add("Austin and Dell", valid_from=T0), graph.add("Denver", valid_from=T0 + 30 * DAY)
    with db.write() as w:
        w.link(Edge("revises", new, old))
    assert db.get(old).valid_to is None and w.receipt.closed == []
    plan = db.plan()
    read = db.query(worlds=[graph.scope]).seed(old, new).run()
    assert set(read.nodes) == {old, new}
    marks = {(m.key, m.edge_type, m.direction) for m in plan.marks}
    assert {("revised_by", "revises", "in"), ("revises", "revises", "out")} <= marks


def test_a_revises_cycle_a_self_loop_and_an_earlier_reviser_are_refused(db, graph):
    a, b = graph.add("a", valid_from=T0), graph.add("b", valid_from=T0 + DAY)
    with db.write() as w:
        w.link(Edge("revises", b, a))
    with pytest.raises(Refused, match="cycle"):
        with db.write() as w:
            w.link(Edge("revises", a, b))
    with pytest.raises(Refused, match="itself"):
        with db.write() as w:
            w.link(Edge("revises", a, a))
    late = graph.add("late", valid_from=T0 + 5 * DAY)
    with pytest.raises(Refused, match="before"):
        with db.write() as w:
            w.link(Edge("revises", b, late))


def test_deleting_a_revises_edge_leaves_the_node_as_it_was(db, graph):
    old, new = graph.add("old", valid_from=T0), graph.add("new", valid_from=T0 + DAY)
    edge = Edge("revises", new, old)
    with db.write() as w:
        w.link(edge)
    with db.write() as w:
        assert w.unlink(edge)
    assert db.get(old).valid_to is None and db.store.edges(src=new, type="revises") == []


def test_deleting_a_revises_edge_withdraws_what_was_closed_in_its_name_and_nothing_else(db, graph):
    old, new = graph.add("Austin and Dell", valid_from=T0), graph.add("Denver", valid_from=T0 + DAY)
    home, job = graph.add("lives in Austin", valid_from=T0), graph.add("works at Dell", valid_from=T0)
    edge = Edge("revises", new, old)
    with db.write() as w:
        w.link(edge)
        w.close(home, T0 + DAY, "source revised", cause=edge)  # what the write that revises ends
        w.close(job, T0 + 2 * DAY, "closed")  # ended by something else
    with db.write() as w:
        assert w.unlink(edge)
    assert db.get(home).valid_to is None and db.get(job).valid_to == T0 + 2 * DAY
    assert db.verify().ok
