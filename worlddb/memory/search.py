"""memory_recall: the ranked memories of worlddb.retrieval, as the page a reader gets.

Ranking is retrieval's (lanes, fusion, the graph step, the bitemporal pin). This module
adds what a reader sees of each hit, asking each question once for the whole page: the
scopes it belongs to, the entities it names, and the memories that contradict or replace
it - the last two only where they lie in a scope the caller asked about.
"""

from __future__ import annotations

from collections import defaultdict

from worlddb.core.store import Store, live_params, live_sql, rowids_sql
from worlddb.core.timeutil import to_iso
from worlddb.graph.edge_reads import edges_touching
from worlddb.retrieval.recall import Ranked, rank

from .results import Hit, RecallResult
from .scopes import ScopeSet, scope_anchors
from .services import Services


def recall(services: Services, query: str, scopes: ScopeSet, *, limit: int, as_of: int | None,
           known_at: int | None, include_retired: bool) -> RecallResult:
    worlds = scope_anchors(services.store, scopes)
    chosen = rank(services.sources, query, worlds, limit=limit, as_of=as_of, known_at=known_at,
                  include_retired=include_retired)
    return RecallResult(results=_hits(services.store, chosen, known_at, worlds), scopes_searched=scopes.keys)


def _hits(store: Store, chosen: list[Ranked], known_at: int | None, worlds: list[str]) -> list[Hit]:
    """Assemble the page of hits with one query per kind of annotation, not per hit."""
    if not chosen:
        return []
    conn = store.conn
    anchors = [found.view.anchor for found in chosen]
    live, pins = live_sql(known_at is not None, "e"), live_params(known_at)
    scopes: dict[str, list[str]] = defaultdict(list)
    for node, kind, sid in conn.execute(
            f"SELECT n.anchor, s.kind, s.sid FROM closure c JOIN nodes n ON n.rowid = c.node "
            f"JOIN nodes w ON w.rowid = c.world JOIN scopes s ON s.anchor = w.anchor "
            f"WHERE c.node IN {rowids_sql(len(anchors))} ORDER BY s.kind, s.sid", anchors):
        scopes[node].append(f"{kind}:{sid}")
    entities: dict[str, set[str]] = defaultdict(set)
    for src, name in conn.execute(
            f"SELECT s.anchor, n.name FROM edges e JOIN nodes n ON n.rowid = e.dst JOIN nodes s ON s.rowid = e.src "
            f"WHERE e.src IN {rowids_sql(len(anchors))} AND e.type='refers_to' AND {live} AND +n.type='Entity'",
            (*anchors, *pins)):
        entities[src].add(name)
    # contradicts and supersedes are read from their own small indexes (schema 3)
    newer: dict[str, list[str]] = defaultdict(list)
    for edge in edges_touching(store, anchors, "supersedes", "in", known_at):
        newer[edge.dst].append(edge.src)
    touching: dict[str, set[str]] = defaultdict(set)
    for direction in ("out", "in"):
        for edge in edges_touching(store, anchors, "contradicts", direction, known_at):
            touching[edge.src].add(edge.dst)
            touching[edge.dst].add(edge.src)
    others = {o for group in touching.values() for o in group} | {n for group in newer.values() for n in group}
    # a conflict or a replacement is named only when it lies in a scope the caller asked about
    visible = store.in_worlds(worlds, others) if others else set()
    hits = []
    for found in chosen:
        view = found.view
        hits.append(Hit(
            id=view.anchor, type=view.type, text=view.content or "", score=round(found.score, 6), lanes=found.lanes,
            valid_from=to_iso(view.valid_from), valid_to=to_iso(view.valid_to), retired=view.retired,
            scopes=scopes[view.anchor], entities=sorted(entities[view.anchor]),
            conflicts=sorted(touching[view.anchor] & visible),
            superseded_by=[n for n in newer[view.anchor] if n in visible],
            speaker=view.meta.get("speaker"), session=view.parent if view.type == "Turn" else None))
    return hits
