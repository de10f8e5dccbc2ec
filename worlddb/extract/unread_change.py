"""A change said in words the slot reader cannot place: the last resort of update detection.

Contract: ``says_change(text)`` tells whether `text` states, in the first person, that something
of the speaker's changed: it opens with I, we, my or our (after a short label or a filler such
as "so", "update:"), or with a verb in the past whose subject is left out ("Moved the whole
suite to Vitest"); it holds a verb or phrase of change ("moved", "switched", "no longer", "from
now on", "correction", ...; not "new" or "now", which say as much of news: "Our school has a
new principal"); and nothing in it makes it a plan, a wish or a condition ("might", "thinking
about", "next year", "if"), a visit ("trip", "got back from"), an addition ("also", "another",
"a second"), a try ("tried"), a memory of the past ("used to", "back when"), a question, or news
about someone else ("my wife", "my friend", "you"). Deterministic, no I/O, never raises for a
``str``; ``TypeError`` otherwise.

worlddb.memory.updates uses it only where the slot reader and the judge decided nothing: a new
memory that says a change and whose nearest memory in meaning is close enough (its cosine at
least ``CHANGE_SIMILARITY``), older, current, in the same voice and unrelated by every slot the
judge can see, revises that memory. A revision keeps the old memory current and names the new
one on it (``revised_by``), so a wrong guess hides nothing; it is what the rules can say about a
change they cannot read ("We cut releases every Thursday" then "We moved release day to
Tuesdays"). The words are lists of kinds of words, never particular sentences.
"""

from __future__ import annotations

import re

__all__ = ["CHANGE_SIMILARITY", "says_change"]

#: the least cosine (the write's own text vectors) at which the nearest memory is the one a
#: change is about; chosen on the tuning sets of bench/data (updates-dev, extra A and D)
CHANGE_SIMILARITY = 0.4

_FIRST_PERSON = re.compile(
    r"^(?:[a-z]+(?:\s+[a-z]+){0,2}:\s+)?(?:(?:so|and|but|oh|ok|okay|well|update|also|finally|just|big news|heads up)"
    r"[,:!]?\s+)*(?:I|I['’]m|I['’]ve|we|we['’]re|we['’]ve|my|our)\b"
    r"|^(?:(?:just|finally)\s+)?(?-i:[A-Z][a-z]+ed)\b", re.I)
_CHANGE = re.compile(
    r"\b(?:moved|moving|relocat\w+|switch(?:ed|ing)?|chang(?:ed|ing)|no longer|any ?more|any longer|instead"
    r"|replac\w+|quit|left|started|starting|promot\w+|upgrad\w+|downgrad\w+|migrat\w+|sold|traded|ended"
    r"|broke up|split up|divorced|raised|lowered|bumped|rescheduled|postponed|cancel+ed|dropped|ditched"
    r"|from now on|correction)\b", re.I)
_NOT_A_CHANGE = re.compile(
    r"\b(?:might|maybe|may|thinking|considering|planning|plan to|hoping|hope|would|could|if|next (?:week|month|year)"
    r"|will|going to|gonna|someday|eventually|trip|visit|visiting|vacation|holiday|got back|back from|weekend in"
    r"|also|too|another|second|as well|tried|interview\w*|offered|back when|used to|years ago|you|your"
    r"|my (?:wife|husband|friend|sister|brother|mom|mum|dad|son|daughter|partner|boss|coworker|colleague|neighbou?r))\b"
    r"|\?", re.I)


def says_change(text: str) -> bool:
    """Whether `text` states a change of the speaker's own (see the module docstring)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    text = text.strip()
    return bool(_FIRST_PERSON.search(text) and _CHANGE.search(text) and not _NOT_A_CHANGE.search(text))
