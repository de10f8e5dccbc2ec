"""When a text says its statement became true: the time its facts take from the text.

Contract: ``stated_period(text, facts, at)`` is deterministic, performs no I/O and never raises on
any string. It returns the period (start, end) the text states for what it says, as the start of
the period the text names ("I moved to Berlin last month": the 1st of last month) and the end of
that period, no later than ``at``; or None when the text states no such time. ``at`` is the time the
text was written, which relative times ("last month", "two weeks ago") are resolved against, as
the extractor resolved them (worlddb.extract.temporal).

A text states when its statement became true only when all of these hold:

* it has facts, and every one of them takes the same time from the text (``FactCandidate.
  valid_from``): "Last year I visited Rome. I live in Berlin." dates one fact and not the other;
* every sentence of it is one a fact is drawn from (its ``text``), or one that states nothing
  needing a time of its own: it names no time, the slot reader reads no claim in it and it says
  no change (worlddb.extract.unread_change.states_change). "I moved to Berlin last month. I love
  it here." begins last month; "Not at Siemens anymore. I joined Brightloop in March." says a
  change of now that no fact holds, and "I moved to Berlin last month. My rent is 900 euros." a
  claim the text does not date;
* that time is not after ``at``: a time still to come is a plan ("I start at Google next
  month"), not when something became true;
* it is the only time the text names: "I started at Acme in 2019 and left in 2022", or a move
  last month and a dentist appointment on Friday, do not say which one the text began at;
* in each fact's sentence the time belongs to the fact's own clause: nothing but words stand
  between the time and the fact's object (no comma, semicolon, colon or dash, and no "and",
  "but", "or", "so", "because", "while", "when", "after", "before", "until"), but for a comma
  after a time that opens the sentence ("In 2019, I lived in Lisbon"). "I live in Hamburg and my
  birthday was on March 3rd" dates the fact with the birthday's day; the clause says it is not
  when the fact began.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from worlddb.extract import FactCandidate, TemporalExpression
from worlddb.extract.builtin import split_sentences
from worlddb.extract.slots import read
from worlddb.extract.temporal import find_temporals
from worlddb.extract.unread_change import states_change

__all__ = ["stated_period"]

#: what between a time and a fact's object says the two are in different clauses
_CLAUSE_BREAK = re.compile(r"[,;:()\u2013\u2014]|\s-\s|\b(?:and|but|or|so|because|while|when|after|before|until|"
                           r"though|although|whereas)\b", re.IGNORECASE)
#: what may stand before a time that opens a sentence (the time's span leaves out "in" of "in 2019")
_OPENING = frozenset({"", "in", "on", "since", "during", "by"})
#: how long a period of each granularity lasts (a month, a season and a year by their calendar)
_DAYS = {"day": 1, "weekend": 2, "week": 7}
_MONTHS = {"month": 1, "season": 3, "year": 12}


def stated_period(text: str, facts: Sequence[FactCandidate], at: datetime) -> tuple[datetime, datetime] | None:
    """The period the text states for what it says (see the module contract), or None."""
    starts = {f.valid_from for f in facts}
    if not facts or len(starts) != 1 or None in starts:
        return None
    start = next(iter(starts))
    if start > at:
        return None
    sentences = [text[s:e].strip() for s, e in split_sentences(text) if text[s:e].strip()]
    drawn = [s for s in sentences if any(f.text.strip() and f.text.strip() in s for f in facts)]
    if not drawn or not all(s in drawn or _aside(s, at) for s in sentences):
        return None
    times = [t for sentence in sentences for t in find_temporals(sentence, at) if t.resolved is not None]
    if not times or any(t.resolved != start for t in times):
        return None
    if not all(_in_clause(f, at) for f in facts):
        return None
    return start, min(_end(start, times[0]), at)


def _aside(sentence: str, at: datetime) -> bool:
    """Whether a sentence no fact is drawn from states nothing that needs a time of its own: no
    time, no slot claim, no change ("I love it here.")."""
    return not find_temporals(sentence, at) and not read(sentence).claims and not states_change(sentence)


def _in_clause(fact: FactCandidate, at: datetime) -> bool:
    """Whether the time `fact` takes is said in the fact's clause of its sentence."""
    sentence = fact.text
    spots = [m.start() for m in re.finditer(re.escape(fact.object), sentence, re.IGNORECASE)]
    times = [t for t in find_temporals(sentence, at) if t.resolved == fact.valid_from]
    return any(_joined(sentence, t, spot, spot + len(fact.object)) for t in times for spot in spots)


def _joined(sentence: str, time: TemporalExpression, start: int, end: int) -> bool:
    """Whether nothing between `time` and the object at [start, end) breaks the clause."""
    (a, b) = time.span
    if b <= start:
        between = sentence[b:start]
        if sentence[:a].strip().casefold() in _OPENING:  # an opening time: "In 2019, I lived in Lisbon"
            between = between.lstrip().removeprefix(",")
    elif end <= a:
        between = sentence[end:a]
    else:
        return False
    return not _CLAUSE_BREAK.search(between)


def _end(start: datetime, time: TemporalExpression) -> datetime:
    if time.granularity in _DAYS:
        return start + timedelta(days=_DAYS[time.granularity])
    total = start.month - 1 + _MONTHS[time.granularity]
    return start.replace(year=start.year + total // 12, month=total % 12 + 1)
