"""What the consolidator infers from the current graph: pure reads, no writes.

`closure_edges(store, type, now)` - the transitive closure of one edge type in a single
computation. The graph is the live edges of that type that are valid at `now` between
nodes that are current at `now` (valid, not retired, not erased). For every pair (a, c)
where c is reachable from a in two or more steps and no live edge of that type joins a to
c yet (asserted or inferred, whatever its validity), it plans

    Edge(type, a, c, world=W, props={"inferred": True, "via": [edge ids of one shortest path]})

valid from the latest valid_from of the path's edges and until the earliest valid_to
(None when none is set). W is the world all the path's edges share, else None. A node
never gets an edge to itself (cycles are real for `causes`). Paths and output are in a
deterministic order: sources by anchor, breadth-first over neighbours sorted by anchor.

`contradiction_edges(store, relations, now)` - for every subject with several current
facts (worlddb.facts) of a functional relation that name different objects, a contradicts
edge between each such pair that is not yet joined by one in either direction. The newer
fact (later valid_from, then t_ingested, then anchor) is the source. Only facts that share
a Scope world - or that both sit in none - are paired: reads annotate conflicts on either
side, so pairing across scopes would show one user the id of another user's fact.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from worlddb.facts import FactRef, facts_about, subjects_with
from worlddb.model import Edge, EdgeView, NodeView
from worlddb.store import Store

Planned = tuple[Edge, int | None, int | None]


def is_current(view: NodeView | None, now: int) -> bool:
    """Visible as of `now`: valid then, not retired, content not erased."""
    return (view is not None and not view.erased and view.retired_at is None
            and view.valid_from <= now and (view.valid_to is None or now < view.valid_to))


def closure_edges(store: Store, edge_type: str, now: int) -> list[Planned]:
    rows = store.edges(type=edge_type)
    present = {(e.src, e.dst) for e in rows}
    views = store.get_many({end for e in rows for end in (e.src, e.dst)})
    out: dict[str, list[EdgeView]] = {}
    for edge in rows:
        if edge.valid_at(now) and is_current(views.get(edge.src), now) and is_current(views.get(edge.dst), now):
            out.setdefault(edge.src, []).append(edge)
    for edges in out.values():
        edges.sort(key=lambda e: (e.dst, e.id))
    planned: list[Planned] = []
    for source in sorted(out):
        via: dict[str, list[EdgeView]] = {source: []}
        queue = deque([source])
        while queue:
            here = queue.popleft()
            for edge in out.get(here, ()):
                if edge.dst in via:
                    continue
                path = via[here] + [edge]
                via[edge.dst] = path
                queue.append(edge.dst)
                if len(path) >= 2 and edge.dst != source and (source, edge.dst) not in present:
                    planned.append(_inferred(edge_type, source, edge.dst, path))
    return planned


def _inferred(edge_type: str, src: str, dst: str, path: list[EdgeView]) -> Planned:
    worlds = {e.world for e in path}
    world = worlds.pop() if len(worlds) == 1 else None
    starts = [e.valid_from for e in path if e.valid_from is not None]
    ends = [e.valid_to for e in path if e.valid_to is not None]
    edge = Edge(edge_type, src, dst, world=world, props={"inferred": True, "via": [e.id for e in path]})
    return edge, (max(starts) if starts else None), (min(ends) if ends else None)


def contradiction_edges(store: Store, relations: Iterable[str], now: int) -> list[Edge]:
    relations = sorted(set(relations))
    planned: list[Edge] = []
    for subject in sorted(subjects_with(store, relations)):
        facts = facts_about(store, subject)
        views = store.get_many(f.anchor for f in facts)
        for relation in relations:
            current = [f for f in facts if f.relation == relation and is_current(views.get(f.anchor), now)]
            if len({f.object for f in current}) < 2:
                continue
            current.sort(key=lambda f: _age_key(views[f.anchor]))
            scopes = {f.anchor: _scopes(store, f.anchor) for f in current}
            for i, older in enumerate(current):
                for newer in current[i + 1:]:
                    if older.object == newer.object or not _share(scopes[older.anchor], scopes[newer.anchor]):
                        continue
                    if _joined(store, older, newer):
                        continue
                    planned.append(Edge("contradicts", newer.anchor, older.anchor,
                                        props={"inferred": True, "relation": relation}))
    return planned


def _age_key(view: NodeView) -> tuple[int, int, str]:
    return view.valid_from, view.t_ingested, view.anchor


def _scopes(store: Store, anchor: str) -> frozenset[str]:
    rows = store.conn.execute(
        "SELECT c.world FROM closure c JOIN nodes n ON n.anchor = c.world WHERE c.node=? AND n.type='Scope'",
        (anchor,),
    )
    return frozenset(row[0] for row in rows)


def _share(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a & b) if (a or b) else True


def _joined(store: Store, a: FactRef, b: FactRef) -> bool:
    """Whether a live contradicts edge already joins the two facts, in either direction."""
    return (any(e.dst == b.anchor for e in store.edges(src=a.anchor, type="contradicts"))
            or any(e.dst == a.anchor for e in store.edges(src=b.anchor, type="contradicts")))
