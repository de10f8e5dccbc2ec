"""The embedding tier with the real name model (all-MiniLM-L6-v2), at the documented threshold."""

from __future__ import annotations

from worlddb.resolver import New, Resolved, Resolver
from worlddb.vectors.embedder import default_embedder


def test_minilm_joins_an_abbreviation_and_keeps_unrelated_places_apart(db, scope, resolve):
    resolver = Resolver(db, embedder=default_embedder())
    prepared = resolver.prepare([("New York City", "place"), ("NYC", "place"), ("London", "place")])
    city, nyc, london = resolve(resolver, scope, ("New York City", "place"), ("NYC", "place"),
                                ("London", "place"), prepared=prepared)
    assert isinstance(nyc, Resolved) and (nyc.match.anchor, nyc.tier) == (city.entity, "embedding")
    assert isinstance(london, New)
