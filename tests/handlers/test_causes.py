"""causes: a typed relation (the shared behaviours are in relations.py)."""

from __future__ import annotations

from . import relations

TYPE = "causes"


def test_causes_edges_are_stored_and_traversable_both_ways(db, graph):
    relations.stored_and_traversable_both_ways(db, graph, TYPE)


def test_an_inferred_causes_edge_is_marked_and_kept(db, graph):
    relations.inferred_edge_is_marked_and_kept(db, graph, TYPE)


def test_a_causes_self_loop_is_refused(db, graph):
    relations.self_loop_is_refused(db, graph, TYPE)


def test_causes_allows_cycles_between_distinct_nodes(db, graph):
    relations.cycle_between_distinct_nodes_is_allowed(db, graph, TYPE)
