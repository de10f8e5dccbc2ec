"""Another's news: the sentences of a text that tell something of someone close to the speaker
and that the slot reader reads no claim from ("I work at Google. My daughter just started
kindergarten.").

Contract: ``others_news(text, values)`` returns the subjects, as the slot reader keys them
("daughter", "priya"), of the sentences of `text` that
- open with someone other than the speaker as their subject: a relative, a partner or a friend
  of the speaker's ("my daughter", "our kids", "my wife") or a given name ("Priya", "Priya
  Shah"), followed by at least two words in small letters (a verb and what it says: "My
  daughter just started kindergarten", not "My wife too");
- state nothing the slot reader reads (what it reads is a claim of its own, which the caller
  weighs as such);
- refer back to nothing the text said before it (it, there, here, this, that, nearby, the city,
  the office, ...) and name none of `values` (what a change ended: "Google"): "My kids love it
  there" and "My wife works at Google too" are about what a change ends.
Someone one knows through one's job or one's home (a boss, a coworker, a neighbour, a
roommate) is no such subject: their news goes with the job or the home. Deterministic, no I/O;
``TypeError`` for a text that is no ``str``.

worlddb.memory.revisions uses it for a memory a change updates: such a sentence, about someone
the change does not speak of, is a second statement that the change leaves alone, so the memory
is revised and stays current, not superseded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .given_names import is_given_name
from .lexicon import tag
from .slots import kin_word, normalise_subject, read

__all__ = ["others_news"]

#: the people one knows through one's job or home: their news goes with it
_THROUGH_JOB_OR_HOME = frozenset({"boss", "coworker", "neighbour", "roommate"})
#: words that refer back to what a text said before, or to where a job or a home is
_BACK = re.compile(r"\b(?:it|its|it['’]s|there|here|this|that|these|those|nearby|locally|same|"
                   r"the\s+(?:city|town|area|neighbou?rhood|place|house|flat|apartment|office|company|firm|job|"
                   r"team|building|campus|commute|weather))\b", re.I)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_OPENER = re.compile(r"^(?:(?:and|also|plus|oh|btw|fyi)\b[,]?\s+)?", re.I)
_RELATIVE = re.compile(r"(?:my|our)\s+([\w-]+)\s+(.*)$", re.I | re.S)
_NAMED = re.compile(r"([^\W\d_]+)(?:\s+([^\W\d_]+))?\s+(.*)$", re.S)


def others_news(text: str, values: Iterable[str] = ()) -> tuple[str, ...]:
    """The subjects of the sentences of `text` that tell another's news (the module contract)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    left = [v.casefold() for v in values if v.strip()]
    found: list[str] = []
    for sentence in _SENTENCES.split(text):
        sentence = _OPENER.sub("", sentence.strip())
        subject = _subject(sentence)
        if subject is None or _BACK.search(sentence) or any(_names(sentence, v) for v in left):
            continue
        if not read(sentence).claims and subject not in found:
            found.append(subject)
    return tuple(found)


def _subject(sentence: str) -> str | None:
    """Whom a sentence is about, if it opens with someone close to the speaker and goes on in
    at least two words in small letters."""
    m = _RELATIVE.match(sentence)
    if m:
        word = m.group(1).lower()
        kin = kin_word(word) or (kin_word(word[:-1]) if word.endswith("s") else None)
        return kin if kin is not None and kin not in _THROUGH_JOB_OR_HOME and _goes_on(m.group(2)) else None
    m = _NAMED.match(sentence)
    if not m or not _name(m.group(1)) or not is_given_name(m.group(1).lower()):
        return None
    if m.group(2) is not None and _name(m.group(2)):
        return normalise_subject(f"{m.group(1)} {m.group(2)}") if _goes_on(m.group(3), verb=True) else None
    rest = f"{m.group(2) or ''} {m.group(3)}"
    return normalise_subject(m.group(1)) if _goes_on(rest, verb=True) else None


def _name(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and word[1:].islower()


def _goes_on(rest: str, verb: bool = False) -> bool:
    """At least two words, the first in small letters (not a name: "Smith"); with `verb`, a verb
    first or after an adverb ("Priya just got promoted"; not "Austin traffic is awful", where
    a given name is a place's)."""
    words = rest.split()
    if len(words) < 2 or not words[0][:1].islower():
        return False
    tags = [tag(w.strip(".,;:!?")) or "" for w in words[:2]]
    return not verb or tags[0].startswith(("VB", "MD")) or tags[0] == "RB" and tags[1].startswith(("VB", "MD"))


def _names(sentence: str, value: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(value) + r"(?!\w)", sentence, re.I) is not None
