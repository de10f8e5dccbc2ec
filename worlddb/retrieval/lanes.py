"""Recall's ranked lanes, each restricted to the scopes asked about (containment closure).

  bm25      FTS5 bm25() over the index text of Memory/Turn/Summary nodes
            (worlddb.graph.lexical)
  vector    HNSW cosine over effective embeddings (whole texts)
  sentence  HNSW cosine over sentence-unit embeddings; a node scores by its best unit
  entity    entities the query names (exact/alias/fuzzy, via the resolver), each with
            its accepted same_as class (worlddb.graph.identity), pull every text node
            that refers_to a member - ranked by how many of the classes it mentions,
            then by the bm25 lane's order
  entity_pending  the same for the entities at the other end of those entities' pending
            merge proposals; fusion weighs it below the entity lane
  speaker   what the entities the query names said themselves (refers_to with role
            "speaker", any member of their accepted same_as classes: the turns of a
            conversation, each written with its speaker), ranked by their sentence vectors'
            cosine to the query with those names taken out - the rest of the question
            ("What activities does Melanie partake in?" -> "What activities does partake
            in?") among the named person's own words
  answer_type  the same turns, ranked by their sentence vectors' cosine to that rest of
            the query plus the vector of the word naming what the question asks for
            (global_lane.answer_head: "activities", "cities", "books"); empty when the
            question names no such word. A list question's answers ("I went swimming",
            "my pottery class") share more with "activities" than with the whole question
  typed     texts naming an entity of the type the question asks for ("which cities":
            place), ranked as answer_type ranks (worlddb.retrieval.typed_lane)
  global    members of the topic worlds the query selects, top-down over their levels
            (worlddb.retrieval.global_lane)

Each lane returns node rowids, best first, at most `depth` of them. With `open_only_at`
a lane admits only nodes whose validity is open at that time.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial

import numpy as np

from worlddb.core.records import TEXT_TYPES
from worlddb.core.store import ROWID_OF, Store, inside_sql, list_params, rowids_sql
from worlddb.graph import identity
from worlddb.graph.lexical import lexical
from worlddb.graph.text_index import WORD
from worlddb.resolver.outcomes import Mention

from .global_lane import answer_head, global_lane
from .sources import Sources
from .typed_lane import typed_lane

#: how deep each lane looks: at least LANE_FLOOR, or LANE_DEPTH times the limit
LANE_DEPTH = 5
LANE_FLOOR = 100
#: scopes up to this many text nodes are searched again, confined to the scope, when
#: over-fetching did not yield enough in-scope results: exactly up to EXACT_MAX, past it
#: with an HNSW filter
FILTER_SCOPE_MAX = 50_000
#: pending merge partners the entity_pending lane follows per query, best scored first
PENDING_MAX = 10
#: a set of nodes a lane is confined to - a small scope in a large store, a speaker's turns
#: (a conversation's speaker has a few hundred) - is ranked exactly from their stored vectors
#: up to this many (AnnIndex.nearest_among). hnswlib's filtered search can stop short of
#: nodes it never reaches: 28 of 30 allowed nodes added after 5,000 near-equal vectors.
EXACT_MAX = 1_000
#: the speaker lane ranks with an HNSW filter up to this many of the speaker's nodes (past
#: EXACT_MAX); past it, it over-fetches the nearest units and keeps those the speaker said
SPEAKER_FILTER_MAX = 20_000
_TEXT = ",".join("?" * len(TEXT_TYPES))
# (n.type || '') in the queries below keeps SQLite from driving a join through the type
# index (every node of a type) instead of the edge index (a handful of rows); it does what
# a unary + does in SQLite, and PostgreSQL accepts it for text, as it does not the +.


def run_lanes(sources: Sources, query: str, worlds: list[str], depth: int, *, open_only_at: int | None,
              mentions: list[Mention] | None = None) -> dict[str, list[int]]:
    """Each lane's rowids, best first, at most `depth`. `mentions`: the known entities the query
    names (`sources.resolver.find_mentions`), where the caller has found them already."""
    store = sources.store
    bm25 = [rowid for rowid, _ in lexical(store, query, worlds, depth, open_only_at=open_only_at)]
    vector = sources.query_vector(query)
    lanes = {"bm25": bm25}
    if vector is not None:
        # the scope's texts, read once for both vector lanes and only if one of them needs them
        members = cache(partial(_scope_members, store, worlds, open_only_at))
        lanes["vector"] = _ann_lane(sources, sources.whole, vector, worlds, depth, open_only_at, members)
        lanes["sentence"] = _ann_lane(sources, sources.units, vector, worlds, depth, open_only_at, members)
    if mentions is None:
        mentions = sources.resolver.find_mentions(worlds, query)
    lanes["entity"], lanes["entity_pending"] = _identity_lanes(sources, mentions, worlds, depth, bm25, open_only_at)
    lanes["speaker"], lanes["answer_type"] = _speaker_lanes(sources, query, mentions, worlds, depth, open_only_at)
    lanes["typed"] = typed_lane(sources, query, vector, mentions, worlds, depth, open_only_at)
    lanes["global"] = global_lane(store, query, vector, worlds, depth, open_only_at=open_only_at)
    return lanes


def _ann_lane(sources: Sources, index, vector, worlds: list[str], depth: int, open_only_at: int | None,
              scope_members: Callable[[], set[int] | None]) -> list[int]:
    fetch = depth * 4
    found = [rowid for rowid, _ in index.search(vector, fetch)]
    # check scope in rank order, a slice at a time, and stop once `depth` passed: where
    # the scope holds most candidates the rest of the over-fetch is never looked up
    ranked: list[int] = []
    for start in range(0, len(found), depth):
        chunk = found[start:start + depth]
        allowed = eligible(sources.store, worlds, chunk, open_only_at)
        ranked.extend(r for r in chunk if r in allowed)
        if len(ranked) >= depth:
            break
    if len(ranked) < depth:
        # Short of `depth`: either the scope holds no more, or the over-fetch left some of it
        # out - a small scope in a large index; nearest vectors of other nodes (a text's
        # several sentences count once); a graph search that came back short. Only the scope's
        # size tells, so where it holds more than was found, search again confined to it.
        members = scope_members()
        if members is not None and len(ranked) < min(depth, len(members)):
            if len(members) <= EXACT_MAX:
                ranked = [rowid for rowid, _ in index.nearest_among(vector, members, depth)]
            else:
                ranked = [rowid for rowid, _ in index.search(vector, depth, allowed=members.__contains__)]
    return ranked[:depth]


def eligible(store: Store, worlds: list[str], rowids: list[int], open_only_at: int | None) -> set[int]:
    if not rowids:
        return set()
    validity, extra = ("AND (n.valid_to IS NULL OR n.valid_to > ?)", [open_only_at]) if open_only_at else ("", [])
    # Drive from the candidate rows (a few hundred), never from the scope's whole closure;
    # (n.type || '') keeps SQLite off the type index, which would scan every node of a type.
    rows = store.conn.execute(
        f"SELECT n.rowid FROM nodes n WHERE n.rowid IN ({','.join('?' * len(rowids))}) "
        f"AND (n.type || '') IN ({_TEXT}) {validity} AND {inside_sql('n', len(worlds))}",
        (*rowids, *TEXT_TYPES, *extra, *list_params(worlds), *list_params(worlds)),
    )
    return {row[0] for row in rows}


def _scope_members(store: Store, worlds: list[str], open_only_at: int | None) -> set[int] | None:
    validity, extra = ("AND (n.valid_to IS NULL OR n.valid_to > ?)", [open_only_at]) if open_only_at else ("", [])
    rows = store.conn.execute(
        f"SELECT DISTINCT n.rowid FROM closure c JOIN nodes n ON n.rowid = c.node "
        f"WHERE c.world IN {rowids_sql(len(worlds))} AND n.type IN ({_TEXT}) {validity} LIMIT ?",
        (*list_params(worlds), *TEXT_TYPES, *extra, FILTER_SCOPE_MAX + 1),
    ).fetchall()
    return None if len(rows) > FILTER_SCOPE_MAX else {row[0] for row in rows}


def _identity_lanes(sources: Sources, mentions: list[Mention], worlds: list[str], depth: int, bm25: list[int],
                    open_only_at: int | None) -> tuple[list[int], list[int]]:
    """The entity lane and the entity_pending lane. The entities the query names count
    with every member of their accepted same_as class: naming any member finds the
    memories of all. The other ends of their pending proposals (at most PENDING_MAX, best
    scored first, each with its own class) make the entity_pending lane, which fusion
    weighs lower: a proposal nobody has accepted is a lead, not an identity."""
    if not mentions:
        return [], []
    store = sources.store
    classes = identity.classes_of(store, sorted({m.anchor for m in mentions}))
    members = frozenset().union(*classes)
    partners: dict[str, float] = {}
    for proposal in identity.proposals_touching(store, members, "pending"):
        other = proposal.b if proposal.a in members else proposal.a
        if other not in members:
            partners[other] = max(partners.get(other, 0.0), proposal.score or 0.0)
    best = sorted(partners, key=lambda a: (-partners[a], a))[:PENDING_MAX]
    pending = identity.classes_of(store, best)
    return (_mentioning(store, classes, worlds, depth, bm25, open_only_at),
            _mentioning(store, pending, worlds, depth, bm25, open_only_at))


def _mentioning(store: Store, classes: list[frozenset[str]], worlds: list[str], depth: int, bm25: list[int],
                open_only_at: int | None) -> list[int]:
    """Text nodes that refer to a member of the entity classes: those naming most of the
    classes first, then those the bm25 lane ranks, then the most recently mentioned.

    A well-known entity (the user, a partner) may have tens of thousands of mentions, so
    the lane never lists them all; the edge index yields mentions newest first and each
    lookup stops after `depth` rows. A node naming two or more of the classes names one
    besides the most mentioned, so those are found among the rarer classes' mentions (the
    `depth` latest per member); of the nodes naming one, the `depth` latest mentions per
    member. Then each found node's classes are read, and the bm25 lane's rows get theirs."""
    if not classes:
        return []
    conn = store.conn
    class_of = {member: i for i, members in enumerate(classes) for member in members}
    entities = sorted(class_of)
    validity, extra = ("AND (n.valid_to IS NULL OR n.valid_to > ?)", [open_only_at]) if open_only_at else ("", [])
    inside = f"AND (n.type || '') IN ({_TEXT}) {validity} AND {inside_sql('n', len(worlds))}"
    filters = (*TEXT_TYPES, *extra, *list_params(worlds), *list_params(worlds))
    found: dict[int, tuple[frozenset[int], int]] = {}  # node rowid -> (classes named, latest mention edge)

    def take(rows) -> None:
        for rowid, entity, latest in rows:
            named, last = found.get(rowid, (frozenset(), 0))
            found[rowid] = (named | {class_of[entity]}, max(last, latest))

    if len(classes) > 1:
        # which class is skipped only decides the cost; counting its index entries (removed
        # edges too) is enough to find the most mentioned without reading an edge row
        degree = [sum(conn.execute(f"SELECT count(*) FROM edges WHERE dst = {ROWID_OF} AND type='refers_to'",
                                   (ent,)).fetchone()[0] for ent in members) for members in classes]
        shared: set[int] = set()
        for i in sorted(range(len(classes)), key=lambda i: (degree[i], min(classes[i])))[:-1]:
            others = [o for o in entities if class_of[o] != i]
            for ent in sorted(classes[i]):
                shared.update(row[0] for row in conn.execute(
                    "SELECT n.rowid FROM edges e JOIN nodes n ON n.rowid = e.src "
                    f"WHERE e.dst = {ROWID_OF} AND e.type='refers_to' AND e.seq_removed IS NULL {inside} "
                    # +o.dst: drive the check from the mentioning node (edges_src), never from
                    # the other entities' mentions, which may be thousands per candidate
                    "AND EXISTS (SELECT 1 FROM edges o WHERE o.src = e.src AND o.type='refers_to' "
                    f"AND o.seq_removed IS NULL AND +o.dst IN {rowids_sql(len(others))}) "
                    "ORDER BY e.rowid DESC LIMIT ?", (ent, *filters, *list_params(others), depth)))
        take(_mentions_of(conn, sorted(shared), entities))
    for ent in entities:
        take(conn.execute(
            "SELECT n.rowid, d.anchor, e.rowid FROM nodes d JOIN edges e ON e.dst = d.rowid "
            f"JOIN nodes n ON n.rowid = e.src WHERE d.anchor=? AND e.type='refers_to' AND e.seq_removed IS NULL "
            f"{inside} ORDER BY e.rowid DESC LIMIT ?",
            (ent, *filters, depth)))
    # the bm25 lane's rows are inside the scopes and open already
    take(_mentions_of(conn, bm25, entities))
    order = {rowid: i for i, rowid in enumerate(bm25)}
    return sorted(found, key=lambda r: (-len(found[r][0]), order.get(r, len(order)), -found[r][1]))[:depth]


def _mentions_of(conn, rowids: list[int], entities: list[str]):
    """(rowid, entity, its latest mention edge) for each of `entities` each of `rowids` names."""
    if not rowids:
        return []
    return conn.execute(
        "SELECT e.src, d.anchor, max(e.rowid) FROM edges e JOIN nodes d ON d.rowid = e.dst "
        f"WHERE e.src IN ({','.join('?' * len(rowids))}) AND +e.dst IN {rowids_sql(len(entities))} "
        "AND e.type='refers_to' AND e.seq_removed IS NULL GROUP BY e.src, e.dst, d.anchor",
        (*rowids, *list_params(entities)))


def _speaker_lanes(sources: Sources, query: str, mentions: list[Mention], worlds: list[str], depth: int,
                   open_only_at: int | None) -> tuple[list[int], list[int]]:
    """The speaker lane and the answer_type lane: text nodes said by an entity the query
    names (or a member of its accepted same_as class), nearest first by their best sentence
    vector - to the query without the names, and to that plus the vector of the word naming
    what the question asks for (global_lane.answer_head: "activities"), when it names one.
    Both empty when the query names no one who has spoken."""
    if not mentions:
        return [], []
    store = sources.store
    speakers = sorted(frozenset().union(*identity.classes_of(store, sorted({m.anchor for m in mentions}))))
    validity, extra = ("AND (n.valid_to IS NULL OR n.valid_to > ?)", [open_only_at]) if open_only_at else ("", [])
    role = store.backend.json_field("e.props", "role")
    said = (f"e.type='refers_to' AND e.seq_removed IS NULL AND {role} = 'speaker' "
            f"AND (n.type || '') IN ({_TEXT}) {validity} AND {inside_sql('n', len(worlds))}")
    filters = (*TEXT_TYPES, *extra, *list_params(worlds), *list_params(worlds))
    spoken: set[int] = set()
    for entity in speakers:
        spoken.update(row[0] for row in store.conn.execute(
            f"SELECT n.rowid FROM nodes d JOIN edges e ON e.dst = d.rowid JOIN nodes n ON n.rowid = e.src "
            f"WHERE d.anchor=? AND {said} LIMIT ?", (entity, *filters, SPEAKER_FILTER_MAX + 1)))
    if not spoken:
        return [], []
    rest = _without(query, mentions)
    vector = sources.query_vector(rest) if WORD.search(rest) else None
    if vector is None:
        vector = sources.query_vector(query)
    if vector is None:
        return [], []

    def nearest(wanted: np.ndarray) -> list[int]:
        if len(spoken) <= min(EXACT_MAX, SPEAKER_FILTER_MAX):  # past the latter `spoken` is cut short
            return [rowid for rowid, _ in sources.units.nearest_among(wanted, spoken, depth)]
        if len(spoken) <= SPEAKER_FILTER_MAX:
            # a node has one unit per sentence: ask for more units than nodes wanted
            return [rowid for rowid, _ in sources.units.search(wanted, depth * 3, allowed=spoken.__contains__)][:depth]
        found = [rowid for rowid, _ in sources.units.search(wanted, depth * 4)]
        if not found:
            return []
        kept = {row[0] for row in store.conn.execute(
            f"SELECT n.rowid FROM edges e JOIN nodes n ON n.rowid = e.src "
            f"WHERE e.src IN ({','.join('?' * len(found))}) "
            f"AND +e.dst IN {rowids_sql(len(speakers))} AND {said}", (*found, *list_params(speakers), *filters))}
        return [rowid for rowid in found if rowid in kept][:depth]

    head = answer_head(query)
    kind = sources.query_vector(head) if head else None
    if kind is None:
        return nearest(vector), []
    both = vector + kind
    return nearest(vector), nearest((both / float(np.linalg.norm(both))).astype(np.float32))


def _without(query: str, mentions: list[Mention]) -> str:
    """The query with the named entities (and a possessive after them) taken out."""
    out, last = [], 0
    for start, end in sorted(m.span for m in mentions):
        if start >= last:
            out.append(query[last:start])
            last = end + (2 if query[end:end + 2] in ("'s", "’s") else 0)
    return "".join(out + [query[last:]])
