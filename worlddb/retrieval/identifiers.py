"""Recall's identifier step: the texts that name what a query names by its code come first.

An identifier is a word that begins with a letter and holds a digit: a ticket ("OPS-2",
"PROJ-4822"), a host ("db-staging-02", "web01"), a version ("v1.2.3", "Node22"), a model
("gpt-4o"). Asked "What is OPS-2 about?", an agent wants the text that names OPS-2, and the
lanes cannot tell it from its neighbours: bm25 splits the word into "ops" and "2", and the
text's vectors lie as near to "Ticket OPS-3 is about upgrading React" as to "Ticket OPS-2 is
about the flaky payment tests". So, in recall, the candidates whose text holds every identifier
the query names (whole: "OPS-2" is not in "OPS-20"; case folded) move ahead of the others, each
side keeping its order, and carry the lane "identifier" (1 is first). A query that names no
identifier, or one no candidate holds, leaves the order as it is; a time or an ordinal opens
with a digit ("3pm", "2nd") and is none.

A question about where a thing named by its code stands now ("What's the status of BL-204?",
"What is the latest on BL-204?", "Is BL-204 done yet?": `asks_now`) is answered by the newest
text that names it: a ticket discussed over weeks is named alike by its planning, its review
and the turn that says it shipped, and the lanes rank the planning, which says most about it,
first. So for such a question the texts holding every identifier come newest first (valid
time, then the time written); the rest keep their order. Recall's slot step then leaves them
in that order (worlddb.retrieval.recall): its rules read a status only in some words ("BL-204
is blocked") and would lift an older one they read above a newer one they do not ("BL-204
shipped to production this morning").

Contract: ``identifiers(text)`` is the set of identifiers `text` names, lower-cased;
``first(ids, candidates, text_of, when)`` is the pure reordering (candidates best first in, the
new order out as (candidate, place among those holding every identifier, or None); with `when`,
those holding them newest first by it); ``asks_now(question)`` whether a question asks where
something stands now. All are deterministic and read nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["asks_now", "first", "identifiers"]

T = TypeVar("T")

#: a word that begins with a letter, with the inner punctuation codes use
_WORD = re.compile(r"[^\W\d_][\w.#-]*")
#: what a sentence may put after a code, which is no part of it
_TRAILING = ".#-"
#: words of a question about where something stands now, not about what it is
_NOW = re.compile(r"\b(?:status|state|progress|latest|newest|news|now|current(?:ly)?|still|yet|so\s+far"
                  r"|updates?|how\s+far\s+along|where\s+(?:do|does|did)\s+.{1,40}?\s+stands?)\b", re.I)


def identifiers(text: str) -> frozenset[str]:
    """The identifiers `text` names (see the module docstring), lower-cased."""
    found = (w.rstrip(_TRAILING) for w in _WORD.findall(text))
    return frozenset(w.lower() for w in found if any(ch.isdigit() for ch in w))


def asks_now(question: str) -> bool:
    """Whether a question asks where something stands now (module docstring)."""
    return _NOW.search(question) is not None


def _holds(identifier: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.#-])" + re.escape(identifier) + r"(?![\w#-]|\.\w)", re.I)


def first(ids: frozenset[str], candidates: Sequence[T], text_of: Callable[[T], str],
          when: Callable[[T], tuple[int, ...]] | None = None) -> list[tuple[T, int | None]]:
    """`candidates` with those whose text holds every one of `ids` ahead of the rest, each
    side in its order - or, given `when` (a candidate's time, larger is newer), those holding
    them newest first; the place (1-based) of each moved one among them, None for the rest
    (and for every candidate when none holds them all, or `ids` is empty)."""
    if not ids:
        return [(c, None) for c in candidates]
    patterns = [_holds(i) for i in sorted(ids)]
    holding = [c for c in candidates if all(p.search(text_of(c)) for p in patterns)]
    if not holding:
        return [(c, None) for c in candidates]
    if when is not None:
        holding.sort(key=lambda c: tuple(-t for t in when(c)))
    chosen = {id(c) for c in holding}
    return [(c, place) for place, c in enumerate(holding, start=1)] + \
        [(c, None) for c in candidates if id(c) not in chosen]
