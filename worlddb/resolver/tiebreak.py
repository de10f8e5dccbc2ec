"""Resolver tiebreaking: when a mention matches several known entities, which one is it?

The seam is `worlddb.protocols.Tiebreaker`: it gets the mention and the candidate
`Option`s the resolver's tiers produced, and returns the index of the chosen option, or
None for "cannot tell" (the resolver then reports the mention as Ambiguous; nothing is
ever merged on a tiebreaker's word alone, since every non-exact match still goes through
a `same_as` proposal).

`DefaultTiebreaker` is deterministic and needs no model: it prefers the tier order
exact > fuzzy > embedding > phonetic > name_part > nickname (an exact alias match is evidence; a
sound-alike key, one name being part of another, or a given name that is another's nickname, the
weakest), then the higher score. Two options
equal on both are a genuine tie: it answers None rather than pick by position.

The model-backed one is worlddb.anthropic.tiebreaker.AnthropicTiebreaker, which answers
with this one on any failure.
"""

from __future__ import annotations

from collections.abc import Sequence

from worlddb.protocols import TIER_ORDER, Option

__all__ = ["DefaultTiebreaker"]


class DefaultTiebreaker:
    """Tier first (exact > fuzzy > embedding > phonetic > name_part > nickname), then score; None on an exact tie."""

    name = "default"

    def choose(self, mention: str, options: Sequence[Option]) -> int | None:
        if not options:
            return None
        keys = [(TIER_ORDER.index(o.tier), -o.score) for o in options]
        best = min(range(len(options)), key=lambda i: (keys[i], i))
        if sum(1 for k in keys if k == keys[best]) > 1:
            return None
        return best
