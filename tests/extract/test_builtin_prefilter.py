"""The built-in extractor's literal prefilter is exact: a temporal or fact pattern it does not run
could not have matched, so every extraction equals the one of running every pattern on every
sentence.

The texts: phrasings written so that every gated pattern matches at least one of them (a few with
the non-ASCII characters that match ASCII letters case-insensitively), and the dev corpora when
they are there (tests/extract/test_slots_prefilter.py's `dev_texts`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.extract.test_slots_prefilter import dev_texts
from worlddb.extract import ExtractionContext, builtin, temporal
from worlddb.extract.literals import fold

CRAFTED = [
    # every temporal pattern
    "The release was on 2023-05-10, and we met on 3rd of May, 2022 and again on June 7, 2021.",
    "We went in the summer of 2019, and last summer too; the fair was in March 2020.",
    "My birthday is 12 June, or was it June 12? In May we went, since April we live here.",
    "Yesterday was long, today is better, tomorrow is free, tonight we rest, last night was loud.",
    "Last weekend we hiked; this Friday I work, and on Monday I fly. Next week is busy.",
    "Last month was calm; this year is not. Two weeks ago I moved, a couple of days ago she left.",
    "I will see her in three days. I was born in 1990 and have lived here since 2001, done by 2030.",
    "We'll go next SUMMER, the spring of 2024, on tueſday, in \u212aelvin's year 2020.",
    # every fact pattern, and each coordinated one
    "I'm a nurse. Maria is a teacher. I live in Austin and work at Dell.",
    "I moved to Denver. I'm moving to Boston soon. Tom works at Google and works as a pilot.",
    "I work for Acme and also work as an engineer. Ana is from Peru, and I came from Lima.",
    "I love jazz and like opera. Sam enjoys chess and adores Paris.",
    "I visited Rome and went to Milan. I traveled to Oslo and travelled to Bergen.",
    "I joined the choir and am a member of the club. Ana got married to Luis; I married Eva.",
    "I live in Quito and now moved to Lima. Ben is an architect and was a member of the board.",
    "Lena works as a nurse. I work at Dell and live in Austin, and I live here and came from Chile.",
    "I moved to Rome and married Eva.",
    "My sister Anna is here. My best friend, Priya, came. Bob Smith is my manager.",
    "Priya, my boss, agreed. Call Mel, my sister. Dr. Patel is my dentist. Rex was my dog.",
    # case folding the literals must allow
    "İ live in Ankara. I ſmoke. I wor\u212a at Acme. MY SISTER Anna LIVES in Rome.",
    # nothing to find
    "", "ok", "Nothing much happened.", "1234", "x" * 300,
]

NOW = datetime(2023, 5, 10, 13, 56, tzinfo=UTC)


def _gated() -> list[tuple[object, tuple[frozenset[str], ...]]]:
    facts, coordinated, kin, is_kin = builtin._fact_needs()
    return ([(rx, needs) for (rx, _gran, _kind), needs in zip(temporal._COMPILED, temporal._needs())]
            + [(rx, needs) for (rx, _rel), needs in zip(builtin._FACT_PATTERNS, facts)]
            + [(rx, needs) for (rx, _rel), needs in zip(builtin._COORDINATED, coordinated)]
            + [(builtin._MY_KIN_NAME, kin), (builtin._NAME_IS_MY_KIN, is_kin)])


def _plain(monkeypatch: pytest.MonkeyPatch, fn, *args):
    """`fn(*args)` with every pattern run (no literal sets needed)."""
    with monkeypatch.context() as m:
        m.setattr(temporal, "_needs", lambda: tuple(() for _ in temporal._COMPILED))
        m.setattr(builtin, "_fact_needs", lambda: (tuple(() for _ in builtin._FACT_PATTERNS),
                                                   tuple(() for _ in builtin._COORDINATED), (), ()))
        return fn(*args)


def _check(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> set[int]:
    """Each text's extraction, with and without the prefilter, in three contexts; and every
    match of a gated pattern holding a member of each set it needs. The patterns that matched."""
    extractor = builtin.BuiltinExtractor()
    contexts = [ExtractionContext(NOW, "Caroline"), ExtractionContext(NOW, None, "alice"),
                ExtractionContext(None, None, None)]
    gated, matched = _gated(), set()
    for text in texts:
        for ctx in contexts:
            assert extractor.extract(text, ctx) == _plain(monkeypatch, extractor.extract, text, ctx), text
        assert temporal.find_temporals(text, None) == _plain(monkeypatch, temporal.find_temporals, text, None)
        for i, (rx, needs) in enumerate(gated):
            for m in rx.finditer(text):
                matched.add(i)
                span = fold(m.group(0))
                assert all(any(s in span for s in strings) for strings in needs), (text, m.group(0))
    return matched


def test_every_gated_pattern_matches_a_crafted_text_and_nothing_changes(monkeypatch):
    assert all(needs for _rx, needs in _gated())  # each pattern is gated by something
    assert _check(CRAFTED, monkeypatch) == set(range(len(_gated())))


def test_extractions_equal_the_plain_path_on_the_dev_corpora(monkeypatch):
    matched = _check(dev_texts()[::2], monkeypatch)
    assert len(matched) > len(_gated()) // 2  # not a comparison of empty extractions
