"""Each tier on a table of name pairs: true matches, and near misses the thresholds keep apart."""

from __future__ import annotations

import pytest

from worlddb.graph import identity
from worlddb.resolver import (
    FUZZY_THRESHOLD,
    NICKNAME_SCORE,
    Ambiguous,
    New,
    Resolved,
    Resolver,
    Thresholds,
    normalize_name,
)
from worlddb.resolver.names import name_similarity


@pytest.mark.parametrize("known, mention, tier", [
    ("Sarah", "sarah", "exact"),
    ("Sarah", "  SARAH ", "exact"),
    ("Sarah Jones", "sarah   jones", "exact"),
    ("Sarah", "Sara", "fuzzy"),
    ("Kristin", "Kristen", "fuzzy"),
    ("Jonathan Smith", "Jonathon Smith", "fuzzy"),
    ("Caroline", "Carolien", "fuzzy"),  # a transposition
    ("Phillip", "Filip", "phonetic"),
    ("Stephen", "Steven", "phonetic"),
    ("Jon", "John", "phonetic"),
    ("Smith", "Smyth", "phonetic"),
    ("Bob", "Robert", "embedding"),
    ("NYC", "New York City", "embedding"),
])
def test_a_mention_resolves_to_the_known_entity_at_its_tier(db, scope, resolve, synonyms, known, mention, tier):
    resolver = Resolver(db, embedder=synonyms)
    (first, second) = resolve(resolver, scope, known, mention)
    assert isinstance(first, New)
    assert isinstance(second, Resolved)
    assert (second.match.anchor, second.tier) == (first.entity, tier)
    if tier == "exact":
        assert second.entity == first.entity and second.proposals == ()
    else:
        assert second.created and len(second.proposals) == 1


@pytest.mark.parametrize("known, mention", [
    ("Jon", "Joan"),
    ("Anna", "Hanna"),
    ("Sarah", "Emily"),
    ("Mark", "Marc Anthony"),
    ("Dan", "Diane"),
    ("Al", "Ali"),
    ("Bob", "Rob"),
])
def test_near_misses_stay_apart(db, scope, resolve, synonyms, known, mention):
    resolver = Resolver(db, embedder=synonyms)
    first, second = resolve(resolver, scope, known, mention)
    assert isinstance(second, New), second
    assert second.entity != first.entity


@pytest.mark.parametrize("a, b", [("jon", "joan"), ("anna", "hanna")])
def test_the_documented_near_misses_sit_just_below_the_fuzzy_threshold(a, b):
    assert 0.93 < name_similarity(a, b) < FUZZY_THRESHOLD


def test_aliases_match_exactly_in_both_directions(db, resolver, scope, resolve):
    (samuel,) = resolve(resolver, scope, ("Samuel Jones", "person", ["Sam"]))
    by_alias, mention_alias = resolve(resolver, scope, "sam", ("S. Jones", None, ["Samuel Jones"]))
    assert by_alias.entity == samuel.entity and by_alias.tier == "exact" and by_alias.score < 1.0
    assert mention_alias.entity == samuel.entity and mention_alias.tier == "exact"


def test_known_types_must_agree(db, resolver, scope, resolve):
    person, place, untyped = resolve(resolver, scope, ("Jordan", "person"), ("Jordan", "place"), "Jordan")
    assert isinstance(place, New)
    assert isinstance(untyped, Ambiguous)  # either Jordan fits an untyped mention, both by display name
    assert {m.anchor for m in untyped.options} == {person.entity, place.entity}


def test_a_repeated_ambiguous_name_reuses_the_entity_made_for_it(db, resolver, scope, resolve):
    person, place = resolve(resolver, scope, ("Jordan", "person"), ("Jordan", "place"))
    first, second, third = resolve(resolver, scope, "Jordan", "jordan", "JORDAN")
    assert isinstance(first, Ambiguous) and len(first.proposals) == 2
    for again in (second, third):
        assert isinstance(again, Resolved) and again.tier == "exact" and again.entity == first.entity
    (typed,) = resolve(resolver, scope, ("Jordan", "person"))
    assert typed.entity == person.entity  # a typed mention still prefers its typed entity


