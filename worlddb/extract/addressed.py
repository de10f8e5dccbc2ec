"""What an assistant's turn says of the person it speaks to, in that person's own first person.

Contract: ``as_user(text)`` is deterministic, does no I/O and returns a string: the sentences of
``text`` that state something of "you", with their second person turned into the first ("you
live" -> "I live", "your" -> "my", "you're" -> "I'm"), joined by spaces; "" when there is none.
A plain statement about the user named in the third person ("User said they live in Austin", "The
user moved to Denver") is kept too, in the user's first person (worlddb.extract._slot_third_person).
It is how an assistant's turn is read for slot claims (worlddb.memory.slot_readings.turn_reading): the
assistant says nothing of itself that a memory keeps, but it often restates what the user told
it ("Got it - you live in Austin and work at Dell"), and once the user has moved that restatement
is as out of date as the user's own words. Read in the user's voice, it can be marked as changed
like the user's turn.

A sentence is kept only when it is a plain statement about "you": it names "you" or "your" (or the
user in the third person), and it is none of these, which say nothing of how things are:

* a question ("Do you live in Austin?", "You moved to Chicago, right?");
* a condition, a wish, an offer or advice ("If you move ...", "Let me know when you ...",
  "Hope you ...", "You should try ...", "You could ...", "Would you ...");
* a sentence in which the speaker also speaks of itself or of "we" ("I think you work at Dell",
  "We talked about your move": once turned, its "I" would read as the user's).

The speaker's own words of taking note that open a sentence ("I'll remember (that) you take
sertraline", "Got it, I've noted that your manager is Tom", `_NOTING`) are no statement of the
speaker's: they say it keeps what follows, and what follows is read as above ("I take
sertraline", "my manager is Tom"), again only where it names "you" and the speaker nowhere else.
"""

from __future__ import annotations

import re

from ._slot_third_person import in_first_person
from .builtin import split_sentences

__all__ = ["as_user"]

_SECOND = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)
# the speaker's own voice: "I" is matched as written (a capital), the rest in any case
_OWN = re.compile(r"\bI(?:['’](?:m|ve|ll|d))?\b"
                  r"|\b(?i:me|my|mine|myself|we|we['’](?:re|ve|ll|d)|us|our|ours|let['’]s)\b")
_NOT_A_STATEMENT = re.compile(
    r"\b(?:if|unless|whether|in case|should|shouldn['’]t|could|couldn['’]t|would|wouldn['’]t|might|may|"
    r"can|can['’]t|cannot|maybe|perhaps|hope|hoping|wish|let me know|feel free|make sure|remember to|"
    r"don['’]t forget|once you|when you|whenever you|until you|before you|after you)\b", re.IGNORECASE)
#: the speaker's words of taking note of what it was told, opening a sentence before "you" or
#: "your": "I'll remember (that) you ...", "Got it, I've made a note that your ...", "I have noted
#: your ..." (not "I think you ...", a belief of the speaker's own; not "I'll remind you to ...")
_NOTING = re.compile(
    r"^\s*(?:(?:got\s+it|okay|ok|sure|noted|great|thanks|alright|all\s+right)[\s,!.:;—–-]+)?"
    r"I(?:['’]ll|\s+will|['’]ve|\s+have)?\s+(?:(?:also|now|definitely|always)\s+)?"
    r"(?:remember(?:ed)?|note|noted|(?:make|made)\s+a\s+note|keep\s+in\s+mind|saved|recorded|written\s+down)"
    r"\s+(?:(?:that|of)\s+)?(?=(?i:you|your)\b)", re.IGNORECASE)
# second person -> first, the longer forms first
_TURNS = (
    (re.compile(r"\byou['’]re\b", re.IGNORECASE), "I'm"),
    (re.compile(r"\byou\s+are\b", re.IGNORECASE), "I am"),
    (re.compile(r"\byou\s+were\b", re.IGNORECASE), "I was"),
    (re.compile(r"\byou['’]ve\b", re.IGNORECASE), "I've"),
    (re.compile(r"\byou['’]ll\b", re.IGNORECASE), "I'll"),
    (re.compile(r"\byou['’]d\b", re.IGNORECASE), "I'd"),
    (re.compile(r"\byourself\b", re.IGNORECASE), "myself"),
    (re.compile(r"\byours\b", re.IGNORECASE), "mine"),
    (re.compile(r"\byour\b", re.IGNORECASE), "my"),
    (re.compile(r"\byou\b", re.IGNORECASE), "I"),
)


def as_user(text: str) -> str:
    """The plain statements about "you" in `text`, in the first person (the module docstring)."""
    kept = []
    for start, end in split_sentences(text):
        sentence = text[start:end]
        noted = _NOTING.match(sentence)
        if noted:  # what the speaker takes note of, as a sentence of its own
            sentence = sentence[noted.end()].upper() + sentence[noted.end() + 1:]
        turned = in_first_person(sentence)
        if (not _SECOND.search(sentence) and turned == sentence or sentence.rstrip(" \"'”’)").endswith("?")
                or _OWN.search(sentence) or _NOT_A_STATEMENT.search(sentence)):
            continue
        sentence = turned
        for pattern, first in _TURNS:
            sentence = pattern.sub(lambda m, first=first: first if m.group(0)[0].islower() or first[0] == "I"
                                   else first.capitalize(), sentence)
        kept.append(sentence)
    return " ".join(kept)
