"""Which known entities a query names: the entity lane's read-only lookup at query time.

Contract: `find_mentions(store, index, thresholds, scopes, text)` never writes and never
calls a model. It looks at the query's words (letters/digits, joined by ' . - & inside a
word) and at every phrase of one to three consecutive words:
- exact: the phrase's normalised form equals an entity's normalised name or alias in one
  of the scopes (one SQL read over the (scope, norm) index for all phrases at once);
- fuzzy: a single word of MIN_FUZZY_CHARS or more characters that is not a stopword and
  is not already part of an exact mention, against the scope's name index, with the
  resolver's fuzzy threshold.
A phrase of one word that refers to a person without naming anyone (`NOT_NAMES`: a personal
pronoun, or "user", the role) is neither: a user whose id is "me" has an entity named "me", and
"Tell me about Bob" is not about them.
Overlapping phrases are settled longest first ("New York City" over "York"), every entity
a settled phrase names is kept, and each entity is reported once, at its first span.
Unknown scope anchors name no entities (a scope nobody has written to yet is empty).
Work is bounded by MAX_QUERY_WORDS.

`entities_named(store, scopes, name)` is the lookup of a whole name, as a person types it
to find an entity: the entities whose normalised name or alias equals the name's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from worlddb.core.errors import InvalidInput
from worlddb.core.store import Store, list_params, list_sql
from worlddb.protocols import TIER_ORDER

from .index import NameIndex
from .names import normalize_name
from .outcomes import EXACT_ALIAS_SCORE, Mention, Thresholds
from .tiers import ALIAS

MIN_FUZZY_CHARS = 4
MAX_QUERY_WORDS = 64
_WORD = re.compile(r"\w+(?:['’.\-&]\w+)*")
#: Question and function words a query is made of; they are never fuzzy-matched (an exact
#: entity of that name, e.g. a concept called "today", is still found).
STOPWORDS = frozenset(
    "about above after again also before being below between both could does doing down during each "
    "from have having here hers herself himself into itself just more most myself once only other ours "
    "over same should some such than that their theirs them themselves then there these they this those "
    "through under until very what when where which while whom whose will with would your yours "
    "yourself today yesterday tomorrow said says tell told know does think".split()
)

#: one-word phrases that refer to a person without naming one: the personal pronouns, and "user",
#: the role a query calls the scope's user by. An id spelt as one of them ("me", the README's
#: --default-user) names an entity of that name, which a query's pronoun never is.
NOT_NAMES = frozenset(
    "i me my mine myself you your yours yourself yourselves we us our ours ourselves he him his himself "
    "she her hers herself they them their theirs themselves user".split()
)


def find_mentions(store: Store, index: NameIndex, thresholds: Thresholds, scopes: Iterable[str],
                  text: str) -> list[Mention]:
    if not isinstance(text, str):
        raise InvalidInput("the query text must be a string")
    scope_rows = _scope_rows(store, scopes)
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)][:MAX_QUERY_WORDS]
    if not scope_rows or not words:
        return []
    phrases: dict[str, list[tuple[int, int]]] = {}
    for i in range(len(words)):
        for j in range(i, min(i + 3, len(words))):
            span = (words[i][0], words[j][1])
            norm = normalize_name(text[span[0] : span[1]])
            if norm and not (i == j and norm in NOT_NAMES):
                phrases.setdefault(norm, []).append(span)
    found: list[tuple[tuple[int, int], int, str, float]] = []  # span, node rowid, tier, score
    marks = list_sql(len(scope_rows))
    norms = list(phrases)
    for start in range(0, len(norms), 400):
        chunk = norms[start : start + 400]
        rows = store.conn.execute(
            f"SELECT node, norm, kind FROM resolver_names WHERE scope IN ({marks}) AND norm IN "
            f"({','.join('?' * len(chunk))})",
            (*list_params(scope_rows), *chunk),
        )
        for node, norm, kind in rows:
            for span in phrases[norm]:
                found.append((span, node, "exact", EXACT_ALIAS_SCORE if kind == ALIAS else 1.0))
    covered = [span for span, *_ in found]
    index.sync()
    for start, end in words:
        norm = normalize_name(text[start:end])
        if len(norm) < MIN_FUZZY_CHARS or norm in STOPWORDS or norm in NOT_NAMES:
            continue
        if any(s <= start and end <= e for s, e in covered):
            continue
        for scope in scope_rows:
            for c in index.fuzzy(scope, norm, thresholds.fuzzy):
                found.append(((start, end), c.node, "fuzzy", c.score))
    return _settle(store, found)


def entities_named(store: Store, scopes: Iterable[str], name: str, *, words: bool = False) -> list[str]:
    """Anchors of the live entities in `scopes` whose normalised name or an alias is
    `name`'s - or, with `words`, contains it as whole words ("connor" names "sarah
    connor") - in the order they were indexed."""
    if not isinstance(name, str):
        raise InvalidInput("the name must be a string")
    scope_rows, norm = _scope_rows(store, scopes), normalize_name(name)
    if not scope_rows or not norm:
        return []
    match, params = "r.norm = ?", [norm]
    if words:
        escaped = norm.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        match = ("(r.norm = ? OR r.norm LIKE ? ESCAPE '\\' OR r.norm LIKE ? ESCAPE '\\' "
                 "OR r.norm LIKE ? ESCAPE '\\')")
        params += [f"{escaped} %", f"% {escaped}", f"% {escaped} %"]
    rows = store.conn.execute(
        f"SELECT n.anchor FROM resolver_names r JOIN nodes n ON n.rowid = r.node "
        f"WHERE r.scope IN ({list_sql(len(scope_rows))}) AND {match} GROUP BY n.anchor ORDER BY min(r.id)",
        (*list_params(scope_rows), *params))
    return [row[0] for row in rows]


def _scope_rows(store: Store, scopes: Iterable[str]) -> list[int]:
    if isinstance(scopes, str):
        raise InvalidInput("scopes is a list of scope anchors, not one string")
    rows = []
    for anchor in scopes:
        row = store.rowid(anchor) if isinstance(anchor, str) else None
        if row is not None:
            rows.append(row)
    return rows


def _settle(store: Store, found: list) -> list[Mention]:
    if not found:
        return []
    nodes = sorted({node for _, node, _, _ in found})
    live = {}
    for start in range(0, len(nodes), 400):
        chunk = nodes[start : start + 400]
        rows = store.conn.execute(
            f"SELECT n.rowid, n.anchor, n.name FROM nodes n WHERE n.rowid IN ({','.join('?' * len(chunk))}) "
            f"AND EXISTS (SELECT 1 FROM resolver_names r WHERE r.node = n.rowid AND r.norm IS NOT NULL)",
            chunk,
        )
        live.update((rowid, (anchor, name)) for rowid, anchor, name in rows)
    ranked = sorted(
        (f for f in found if f[1] in live),
        key=lambda f: (-(f[0][1] - f[0][0]), TIER_ORDER.index(f[2]), -f[3], f[0][0]),
    )
    chosen: list[tuple[int, int]] = []
    best: dict[int, tuple] = {}
    for span, node, tier, score in ranked:
        overlaps = any(s < span[1] and span[0] < e for s, e in chosen if (s, e) != span)
        if overlaps:
            continue
        if span not in chosen:
            chosen.append(span)
        if node not in best or span[0] < best[node][0][0]:
            best[node] = (span, tier, score)
    out = [Mention(anchor=live[node][0], name=live[node][1], tier=tier, score=score, span=span)
           for node, (span, tier, score) in best.items()]
    return sorted(out, key=lambda m: (m.span, m.anchor))
