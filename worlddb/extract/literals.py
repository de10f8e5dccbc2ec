"""Literals a regular expression needs: a cheap test that rules a pattern out before it runs.

Contract: ``required(pattern)`` returns sets of strings (lower-case ASCII, or typographic
punctuation that has no case) such that every match of `pattern`, folded, holds a member of
each set; ``()`` when none is known (the pattern must then always run). ``fold(text)``
lower-cases ASCII letters and maps the few non-ASCII characters that an ASCII letter matches
under ``re.IGNORECASE`` (the Kelvin sign, the long s, dotted and dotless i) to that letter,
character for character; it is not ``str.lower`` ("İ".lower() is two characters). So

    folded = fold(text)
    if not all(any(s in folded for s in strings) for strings in required(rx)):
        ...  # rx.search(text) is None

is exact: a pattern is skipped only where it could not have matched.

How: the parse tree (``re._parser``, the standard library's own parser, so the tree is the
one the matcher runs) is walked conservatively. A part that matches one of a few literal
strings (literals, alternations and short repeats of them, small character classes of
literals) is expanded to those strings, and neighbouring such parts are joined, so
"(?:live|lives|living)\\s+in" needs one of {"live", "living"} and "in" (a longer string
holding a shorter one of its set is implied by it). Anything else - a character category,
``.``, a negated class, a repeat that may match nothing, a lookaround, a backreference, a
cased non-ASCII literal - ends a run and contributes nothing; an alternation needs the union
of what its alternatives need, or nothing if one needs nothing. Under ``re.I`` a
case-sensitive part (``(?-i:...)``) is folded as well, which only makes the test pass more
often. The sets come most telling first: longest shortest string, then fewest strings.

The readers' own patterns have their sets shipped (``TABLE_PATH``, written by
``python -m worlddb.extract.warmup`` and checked against ``derive`` by the tests), named by a
digest of each pattern's flags and text: ``required`` reads a pattern's sets there and derives
those of any pattern the table does not hold, so a stale table costs time, never a wrong set.
"""

from __future__ import annotations

import hashlib
import json
import re
import re._constants as _c  # the standard library's own regex parser and its opcodes
import re._parser as _p
import threading
from pathlib import Path

__all__ = ["ALGORITHM", "FOLD", "TABLE_PATH", "derive", "fold", "has_all", "key", "required"]

#: the shipped sets of the readers' patterns (worlddb.extract.warmup writes it), so a process
#: does not parse some 300 patterns (half a second to a second of CPU) to find what each needs
TABLE_PATH = Path(__file__).parent / "data" / "required-literals.json"
#: the version of the walk below; a table written by another version is not used
ALGORITHM = 1

