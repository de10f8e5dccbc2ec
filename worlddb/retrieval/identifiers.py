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

Contract: ``identifiers(text)`` is the set of identifiers `text` names, lower-cased;
``first(ids, candidates, text_of)`` is the pure reordering (candidates best first in, the new
order out as (candidate, place among those holding every identifier, or None)). Both are
deterministic and read nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["first", "identifiers"]

T = TypeVar("T")

#: a word that begins with a letter, with the inner punctuation codes use
_WORD = re.compile(r"[^\W\d_][\w.#-]*")
#: what a sentence may put after a code, which is no part of it
_TRAILING = ".#-"


def identifiers(text: str) -> frozenset[str]:
    """The identifiers `text` names (see the module docstring), lower-cased."""
    found = (w.rstrip(_TRAILING) for w in _WORD.findall(text))
    return frozenset(w.lower() for w in found if any(ch.isdigit() for ch in w))


def _holds(identifier: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.#-])" + re.escape(identifier) + r"(?![\w#-]|\.\w)", re.I)


def first(ids: frozenset[str], candidates: Sequence[T], text_of: Callable[[T], str]
          ) -> list[tuple[T, int | None]]:
    """`candidates` with those whose text holds every one of `ids` ahead of the rest, each
    side in its order; the place (1-based) of each moved one among them, None for the rest
    (and for every candidate when none holds them all, or `ids` is empty)."""
    if not ids:
        return [(c, None) for c in candidates]
    patterns = [_holds(i) for i in sorted(ids)]
    holding = [c for c in candidates if all(p.search(text_of(c)) for p in patterns)]
    if not holding:
        return [(c, None) for c in candidates]
    chosen = {id(c) for c in holding}
    return [(c, place) for place, c in enumerate(holding, start=1)] + \
        [(c, None) for c in candidates if id(c) not in chosen]