def test_a_display_name_match_beats_an_alias_match(db, resolver, scope, resolve):
    resolve(resolver, scope, ("Samantha", None, ["Sam"]))
    (sam,) = resolve(resolver, scope, ("Sam Taylor", None, ["Sam"]))  # exact on the alias "sam"
    assert sam.tier == "exact"
    (named,) = resolve(resolver, scope, ("Sam", None, ["Samwise"]))
    assert named.tier == "exact"


def test_ties_go_to_the_tiebreaker_and_an_undecided_tie_is_ambiguous(db, resolver, scope, resolve):
    sarah, sarai = resolve(resolver, scope, "Sarah", "Sarai")
    (sara,) = resolve(resolver, scope, "Sara")
    assert isinstance(sara, Ambiguous)  # Sarah and Sarai both score 0.96
    assert {m.anchor for m in sara.options} == {sarah.entity, sarai.entity}
    assert len(sara.proposals) == 2 and sara.entity not in (sarah.entity, sarai.entity)
    for pid in sara.proposals:
        assert identity.proposal(db.store, pid).status == "pending"


class PickLast:
    name = "pick-last"

    def __init__(self):
        self.seen = []

    def choose(self, mention, options):
        self.seen.append((mention, [o.name for o in options]))
        return len(options) - 1


def test_a_caller_supplied_tiebreaker_decides_ties(db, scope, resolve):
    chooser = PickLast()
    resolver = Resolver(db, tiebreaker=chooser)
    resolve(resolver, scope, "Sarah", "Sarai")
    (sara,) = resolve(resolver, scope, "Sara")
    assert isinstance(sara, Resolved) and sara.created and len(sara.proposals) == 1
    assert [(m, sorted(names)) for m, names in chooser.seen] == [("Sara", ["Sarah", "Sarai"])]


def test_thresholds_are_adjustable_per_tier(db, scope, resolve):
    strict = Resolver(db, thresholds=Thresholds(fuzzy=0.99))
    _, sara = resolve(strict, scope, "Sarah", "Sara")
    assert isinstance(sara, Resolved) and sara.tier == "phonetic"  # fuzzy refused, phonetic caught it


def test_accepted_equivalents_count_as_one_option(db, resolver, scope, resolve):
    resolve(resolver, scope, "Sarah", "Sarai")
    (sara,) = resolve(resolver, scope, "Sara")  # ambiguous: a proposal to each
    with db.write() as w:
        for pid in sara.proposals:
            identity.accept_merge(w, pid)
    (again,) = resolve(resolver, scope, "Sarra")
    assert isinstance(again, Resolved)  # Sara, Sarah and Sarai are one identity now


def test_every_normalised_mention_of_an_existing_name_is_reused(db, resolver, scope, resolve):
    names = ["Sarah", "SARAH", " sarah ", "Sa\u200brah", "Ｓａｒａｈ"]
    outcomes = resolve(resolver, scope, *names)
    assert {o.entity for o in outcomes} == {outcomes[0].entity}
    assert {normalize_name(n) for n in names} == {"sarah"}


def test_bad_candidates_are_refused_before_anything_is_written(db, resolver, scope, resolve):
    from worlddb.core.errors import InvalidInput, NotFound

    for bad in [("",), ("   ",), (42,), ("Sarah", 7), ("Sarah", None, "Sal"), object()]:
        with pytest.raises(InvalidInput):
            with db.write() as w:
                resolver.resolve(w, scope, bad)
    with pytest.raises(NotFound):
        with db.write() as w:
            resolver.resolve(w, "0" * 64, ("Sarah",))
    assert db.store.conn.execute("SELECT count(*) FROM resolver_names").fetchone()[0] == 0


@pytest.mark.parametrize("known, mention", [
    (("Ana Souza", "person"), ("Ana", "person")),  # a given name
    (("Ana Souza", "person"), ("Souza", "person")),  # a surname
    (("Ana", "person"), ("Ana Souza", None)),  # the known name is the part; the mention untyped
    (("Ana Maria Souza", None), ("Ana Maria", "person")),
    (("Ana Maria Souza", "person"), ("Maria Souza", "person")),
])
def test_one_name_part_of_anothers_is_a_proposal_about_a_person(db, resolver, scope, resolve, known, mention):
    first, second = resolve(resolver, scope, known, mention)
    assert isinstance(first, New)
    assert isinstance(second, Resolved) and second.tier == "name_part"
    assert second.match.anchor == first.entity and second.created and len(second.proposals) == 1
    assert 0 < second.score < 1


