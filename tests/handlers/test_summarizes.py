from __future__ import annotations

import pytest

from worlddb.core.errors import Refused
from worlddb.core.records import Edge, Node


def test_a_summary_summarizes_a_world_without_changing_its_version(db, graph):
    topic = graph.add("garden", type="Topic")
    graph.add("tomatoes need sun", parent=topic)
    before = db.get(topic).version
    with db.write() as w:
        summary = w.add(Node("Summary", content="About the garden"), parents=[graph.scope])
        assert w.link(Edge("summarizes", summary, topic))
    assert db.get(topic).version == before
    assert [e.dst for e in db.store.edges(src=summary, type="summarizes")] == [topic]
    sub = db.query(worlds=[graph.scope]).seed(topic).expand(["summarizes"], direction="in").run()
    assert set(sub.nodes) == {topic, summary}


def test_only_a_summary_node_may_summarize(db, graph):
    topic, note = graph.add("garden", type="Topic"), graph.add("a note")
    with pytest.raises(Refused, match="only a Summary node"):
        with db.write() as w:
            w.link(Edge("summarizes", note, topic))
    assert db.store.edges(type="summarizes") == []


def test_a_summary_cannot_summarize_itself(db, graph):
    summary = graph.add("s", type="Summary")
    with pytest.raises(Refused, match="itself"):
        with db.write() as w:
            w.link(Edge("summarizes", summary, summary))


def test_a_summarizes_edge_inside_a_world_is_refused(db, graph):
    topic = graph.add("garden", type="Topic")
    summary = graph.add("s", type="Summary")
    with pytest.raises(Refused, match="no world's interior"):
        with db.write() as w:
            w.link(Edge("summarizes", summary, topic, world=graph.scope))
    assert db.get(graph.scope).n_edges == 0
