"""The given-name table: one nickname step either way, case-insensitive, read once."""

from __future__ import annotations

import pytest

from worlddb.extract import given_names


@pytest.mark.parametrize("short, full", [("Bob", "Robert"), ("bill", "William"), ("LIZ", "elizabeth"),
                                         ("Al", "Alexander"), ("Chris", "Christopher")])
def test_a_nickname_and_its_long_form_are_related_both_ways(short, full):
    assert full.lower() in given_names.related(short)
    assert short.lower() in given_names.related(full)


@pytest.mark.parametrize("a, b", [("roberta", "bob"), ("liz", "beth"), ("emma", "robert")])
def test_names_more_than_one_step_apart_are_not_related(a, b):
    assert b not in given_names.related(a) and a not in given_names.related(b)


def test_a_name_is_not_its_own_nickname_and_unknown_words_have_none():
    assert "robert" not in given_names.related("Robert")
    assert given_names.related("Burgers") == frozenset() and given_names.related("") == frozenset()


@pytest.mark.parametrize("word, known", [("Robert", True), ("bob", True), ("Emma", True), (" Liz ", True),
                                         ("Burgers", False), ("Denver", False), ("l.r.", False)])
def test_given_names_are_the_tables_names(word, known):
    assert given_names.is_given_name(word) is known


def test_the_table_is_read_once():
    given_names.related("bob")
    before = given_names._table.cache_info()
    for name in ("bob", "al", "nobody", "liz") * 50:
        given_names.related(name)
        given_names.is_given_name(name)
    after = given_names._table.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 400
