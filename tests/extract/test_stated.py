"""worlddb.extract.stated: when a text states that what it says became true, read from the
built-in extractor's facts as a write reads them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from worlddb.extract import ExtractionContext
from worlddb.extract.builtin import BuiltinExtractor
from worlddb.extract.stated import stated_period

AT = datetime(2026, 11, 30, 12, tzinfo=UTC)


def period(text: str):
    facts = BuiltinExtractor().extract(text, ExtractionContext(timestamp=AT, user_name="alice")).facts
    return stated_period(text, facts, AT)


@pytest.mark.parametrize("text, start, end", [
    ("I moved to Berlin last month.", datetime(2026, 10, 1), datetime(2026, 11, 1)),
    ("Two weeks ago I moved to Austin.", datetime(2026, 11, 16), datetime(2026, 11, 23)),
    ("In 2019 I lived in Lisbon.", datetime(2019, 1, 1), datetime(2020, 1, 1)),
    ("In 2019, I lived in Lisbon.", datetime(2019, 1, 1), datetime(2020, 1, 1)),
    ("I lived in Lisbon in 2019.", datetime(2019, 1, 1), datetime(2020, 1, 1)),
    ("My sister Anna moved to Berlin last month.", datetime(2026, 10, 1), datetime(2026, 11, 1)),
    ("I joined Google last week.", datetime(2026, 11, 23), datetime(2026, 11, 30)),
    # beside a sentence that states nothing needing a time of its own
    ("I moved to Berlin last month. I love it here.", datetime(2026, 10, 1), datetime(2026, 11, 1)),
    ("Two weeks ago I moved to Austin. We love it.", datetime(2026, 11, 16), datetime(2026, 11, 23)),
    # a period not yet over ends when the text was written
    ("I moved to Berlin today.", datetime(2026, 11, 30), AT.replace(tzinfo=None)),
])
def test_the_time_a_change_or_state_is_said_in_is_its_start(text, start, end):
    assert period(text) == (start.replace(tzinfo=UTC), end.replace(tzinfo=UTC))


@pytest.mark.parametrize("text", [
    "I have a dentist appointment on Friday.",  # no fact: an event, not when a statement began
    "My birthday is March 3rd.",
    "I'm moving to Denver next month.",  # a plan
    "I moved to Austin next week.",  # a time still to come
    "I started at Acme in 2019 and left in 2022.",  # two times
    "I moved to Berlin in 2019 and to Paris in 2022.",
    "I moved to Berlin last month. I have a dentist appointment on Friday.",
    "I live in Hamburg and my birthday was on March 3rd.",  # the time is another clause's
    "I live in Hamburg, my birthday was on March 3rd.",
    "I work at Google and have a meeting tomorrow.",
    "Last month, after years in Hamburg, I moved to Berlin.",
    "Last year I visited Rome. I live in Berlin.",  # one fact dated, one not
    "Not at Siemens anymore. I joined a startup in March.",  # a sentence no fact is drawn from
    # a sentence no fact is drawn from that needs a time of its own: a change, a claim, a time
    "I moved to Berlin last month. I work at Google now.",
    "I moved to Berlin last month. My rent is 900 euros.",
    "I moved to Berlin last month. I start at Google next week.",
    "I live in Berlin.",
])
def test_a_time_that_is_not_when_all_the_text_says_began_states_none(text):
    assert period(text) is None


def test_facts_without_a_time_of_their_own_state_none():
    facts = BuiltinExtractor().extract("I moved to Berlin last month.", ExtractionContext(timestamp=AT)).facts
    undated = [f.__class__(f.subject, f.relation, f.object, f.text) for f in facts]
    assert stated_period("I moved to Berlin last month.", undated, AT) is None