@pytest.mark.parametrize("known, mention", [
    (("Paris Hilton", None), ("Paris", None)),  # neither side a person
    (("Jordan Peele", "person"), ("Jordan", "place")),  # the types disagree
    (("Ana Maria Souza", "person"), ("Maria", "person")),  # a middle name is neither end
    (("Anabel", "person"), ("Ana", "person")),  # part of a word, not whole words
])
def test_name_parts_that_say_nothing_about_a_person_stay_apart(db, resolver, scope, resolve, known, mention):
    first, second = resolve(resolver, scope, known, mention)
    assert isinstance(second, New) and second.entity != first.entity and second.proposals == ()


def test_a_name_part_many_people_share_proposes_nothing(db, resolver, scope, resolve):
    few = resolve(resolver, scope, ("John Carter", "person"), ("John Reed", "person"))
    two = resolve(resolver, scope, ("John", "person"))[0]
    assert isinstance(two, Ambiguous) and {m.anchor for m in two.options} == {o.entity for o in few}
    resolve(resolver, scope, *[(f"Jane {s}", "person") for s in ("Ames", "Bell", "Cruz", "Diaz", "Eno", "Ford")])
    (jane,) = resolve(resolver, scope, ("Jane", "person"))
    assert isinstance(jane, New) and jane.proposals == ()


def test_a_name_part_written_in_the_same_transaction_is_found(db, resolver, scope):
    with db.write() as w:
        full = resolver.resolve(w, scope, ("Ana Souza", "person"))
        given = resolver.resolve(w, scope, ("Ana", "person"))
    assert isinstance(given, Resolved) and given.tier == "name_part" and given.match.anchor == full.entity
    (staged,) = identity.proposals(db.store, given.entity, status="pending")
    assert {staged.a, staged.b} == {given.entity, full.entity} and staged.tier == "name_part"


@pytest.mark.parametrize("known, mention", [
    (("Bob Smith", "person"), ("Robert Smith", "person")),
    (("Bob Smith", None), ("Robert Smith", None)),  # two untyped full names, alike but for the given name
    (("William Jones", "person"), ("Bill Jones", None)),
    (("Elizabeth Moss", "person"), ("Liz", "person")),  # the mention is the given name alone
    (("Liz", "person"), ("Elizabeth Moss", None)),  # the known name is
    (("Robert", None), ("Bob Smith", "person")),
    (("Anastasia", "person"), ("Ana", "person")),  # no part of the other's words, but its short form
])
def test_a_nickname_of_a_known_given_name_is_a_proposal_about_a_person(db, resolver, scope, resolve, known, mention):
    first, second = resolve(resolver, scope, known, mention)
    assert isinstance(first, New)
    assert isinstance(second, Resolved) and second.tier == "nickname"
    assert second.match.anchor == first.entity and second.created and len(second.proposals) == 1
    (staged,) = identity.proposals(db.store, second.entity, status="pending")
    assert staged.tier == "nickname"
    assert 0 < second.score <= NICKNAME_SCORE < 0.25  # below name_part's score of any name up to four words


@pytest.mark.parametrize("known, mention", [
    (("Bob Smith", "person"), ("Roberta Smith", "person")),  # Roberta's short forms are Bobbie and Robbie
    (("Bob Jones", "person"), ("Robert Smith", "person")),  # another surname
    (("Bob Smith", "person"), ("Robert Smith", "organization")),  # the types disagree
    (("Bob Smith", None), ("Robert", None)),  # no person on either side, and one is a given name alone
    (("Dell", None), ("Adele", None)),  # "Dell" is a short form of Adele, and a company
    (("Bob", None), ("Rob", None)),
])
def test_nicknames_that_say_nothing_about_a_person_stay_apart(db, resolver, scope, resolve, known, mention):
    first, second = resolve(resolver, scope, known, mention)
    assert isinstance(second, New) and second.entity != first.entity and second.proposals == ()


