"""Update cues: the words that say a statement changes, corrects, adds to or replaces a value.

Contract: ``_cues(text)`` returns the kinds of cue `text` carries, a subset of {"change",
"correction", "additive", "exclusive"} (worlddb.extract.slots lists their words); it is
deterministic and never raises for a ``str``. "too" counts as additive only where it ends a
clause ("me too", not "too late"), and "also" not where it opens a sentence ("Also, we moved to
Evanston" tells another piece of news). A cue's pattern runs only where the literals it needs
(``_cue_needs``, worlddb.extract.literals) occur in the text, as the rules' do
(worlddb.extract._slot_prefilter), which changes no reading.
"""

from __future__ import annotations

import re
from functools import cache

from worlddb.extract.literals import fold, has_all, required

#: "a second dog" adds one; "second grade", "second time", "second language" are ordinals that add nothing
_SECOND = (r"(?:a\s+)?second(?!\s+(?:grade|grader|year|floor|half|place|semester|term|round|season|time|hand|opinion"
           r"|thought|guess|chance|language|shift|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b)")
#: "Also" opening a sentence (after "Oh", "And" or "Oh and"), as a discourse marker
_OPENING_ALSO = re.compile(r"(?:^|(?<=[.!?])|(?<=[.!?][\"')\]]))\s*(?:(?:oh|and|oh and|oh,? and),?\s+)?also\b,?",
                           re.I)
#: what "my last ..." names when it is a time, not a thing replaced ("my last day", "my last trip")
_TIMES = (r"(?:time|times|one|day|days|night|week|weekend|month|year|summer|winter|spring|fall|autumn|trip|visit"
          r"|session|chance|minute|hour|shift|semester|term|class|lesson|meal|post|message|email|text|call|question)")
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(rx, re.I)) for kind, rx in (
    ("change", r"\b(?:moved|moving|relocat\w+|switch(?:ed|ing)?|chang(?:ed|ing)|now|nowadays|these days|lately"
               r"|no longer|any ?more|any longer|new|newly|update[ds]?|updating|took over|promot\w+|renamed"
               r"|replac\w+|upgrad\w+|quit|left|retired|started|starting|finally|recently|just|since|as of"
               r"|from now on|used to|not \w+ anymore|bumped|raised|lowered|extended|pushed|postponed"
               r"|rescheduled|cancel+ed|sold|ended|broke up|breakup|divorced)\b"),
    ("correction", r"\b(?:correction|correct(?:ed|ing)? (?:myself|that|this)|actually|i had it wrong|got it wrong"
                   r"|i was wrong|my mistake|mistake|not what i (?:wrote|said)|i meant|should have said"
                   r"|to clarify|rather than what|misremembered|typo|i misspoke)\b"),
    ("additive", r"\b(?:also|too|as well|another|" + _SECOND + r"|in addition|additionally|added|adding|besides"
                 r"|both|plus|other one|along with|on top of)\b"),
    ("exclusive", r"\b(?:instead|replac\w+|switch(?:ed|ing)?(?: (?:me|us|him|her|them))? (?:to|from|over)|no longer"
                  r"|any ?more|main|only|primary|from now on|rather than|in place of"
                  # "roomier than my last car": the one before it, so this one took its place
                  r"|(?:my|our)\s+(?:previous|former|last)\s+(?!" + _TIMES + r"\b)[a-z]+)\b"),
))


def _cues(text: str) -> frozenset[str]:
    folded = fold(text)
    found = {kind for kind, rx, needs in _cue_needs() if has_all(folded, needs) and rx.search(text)}
    # "too much", "too late", "me too" read as additive only when it ends a clause; an "Also" that
    # opens a sentence adds a point to the conversation, not a value to a slot ("Also, we moved")
    if "additive" in found and not re.search(
            r"\b(?:also|as well|another|" + _SECOND + r"|in addition|additionally|added|adding|besides|along with"
            r"|on top of)\b|\btoo\b\s*(?:[.,;!?)]|$)", _OPENING_ALSO.sub(" ", text), re.I):
        found.discard("additive")
    return frozenset(found)


@cache
def _cue_needs() -> tuple[tuple[str, re.Pattern[str], tuple[frozenset[str], ...]], ...]:
    """Each cue pattern with the literal sets it needs (worlddb.extract.literals), parsed on first use."""
    return tuple((kind, rx, required(rx)) for kind, rx in _CUES)
