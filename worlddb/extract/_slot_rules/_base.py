"""The shared pieces of the slot reader's rule table: the rule, its lazy pattern, and what several families use.

Contract: ``_Rule`` is one rule (the package's docstring says what its fields mean) and ``_rx`` the
pattern a rule holds, compiled on first use (worlddb.extract._lazy). The pattern pieces here (``_S``, the
subject and its auxiliaries before a verb; ``_VAL``, a value; ``_APPOSITION_END``; ``_NAME_ALONE``)
and the checks and word sets (``_org``, ``_name``, ``_school``, ``_has_time``, ``_ORG_NOUNS``,
``_WORKPLACES``, ``_NOT_ACTIVITIES``, ...) are those more than one family of rules names; a piece
or a check one family alone uses is that family's. Nothing here imports a family.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from worlddb.extract._lazy import lazy
from worlddb.extract._slot_words import (
    _DATE,
    _FIRST,
    _KIN_RE,
    _SCHOOL_WORDS,
    _TIME,
)


@dataclass(frozen=True)
class _Rule:
    attribute: str
    pattern: re.Pattern[str]
    positive: bool = True
    ended: bool = False
    #: the subject when the rule fixes it (the rule's `t` group names a thing otherwise)
    thing: bool = False
    #: the thing a rule with `thing` names itself, where the text names it by a verb ("I make
    #: $110k a year": the salary)
    fixed: str = ""
    #: check on the value; a rule whose value fails it reads nothing
    accept: object = None
    qualifier: str = ""
    #: a pattern the whole text must contain for the rule to apply; its group 1 (if any) is the qualifier
    context: re.Pattern[str] | None = None
    #: the claim is the speaker's whatever the clause opens with (the context says "my ...")
    speaker: bool = False
    #: a pattern whose presence anywhere in the text keeps the rule from applying
    unless: re.Pattern[str] | None = None
    #: check on the value and the other one (`o`) together; a rule whose two fail it reads nothing
    pair: object = None
    #: check on the subject a rule with `thing` names (its normalised `t`); a rule whose thing fails it reads nothing
    names: object = None
    #: what a rule with `thing` makes of its `t` before it is the subject (a verb's gerund: "I swim on
    #: Mondays" is about swimming)
    thing_of: object = None
    #: one more value of a list, matched where the value before it ends (its group ``v``): each
    #: value of "not vegetarian or pescatarian" is a claim of the same reading
    more: re.Pattern[str] | None = None


def _rx(pattern: str) -> re.Pattern[str]:
    """A rule's pattern (case-insensitive), compiled the first time a text is matched against it
    (worlddb.extract._lazy): the prefilter reads its literals without compiling it, and a write
    compiles only the rules its text may match."""
    return lazy(pattern)


# Who: a subject right before the verb, as a named group `s` (optional: a rule that finds none
# takes the clause's subject, see _clause_subject).
# (the speaker or a person named with a relative of theirs is one subject: "I and my wife", "Tom and his wife")
_SUBJ = (r"(?:(?:I|me)\s+and\s+(?:my|our)\s+(?:\w+\s+)?(?:" + _KIN_RE + r")"
         r"|(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?\s+and\s+(?:his|her|their)\s+(?:\w+\s+)?(?:" + _KIN_RE + r")"
         r"|I|we|he|she|they|you|(?:my|our|his|her|their)\s+(?:\w+\s+)?(?:" + _KIN_RE + r")(?:\s+(?-i:[A-Z][a-z]+))?"
         r"(?:\s+and\s+(?:his|her|their)\s+(?:" + _KIN_RE + r"))?"
         r"|(?-i:[A-Z][a-z]+)['’]s\s+(?:" + _KIN_RE + r")|(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?)")
_AUX = (r"(?:just|finally|recently|now|also|still|currently|officially|actually|really|usually|always|normally"
        r"|have|has|had|['’]ve|['’]d|['’]s|['’]m|['’]re|am|is|are|was|were|got|will|['’]ll|be|been|started|starting"
        r"|began|begun)")
# (the verb after it begins a word: "play" is no verb in "screenplay", nor "is" in "this")
_S = r"(?:(?P<s>\b" + _SUBJ + r")(?:\s+|(?=['’]))(?:" + _AUX + r"\s+)*)?\b"
_BE = r"(?:(?:am|['’]m|is|['’]s|are|['’]re|was|were|been|be)\s+)?"
_VAL = r"(?P<v>.{1,80})"
#: where a role said beside a name ends its phrase ("Marcus, my manager since May"; not "Marcus, my
#: manager wants ...", whose role is the subject of a verb)
_APPOSITION_END = r"(?=\s*(?:[,.;:!?)]|$|\s[-–—]\s|(?:since|for|at|from|now|these days)\b))"
#: words in -ing after "love" or "enjoy" that are no pastime ("I love the morning", "I enjoy everything")
_NOT_GERUNDS = {"thing", "everything", "anything", "nothing", "something", "morning", "evening", "spring", "king",
                "ring", "wedding", "building", "being", "feeling", "meeting", "ending", "beginning", "opening",
                "setting", "clothing", "thanksgiving", "timing", "sibling", "darling", "pudding"}
_NOT_ACTIVITIES = {"learning", "studying", "eating", "drinking", "having", "using", "going", "getting", "working",
                   "seeing", "dating", "taking", "making", "doing", "looking", "thinking", "trying", "feeling", "living", "saving",
                   "paying", "planning", "ordering", "sleeping", "waking", "wearing", "spending", "moving",
                   "driving", "selling", "buying", "renting", "talking", "texting", "calling", "wondering",
                   "considering", "sending", "writing", "watching", "listening", "coming", "leaving", "staying"}


#: what one goes out "-ing" to that is no pastime ("go shopping", "things go missing")
_NOT_OUTINGS = {"shopping", "missing", "according", "nothing", "something"}


_ORG_NOUNS = set("""
firm company startup start-up hospital clinic school bank bakery restaurant store shop agency lab studio nonprofit
non-profit university college factory warehouse cafe hotel consultancy charity church library museum gym salon farm
newspaper magazine publisher airline brewery winery pharmacy garage plant mill mine practice office corporation
business chain supermarket hospice nursery daycare bar pub kitchen firm's dealership
""".split())


#: the kinds of organisation one works for, of those one may also visit or belong to: "quit the
#: clinic" leaves a job, where "quit the choir" gives up a pastime
_WORKPLACES = (_ORG_NOUNS - {"gym", "church", "library", "museum", "bar", "pub", "kitchen", "firm's"}) | {"service"}


def _org(value: str) -> bool:
    # "3M" and "7-Eleven" are names; "555 222 3333" is a number, never an organisation
    if not value or not re.search(r"[^\W\d_]", value):
        return False
    if value[0].isupper() or value[0].isdigit():
        return True
    words = value.lower().split()
    return words[-1] in _ORG_NOUNS or words[0] == "own"


def _name(value: str) -> bool:
    return bool(value) and value[0].isupper() and value.split()[0].lower() not in _FIRST


def _has_time(value: str) -> bool:
    return bool(re.search(_TIME, value, re.I) or re.search(_DATE, value, re.I))


def _school(value: str) -> bool:
    return bool(value) and value[0].isupper() and bool(set(value.lower().split()) & _SCHOOL_WORDS)


#: a name, taken whole (a shorter one is not tried), with no object after it
_NAME_ALONE = (r"(?P<v>(?>(?-i:[A-Z][\w&'’.-]*)(?:\s+(?:(?:of|and|&)\s+)?(?-i:[A-Z][\w&'’.-]*))*))"
               r"(?!\s+(?:a|an|the|some|my|his|her|their|our|its|this|that|alone|him|them|me|us)\b)")
