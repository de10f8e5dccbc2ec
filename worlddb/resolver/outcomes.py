"""What resolution returns, and the thresholds that decide it.

Every threshold is a named constant here, with the pairs that fixed it; `Thresholds`
carries them so a caller (or a test) can tighten or loosen one tier without touching the
others. Scores are in [0, 1], higher is closer, and each tier has its own scale - which is
why the tiebreaker compares tiers before scores.

Outcomes (frozen):
    Resolved(match, entity, proposals)  the mention is `match.anchor`. For an exact match
        `entity == match.anchor` (reused, nothing staged). For any other tier `entity` is
        a new entity and `proposals` holds the one pending same_as proposal new -> match.
    Ambiguous(options, entity, proposals)  several known entities fit and nothing could
        choose: `entity` is new, with one pending proposal per option; later mentions of
        the same name reuse it (EXACT_HELD_SCORE) until someone decides.
    New(entity)  nothing fits; `entity` is new.
Every outcome has `.entity`, the anchor the caller should refer to, and `.proposals`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from worlddb.core.errors import InvalidInput
from worlddb.protocols import Tier

#: Jaro-Winkler over normalised names. Sara/Sarah score 0.960 and Kristin/Kristen 0.943;
#: the near-misses the resolver must keep apart, Jon/Joan and Anna/Hanna, both score 0.933.
#: 0.94 sits between them. (Jon/John also scores 0.933: the phonetic tier joins those.)
FUZZY_THRESHOLD = 0.94
#: Jaro-Winkler over sound spellings, for names that already share a phonetic key.
#: Phillip/Filip, Jon/John, Stephen/Steven and Smith/Smyth score 1.0; Jon/Joan shares the
#: key J5 but scores 0.933 ("jo5" vs "joa5"), so the same 0.94 line keeps it apart.
PHONETIC_THRESHOLD = 0.94
#: Cosine between name embeddings. Measured with all-MiniLM-L6-v2: NYC/New York City 0.916,
#: Dr. Smith/Doctor Smith 0.944, Mom/Mother 0.898 - while unrelated names reach 0.83 at the
#: 99.9th percentile of 45k random full-name pairs, Sarah/Emily 0.56 and Paris/London 0.57.
#: Other embedders have other scales: pass Thresholds(embedding=...) with them.
EMBEDDING_THRESHOLD = 0.88
#: Exact scores only ever meet other exact scores (in a tie), so they encode a preference:
#:   1.0    the display name of an entity created for an earlier *ambiguous* mention of the
#:          same name: that mention's entity is reused, instead of one more entity (and one
#:          more set of proposals) for every repetition of an unresolved name
#:   0.999  a display name
#:   0.99   through an alias, the mention's or the entity's
#:   - 0.005 when only one side has a type (an untyped "Jordan" prefers the untyped entity)
EXACT_HELD_SCORE = 1.0
EXACT_NAME_SCORE = 0.999
EXACT_ALIAS_SCORE = 0.99
EXACT_TYPE_GAP = 0.005
#: The nickname tier's score for two names that agree but for a nickname-related given name
#: ("Bob Smith" / "Robert Smith"); with only the given name on one side ("Bob" / "Robert
#: Smith") it is scaled by that side's share of the words, like name_part's (0.1). It stays
#: below every name_part score of a name of up to four words (1/4 and more): the same given
#: name is better evidence than a related one, which for a short form is one of many
#: ("Al" has 14 long forms). Tiers are compared before scores anyway (TIER_ORDER); the score
#: orders a mention's nickname options among themselves.
NICKNAME_SCORE = 0.2
#: At most this many options reach the tiebreaker or an Ambiguous outcome (best first by
#: tier order, then score): each one becomes a proposal someone has to decide.
MAX_OPTIONS = 5


@dataclass(frozen=True)
class Thresholds:
    fuzzy: float = FUZZY_THRESHOLD
    phonetic: float = PHONETIC_THRESHOLD
    embedding: float = EMBEDDING_THRESHOLD

    def __post_init__(self) -> None:
        for name in ("fuzzy", "phonetic", "embedding"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value <= 1.0:
                raise InvalidInput(f"the {name} threshold must be a number in (0, 1], got {value!r}")


@dataclass(frozen=True)
class Match:
    """A known entity that fits a mention, and why."""

    anchor: str
    name: str  # the entity's display name
    tier: Tier
    score: float
    matched: str  # the entity's normalised name or alias that fit
    mention: str  # the mention's normalised name or alias that fit


@dataclass(frozen=True)
class Resolved:
    match: Match
    entity: str
    proposals: tuple[str, ...] = ()

    @property
    def tier(self) -> Tier:
        return self.match.tier

    @property
    def score(self) -> float:
        return self.match.score

    @property
    def created(self) -> bool:
        return self.entity != self.match.anchor


@dataclass(frozen=True)
class Ambiguous:
    options: tuple[Match, ...]
    entity: str
    proposals: tuple[str, ...] = ()


@dataclass(frozen=True)
class New:
    entity: str

    @property
    def proposals(self) -> tuple[str, ...]:
        return ()


Resolution = Resolved | Ambiguous | New


@dataclass(frozen=True)
class Decision:
    """What the tiers decided for a mention, before anything is written (Resolver.match):
    "resolved" with one match, "ambiguous" with several, "new" with none."""

    outcome: Literal["resolved", "ambiguous", "new"]
    matches: tuple[Match, ...]


@dataclass(frozen=True)
class Mention:
    """A known entity named in a query: `span` is [start, end) in the query text."""

    anchor: str
    name: str
    tier: Tier
    score: float
    span: tuple[int, int]
