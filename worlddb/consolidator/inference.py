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

`stale_inferred(store, type)` - the live inferred edges of that type that `closure_edges`
drew (their `via` names two or more edges of the type) and whose premises changed after
they were drawn, as (gone, redraw). Gone: an edge named in `via` is no longer live
(unlinked, or itself gone), a node on the path was retired or erased, or the premises no
longer overlap in valid time. Redraw: the premises still stand but the interval they give
is no longer the edge's (a premise's validity was closed since, or an inferred premise
was redrawn), as (edge, valid_from, valid_to). The pass withdraws the gone edges before
the closure runs again, so it draws them again along another path if one remains; a
redrawn edge is withdrawn and linked again with the new interval in one transaction. A
node on the path that merely stopped being valid changes nothing: valid time is history,
and the edge's interval already ends where its premises do.

`contradiction_edges(store, relations, now)` - for every subject with several current
facts (worlddb.graph.facts) of a functional relation that name different objects, a contradicts
edge between each such pair that is not yet joined by one in either direction. The newer
fact (later valid_from, then t_ingested, then anchor) is the source. Only facts that share
a Scope world - or that both sit in none - are paired: reads annotate conflicts on either
side, so pairing across scopes would show one user the id of another user's fact.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from worlddb.core import ids
from worlddb.core.records import Edge, EdgeView, NodeView
from worlddb.core.store import ROWID_OF, Store, edge_key
from worlddb.graph.facts import FactRef, facts_about, subjects_with

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
    edge = Edge(edge_type, src, dst, world=world, props={"inferred": True, "via": [e.id for e in path]})
    return (edge, *_interval(path))


def _interval(path: list[EdgeView]) -> tuple[int | None, int | None]:
    return _span([(e.valid_from, e.valid_to) for e in path])


def _span(intervals: list[tuple[int | None, int | None]]) -> tuple[int | None, int | None]:
    """Where every premise holds: the latest start and the earliest end (None: unbounded)."""
    starts = [start for start, _ in intervals if start is not None]
    ends = [end for _, end in intervals if end is not None]
    return (max(starts) if starts else None), (min(ends) if ends else None)


Redraw = tuple[EdgeView, int | None, int | None]


def stale_inferred(store: Store, edge_type: str) -> tuple[list[EdgeView], list[Redraw]]:
    rows = store.edges(type=edge_type)
    live = {e.id: e for e in rows}
    inferred = [e for e in rows if e.edge.inferred and _drawn_here(store, edge_type, e, live)]
    ends = {n for e in inferred for i in e.props["via"] if i in live for n in (live[i].src, live[i].dst)}
    views = store.get_many(ends)
    dead = {n for n in ends if views.get(n) is None or views[n].erased or views[n].retired_at is not None}
    interval = {i: (e.valid_from, e.valid_to) for i, e in live.items()}
    gone: set[str] = set()
    changed = True
    while changed:  # a premise that is itself inferred passes its changes on to what was drawn through it
        changed = False
        for edge in inferred:
            if edge.id in gone:
                continue
            via = edge.props["via"]
            if any(i not in live or i in gone or live[i].src in dead or live[i].dst in dead for i in via):
                gone.add(edge.id)
                changed = True
                continue
            start, end = _span([interval[i] for i in via])
            if start is not None and end is not None and end <= start:
                gone.add(edge.id)
                changed = True
            elif (start, end) != interval[edge.id]:
                interval[edge.id] = (start, end)
                changed = True
    redraw = [(e, *interval[e.id]) for e in inferred
              if e.id not in gone and interval[e.id] != (e.valid_from, e.valid_to)]
    return sorted((live[i] for i in gone), key=lambda e: e.id), sorted(redraw, key=lambda r: r[0].id)


def _drawn_here(store: Store, edge_type: str, edge: EdgeView, live: dict[str, EdgeView]) -> bool:
    """Whether `closure_edges` drew this edge: its `via` is a path of two or more edges of
    its type. An edge some other writer marked inferred is not the closure's to withdraw."""
    via = edge.props.get("via")
    if not isinstance(via, list) or len(via) < 2 or not all(isinstance(i, str) for i in via):
        return False
    missing = [i for i in via if i not in live]
    return all(ids.is_full_id(i) and store.conn.execute(
        "SELECT 1 FROM edges WHERE id=? AND type=? LIMIT 1", (edge_key(i), edge_type)).fetchone() for i in missing)


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
        f"SELECT n.anchor FROM closure c JOIN nodes n ON n.rowid = c.world WHERE c.node = {ROWID_OF} "
        "AND n.type='Scope'",
        (anchor,),
    )
    return frozenset(row[0] for row in rows)


def _share(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a & b) if (a or b) else True


def _joined(store: Store, a: FactRef, b: FactRef) -> bool:
    """Whether a live contradicts edge already joins the two facts, in either direction."""
    return (any(e.dst == b.anchor for e in store.edges(src=a.anchor, type="contradicts"))
            or any(e.dst == a.anchor for e in store.edges(src=b.anchor, type="contradicts")))
