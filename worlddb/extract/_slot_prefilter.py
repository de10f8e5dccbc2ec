"""The slot reader's prefilter: which rules can match a text, found without running them.

Contract: ``_possible(protected, attributes)`` returns the rules of ``_RULES``
(worlddb.extract._slot_rules), of `attributes` if given, in table order, that can match
somewhere in the text: each of a rule's sets of needed literals (worlddb.extract.literals)
has a member in the folded text (``literals.has_all``). A rule left out could not have matched, so
the reading is the one every rule would give, at the cost of the few that pass. The index
(``_needs``) is built on first use, from each rule's most telling set, by its first ``_KEY``
characters. Pure and deterministic; tests/extract/test_slots_prefilter.py runs every rule on
every clause to check that nothing is left out that matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from worlddb.extract._slot_rules import _RULES, _Rule
from worlddb.extract.literals import fold, has_all, required


def _possible(protected: str, attributes: frozenset[str] | None) -> tuple[_Rule, ...]:
    """The rules (of `attributes`, if given) that can match somewhere in `protected`: each of a
    rule's sets of needed literals (worlddb.extract.literals) has a member in it. The others
    could not match, so leaving them out changes no reading; it saves most of the matching."""
    folded = fold(protected)
    index = _needs()
    candidates = set(index.unindexed)
    found = {folded[i:i + _KEY] for i in range(len(folded) - _KEY + 1)} & index.keys
    found.update(key for key in index.short if key in folded)
    for key in found:
        candidates |= index.rules_of[key]
    possible = []
    for i in sorted(candidates):
        rule, needs = index.rules[i]
        if attributes is not None and rule.attribute not in attributes:
            continue
        if has_all(folded, needs):
            possible.append(rule)
    return tuple(possible)


#: the length of the index keys: a needed literal is looked up by its first three characters
_KEY = 3


@dataclass(frozen=True, slots=True)
class _Needs:
    """The rules by the literals they need. A rule is a candidate for a text when the first
    `_KEY` characters of a literal of its first (most telling) set occur in it (a part of a
    needed literal is needed too), and a candidate is then checked against all its sets."""

    #: each rule (in `_RULES` order) with its needed sets
    rules: tuple[tuple[_Rule, tuple[frozenset[str], ...]], ...]
    #: keys of `_KEY` characters, and literals shorter than that, to the positions of their rules
    rules_of: dict[str, frozenset[int]]
    keys: frozenset[str]
    short: tuple[str, ...]
    #: the positions of rules that need no known literal (always candidates)
    unindexed: frozenset[int]


@cache
def _needs() -> _Needs:
    """The literal index of the rules (their patterns parsed once, on first use)."""
    rules, rules_of, unindexed = [], {}, set()
    for i, rule in enumerate(_RULES):
        needs = required(rule.pattern)
        rules.append((rule, needs))
        if not needs:
            unindexed.add(i)
        for literal in needs[0] if needs else ():
            rules_of.setdefault(literal[:_KEY], set()).add(i)
    return _Needs(tuple(rules), {k: frozenset(v) for k, v in rules_of.items()},
                  frozenset(k for k in rules_of if len(k) == _KEY), tuple(k for k in rules_of if len(k) < _KEY),
                  frozenset(unindexed))
