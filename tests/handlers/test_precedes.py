"""precedes: a typed relation (the shared behaviours are in relations.py)."""

from __future__ import annotations

from . import relations

TYPE = "precedes"


def test_precedes_edges_are_stored_and_traversable_both_ways(db, graph):
    relations.stored_and_traversable_both_ways(db, graph, TYPE)


def test_an_inferred_precedes_edge_is_marked_and_kept(db, graph):
    relations.inferred_edge_is_marked_and_kept(db, graph, TYPE)


def test_a_precedes_self_loop_is_refused(db, graph):
    relations.self_loop_is_refused(db, graph, TYPE)


def test_a_precedes_cycle_is_refused(db, graph):
    relations.cycle_is_refused(db, graph, TYPE)
