"""Temporal expressions: find them with a small pattern pass, resolve them with dateparser.

Contract: ``find_temporals(text, base)`` is deterministic, performs no I/O and never raises on any
string. It returns non-overlapping ``TemporalExpression``s in text order. ``resolved`` is the start
of the period named ("last week" -> that week's Monday, "in May 2023" -> 2023-05-01, "last summer"
-> 1 June), or, for an offset ("two weeks ago"), the day the offset lands on; it carries
``base``'s tzinfo. Relative expressions found with no ``base`` keep ``resolved=None``.

Why not ``dateparser.search.search_dates``: on chat text it is slow (~15 ms a sentence) and noisy
(it reads "We" and "yesterday and" as dates). A pattern pass proposes the spans; dateparser resolves
each one against the message's day (~1-3 ms, cached per expression and day). Weekends and seasons, which dateparser does
not know, are computed here. Seasons are the northern meteorological ones. A pattern runs only where the literals it
needs (``_needs``, worlddb.extract.literals) occur in the text, which changes no result.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from functools import cache, lru_cache

import dateparser

from worlddb.extract import Granularity, TemporalExpression
from worlddb.extract.literals import fold, has_all, required

__all__ = ["find_temporals", "warm"]

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b"
)
_WEEKDAY = (
    r"(?:Mon(?:day)?|Tue(?:s(?:day)?)?|Wed(?:nesday)?|Thu(?:rs(?:day)?)?|Fri(?:day)?"
    r"|Sat(?:urday)?|Sun(?:day)?)\b"
)
_NUMBER = (
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty"
    r"|a\s+few|a\s+couple(?:\s+of)?|few|couple(?:\s+of)?|several)"
)
_UNIT = r"(?:days?|weeks?|months?|years?)"
_SEASON = r"(?:spring|summer|fall|autumn|winter)"
_YEAR = r"(?:19|20)\d{2}"
_DAY = r"(?:[0-3]?\d)(?:st|nd|rd|th)?"

# Each pattern is tried in this order; earlier (more specific) ones win overlapping spans.
# Patterns with month names are case-sensitive (cased=True) so the verb "may" is not a month.
_PATTERNS: tuple[tuple[str, str, str, bool], ...] = (
    (r"\d{4}-\d{2}-\d{2}", "day", "dp", False),
    (rf"{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}", "day", "dp", True),
    (rf"{_MONTH}\s+{_DAY},?\s+{_YEAR}", "day", "dp", True),
    (rf"(?:the\s+)?{_SEASON}\s+(?:of\s+)?{_YEAR}", "season", "season", False),
    (rf"(?:last|this|next|past|coming)\s+{_SEASON}", "season", "season", False),
    (rf"{_MONTH},?\s+{_YEAR}", "month", "dp", True),
    (rf"{_DAY}\s+(?:of\s+)?{_MONTH}|{_MONTH}\s+{_DAY}\b(?![:.]\d)", "day", "dp", True),
    (rf"(?<=\b[Ii]n\s){_MONTH}|(?<=\bsince\s){_MONTH}|(?<=\bduring\s){_MONTH}", "month", "dp", True),
    (r"yesterday|today|tomorrow|tonight|last\s+night", "day", "dp", False),
    (r"(?:last|this|next|past|coming)\s+weekend", "weekend", "weekend", False),
    (rf"(?:last|this|next)\s+{_WEEKDAY}", "day", "dp", False),
    (rf"(?<=\bon\s){_WEEKDAY}", "day", "dp", False),
    (r"(?:last|this|next)\s+week\b", "week", "dp", False),
    (r"(?:last|this|next)\s+month\b", "month", "dp", False),
    (r"(?:last|this|next)\s+year\b", "year", "dp", False),
    (rf"{_NUMBER}\s+{_UNIT}\s+ago", "unit", "dp", False),
    (rf"in\s+{_NUMBER}\s+{_UNIT}\b", "unit", "dp", False),
    (rf"(?<=\b[Ii]n\s){_YEAR}\b|(?<=\bsince\s){_YEAR}\b|(?<=\bby\s){_YEAR}\b", "year", "dp", False),
)
_COMPILED = tuple(
    (re.compile(rf"\b(?:{pattern})", 0 if cased else re.IGNORECASE), gran, kind)
    for pattern, gran, kind, cased in _PATTERNS
)
_RELATIVE_WORDS = re.compile(r"ago|last|this|next|past|coming|yesterday|today|tomorrow|tonight"
                             r"|^in\s|weekend|^" + _WEEKDAY, re.IGNORECASE)
_HAS_YEAR = re.compile(rf"\b{_YEAR}\b")
_FUTURE_CUE = re.compile(
    r"\b(?:will|shall|gonna|going\s+to|plan(?:ning)?\s+to|planning|hope\s+to|can't\s+wait"
    r"|upcoming|soon|next|tomorrow)\b|'ll\b",
    re.IGNORECASE,
)
_FUZZY_NUMBERS = (
    (re.compile(r"\ba\s+couple(?:\s+of)?\b|\bcouple(?:\s+of)?\b", re.I), "2"),
    (re.compile(r"\ba\s+few\b|\bfew\b|\bseveral\b", re.I), "3"),
)
_SEASON_START = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def find_temporals(text: str, base: datetime | None, *, sentence: str | None = None) -> list[TemporalExpression]:
    """Every temporal expression in ``text``, resolved against ``base`` (see the module contract).

    ``sentence`` (default: ``text``) is scanned for future cues ("will", "next", "'ll") to decide
    whether a bare "Friday" or "June" means the coming one or the last one."""
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, int, Granularity, str]] = []
    folded = fold(text)
    for (regex, gran, kind), needs in zip(_COMPILED, _needs()):
        if not has_all(folded, needs):
            continue  # it cannot match here
        for m in regex.finditer(text):
            start, end = m.span()
            if any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            found.append((start, end, gran, kind))
    found.sort()
    prefer = "future" if _FUTURE_CUE.search(sentence if sentence is not None else text) else "past"
    out = []
    for start, end, gran, kind in found:
        surface = text[start:end]
        granularity, resolved = _resolve(surface, gran, kind, base, prefer)
        out.append(TemporalExpression(surface, (start, end), resolved, granularity))
    return out


@cache
def _needs() -> tuple[tuple[frozenset[str], ...], ...]:
    """The literal sets each of `_COMPILED` needs (worlddb.extract.literals), parsed on first use."""
    return tuple(required(regex) for regex, _gran, _kind in _COMPILED)


def _resolve(surface: str, gran: str, kind: str, base: datetime | None, prefer: str
             ) -> tuple[Granularity, datetime | None]:
    words = " ".join(surface.split())
    granularity: Granularity = _unit_granularity(words) if gran == "unit" else gran  # type: ignore[assignment]
    relative = bool(_RELATIVE_WORDS.search(words)) or not _HAS_YEAR.search(words)
    if base is None and relative:
        return granularity, None
    naive = base.replace(tzinfo=None) if base is not None else datetime(2000, 1, 1)
    if kind == "weekend":
        resolved = _weekend(words.lower(), naive)
    elif kind == "season":
        resolved = _season(words.lower(), naive, prefer)
    else:
        # against the message's day, not its moment: every result is snapped to a day or a
        # coarser period, so the time of day never changes it, and the cache then serves
        # every message of that day (dateparser costs ~3 ms a call)
        resolved = _dateparse(_plain_numbers(words), naive.replace(hour=0, minute=0, second=0, microsecond=0), prefer)
    if resolved is None:
        return granularity, None
    resolved = _snap(resolved, granularity, words.lower())
    return granularity, resolved.replace(tzinfo=base.tzinfo) if base is not None else resolved


def _unit_granularity(words: str) -> Granularity:
    unit = re.search(r"(day|week|month|year)", words, re.IGNORECASE)
    return unit.group(1).lower() if unit else "day"  # type: ignore[return-value]


def _plain_numbers(words: str) -> str:
    # dateparser knows "two weeks ago" but not "a couple of weeks ago"; a few is taken as three.
    for regex, number in _FUZZY_NUMBERS:
        words = regex.sub(number, words)
    if words.lower() == "last night":
        return "yesterday"
    if words.lower() == "tonight":
        return "today"
    return words


def warm() -> None:
    """Have dateparser build its English tables now: it does so at its first parse (about
    70 ms, against well under 1 ms for a parse afterwards), which would otherwise fall on the
    first memory_write naming a date after a server starts; and the patterns' literal sets
    (`_needs`). No text is cached."""
    dateparser.parse("two weeks ago", languages=["en"])
    _needs()


@lru_cache(maxsize=4096)
def _dateparse(words: str, base: datetime, prefer: str) -> datetime | None:
    settings = {
        "RELATIVE_BASE": base,
        "PREFER_DATES_FROM": prefer,
        "PREFER_DAY_OF_MONTH": "first",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    return dateparser.parse(words, languages=["en"], settings=settings)


def _snap(value: datetime, granularity: Granularity, words: str) -> datetime:
    day = value.replace(hour=0, minute=0, second=0, microsecond=0)
    if granularity == "week" and "ago" not in words and not words.startswith("in "):
        return day - timedelta(days=day.weekday())  # "last week" -> its Monday
    if granularity == "month":
        return day.replace(day=1)
    if granularity == "year":
        return day.replace(month=1, day=1)
    return day


def _weekend(words: str, base: datetime) -> datetime:
    saturday = base - timedelta(days=base.weekday()) + timedelta(days=5)
    if words.startswith(("last", "past")):
        saturday -= timedelta(weeks=1)
    elif words.startswith("next"):
        saturday += timedelta(weeks=1)
    return saturday


def _season(words: str, base: datetime, prefer: str) -> datetime:
    # the span matched case-insensitively, so "ſpring" (long s) is a season too: fold it as the match did
    name = re.search(_SEASON, words, re.I).group(0)  # type: ignore[union-attr]
    month = _SEASON_START[name.casefold()]
    year_match = _HAS_YEAR.search(words)
    if year_match:
        return datetime(int(year_match.group(0)), month, 1)
    latest = datetime(base.year if base.month >= month else base.year - 1, month, 1)
    ongoing = base < _add_months(latest, 3)
    following = latest.replace(year=latest.year + 1)
    if words.startswith(("last", "past")):
        return latest.replace(year=latest.year - 1) if ongoing else latest
    if words.startswith(("next", "coming")):
        return following
    # "this summer": the one under way, else the one just gone or the coming one, by tense.
    return latest if ongoing or prefer == "past" else following


def _add_months(value: datetime, months: int) -> datetime:
    total = value.month - 1 + months
    return value.replace(year=value.year + total // 12, month=total % 12 + 1)
