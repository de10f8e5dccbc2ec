from __future__ import annotations

import pytest

from worlddb.core.errors import Refused
from worlddb.core.records import Edge

T0 = 1_700_000_000_000_000
DAY = 86_400_000_000


def test_supersedes_closes_the_target_at_the_new_nodes_valid_from(db, graph):
    old, new = graph.add("Austin", valid_from=T0), graph.add("Denver", valid_from=T0 + 30 * DAY)
    with db.write() as w:
        w.link(Edge("supersedes", new, old))
    assert db.get(old).valid_to == T0 + 30 * DAY
    assert w.receipt.closed == [(old, T0 + 30 * DAY)]
    assert db.get(new).valid_to is None


def test_supersedes_only_tightens(db, graph):
    old = graph.add("v1", valid_from=T0)
    early, late = graph.add("v2", valid_from=T0 + DAY), graph.add("v3", valid_from=T0 + 5 * DAY)
    with db.write() as w:
        w.link(Edge("supersedes", early, old))
    with db.write() as w:
        w.link(Edge("supersedes", late, old))  # would move the end later: nothing changes
    assert db.get(old).valid_to == T0 + DAY
    assert w.receipt.closed == []


def test_a_supersedes_cycle_is_refused(db, graph):
    a, b, c = (graph.add(x, valid_from=T0) for x in "abc")
    with db.write() as w:
        w.link(Edge("supersedes", b, a))
        w.link(Edge("supersedes", c, b))
    with pytest.raises(Refused, match="cycle"):
        with db.write() as w:
            w.link(Edge("supersedes", a, c))
    with pytest.raises(Refused):
        with db.write() as w:
            w.link(Edge("supersedes", a, a))


def test_a_replacement_older_than_its_target_is_refused(db, graph):
    old, new = graph.add("old", valid_from=T0 + DAY), graph.add("new", valid_from=T0)
    with pytest.raises(Refused, match="before"):
        with db.write() as w:
            w.link(Edge("supersedes", new, old))
    assert db.get(old).valid_to is None


def test_deleting_a_supersedes_edge_withdraws_its_closure_and_keeps_the_history(db, graph):
    old, new = graph.add("old", valid_from=T0), graph.add("new", valid_from=T0 + DAY)
    edge = Edge("supersedes", new, old)
    with db.write() as w:
        w.link(edge)
    closed_at = w.receipt.at
    with db.write() as w:
        assert w.unlink(edge)
    assert db.get(old).valid_to is None
    assert db.store.edges(src=new, type="supersedes") == []
    # as known before the removal, it was closed
    assert db.store.valid_to_known_at(old, closed_at) == T0 + DAY
    assert db.verify().ok


def test_a_later_supersession_takes_over_when_the_earlier_one_is_withdrawn(db, graph):
    old = graph.add("v1", valid_from=T0)
    early, late = graph.add("v2", valid_from=T0 + DAY), graph.add("v3", valid_from=T0 + 5 * DAY)
    with db.write() as w:
        w.link(Edge("supersedes", early, old))
    with db.write() as w:
        w.link(Edge("supersedes", late, old))
    assert db.get(old).valid_to == T0 + DAY
    with db.write() as w:
        w.unlink(Edge("supersedes", early, old))
    assert db.get(old).valid_to == T0 + 5 * DAY
    with db.write() as w:
        w.unlink(Edge("supersedes", late, old))
    assert db.get(old).valid_to is None
    assert db.verify().ok


def test_superseded_nodes_are_hidden_by_default_and_returned_on_request(db, graph):
    old, new = graph.add("old", valid_from=T0), graph.add("new", valid_from=T0 + DAY)
    with db.write() as w:
        w.link(Edge("supersedes", new, old))
    default = db.query(worlds=[graph.scope]).seed(old, new).run()
    assert set(default.nodes) == {new}
    everything = db.query(worlds=[graph.scope], include_closed=True).seed(old, new).run()
    assert set(everything.nodes) == {old, new}
    assert everything.nodes[old].valid_to == T0 + DAY
    assert everything.superseded_by == {old: [new]}
    # pinned to a valid time before the change, the old one is the valid one
    then = db.query(worlds=[graph.scope], as_of=T0 + 1).seed(old, new).run()
    assert set(then.nodes) == {old}
