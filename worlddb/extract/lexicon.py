"""An English word list with part-of-speech tags, for telling common words from names.

Contract: ``tag(word)`` is the most likely Penn Treebank tag of ``word`` as written, falling back
to its lower-case form ("Call" -> "VB", "Sarah" -> "NNP", "prefers" -> "VBZ"), or ``None`` for a
word the list does not hold. ``is_common(word)`` says whether the lower-case form is in the list as
anything but a proper noun ("coffee", "things": yes; "sarah", "jenna", "google", "lebron": no),
and so is a word made from one (a contraction "they've", a compound "dairy-free") or a gerund of a
verb newer than the list ("kickboxing"). Both are pure and never raise for a ``str``; the list
(about 94,000 entries) is read once, on first use, in ~0.1 s, and holds ~11 MB. ``singular(word)``
is a lower-case word's singular by its ending alone ("parties" -> "party", "seats" -> "seat",
"glass" and "status" unchanged), without the list.

The list is Brill's tagger lexicon (trained on the Brown corpus and the Penn Treebank), as shipped
in the ``textblob`` package (MIT) at ``textblob/en/en-lexicon.txt``. It keeps case: a word that
only ever appeared capitalised (a first name, a company) has no lower-case entry. The file is read
straight from the installed package without importing ``textblob`` (which would import NLTK).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import cache
from pathlib import Path

__all__ = ["is_common", "singular", "tag"]

_PROPER = ("NNP", "NNPS")  # a lower-case entry tagged so was a name written in lower case ("lebron")


@cache
def _entries() -> dict[str, str]:
    spec = importlib.util.find_spec("textblob")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the textblob package (its English lexicon) is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "en" / "en-lexicon.txt"
    entries: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(";;;"):
            continue
        word, _, pos = line.partition(" ")
        if word and pos:
            entries.setdefault(word, sys.intern(pos.split()[0]))  # ~40 distinct tags
    return entries


def tag(word: str) -> str | None:
    entries = _entries()
    return entries.get(word) or entries.get(word.lower())


def is_common(word: str) -> bool:
    entries, word = _entries(), word.lower()
    common = {w for w in (word, re.split(r"['’]", word)[0], word.rsplit("-", 1)[-1])  # "they've", "dairy-free"
              if entries.get(w) not in (None, *_PROPER)}
    # a gerund of a verb newer than the list ("kickboxing", "blogging"), not a name ("Irving")
    return bool(common) or word.endswith("ing") and entries.get(word.capitalize()) not in _PROPER


def singular(word: str) -> str:
    """`word` (lower case) made singular by its ending: the one rule the slot readers share."""
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
