"""Whose news a statement is: the speaker's own, or another person's.

Contract: ``whose(text, people=())`` reads how the first sentence of `text` opens (after a short
label or fillers: "Update:", "so", "apparently") and returns the keys of whom it is news of:

- ``{ME}`` when it opens with the speaker or a thing of theirs: "I", "we" (the speaker's
  household), "my haircut", "our wedding"; after a verb of hearing or knowing ("I heard",
  "we just found out that") it is whose news the rest is;
- another person's keys when it opens with them or their thing and the sentence says nothing of
  the speaker (no I, we, my, our, me, us): a relative or friend by its kin word ("my sister's
  dentist appointment", "Dad", "our kids": "sister", "father", "child"), with the name given
  beside it ("my cousin Anouk": "cousin", "anouk"), or a given name ("Kenji quit his job",
  "Kenji's haircut": "kenji"; a word of the given-name table that is also a common word, such as
  "Mark", only as a possessive), or a name `people` holds (lower-cased: the names the slot reader
  read as named subjects of the text, "priya");
- nothing when it opens otherwise ("The wedding got moved", "Moved to Denver"), with the speaker
  and someone else together ("Kenji and I"), or with someone else where the sentence speaks of
  the speaker too ("My boss moved our 1:1 to Monday").

The user named in the third person is the speaker here ("User's sister Ana ...": "sister", "ana";
"The user moved ...": {ME}), as the slot reader reads them (worlddb.extract._slot_third_person).

``apart(a, b, people_a=(), people_b=())`` tells whether two statements are news of two people:
one is the speaker's own and the other another person's whom the first does not name ("I work
at Google" and "Kenji quit his job at Google"; not "I have a haircut with Kenji on Friday" and
"Kenji's haircut got moved"). Both are deterministic, do no I/O, and never raise for a ``str``.

worlddb.memory.updates uses `apart` where the rules read no change and a change is taken as
about the memory nearest to it (its last resort): news of someone else changes nothing of the
speaker's own, nor the reverse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ._slot_catalogue import ME
from ._slot_third_person import in_first_person
from ._slot_words import _KIN, _KIN_RE, _MONTHS, _WEEKDAYS
from .given_names import is_given_name
from .lexicon import is_common, singular
from .unread_change import FILLERS, lead

__all__ = ["apart", "names", "whose"]

#: a short label and fillers before a sentence's subject ("Update:", "so", "apparently"): those a
#: change opens with (unread_change), and those of hearsay and feeling
_LEAD = re.compile(lead(FILLERS + "|fyi|btw|apparently|turns out|guess what|sadly|unfortunately|wow|ugh"), re.I)
#: words for relatives beyond the reader's kin words, and their keys
_RELATIVES = r"parents?|grandparents?|children|child|grandkids?|folks|in-laws"
_RELATIVE_KEYS = {"parents": "parent", "parent": "parent", "grandparent": "grandparent", "grandparents": "grandparent",
              "children": "child", "child": "child", "grandkid": "grandchild", "grandkids": "grandchild",
              "folks": "parent", "in-laws": "in-law"}
#: a relative or friend of the speaker's: "my sister", "our kids", "my best friend's"
_KINSHIP = (r"(?:(?:older|younger|little|big|best|oldest|eldest|youngest|twin|baby|good|close|old)\s+)?"
            r"(?:step-?|half-|god)?(?P<kin>" + _RELATIVES + "|" + _KIN_RE + r")(?:-in-law)?s?(?:['’]s?)?"
            r"(?:\s+(?P<kname>(?-i:[A-Z][a-z]+)))?(?:['’]s)?\b")
#: a relative called by the kin word as a name ("Dad sold the Volvo", "Grandma's birthday")
_CALLED = r"(?-i:(?:Dad|Mom|Mum|Mama|Papa|Grandma|Grandpa)(?=\W|$))"
_OTHER_OF_MINE = re.compile(r"(?:(?:my|our)\s+(?=\w)|(?=" + _CALLED + r"))" + _KINSHIP, re.I)
_MINE = re.compile(r"(?:I['’](?:m|ve|d|ll)|I|we['’](?:re|ve|d|ll)|we|my|our)\b", re.I)
_NAMED = re.compile(r"(?P<name>(?-i:[A-Z][a-z]+))(?P<poss>['’]s\b)?")
#: after the speaker, a verb of hearing or knowing: the news is the rest's ("I heard Kenji quit")
_HEARD = re.compile(r"\s+(?:just\s+|finally\s+)?(?:heard|hear|learned|learnt|found out|saw|read|noticed|know|knew"
                    r"|think|guess|was told|got told)\s+(?:that\s+)?", re.I)
#: the speaker beside the one a sentence opens with ("Kenji and I", "my sister and me")
_WITH_ME = re.compile(r"\s*(?:,\s*)?(?:and|&)\s+(?:I|me|we|us|my|our)\b", re.I)
_SPEAKER = re.compile(r"\b(?:I|I['’]\w+|me|my|mine|myself|we|we['’]\w+|us|our|ours)\b", re.I)
#: someone else, by a pronoun, in the speaker's clause ("I moved her lessons to Wednesdays")
_THIRD = re.compile(r"\b(?:he|she|him|his|her|hers|they|them|their|theirs)\b", re.I)
_CLAUSE_END = re.compile(r"[,:]|\s[-–—]\s|\b(?:because|since|so|but|and|as|after|when|while|though)\b", re.I)
_SENTENCE_END = re.compile(r"[.!?;\n]")
_WHEN = re.compile(r"(?:" + _MONTHS + "|" + _WEEKDAYS + r")$", re.I)


def whose(text: str, people: Iterable[str] = ()) -> frozenset[str]:
    """The keys of whom `text` is news of (see the module docstring): {ME}, another person's,
    or none."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    text = in_first_person(text.strip())
    end = _SENTENCE_END.search(text)
    return _whose(text[:end.start() if end else None], frozenset(p.lower() for p in people))


