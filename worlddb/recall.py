"""Hybrid recall: three ranked lanes fused by reciprocal rank fusion. No model is asked
anything at read time beyond turning the query into a vector (worlddb.queryvec).

Lanes, each restricted to the scopes asked about (containment closure):
  bm25    SQLite FTS5 bm25() over Memory/Turn/Summary text (worlddb.indexing.lexical)
  vector  HNSW cosine over effective embeddings (worlddb.ann)
  entity  entities the query names (exact/alias/fuzzy, via the resolver) pull every
          Memory/Turn/Fact that refers_to them, ranked by how many of them it mentions,
          then by the lexical lane's order
Fusion: score(d) = sum over lanes of 1 / (RRF_K + rank_lane(d)), with RRF_K = 60, the
constant of Cormack et al. (2009) - large enough that no single lane's top rank
dominates. Each hit reports the lanes that found it and its rank in each.
Every candidate then passes the bitemporal pin (as_of valid time, known_at transaction
time): closed (superseded, retired) items are hidden unless include_retired, and come
back with their closed interval when asked for.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from worlddb import indexing
from worlddb.model import NodeView
from worlddb.records import Hit, RecallResult
from worlddb.scopes import ScopeSet
from worlddb.timeutil import now_us, to_iso

if TYPE_CHECKING:
    from worlddb.engine import Engine

RRF_K = 60
#: how deep each lane looks, as a multiple of the requested limit (and a floor)
LANE_DEPTH = 5
LANE_FLOOR = 50


@dataclass
class _Candidate:
    rowid: int
    lanes: dict[str, int]
    score: float = 0.0


def recall(engine: "Engine", query: str, scopes: ScopeSet, *, limit: int, as_of: int | None,
           known_at: int | None, include_retired: bool) -> RecallResult:
    store = engine.store
    worlds = engine.scope_anchors(scopes)
    if not worlds:
        return RecallResult(results=[], scopes_searched=scopes.keys)
    depth = max(LANE_FLOOR, limit * LANE_DEPTH)
    pinned = as_of is not None or known_at is not None or include_retired
    lanes = run_lanes(engine, query, worlds, depth, open_only_at=None if pinned else now_us())
    fused = fuse(lanes)
    views = store.get_many(store.anchors_for_rowids(c.rowid for c in fused).values())
    by_rowid = {store.rowid(a): v for a, v in views.items()}
    hits: list[Hit] = []
    for cand in fused:
        view = by_rowid.get(cand.rowid)
        if view is None:
            continue
        seen = store.visible(view, as_of, known_at, include_closed=include_retired)
        if seen is None:
            continue
        hits.append(_hit(engine, seen, cand, as_of, known_at))
        if len(hits) == limit:
            break
    return RecallResult(results=hits, scopes_searched=scopes.keys)


def run_lanes(engine: "Engine", query: str, worlds: list[str], depth: int, *, open_only_at: int | None
              ) -> dict[str, list[int]]:
    store = engine.store
    lexical = [rowid for rowid, _ in indexing.lexical(store, query, worlds, depth, open_only_at=open_only_at)]
    vector = _vector_lane(engine, query, worlds, depth)
    entity = _entity_lane(engine, query, worlds, depth, lexical)
    return {"bm25": lexical, "vector": vector, "entity": entity}


def fuse(lanes: dict[str, list[int]]) -> list[_Candidate]:
    table: dict[int, _Candidate] = {}
    for lane, ranked in lanes.items():
        for rank, rowid in enumerate(ranked, start=1):
            cand = table.setdefault(rowid, _Candidate(rowid, {}))
            cand.lanes[lane] = rank
            cand.score += 1.0 / (RRF_K + rank)
    return sorted(table.values(), key=lambda c: (-c.score, c.rowid))


def _vector_lane(engine: "Engine", query: str, worlds: list[str], depth: int) -> list[int]:
    vector = engine.query_vector(query)
    if vector is None:
        return []
    found = engine.index.search(vector, depth * 3)
    rowids = [rowid for rowid, _ in found]
    allowed = _in_scope_rowids(engine, worlds, rowids)
    return [r for r in rowids if r in allowed][:depth]


def _in_scope_rowids(engine: "Engine", worlds: list[str], rowids: list[int]) -> set[int]:
    if not rowids:
        return set()
    rows = engine.store.conn.execute(
        f"SELECT n.rowid FROM nodes n JOIN closure c ON c.node = n.anchor "
        f"WHERE n.rowid IN ({','.join('?' * len(rowids))}) AND c.world IN ({','.join('?' * len(worlds))})",
        (*rowids, *worlds),
    )
    return {row[0] for row in rows}


def _entity_lane(engine: "Engine", query: str, worlds: list[str], depth: int, lexical: list[int]) -> list[int]:
    mentions = engine.resolver.find_mentions(worlds, query)
    if not mentions:
        return []
    store = engine.store
    counts: dict[int, int] = defaultdict(int)
    for entity in {m.anchor for m in mentions}:
        rows = store.conn.execute(
            "SELECT DISTINCT n.rowid FROM edges e JOIN nodes n ON n.anchor = e.src "
            "WHERE e.dst=? AND e.type='refers_to' AND e.seq_removed IS NULL "
            f"AND n.type IN ({','.join('?' * len(indexing.TEXT_TYPES))})",
            (entity, *indexing.TEXT_TYPES),
        )
        for (rowid,) in rows:
            counts[rowid] += 1
    allowed = _in_scope_rowids(engine, worlds, list(counts))
    order = {rowid: i for i, rowid in enumerate(lexical)}
    ranked = sorted((r for r in counts if r in allowed), key=lambda r: (-counts[r], order.get(r, len(order)), -r))
    return ranked[:depth]


def _hit(engine: "Engine", view: NodeView, cand: _Candidate, as_of: int | None, known_at: int | None) -> Hit:
    store = engine.store
    conflicts = sorted({e.dst for e in store.edges(src=view.anchor, type="contradicts", known_at=known_at)}
                       | {e.src for e in store.edges(dst=view.anchor, type="contradicts", known_at=known_at)})
    entities = [v.name for v in store.get_many(
        e.dst for e in store.edges(src=view.anchor, type="refers_to", known_at=known_at)).values()
        if v.type == "Entity"]
    return Hit(
        id=view.anchor, type=view.type, text=view.content or "", score=round(cand.score, 6), lanes=dict(cand.lanes),
        valid_from=to_iso(view.valid_from), valid_to=to_iso(view.valid_to), retired=view.retired,
        scopes=engine.scope_keys_of(view.anchor), entities=sorted(set(entities)), conflicts=conflicts,
        superseded_by=[e.src for e in store.edges(dst=view.anchor, type="supersedes", known_at=known_at)],
        speaker=view.meta.get("speaker"), session=view.parent if view.type == "Turn" else None,
    )