#: ASCII upper case to lower case, and every non-ASCII character that an ASCII letter matches
#: under re.IGNORECASE to that letter (checked over all of Unicode by the tests)
FOLD: dict[int, int] = {
    **{ord(ch): ord(ch.lower()) for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
    0x212A: ord("k"),  # KELVIN SIGN
    0x017F: ord("s"),  # LATIN SMALL LETTER LONG S
    0x0130: ord("i"),  # LATIN CAPITAL LETTER I WITH DOT ABOVE
    0x0131: ord("i"),  # LATIN SMALL LETTER DOTLESS I
}

#: the most strings one part may expand to before it is cut short
_MAX_STRINGS = 64
#: characters a required literal may hold: those whose case-insensitive matches FOLD covers
#: (ASCII, and typographic punctuation that has no case and so matches only itself)
_SAFE = frozenset(map(ord, "abcdefghijklmnopqrstuvwxyz0123456789 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
                           "\u2018\u2019\u201c\u201d\u2013\u2014\u2024\u2026"))


def fold(text: str) -> str:
    """`text` with the case of the characters a required literal can hold folded, one for one."""
    return text.translate(FOLD)


def has_all(folded: str, needs: tuple[frozenset[str], ...]) -> bool:
    """Whether each of the sets `needs` (``required(rx)``) has a member in `folded` (``fold(text)``):
    False means `rx` cannot match anywhere in the text."""
    for strings in needs:
        for literal in strings:
            if literal in folded:
                break
        else:
            return False
    return True


def required(pattern: re.Pattern[str]) -> tuple[frozenset[str], ...]:
    """Sets of strings, each of which has a member in ``fold(s)`` whenever `pattern` matches in
    `s`; the most telling set first (longest shortest string, then fewest strings); () if none
    is known. Read from the shipped table where it holds the pattern (by its text and flags),
    else `derive`d."""
    if not isinstance(pattern.pattern, str) or pattern.flags & (re.ASCII | re.LOCALE):
        return ()
    shipped = _table().get(key(pattern))
    return shipped if shipped is not None else derive(pattern)


def derive(pattern: re.Pattern[str]) -> tuple[frozenset[str], ...]:
    """`required(pattern)` found by walking the pattern's parse tree, never from the table."""
    if not isinstance(pattern.pattern, str) or pattern.flags & (re.ASCII | re.LOCALE):
        return ()
    found = _needs(_p.parse(pattern.pattern, pattern.flags))
    return tuple(frozenset(s) for s in sorted(found, key=_rank))


def key(pattern: re.Pattern[str]) -> str:
    """The name of `pattern` in the shipped table: a digest of its flags and text."""
    return hashlib.blake2b(f"{int(pattern.flags)}:{pattern.pattern}".encode(), digest_size=16).hexdigest()


_LOCK = threading.Lock()
_TABLE: dict[str, tuple[frozenset[str], ...]] | None = None


def _table() -> dict[str, tuple[frozenset[str], ...]]:
    """The shipped table, read once; empty where it is missing or of another ALGORITHM."""
    global _TABLE
    with _LOCK:
        if _TABLE is None:
            try:
                data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            _TABLE = {k: tuple(frozenset(strings) for strings in sets) for k, sets in data.get("sets", {}).items()
                      } if data.get("algorithm") == ALGORITHM else {}
        return _TABLE


def _rank(strings: set[str]) -> tuple[int, int, list[str]]:
    return -min(map(len, strings)), len(strings), sorted(strings)


def _need(items) -> set[str] | None:
    """A set of strings one of which any match of the sequence `items` contains, or None."""
    found = _needs(items)
    return min(found, key=_rank) if found else None


def _needs(items) -> list[set[str]]:
    """Sets of strings, each with a member that any match of the sequence `items` contains."""
    candidates: list[set[str]] = []
    run: set[str] | None = None  # the strings the current run of exact parts can be
    for item in items:
        exact = _exact(item)
        if exact is not None:
            joined = {a + b for a in run for b in exact} if run is not None else exact
            if len(joined) > _MAX_STRINGS:
                candidates.append(run)
                joined = exact
            run = joined
            continue
        if run is not None:
            candidates.append(run)
            run = None
        candidates.extend(_inner_needs(item))
    if run is not None:
        candidates.append(run)
    out: list[set[str]] = []
    for strings in (_minimal(c) for c in candidates if c and "" not in c):
        if strings not in out:
            out.append(strings)
    return out


def _exact(item) -> set[str] | None:
    """The strings a single part matches, if it matches only a few known safe strings."""
    op, av = item
    if op is _c.LITERAL:
        ch = ord(chr(av).lower()) if av < 128 else av
        return {chr(ch)} if ch in _SAFE else None
    if op is _c.IN:
        chars = set()
        for sub_op, sub_av in av:
            if sub_op is not _c.LITERAL:
                return None
            ch = ord(chr(sub_av).lower()) if sub_av < 128 else sub_av
            if ch not in _SAFE:
                return None
            chars.add(chr(ch))
        return chars or None
    if op is _c.SUBPATTERN:
        return _exact_seq(av[3])
    if op is _c.BRANCH:
        out: set[str] = set()
        for alternative in av[1]:
            strings = _exact_seq(alternative)
            if strings is None:
                return None
            out |= strings
            if len(out) > _MAX_STRINGS:
                return None
        return out
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        low, high, sub = av
        if high > 3:
            return None
        strings = _exact_seq(sub)
        if strings is None:
            return None
        out = set()
        for count in range(low, high + 1):
            layer = {""}
            for _ in range(count):
                layer = {a + b for a in layer for b in strings}
                if len(layer) > _MAX_STRINGS:
                    return None
            out |= layer
        return out if len(out) <= _MAX_STRINGS else None
    return None


def _exact_seq(items) -> set[str] | None:
    out = {""}
    for item in items:
        strings = _exact(item)
        if strings is None:
            return None
        out = {a + b for a in out for b in strings}
        if len(out) > _MAX_STRINGS:
            return None
    return out


def _inner_needs(item) -> list[set[str]]:
    """What a part that is not exact still needs of any match that passes through it."""
    op, av = item
    if op is _c.SUBPATTERN:
        return _needs(av[3])
    if op is _c.ATOMIC_GROUP:
        return _needs(av)
    if op is _c.BRANCH:
        out: set[str] = set()
        for alternative in av[1]:
            strings = _need(alternative)
            if strings is None:
                return []
            out |= strings
        return [out]
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        low, _high, sub = av
        return _needs(sub) if low >= 1 else []
    return []


def _minimal(strings: set[str]) -> set[str]:
    """`strings` without those that hold a shorter one (finding the shorter one is enough)."""
    out: list[str] = []
    for s in sorted(strings, key=len):
        if not any(o in s for o in out):
            out.append(s)
    return set(out)
