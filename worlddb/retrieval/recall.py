"""Hybrid recall: ranked lanes fused by reciprocal rank fusion, then spread along the graph.
Deterministic, and no model runs at read time (query vectors come from a lookup table,
worlddb.vectors.static_query, unless the engine was opened with query_model=True).

Lanes, each restricted to the scopes asked about (containment closure):
  bm25      FTS5 bm25() over the index text of Memory/Turn/Summary nodes
  vector    HNSW cosine over effective embeddings (whole texts)
  sentence  HNSW cosine over sentence-unit embeddings; a node scores by its best unit
  entity    entities the query names (exact/alias/fuzzy, via the resolver) pull every
            text node that refers_to them - ranked by how many of them it mentions,
            then by the bm25 lane's order
Fusion is weighted RRF:  S(d) = sum over lanes of  w_lane / (RRF_K + rank_lane(d)).
RRF_K = 10: with k = 60 (the usual constant) the fused order barely separates a lane's
top results from its tail, which measured 2.6 points worse (turn_any@10) on the dev
conversations; k = 10 keeps ranks meaningful while no lane dominates. Weights
(bm25 1, vector 0.5, sentence 1, entity 0.25) are round values; the vector lane is
half-weighted because the sentence lane already carries most of its signal.

Graph step (worlddb.retrieval.propagation): turns of a conversation are chained by precedes edges
inside their session world, and an answer usually sits next to the turn that matches the
question. So each node's fused score is raised by half the best score within two
precedes-hops of it, and those neighbours join the candidates; neighbourhoods are read
for the best candidates first, as far as the ranking of the top results needs. Nodes
without precedes edges (plain memories) are unaffected. A neighbour joins only if it
lies inside the asked scopes: a precedes edge may cross into another scope's memories.

Every candidate then passes the bitemporal pin (as_of valid time, known_at transaction
time): closed (superseded, retired) nodes are hidden unless include_retired, and come
back with their closed interval when asked for. Each hit lists the lanes that found it
with its rank there ("context": the fused rank of the neighbour that lifted it).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import islice
from typing import TYPE_CHECKING

from worlddb.graph import text_index

from worlddb.retrieval import propagation
from worlddb.vectors.hnsw import EFFECTIVE, UNIT
from worlddb.graph.edge_reads import edges_touching
from worlddb.core.records import NodeView
from worlddb.memory.results import Hit, RecallResult
from worlddb.memory.scopes import ScopeSet
from worlddb.core.store import inside_sql, live_params, live_sql
from worlddb.core.timeutil import now_us, to_iso

if TYPE_CHECKING:
    from worlddb.memory.engine import Engine

RRF_K = 10
WEIGHTS = {"bm25": 1.0, "vector": 0.5, "sentence": 1.0, "entity": 0.25}
#: how deep each lane looks: at least LANE_FLOOR, or LANE_DEPTH times the limit
LANE_DEPTH = 5
LANE_FLOOR = 100
#: scopes up to this many text nodes are searched with an exact HNSW filter when
#: over-fetching did not yield enough in-scope results
FILTER_SCOPE_MAX = 50_000
_TEXT = ",".join("?" * len(text_index.TEXT_TYPES))
# A unary + on nodes.type in the queries below keeps SQLite from driving a join through the
# type index (every node of a type) instead of the edge index (a handful of rows).


def recall(engine: "Engine", query: str, scopes: ScopeSet, *, limit: int, as_of: int | None,
           known_at: int | None, include_retired: bool) -> RecallResult:
    store = engine.store
    worlds = engine.scope_anchors(scopes)
    if not worlds:
        return RecallResult(results=[], scopes_searched=scopes.keys)
    depth = max(LANE_FLOOR, limit * LANE_DEPTH)
    pinned = as_of is not None or known_at is not None or include_retired
    lanes = run_lanes(engine, query, worlds, depth, open_only_at=None if pinned else now_us())
    scores, ranks = fuse(lanes)
    fused_rank = {rowid: i for i, rowid in enumerate(sorted(scores, key=lambda r: (-scores[r], r)), start=1)}
    # a precedes edge may lead out of the asked scopes: neighbours join only from inside them
    order = propagation.ranked(store.conn, scores, admit=lambda rowids: _eligible(engine, worlds, rowids, None))
    chosen: list[tuple[NodeView, float, dict[str, int]]] = []
    # Read records a batch at a time, in rank order. The lanes only rank nodes inside the
    # scopes, so the first `limit` nearly always make the page; each record costs random
    # page reads in a large file, so the first batch reads no more, and later ones (a pin
    # hid some) read twice as many.
    batch = limit
    while len(chosen) < limit:
        chunk = list(islice(order, batch))
        batch = max(2 * limit, 20)
        if not chunk:
            break
        anchors = store.anchors_for_rowids([rowid for rowid, _, _ in chunk])
        views = store.get_many(anchors.values())
        for rowid, final, lifted_by in chunk:
            view = views.get(anchors.get(rowid, ""))
            if view is None or view.type not in text_index.TEXT_TYPES:
                continue
            seen = store.visible(view, as_of, known_at, include_closed=include_retired)
            if seen is None:
                continue
            found_in = dict(ranks.get(rowid, {}))
            if lifted_by is not None:
                found_in["context"] = fused_rank[lifted_by]
            chosen.append((seen, final, found_in))
            if len(chosen) == limit:
                break
    return RecallResult(results=_hits(engine, chosen, known_at, worlds), scopes_searched=scopes.keys)


def run_lanes(engine: "Engine", query: str, worlds: list[str], depth: int, *, open_only_at: int | None
              ) -> dict[str, list[int]]:
    store = engine.store
    bm25 = [rowid for rowid, _ in text_index.lexical(store, query, worlds, depth, open_only_at=open_only_at)]
    vector = engine.query_vector(query)
    lanes = {"bm25": bm25}
    if vector is not None:
        lanes["vector"] = _ann_lane(engine, engine.index, vector, worlds, depth, open_only_at)
        lanes["sentence"] = _ann_lane(engine, engine.units, vector, worlds, depth, open_only_at)
    lanes["entity"] = _entity_lane(engine, query, worlds, depth, bm25, open_only_at)
    return lanes


def fuse(lanes: dict[str, list[int]]) -> tuple[dict[int, float], dict[int, dict[str, int]]]:
    scores: dict[int, float] = defaultdict(float)
    ranks: dict[int, dict[str, int]] = defaultdict(dict)
    for lane, ranked in lanes.items():
        weight = WEIGHTS[lane]
        for rank, rowid in enumerate(ranked, start=1):
            scores[rowid] += weight / (RRF_K + rank)
            ranks[rowid][lane] = rank
    return dict(scores), dict(ranks)


def _ann_lane(engine: "Engine", index, vector, worlds: list[str], depth: int, open_only_at: int | None) -> list[int]:
    fetch = depth * 4
    found = [rowid for rowid, _ in index.search(vector, fetch)]
    # check scope in rank order, a slice at a time, and stop once `depth` passed: where
    # the scope holds most candidates the rest of the over-fetch is never looked up
    ranked: list[int] = []
    for start in range(0, len(found), depth):
        chunk = found[start:start + depth]
        allowed = _eligible(engine, worlds, chunk, open_only_at)
        ranked.extend(r for r in chunk if r in allowed)
        if len(ranked) >= depth:
            break
    if len(ranked) < depth and len(found) >= fetch:
        # the scope is a small part of the index: search again, filtered to it exactly
        members = _scope_members(engine, worlds, open_only_at)
        if members is not None:
            ranked = [rowid for rowid, _ in index.search(vector, depth, allowed=members.__contains__)]
    return ranked[:depth]


def _eligible(engine: "Engine", worlds: list[str], rowids: list[int], open_only_at: int | None) -> set[int]:
    if not rowids:
        return set()
    validity, extra = ("AND (n.valid_to IS NULL OR n.valid_to > ?)", [open_only_at]) if open_only_at else ("", [])
    # Drive from the candidate rows (a few hundred), never from the scope's whole closure;
    # the unary + keeps SQLite off the type index, which would scan every node of a type.
    rows = engine.store.conn.execute(
        f"SELECT n.rowid FROM nodes n WHERE n.rowid IN ({','.join('?' * len(rowids))}) "
        f"AND +n.type IN ({_TEXT}) {validity} AND {inside_sql('n', len(worlds))}",
        (*rowids, *text_index.TEXT_TYPES, *extra, *worlds, *worlds),
    )
    return {row[0] for row in rows}


def _scope_members(engine: "Engine", worlds: list[str], open_only_at: int | None) -> set[int] | None:
    validity, extra = ("AND (n.valid_to IS NULL OR n.valid_to > ?)", [open_only_at]) if open_only_at else ("", [])
    rows = engine.store.conn.execute(
        f"SELECT DISTINCT n.rowid FROM closure c JOIN nodes n ON n.anchor = c.node "
        f"WHERE c.world IN ({','.join('?' * len(worlds))}) AND n.type IN ({_TEXT}) {validity} LIMIT ?",
        (*worlds, *text_index.TEXT_TYPES, *extra, FILTER_SCOPE_MAX + 1),
    ).fetchall()
    return None if len(rows) > FILTER_SCOPE_MAX else {row[0] for row in rows}


def _entity_lane(engine: "Engine", query: str, worlds: list[str], depth: int, bm25: list[int],
                 open_only_at: int | None) -> list[int]:
    """Text nodes that refer to the entities the query names: those naming most of them
    first, then those the bm25 lane ranks, then the most recently mentioned.

    A well-known entity (the user, a partner) may have tens of thousands of mentions, so
    the lane never lists them all; the edge index yields mentions newest first and each
    lookup stops after `depth` rows. A node naming two or more of the entities names one
    besides the most mentioned, so those are found among the rarer entities' mentions (the
    `depth` latest per entity); of the nodes naming one, the `depth` latest mentions per
    entity. Then each found node's count is taken, and the bm25 lane's rows get theirs."""
    mentions = engine.resolver.find_mentions(worlds, query)
    if not mentions:
        return []
    conn = engine.store.conn
    entities = sorted({m.anchor for m in mentions})
    validity, extra = ("AND (n.valid_to IS NULL OR n.valid_to > ?)", [open_only_at]) if open_only_at else ("", [])
    inside = f"AND +n.type IN ({_TEXT}) {validity} AND {inside_sql('n', len(worlds))}"
    filters = (*text_index.TEXT_TYPES, *extra, *worlds, *worlds)
    found: dict[int, tuple[int, int]] = {}  # node rowid -> (entities named, latest mention edge)

    def take(rows) -> None:
        for rowid, count, latest in rows:
            had = found.get(rowid, (0, 0))
            found[rowid] = (max(had[0], count), max(had[1], latest))

    if len(entities) > 1:
        # which entity is skipped only decides the cost; counting its index entries (removed
        # edges too) is enough to find the most mentioned without reading an edge row
        degree = {ent: conn.execute("SELECT count(*) FROM edges WHERE dst=? AND type='refers_to'",
                                    (ent,)).fetchone()[0] for ent in entities}
        shared: set[int] = set()
        for ent in sorted(entities, key=lambda ent: (degree[ent], ent))[:-1]:
            others = [o for o in entities if o != ent]
            shared.update(row[0] for row in conn.execute(
                "SELECT n.rowid FROM edges e JOIN nodes n ON n.anchor = e.src "
                f"WHERE e.dst=? AND e.type='refers_to' AND e.seq_removed IS NULL {inside} "
                # +o.dst: drive the check from the mentioning node (edges_src), never from
                # the other entities' mentions, which may be thousands per candidate
                "AND EXISTS (SELECT 1 FROM edges o WHERE o.src = e.src AND o.type='refers_to' "
                f"AND o.seq_removed IS NULL AND +o.dst IN ({','.join('?' * len(others))})) "
                "ORDER BY e.rowid DESC LIMIT ?", (ent, *filters, *others, depth)))
        take(_mention_counts(conn, sorted(shared), entities))
    for ent in entities:
        take(conn.execute(
            "SELECT n.rowid, 1, e.rowid FROM edges e JOIN nodes n ON n.anchor = e.src "
            f"WHERE e.dst=? AND e.type='refers_to' AND e.seq_removed IS NULL {inside} ORDER BY e.rowid DESC LIMIT ?",
            (ent, *filters, depth)))
    # the bm25 lane's rows are inside the scopes and open already
    take(_mention_counts(conn, bm25, entities))
    order = {rowid: i for i, rowid in enumerate(bm25)}
    return sorted(found, key=lambda r: (-found[r][0], order.get(r, len(order)), -found[r][1]))[:depth]


def _mention_counts(conn, rowids: list[int], entities: list[str]):
    """(rowid, how many of `entities` it names, its latest mention edge) for `rowids`."""
    if not rowids:
        return []
    return conn.execute(
        "SELECT n.rowid, count(DISTINCT e.dst), max(e.rowid) FROM nodes n JOIN edges e ON e.src = n.anchor "
        f"WHERE n.rowid IN ({','.join('?' * len(rowids))}) AND +e.dst IN ({','.join('?' * len(entities))}) "
        "AND e.type='refers_to' AND e.seq_removed IS NULL GROUP BY n.rowid", (*rowids, *entities))


def _hits(engine: "Engine", chosen: list[tuple[NodeView, float, dict[str, int]]], known_at: int | None,
          worlds: list[str]) -> list[Hit]:
    """Assemble the page of hits with one query per kind of annotation, not per hit."""
    if not chosen:
        return []
    conn = engine.store.conn
    anchors = [view.anchor for view, _, _ in chosen]
    marks = ",".join("?" * len(anchors))
    live, pins = live_sql(known_at is not None, "e"), live_params(known_at)
    scopes: dict[str, list[str]] = defaultdict(list)
    for node, kind, sid in conn.execute(
            f"SELECT c.node, s.kind, s.sid FROM closure c JOIN scopes s ON s.anchor = c.world "
            f"WHERE c.node IN ({marks}) ORDER BY s.kind, s.sid", anchors):
        scopes[node].append(f"{kind}:{sid}")
    entities: dict[str, set[str]] = defaultdict(set)
    for src, name in conn.execute(
            f"SELECT e.src, n.name FROM edges e JOIN nodes n ON n.anchor = e.dst WHERE e.src IN ({marks}) "
            f"AND e.type='refers_to' AND {live} AND +n.type='Entity'", (*anchors, *pins)):
        entities[src].add(name)
    # contradicts and supersedes are read from their own small indexes (schema 3)
    newer: dict[str, list[str]] = defaultdict(list)
    for edge in edges_touching(engine.store, anchors, "supersedes", "in", known_at):
        newer[edge.dst].append(edge.src)
    touching: dict[str, set[str]] = defaultdict(set)
    for direction in ("out", "in"):
        for edge in edges_touching(engine.store, anchors, "contradicts", direction, known_at):
            touching[edge.src].add(edge.dst)
            touching[edge.dst].add(edge.src)
    others = {o for group in touching.values() for o in group} | {n for group in newer.values() for n in group}
    # a conflict or a replacement is named only when it lies in a scope the caller asked about
    visible = engine.store.in_worlds(worlds, others) if others else set()
    return [
        Hit(id=view.anchor, type=view.type, text=view.content or "", score=round(score, 6), lanes=lanes,
            valid_from=to_iso(view.valid_from), valid_to=to_iso(view.valid_to), retired=view.retired,
            scopes=scopes[view.anchor], entities=sorted(entities[view.anchor]),
            conflicts=sorted(touching[view.anchor] & visible),
            superseded_by=[n for n in newer[view.anchor] if n in visible],
            speaker=view.meta.get("speaker"), session=view.parent if view.type == "Turn" else None)
        for view, score, lanes in chosen
    ]
