"""The tiered entity resolver: which known entity a mention names, never merging silently.

Tiers, in order, stopping at the first confident match: exact (normalised name or alias)
-> fuzzy (Jaro-Winkler, trigram-blocked) -> phonetic (Soundex-style key with PH->F,
CK->K, KN->N, WR->R) -> embedding (name-vector cosine through HNSW) -> name_part (for people,
one name the leading or trailing words of the other: "Ana" and "Ana Souza") -> nickname (for
people, given names that are one another's nickname and the rest alike: "Bob Smith" and
"Robert Smith", "Liz" and "Elizabeth Moss") -> tiebreaker (worlddb.resolver.tiebreak; the
default prefers the tiers in that order). Exact matches
reuse the entity; every other match creates the new entity and stages a pending same_as
proposal, decided later with `accept_merge` / `reject_merge`. Resolution is scoped: an
entity is only ever matched against entities of its own scope.

    names.py      normalisation, trigrams, phonetic key, similarities
    outcomes.py   Resolved / Ambiguous / New, Match, Mention, Decision, thresholds
    index.py      the in-memory trigram blocking index, synced from SQL
    tiers.py      the tiers and the decision
    resolver.py   Resolver: prepare, resolve, match, register, find_mentions, namesakes, identity
    mentions.py   find_mentions, the query-time lookup
    recluster.py  Reclusterer, the background 2-hop re-resolution
"""

from worlddb.graph.identity import accept_merge, equivalence_class, export_identity, reject_merge

from .index import BLOCK_SIZE, NameIndex
from .names import MAX_NAME_LEN, normalize_name, phonetic_key, phonetic_similarity, sound_spelling
from .outcomes import (
    EMBEDDING_THRESHOLD,
    EXACT_ALIAS_SCORE,
    EXACT_HELD_SCORE,
    EXACT_NAME_SCORE,
    EXACT_TYPE_GAP,
    FUZZY_THRESHOLD,
    MAX_OPTIONS,
    NICKNAME_SCORE,
    PHONETIC_THRESHOLD,
    Ambiguous,
    Decision,
    Match,
    Mention,
    New,
    Resolution,
    Resolved,
    Thresholds,
)
from .recluster import Reclusterer
from .resolver import MAX_NAMESAKES, Prepared, Resolver

__all__ = [
    "BLOCK_SIZE", "EMBEDDING_THRESHOLD", "EXACT_ALIAS_SCORE", "EXACT_HELD_SCORE", "EXACT_NAME_SCORE",
    "EXACT_TYPE_GAP", "FUZZY_THRESHOLD", "MAX_NAME_LEN",
    "MAX_NAMESAKES", "MAX_OPTIONS", "NICKNAME_SCORE", "PHONETIC_THRESHOLD", "Ambiguous", "Decision", "Match", "Mention",
    "NameIndex", "New",
    "Prepared", "Reclusterer", "Resolution", "Resolved", "Resolver", "Thresholds", "accept_merge",
    "equivalence_class", "export_identity", "normalize_name", "phonetic_key", "phonetic_similarity",
    "reject_merge", "sound_spelling",
]
