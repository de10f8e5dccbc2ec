"""Recall's named step: a query that names a person by their full name puts that person's texts
ahead of those of the entities a pending proposal links to them.

A pending merge proposal links two entities whose names nearly match (the sister "Ana" and the
coworker "Ana Kovac"): a lead, not an identity, which the entity_pending lane follows
(worlddb.retrieval.lanes). A query that names a person exactly by a name of two or more words
("What does my coworker Ana Kovac do?") asks about that one, and the proposal's other end may be
someone else, whose texts the vector lanes can still rank high ("teaches chemistry" is near
"What does ... do?"). So, in recall, a candidate that the entity_pending lane found and the
entity lane did not never comes before one the entity lane found: of the places the two kinds
hold among the candidates, the entity lane's take the first, each kind keeping its order, and
carry the lane "named" (1 is first); the other candidates keep their places. A query that names
no person by a full name, or whose candidates are in that order already, keeps its order; a
name of one word ("Ana") may be either person, and leaves the proposal its lead; a thing named in
two words ("basketball career", a concept) is no one, and its near namesakes may be its topic.

Contract: ``in_full(query, mentions)`` says whether the query names an entity so, of the mentions
of people the caller gives;
``first(candidates, lanes_of)`` is the pure reordering (candidates best first in, the new order
out as (candidate, place among the entity lane's, or None)). Both are deterministic and read
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from worlddb.resolver.outcomes import Mention

__all__ = ["first", "in_full"]

T = TypeVar("T")

_WORD = re.compile(r"\w+")


def in_full(query: str, mentions: Sequence[Mention]) -> bool:
    """Whether `query` names a known entity of `mentions` (the people it names, as the caller
    found them) exactly, by its name or an alias, in two or more words."""
    return any(m.tier == "exact" and len(_WORD.findall(query[m.span[0]:m.span[1]])) > 1 for m in mentions)


def first(candidates: Sequence[T], lanes_of: Callable[[T], Mapping[str, int]]) -> list[tuple[T, int | None]]:
    """`candidates` with those the entity lane found ahead of those only the entity_pending lane
    found, in the places the two kinds hold (the module docstring); the place (1-based) of each
    of the entity lane's among them, None for the rest (and for all when nothing moves)."""
    named = [i for i, c in enumerate(candidates) if "entity" in lanes_of(c)]
    partners = [i for i, c in enumerate(candidates) if "entity_pending" in lanes_of(c) and "entity" not in lanes_of(c)]
    if not named or not partners or min(partners) > max(named):
        return [(c, None) for c in candidates]
    order = dict(zip(sorted(named + partners), named + partners))
    places = {i: place for place, i in enumerate(named, start=1)}
    return [(candidates[order.get(i, i)], places.get(order.get(i, i))) for i in range(len(candidates))]
