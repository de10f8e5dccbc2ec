"""find_mentions: which known entities a query names, read-only and without a model."""

from __future__ import annotations

import pytest

from worlddb.core.errors import InvalidInput


@pytest.fixture
def known(db, resolver, scope, resolve):
    outcomes = resolve(resolver, scope, ("Sarah Connor", "person", ["Sarah"]), ("New York City", "place", ["NYC"]),
                       ("York", "place"), ("Caroline", "person"), ("Today", "concept"))
    return dict(zip(["sarah", "nyc", "york", "caroline", "today"], (o.entity for o in outcomes)))


@pytest.mark.parametrize("query, expected", [
    ("What did Sarah Connor say?", [("sarah", "exact", "Sarah Connor")]),
    ("what did sarah say", [("sarah", "exact", "sarah")]),  # through the alias
    ("Trip to New York City in May", [("nyc", "exact", "New York City")]),  # longest phrase wins over York
    ("back from york", [("york", "exact", "york")]),
    ("Did Carolin call?", [("caroline", "fuzzy", "Carolin")]),  # 4+ characters: fuzzy
    ("plans for today", [("today", "exact", "today")]),  # a stopword still matches exactly
    ("nothing to see here", []),
])
def test_find_mentions_names_known_entities_with_spans(db, resolver, scope, known, query, expected):
    found = resolver.find_mentions([scope], query)
    got = [(m.anchor, m.tier, query[m.span[0]:m.span[1]]) for m in found]
    assert got == [(known[label], tier, text) for label, tier, text in expected]


def test_short_words_and_stopwords_are_never_fuzzy(db, resolver, scope, resolve):
    resolve(resolver, scope, "Whan", "Ana")  # "when" and "Ann" would be one edit away
    assert resolver.find_mentions([scope], "when did Ann leave") == []


def test_a_pronoun_or_user_alone_names_no_entity_but_a_longer_name_with_one_does(db, resolver, scope, resolve):
    me, user, band, novel = resolve(resolver, scope, ("me", "person"), ("user", "person"), ("Me Too", "work"),
                                    ("It", "work"))
    assert resolver.find_mentions([scope], "Tell me what the user said about Bob") == []
    assert [m.anchor for m in resolver.find_mentions([scope], "Did me too win?")] == [band.entity]
    # "it" refers to no person, and a novel of that name is found as before
    assert [m.anchor for m in resolver.find_mentions([scope], "Did I finish It?")] == [novel.entity]


def test_find_mentions_searches_every_given_scope_and_skips_unknown_ones(db, resolver, resolve):
    with db.write() as w:
        alice, team = w.scope("user", "alice"), w.scope("app", "team")
    (a,) = resolve(resolver, alice, "Sarah")
    (t,) = resolve(resolver, team, "Omar")
    found = resolver.find_mentions([alice, team, "f" * 64], "Sarah met Omar")
    assert [m.anchor for m in found] == [a.entity, t.entity]
    with pytest.raises(InvalidInput):
        resolver.find_mentions(alice, "Sarah")  # one string is not a list of scopes


def test_entities_of_type_lists_a_scopes_typed_entities_until_they_are_erased(db, resolver, scope, resolve):
    rome, paris, dune, ann = resolve(resolver, scope, ("Rome", "place"), ("Paris", "place", ["City of Light"]),
                                     ("Dune", "work"), ("Ann", None))
    with db.write() as w:
        other = w.scope("user", "bob")
    resolve(resolver, other, ("Lisbon", "place"))
    rowid = db.store.rowid
    assert resolver.entities_of_type([scope], ["place"]) == {rowid(rome.entity), rowid(paris.entity)}
    assert resolver.entities_of_type([scope], ["place", "work"]) == {rowid(e.entity) for e in (rome, paris, dune)}
    assert resolver.entities_of_type([scope], ["person"]) == set()  # an untyped name is of no type
    with db.write() as w:
        w.erase(paris.entity)  # two names (an alias): both go
    assert resolver.entities_of_type([scope], ["place"]) == {rowid(rome.entity)}
    assert resolver.entities_of_type([], ["place"]) == set()
