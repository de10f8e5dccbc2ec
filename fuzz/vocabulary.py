"""What the fuzzers draw from - scopes, names, relations, words, node and edge types, fixed
moments - and the one error every check raises when the engine breaks a promise."""

from __future__ import annotations

from fuzz.model import FUNCTIONAL_EDGES

SCOPES = (("user", "alice"), ("user", "bob"), ("agent", "ag-1"), ("run", "r 1"))
NAMES = ("Sarah", "Sara", "Sarrah", "Jon", "John", "Joan", "Anna", "Hanna", "Austin", "Boston")
RELATIONS = ("lives_in", "works_at", "likes")
WORDS = ("tea", "garden", "meeting", "austin", "plan", "blue", "river", "book", "train", "music",
         "monday", "project", "dog", "coffee", "paris")
GRAPH_TYPES = ("Topic", "Event", "Decision", "Fact", "Summary", "Entity")
#: edge types the graph layer writes: every registered one, one unknown, one malformed
EDGE_TYPES = ("contains", "refers_to", "supersedes", "same_as", "contradicts", "implies", "derived_from",
              "instance_of", "subtype_of", "causes", "precedes", "summarizes", *sorted(FUNCTIONAL_EDGES),
              "no_such_type", "bad type")
#: fixed moments (microseconds): two in the past, one far in the future, and the epoch
TIMES = {"p1": 978_307_200_000_000, "p2": 1_433_116_800_000_000, "f1": 4_102_444_800_000_000, "zero": 0}
EDGE_PROPS = ({}, {"k": 1}, {"note": "x"})


class Violation(AssertionError):
    """The engine broke a promise (or disagreed with the reference model)."""