def test_the_same_given_name_settles_a_mention_before_a_related_one(db, resolver, scope, resolve):
    bob, robert = resolve(resolver, scope, ("Bob Smith", "person"), ("Robert Smith", "person"))
    assert robert.tier == "nickname" and robert.match.anchor == bob.entity
    (given,) = resolve(resolver, scope, ("Bob", "person"))
    assert isinstance(given, Resolved) and given.tier == "name_part" and given.match.anchor == bob.entity
    assert len(given.proposals) == 1


def test_a_known_part_of_the_name_and_a_full_name_it_is_short_for_are_both_proposed(db, resolver, scope, resolve):
    samantha, sam = resolve(resolver, scope, ("Samantha Lee", "person"), ("Sam", "person"))
    (full,) = resolve(resolver, scope, ("Sam Lee", "person"))
    # "Sam" is only a part of "Sam Lee"; "Samantha Lee" is all of it, by a nickname: either may be the one
    assert isinstance(full, Ambiguous) and len(full.proposals) == 2
    assert {(m.anchor, m.tier) for m in full.options} == {(sam.entity, "name_part"), (samantha.entity, "nickname")}
    # with no fuller name known, the part settles it as before
    with db.write() as w:
        other = w.scope("user", "bob")
    (alone,) = resolve(resolver, other, ("Sam", "person"))
    (sam_lee,) = resolve(resolver, other, ("Sam Lee", "person"))
    assert isinstance(sam_lee, Resolved) and sam_lee.tier == "name_part" and sam_lee.match.anchor == alone.entity


def test_a_short_form_with_many_long_forms_proposes_a_bounded_few_or_nothing(db, resolver, resolve):
    with db.write() as w:
        small, large = w.scope("user", "alice"), w.scope("user", "carol")
    three = ("Alan Reed", "Albert Wu", "Alex Kim")
    few = resolve(resolver, small, *[(name, "person") for name in three])
    (al,) = resolve(resolver, small, ("Al", "person"))
    assert isinstance(al, Ambiguous) and {m.tier for m in al.options} == {"nickname"}
    assert {m.anchor for m in al.options} == {o.entity for o in few} and len(al.proposals) == 3
    six = (*three, "Alfred Ames", "Alonzo Bell", "Allen Cruz")  # six people answer to "Al": it tells nothing
    resolve(resolver, large, *[(name, "person") for name in six])
    (other,) = resolve(resolver, large, ("Al", "person"))
    assert isinstance(other, New) and other.proposals == ()


def test_a_given_name_many_people_share_proposes_nothing(db, resolver, scope, resolve):
    resolve(resolver, scope, *[(f"Robert {s}", "person") for s in ("Ames", "Bell", "Cruz", "Diaz", "Eno", "Ford")])
    (bob,) = resolve(resolver, scope, ("Bob", "person"))
    assert isinstance(bob, New) and bob.proposals == ()


def test_a_nickname_written_in_the_same_transaction_is_found(db, resolver, scope):
    with db.write() as w:
        bob = resolver.resolve(w, scope, ("Bob Smith", "person"))
        robert = resolver.resolve(w, scope, ("Robert Smith", "person"))  # the exact-name lookup, in SQL
        liz = resolver.resolve(w, scope, ("Elizabeth Moss", "person"))
        given = resolver.resolve(w, scope, ("Liz", "person"))  # a leading word: the index cannot see it yet
    assert robert.tier == "nickname" and robert.match.anchor == bob.entity
    assert isinstance(given, Resolved) and given.tier == "nickname" and given.match.anchor == liz.entity
    (staged,) = identity.proposals(db.store, given.entity, status="pending")
    assert {staged.a, staged.b} == {given.entity, liz.entity}


def test_nicknames_never_match_across_scopes(db, resolver, resolve):
    with db.write() as w:
        alice, other = w.scope("user", "alice"), w.scope("user", "carol")
    resolve(resolver, alice, ("Bob Smith", "person"), ("Elizabeth Moss", "person"))
    robert, liz = resolve(resolver, other, ("Robert Smith", "person"), ("Liz", "person"))
    assert isinstance(robert, New) and isinstance(liz, New)
