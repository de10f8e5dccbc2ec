"""Resolver tiebreaking: when a mention matches several known entities, which one is it?

Contract: a ``Tiebreaker`` gets the mention and the candidate ``Option``s the resolver's tiers
produced, and returns the index of the chosen option, or None for "cannot tell" (the resolver then
reports the mention as Ambiguous; nothing is ever merged on a tiebreaker's word alone, since every
non-exact match still goes through a ``same_as`` proposal). Implementations may not raise for
well-formed input; an empty ``options`` yields None.

``DefaultTiebreaker`` is deterministic and needs no model: it prefers the tier order
exact > fuzzy > embedding > phonetic (an exact alias match is evidence, a sound-alike key the
weakest), then the higher score. Two options equal on both are a genuine tie: it answers None
rather than pick by position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, Sequence, runtime_checkable

__all__ = ["DefaultTiebreaker", "Option", "TIER_ORDER", "Tier", "Tiebreaker"]

Tier = Literal["exact", "fuzzy", "embedding", "phonetic"]
TIER_ORDER: tuple[Tier, ...] = ("exact", "fuzzy", "embedding", "phonetic")


@dataclass(frozen=True, slots=True)
class Option:
    """One candidate entity for a mention: its name and aliases, the resolver tier that found it,
    and that tier's score (higher is better; scales differ between tiers, which is why the tier is
    compared first)."""

    name: str
    aliases: tuple[str, ...] = ()
    tier: Tier = "exact"
    score: float = 1.0

    def __post_init__(self) -> None:
        if self.tier not in TIER_ORDER:
            raise ValueError(f"unknown tier {self.tier!r}; expected one of {TIER_ORDER}")


@runtime_checkable
class Tiebreaker(Protocol):
    """Chooses among a mention's candidate entities (see the module contract)."""

    name: str

    def choose(self, mention: str, options: Sequence[Option]) -> int | None: ...


class DefaultTiebreaker:
    """Tier first (exact > fuzzy > embedding > phonetic), then score; None on an exact tie."""

    name = "default"

    def choose(self, mention: str, options: Sequence[Option]) -> int | None:
        if not options:
            return None
        keys = [(TIER_ORDER.index(o.tier), -o.score) for o in options]
        best = min(range(len(options)), key=lambda i: (keys[i], i))
        if sum(1 for k in keys if k == keys[best]) > 1:
            return None
        return best
