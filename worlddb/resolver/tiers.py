"""The six tiers, run in order, and the decision they lead to. Reads only; writes nothing.

    exact      normalised name or alias equality (SQL index on (scope, norm))
    fuzzy      Jaro-Winkler >= thresholds.fuzzy, over names blocked by the NameIndex
    phonetic   same phonetic key (SQL index on (scope, phon)), sound-spelling JW >= thresholds.phonetic
    embedding  name-vector cosine >= thresholds.embedding (brute force in small scopes, HNSW beyond)
    name_part  for people: one name is the leading or trailing words of the other ("Ana" and
               "Ana Souza", "Souza" and "Ana Souza"); a part that more than MAX_OPTIONS
               people of the scope share ("John") is no evidence and finds nothing
    nickname   for people: the first words are one another's nickname (worlddb.extract.given_names:
               "Bob" and "Robert", "Liz" and "Elizabeth") and the rest agrees - the same words
               after it ("Bob Smith" / "Robert Smith"), or one side is the given name alone
               ("Bob" / "Robert Smith"). A person on one side at least, or two untyped full
               names (an untyped "Dell" is not "Adele"'s short form). More than MAX_OPTIONS
               entities found ("Al" against a scope of Alans, Alberts and Alexes) is no
               evidence and finds nothing. It runs after name_part: the same given name
               ("Bob" / "Bob Smith") is better evidence than a related one, and a confident
               name_part match settles the mention before this tier is asked.
    tiebreaker chooses among the options when no tier was confident

A tier is *confident* when it is the first to find anything and finds exactly one entity,
other than a known name that is only a part of the mention's ("Sam" for "Sam Lee"):
resolution stops there. A tier that finds several keeps them and the later tiers still run,
adding what they find; the tiebreaker then picks one option (Resolved) or none (Ambiguous).
A pick of such a part, beside an option that fits the whole name by nickname ("Samantha Lee"),
is Ambiguous too: the tier order alone would decide it.
Options already joined by accepted same_as proposals count as one (the best of them).

Every tier stays inside one scope (`scope` is the rowid of the scope world): the SQL
lookups filter on it, the blocking index keeps one posting set per scope, and embedding
hits are checked against the scope in SQL before they count. Known types must agree:
a mention typed "person" never matches an entity typed "place" (an untyped side matches
any type).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from worlddb.core.schema import VECTOR_FROM
from worlddb.core.store import Store, list_params, list_sql
from worlddb.extract import given_names
from worlddb.graph import identity
from worlddb.protocols import TIER_ORDER, Option, Tiebreaker
from worlddb.vectors import hnsw

from .index import NameIndex
from .names import name_parts, name_similarity, part_score, phonetic_key, phonetic_similarity
from .outcomes import (
    EXACT_ALIAS_SCORE,
    EXACT_HELD_SCORE,
    EXACT_NAME_SCORE,
    EXACT_TYPE_GAP,
    MAX_OPTIONS,
    NICKNAME_SCORE,
    Match,
    Thresholds,
)

#: Scopes with at most this many entities are searched by exact cosine over their stored
#: vectors (one SQL read); larger ones through HNSW with a scope filter.
BRUTE_FORCE_MAX = 512
#: Neighbours asked of HNSW per mention.
EMBED_K = 8
#: Rows of one phonetic key read per lookup, at most.
PHONETIC_ROWS = 1000
#: resolver_names.kind: a display name, an alias, or the display name of an entity created
#: for an ambiguous mention (see EXACT_HELD_SCORE).
NAME, ALIAS, HELD = 0, 1, 2


@dataclass(frozen=True)
class Query:
    name: str  # display name, as given (trimmed)
    keys: tuple[str, ...]  # normalised name first, then the normalised aliases
    aliases: tuple[str, ...]  # display aliases, one per distinct key
    etype: str | None

    @property
    def norm(self) -> str:
        return self.keys[0]


@dataclass
class Pending:
    """Names and vectors this transaction wrote, which the committed-only index cannot see."""

    names: list[tuple[int, int, str, str | None]] = field(default_factory=list)  # scope, node, norm, etype
    vectors: dict[int, tuple[int, np.ndarray]] = field(default_factory=dict)  # node -> (scope, vec)


@dataclass
class Context:
    store: Store  # the connection that reads (inside the writer's transaction when writing)
    index: NameIndex
    thresholds: Thresholds
    tiebreaker: Tiebreaker
    scope: int
    vector: Callable[[], np.ndarray | None]  # the mention's name vector, computed on demand
    pending: Pending
    exclude: frozenset[int] = frozenset()


def compatible(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


def decide(ctx: Context, q: Query) -> tuple[str, list[Match]]:
    """("resolved", [match]) / ("ambiguous", options) / ("new", [])."""
    found: dict[int, tuple[str, float, str, str]] = {}  # node -> (tier, score, matched, mention)
    for tier in (_exact, _fuzzy, _phonetic, _embedding, _name_part, _nickname):
        hits = {n: h for n, h in tier(ctx, q).items() if n not in ctx.exclude and n not in found}
        if not hits:
            continue
        # a known name that is only a part of the mention ("Sam" for "Sam Lee") says little: a
        # fuller name the later tiers find ("Samantha Lee") may be the one
        confident = not found and len(hits) == 1 and not any(_partial(t, m, q) for t, _, m, q in hits.values())
        found.update(hits)
        if confident:
            break
    matches = _verified(ctx, found)
    if not matches:
        return "new", []
    if len(matches) > 1:
        matches = _one_per_identity(ctx.store, matches)
    matches.sort(key=lambda m: (TIER_ORDER.index(m.tier), -m.score, m.anchor))
    matches = matches[:MAX_OPTIONS]
    if len(matches) == 1:
        return "resolved", matches
    choice = ctx.tiebreaker.choose(q.name, _options(ctx.store, matches))
    if choice is None or not 0 <= choice < len(matches) or _partial_of_several(matches, choice):
        return "ambiguous", matches
    return "resolved", [matches[choice]]


def _partial(tier: str, matched: str, mention: str) -> bool:
    """Whether a hit of `tier` is a known name (`matched`) that is a part of the `mention`'s,
    shorter than it: "sam" for "sam lee"."""
    return tier == "name_part" and len(matched.split(" ")) < len(mention.split(" "))


def _partial_of_several(matches: Sequence[Match], choice: int) -> bool:
    """Whether the chosen match is only a part of the mention's name while another option
    fits it whole in another way ("Sam" and "Samantha Lee" for "Sam Lee"): then the mention
    is ambiguous, and each gets a proposal, rather than the tier order deciding."""
    chosen = matches[choice]
    return _partial(chosen.tier, chosen.matched, chosen.mention) and any(
        m.tier == "nickname" and len(m.matched.split(" ")) == len(m.mention.split(" "))
        for i, m in enumerate(matches) if i != choice)


def _keep(best: dict, node: int, tier: str, score: float, matched: str, mention: str) -> None:
    if node not in best or score > best[node][1]:
        best[node] = (tier, score, matched, mention)


def exact_names(store: Store, scope: int, q: Query) -> list[tuple[int, str, int, str | None]]:
    """(node, norm, kind, etype) of the names in `scope` equal to the mention's name or an
    alias, of a compatible type: what the exact tier matches."""
    return [row for row in names_equal(store, scope, q.keys) if compatible(q.etype, row[3])]


def names_equal(store: Store, scope: int, keys: Sequence[str]) -> list[tuple[int, str, int, str | None]]:
    """(node, norm, kind, etype) of the names in `scope` equal to any of `keys`, of any type:
    `exact_names` of several mentions in one read (each keeps the rows of its own keys whose
    type is compatible with its own)."""
    keys = list(keys)
    return store.conn.execute(
        f"SELECT node, norm, kind, etype FROM resolver_names WHERE scope=? AND norm IN ({list_sql(len(keys))})",
        (scope, *list_params(keys))).fetchall()


def _exact(ctx: Context, q: Query) -> dict:
    best: dict = {}
    for node, norm, kind, etype in exact_names(ctx.store, ctx.scope, q):
        if norm != q.norm or kind == ALIAS:
            score = EXACT_ALIAS_SCORE
        else:
            score = EXACT_HELD_SCORE if kind == HELD else EXACT_NAME_SCORE
        if q.etype != etype:
            score -= EXACT_TYPE_GAP
        _keep(best, node, "exact", round(score, 6), norm, norm)
    return best


def _fuzzy(ctx: Context, q: Query) -> dict:
    threshold = ctx.thresholds.fuzzy
    best: dict = {}
    for key in q.keys:
        for c in ctx.index.fuzzy(ctx.scope, key, threshold):
            if c.norm != key and compatible(q.etype, c.etype):
                _keep(best, c.node, "fuzzy", c.score, c.norm, key)
        for scope, node, norm, etype in ctx.pending.names:
            if scope == ctx.scope and norm != key and compatible(q.etype, etype):
                score = name_similarity(key, norm)
                if score >= threshold:
                    _keep(best, node, "fuzzy", score, norm, key)
    return best


def _phonetic(ctx: Context, q: Query) -> dict:
    by_key: dict[str, list[str]] = {}
    for key in q.keys:
        code = phonetic_key(key)
        if code:
            by_key.setdefault(code, []).append(key)
    if not by_key:
        return {}
    rows = ctx.store.conn.execute(
        f"SELECT node, norm, phon, etype FROM resolver_names WHERE scope=? AND phon IN "
        f"({','.join('?' * len(by_key))}) LIMIT {PHONETIC_ROWS}",
        (ctx.scope, *by_key),
    )
    best: dict = {}
    for node, norm, phon, etype in rows:
        if not compatible(q.etype, etype):
            continue
        for key in by_key[phon]:
            if norm != key:
                score = phonetic_similarity(key, norm)
                if score >= ctx.thresholds.phonetic:
                    _keep(best, node, "phonetic", score, norm, key)
    return best


def _embedding(ctx: Context, q: Query) -> dict:
    vector = ctx.vector()
    if vector is None:
        return {}
    threshold = ctx.thresholds.embedding
    scored: dict[int, float] = {}
    if ctx.index.size(ctx.scope) <= BRUTE_FORCE_MAX:
        # Reads through the caller's connection, so this transaction's own vectors count too.
        rows = ctx.store.conn.execute(
            f"SELECT v.node, d.vec FROM {VECTOR_FROM} WHERE v.kind=? AND v.ord=0 AND d.vec IS NOT NULL AND v.node IN "
            "(SELECT node FROM resolver_names WHERE scope=? AND kind!=? AND norm IS NOT NULL)",
            (hnsw.NAME, ctx.scope, ALIAS),
        ).fetchall()
        if rows:
            matrix = np.vstack([np.frombuffer(vec, dtype=np.float32) for _, vec in rows])
            if matrix.shape[1] == vector.shape[0]:
                for (node, _), sim in zip(rows, (matrix @ vector).tolist()):
                    scored[node] = sim
    else:
        scored.update(ctx.index.nearest(ctx.scope, vector, EMBED_K))
        for node, (scope, vec) in ctx.pending.vectors.items():
            if scope == ctx.scope:
                scored[node] = float(vec @ vector)
    hits = {node: sim for node, sim in scored.items() if sim >= threshold}
    if not hits:
        return {}
    marks = ",".join("?" * len(hits))
    rows = ctx.store.conn.execute(
        # unary + (for text, || '') keeps the planner on the node index: (scope, norm) would
        # scan the whole scope
        f"SELECT node, norm, etype FROM resolver_names WHERE +scope=? AND kind!=? AND (norm || '') IS NOT NULL "
        f"AND node IN ({marks})",
        (ctx.scope, ALIAS, *hits),
    )
    best: dict = {}
    for node, norm, etype in rows:
        if compatible(q.etype, etype):
            _keep(best, node, "embedding", min(1.0, round(hits[node], 6)), norm, q.norm)
    return best


def _name_part(ctx: Context, q: Query) -> dict:
    if q.etype not in (None, "person"):
        return {}

    def fits(etype: str | None) -> bool:  # a person on one side at least, and no other type
        return compatible(q.etype, etype) and "person" in (q.etype, etype)

    best: dict = {}
    for key in q.keys:
        # the mention is a part of a known name: "Ana" of "Ana Souza"
        known = ctx.index.containing(ctx.scope, key, MAX_OPTIONS)
        for c in known or ():
            if fits(c.etype):
                _keep(best, c.node, "name_part", c.score, c.norm, key)
        # a known name is a part of the mention: "Ana" known, "Ana Souza" mentioned
        parts = name_parts(key)
        if parts:
            marks = ",".join("?" * len(parts))
            rows = ctx.store.conn.execute(
                f"SELECT node, norm, etype FROM resolver_names WHERE scope=? AND norm IN ({marks})",
                (ctx.scope, *parts)).fetchall()
            for node, norm, etype in rows:
                if fits(etype):
                    _keep(best, node, "name_part", part_score(norm, key), norm, key)
        # this transaction's own names, which the committed-only index cannot see yet
        for scope, node, norm, etype in ctx.pending.names:
            if scope != ctx.scope or norm == key or not fits(etype):
                continue
            if key in name_parts(norm):
                _keep(best, node, "name_part", part_score(key, norm), norm, key)
            elif norm in parts:
                _keep(best, node, "name_part", part_score(norm, key), norm, key)
    return best if len(best) <= MAX_OPTIONS else {}


def _nickname(ctx: Context, q: Query) -> dict:
    if q.etype not in (None, "person"):
        return {}
    best: dict = {}
    for key in q.keys:
        given, *rest = key.split(" ")
        variants = given_names.related(given)
        if not variants:
            continue

        def fits(etype: str | None, norm: str, rest=rest) -> bool:
            # a person on one side, or two untyped names that both go on past the given name
            if not compatible(q.etype, etype) or etype not in (None, "person"):
                return False
            return "person" in (q.etype, etype) or bool(rest) and " " in norm

        def keep(node: int, norm: str, key=key) -> None:
            words = max(len(key.split(" ")), len(norm.split(" ")))
            share = min(len(key.split(" ")), len(norm.split(" "))) / words
            _keep(best, node, "nickname", round(NICKNAME_SCORE * share, 6), norm, key)

        # the mention but for its given name ("bob smith" for "robert smith"), or a given name alone
        # ("bob"); SQL reads through the writer's connection, so this transaction's names count too
        wanted = sorted({" ".join((v, *rest)) for v in variants} | variants)
        marks = ",".join("?" * len(wanted))
        rows = ctx.store.conn.execute(
            f"SELECT node, norm, etype FROM resolver_names WHERE scope=? AND norm IN ({marks})",
            (ctx.scope, *wanted)).fetchall()
        for node, norm, etype in rows:
            if fits(etype, norm):
                keep(node, norm)
        if rest:
            continue
        # the mention is a given name alone: known names that begin with a related one ("bob smith"
        # for "robert"), from the committed index and from this transaction's own names
        for variant in variants:
            known = ctx.index.containing(ctx.scope, variant, MAX_OPTIONS)
            if known is None:  # a name that many share tells nothing
                return {}
            for c in known:
                if c.norm.split(" ", 1)[0] == variant and fits(c.etype, c.norm):
                    keep(c.node, c.norm)
        for scope, node, norm, etype in ctx.pending.names:
            if scope == ctx.scope and " " in norm and norm.split(" ", 1)[0] in variants and fits(etype, norm):
                keep(node, norm)
    return best if len(best) <= MAX_OPTIONS else {}


def _verified(ctx: Context, found: dict) -> list[Match]:
    """Matches whose entity still has a live name in this scope and still lies inside the
    scope world (guards erasure, the committed-only index, and an entity whose contains
    edge was removed), with anchors and display names from SQL."""
    if not found:
        return []
    nodes = list(found)
    rows = ctx.store.conn.execute(
        f"SELECT DISTINCT n.rowid, n.anchor, n.name FROM resolver_names r JOIN nodes n ON n.rowid = r.node "
        f"JOIN nodes s ON s.rowid = r.scope "
        f"WHERE +r.scope=? AND (r.norm || '') IS NOT NULL AND r.node IN ({','.join('?' * len(nodes))}) "
        f"AND EXISTS (SELECT 1 FROM closure c WHERE c.world = s.rowid AND c.node = n.rowid)",
        (ctx.scope, *nodes),
    )
    out = []
    for rowid, anchor, name in rows:
        tier, score, matched, mention = found[rowid]
        out.append(Match(anchor=anchor, name=name, tier=tier, score=float(score), matched=matched, mention=mention))
    return out


def _one_per_identity(store: Store, matches: list[Match]) -> list[Match]:
    ranked = sorted(matches, key=lambda m: (TIER_ORDER.index(m.tier), -m.score, m.anchor))
    seen: set[str] = set()
    out = []
    for m in ranked:
        if m.anchor in seen:
            continue
        seen |= identity.equivalence_class(store, m.anchor)
        out.append(m)
    return out


def _options(store: Store, matches: Sequence[Match]) -> list[Option]:
    views = store.get_many(m.anchor for m in matches)
    out = []
    for m in matches:
        aliases = views[m.anchor].meta.get("aliases", []) if m.anchor in views else []
        names = tuple(a for a in aliases if isinstance(a, str))
        out.append(Option(name=m.name, aliases=names, tier=m.tier, score=m.score))
    return out
