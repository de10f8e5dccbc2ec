from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from worlddb.core.errors import InvalidInput
from worlddb.resolver import MAX_NAME_LEN, normalize_name, phonetic_key, phonetic_similarity


@pytest.mark.parametrize("raw, expected", [
    ("  Sarah  ", "sarah"),
    ("SARAH", "sarah"),
    ("Sarah \t\n Jones", "sarah jones"),
    ("Ｓａｒａｈ", "sarah"),  # fullwidth letters fold under NFKC
    ("Sa\u200brah", "sarah"),  # zero-width space is a format character
    ("Sa\x00rah\x07", "sarah"),
    ("Straße", "strasse"),  # case folding, not lower()
    ("e\u0301mile", "émile"),  # composed
    ("ﬁlip", "filip"),  # ligature
])
def test_normalisation_folds_case_width_space_and_control_characters(raw, expected):
    assert normalize_name(raw) == expected


def test_normalised_names_are_bounded():
    assert len(normalize_name("a" * 1000)) == MAX_NAME_LEN
    cut = normalize_name("ab " * 100)  # the cut falls on a space, which is trimmed
    assert len(cut) <= MAX_NAME_LEN and not cut.endswith(" ")


def test_normalisation_refuses_what_is_not_text():
    with pytest.raises(InvalidInput):
        normalize_name(42)


@given(st.text(max_size=300))
def test_normalisation_is_idempotent(text):
    once = normalize_name(text)
    assert normalize_name(once) == once
    assert once == once.strip() and "  " not in once and len(once) <= MAX_NAME_LEN


@pytest.mark.parametrize("a, b", [
    ("Phillip", "Filip"),  # PH -> F, LL collapses
    ("Stephen", "Steven"),  # PH -> F, F and V share a digit
    ("Knight", "Night"),  # KN -> N at the start
    ("Wright", "Right"),  # WR -> R at the start
    ("Mackenzie", "Makenzie"),  # CK -> K
    ("Jon", "John"),  # H is silent
    ("Smith", "Smyth"),
    ("Sarah", "Sara"),
])
def test_sound_alikes_share_a_phonetic_key(a, b):
    assert phonetic_key(a) == phonetic_key(b)
    assert phonetic_similarity(a, b) == 1.0


@pytest.mark.parametrize("a, b", [
    ("Anna", "Hanna"),  # the first letter is kept
    ("Katherine", "Catherine"),
    ("Hackney", "Hakney ney"),  # another word, another code
])
def test_different_first_sounds_get_different_keys(a, b):
    assert phonetic_key(a) != phonetic_key(b)


def test_phonetic_key_codes_every_word_without_truncation():
    assert phonetic_key("Phillip Wright-Knox") == "F41 R23 N2"
    assert phonetic_key("Hackney") == "H25"  # KN inside a word is not rewritten
    assert phonetic_key("Tymczak") == "T522"  # a vowel separates equal digits
    assert phonetic_key("李小龙") == ""  # no Latin letters, no key


def test_a_shared_key_is_not_enough_the_sound_spelling_decides():
    assert phonetic_key("Jon") == phonetic_key("Joan") == "J5"
    assert phonetic_similarity("Jon", "Joan") < 0.94