def _whose(sentence: str, people: frozenset[str]) -> frozenset[str]:
    at = _LEAD.match(sentence).end()
    kin = _OTHER_OF_MINE.match(sentence, at)
    if kin:
        keys = {_kin_key(kin.group("kin"))} | ({kin.group("kname").lower()} if kin.group("kname") else set())
        return _another(sentence, kin.end(), keys)
    mine = _MINE.match(sentence, at)
    if mine:
        heard = _HEARD.match(sentence, mine.end())
        if heard:
            return _whose(sentence[heard.end():], people)
        if _WITH_ME.match(sentence, mine.end()) or _THIRD.search(_clause(sentence, mine.end())):
            return frozenset()  # "Kenji and I", "I moved her lessons": not the speaker's alone
        return frozenset({ME})
    named = _NAMED.match(sentence, at)
    if named and _a_person(named.group("name"), bool(named.group("poss")), people):
        return _another(sentence, named.end(), {named.group("name").lower()})
    return frozenset()


def _clause(sentence: str, start: int) -> str:
    """The rest of the clause from `start`."""
    end = _CLAUSE_END.search(sentence, start)
    return sentence[start:end.start() if end else None]


def _another(sentence: str, end: int, keys: set[str]) -> frozenset[str]:
    """Another person's keys, unless the sentence speaks of the speaker too."""
    if _WITH_ME.match(sentence, end) or _SPEAKER.search(sentence, end):
        return frozenset()
    return frozenset(keys)


def _kin_key(word: str) -> str:
    """The key of a kin word as the reader gives it ("mom" -> "mother", "kids" -> "child")."""
    low = word.lower().replace("’", "'")
    return _RELATIVE_KEYS.get(low) or _KIN.get(low) or _KIN.get(singular(low)) or low


def _a_person(name: str, possessive: bool, people: frozenset[str]) -> bool:
    """Whether a capitalised word opening a sentence names a person: a name the reader read as
    one, or a given name that is no month or weekday and, unless possessive, no common word."""
    low = name.lower()
    if low in people:
        return True
    return is_given_name(name) and not _WHEN.match(low) and (possessive or not is_common(name))


def apart(a: str, b: str, people_a: Iterable[str] = (), people_b: Iterable[str] = ()) -> bool:
    """Whether `a` and `b` are news of two people: one the speaker's own, the other another
    person's, whom the speaker's does not name (see the module docstring)."""
    of_a, of_b = whose(a, people_a), whose(b, people_b)
    if not of_a or not of_b or (ME in of_a) == (ME in of_b):
        return False
    mine, theirs = (a, of_b) if ME in of_a else (b, of_a)
    return not names(mine, theirs)


def names(text: str, keys: Iterable[str]) -> bool:
    """Whether `text` names one of `keys` (lower-cased names, or kin words as the reader gives
    them, in any of their forms: "Mom" names "mother", "kids" names "child")."""
    keys = frozenset(keys)
    return any(low in keys or _kin_key(low) in keys
               for word in re.findall(r"[\w'’-]+", text) if (low := re.sub(r"['’]s?$", "", word.lower())))
