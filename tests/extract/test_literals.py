"""The literals a pattern needs (worlddb.extract.literals): what is derived, and that it is
necessary - no string the pattern matches lacks them, whatever its case or script."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worlddb.extract.literals import _SAFE, FOLD, fold, required

#: every character there is, but the surrogates
EVERY_CHARACTER = "".join(map(chr, [*range(0xD800), *range(0xE000, 0x110000)]))


def needs(pattern: str, flags: int = re.I) -> list[set[str]]:
    return [set(s) for s in required(re.compile(pattern, flags))]


def holds(pattern: re.Pattern[str], text: str) -> bool:
    """Whether every match of `pattern` in `text` holds a member of each set it needs."""
    sets = required(pattern)
    return all(any(s in fold(m.group(0)) for s in strings) for m in pattern.finditer(text) for strings in sets)


def test_fold_maps_every_case_insensitive_match_of_a_literal_character_to_it():
    # a literal character of a needed string, case-insensitively, as a literal or in a class,
    # matches only characters that fold to it (this is where "K" (Kelvin), "ſ", "İ", "ı" come in)
    for code in sorted(_SAFE):
        char = chr(code)
        for rx in (re.escape(char), "[" + re.escape(char) + "]"):
            for found in set(re.findall(rx, EVERY_CHARACTER, re.I)):
                assert fold(found) == char, (char, found)
    assert fold(EVERY_CHARACTER).__len__() == len(EVERY_CHARACTER)
    assert all(len(chr(v)) == 1 for v in FOLD.values())
    assert fold("İ\u212aſı Straße ÉTÉ") == "ikſi straße ÉtÉ".replace("ſ", "s")


@pytest.mark.parametrize(("pattern", "expected"), [
    (r"(?:live|lives|living|lived)\s+(?:in|to|into)\b", [{"live", "living"}, {"in", "to"}]),
    (r"\bcounsel+or\b", [{"counse"}, {"or"}, {"l"}]),
    (r"fianc[ée]e?", [{"fianc"}]),
    (r"(?:my|our)\s+(?-i:[A-Z])\w+", [{"my", "our"}]),
    (r"I['’]m\s+allergic", [{"allergic"}, {"i'm", "i’m"}]),
    (r"colou?r", [{"color", "colour"}]),
    (r"(?:ab){2}c", [{"ababc"}]),
    (r"a(?:x|y\w)b", [{"a"}, {"b"}, {"x", "y"}]),
    (r"(?:x\d+|y\s)z", [{"z"}, {"x", "y"}]),
    (r"(a)\1", [{"a"}]),
])
def test_what_is_needed(pattern, expected):
    assert needs(pattern) == expected


@pytest.mark.parametrize("pattern", [
    r"\w+", r"(?:abc)?\d", r"(?:abc)*", r"(?=abc)\w", r"(?<=abc)\d", r"(?!abc)\w+", r"(\w)\1", r"[^abc]+",
    r"x|\d", r".", r"(?:é|è)\w", r"\bé\b",
])
def test_nothing_needed_where_nothing_is_certain(pattern):
    assert required(re.compile(pattern, re.I)) == ()


def test_patterns_it_does_not_read():
    assert required(re.compile(r"abc", re.I | re.ASCII)) == ()
    assert required(re.compile(rb"abc")) == ()


@pytest.mark.parametrize(("pattern", "texts"), [
    (r"\bmoved?\s+to\b", ["I MOVED TO Oslo", "i \u212aept moving; moved to", "MOVE\tTO", "mo ved to"]),
    (r"(?:ſister|brother)s?", ["my SISTERS", "my ſister", "my \u017fister", "BROTHER"]),
    (r"\bit\b", ["İT works", "ıt", "IT", "tit"]),
    (r"(?-i:Kai)|kelvin", ["\u212aai", "Kai", "KELVIN", "\u212aelvin"]),
    (r"I['’]m\s+here", ["I’m here", "i'm HERE", "İ'm here", "I`m here"]),
])
def test_every_match_holds_what_is_needed(pattern, texts):
    rx = re.compile(pattern, re.I)
    assert required(rx)
    assert any(rx.search(t) for t in texts)
    for text in texts:
        assert holds(rx, text), text


PATTERNS = [r"(?:live|lives|living)\s+(?:in|at)\s+\w+", r"colou?r(?:ed|s)?", r"\b(?:dr|doctor)\.?\s+[a-z]+",
            r"(?:ab){1,3}c+d", r"k[ie]t(?:ty|ten)", r"(?:sun|mon)days?\b"]


@settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(PATTERNS).flatmap(lambda p: st.tuples(st.just(p), st.from_regex(re.compile(p, re.I)))))
def test_generated_matches_hold_what_is_needed(case):
    pattern, text = case
    rx = re.compile(pattern, re.I)
    assert rx.search(text)
    assert holds(rx, text)
    # and so do their case variants, the odd ones included
    for variant in (text.upper(), text.swapcase(), text.replace("k", "\u212a").replace("s", "ſ").replace("i", "ı")):
        assert holds(rx, variant), variant
