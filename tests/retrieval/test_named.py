"""The named step's reordering (worlddb.retrieval.named), pure: the entity lane's candidates take
the first of the places they and the pending partners' hold; the rest keep theirs."""

from __future__ import annotations

from worlddb.resolver.outcomes import Mention
from worlddb.retrieval.named import first, in_full

E, P = {"entity": 1}, {"entity_pending": 1}


def _lanes(c):
    return c[1]


def test_the_named_entitys_candidates_take_the_places_its_partners_held_first():
    candidates = [("sister", P), ("other", {}), ("kovac", E), ("both", {**E, **P}), ("sister2", P)]
    order = first(candidates, _lanes)
    assert [c[0] for c, _ in order] == ["kovac", "other", "both", "sister", "sister2"]
    assert [place for _, place in order] == [1, None, 2, None, None]


def test_candidates_in_order_already_or_without_one_kind_keep_it():
    for candidates in ([("kovac", E), ("sister", P)], [("sister", P), ("other", {})], [("kovac", E)]):
        assert first(candidates, _lanes) == [(c, None) for c in candidates]


def test_only_an_exact_name_of_two_words_or_more_is_a_full_name():
    query = "What does my coworker Ana Kovac do?"
    at = query.index("Ana Kovac")
    assert in_full(query, [Mention("e1", "Ana Kovac", "exact", 1.0, (at, at + 9))])
    assert not in_full(query, [Mention("e1", "Ana", "exact", 1.0, (at, at + 3))])
    assert not in_full(query, [Mention("e1", "Ana Kovacs", "fuzzy", 0.97, (at, at + 9))])
    assert not in_full(query, [])
