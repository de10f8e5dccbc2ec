"""The invariants, checked after every operation (and so after every reopen).

  verify        every stored id re-derives from its bytes; every world version replays
  projection    every node's validity, transaction time, retirement and erasure equal the
                model's; no node exists that the model does not know
  history       a node's valid_to as known at a transaction time already past never changes
                (a closure withdrawn later re-opens it from then on only); no edge's valid_to
                ever re-opens or moves later
  edges         the live edges are exactly the model's, with the model's validity
  proposals     every merge proposal names existing nodes, a stored same_as edge between
                them (its provenance) and parseable evidence; pending/accepted ones have a
                live edge; statuses equal the model's
  identity      equivalence classes equal the model's union-find over accepted proposals:
                symmetric and transitive
  ann           after sync, each in-memory HNSW index holds exactly the nodes that have a
                non-NULL vector of its kind in SQL (effective, sentence units, names)
  erased        an erased node keeps no content: no body, no name, no FTS row, no vector,
                no resolver name, no composed running sums, no merge evidence (in a
                proposal or the props of a same_as edge) quoting its name
  visibility    the query pipeline, pinned at sampled (as_of, known_at), inside each scope
                and a graph world, returns exactly what the model says is visible there
  memory reads  memory_list (paged and whole) per scope = the model's memories and turns in that
                scope; recall of a memory's unique marker word returns only nodes inside the
                asked scopes that are visible at the pins, and finds the memory when it must
  grants        one principal with a partial grant, in turn, makes every read tool's call;
                nothing it gets names a node or scope outside its grant (fuzz.grants)
  reads write nothing (the connection's change counter does not move)
"""

from __future__ import annotations

import random

from fuzz import grants
from fuzz.model import MEMORY_TYPES, TEXT_TYPES
from fuzz.vocabulary import SCOPES, TIMES, Violation
from worlddb.core.timeutil import now_us, to_iso
from worlddb.graph import identity
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.hnsw import EFFECTIVE, NAME, UNIT


def _changes(h) -> object:
    """What a read must leave as it is: SQLite's count of changed rows; on PostgreSQL, which
    keeps no such count per connection, every table's digest."""
    if h.store.backend.name == "postgresql":
        return h.snapshot()
    return h.store.conn.total_changes


def check_all(h) -> None:
    changes = _changes(h)
    check_verify(h)
    check_projection(h)
    check_edges(h)
    check_proposals(h)
    check_ann(h)
    check_erased(h)
    check_visibility(h)
    check_memory_reads(h)
    grants.check(h)
    if _changes(h) != changes:
        raise Violation("a read changed the database")


def check_verify(h) -> None:
    report = h.db.verify()
    if not report.ok:
        raise Violation(f"verify: {[(m.kind, m.id[:12], m.detail) for m in report.mismatches[:5]]}")


def check_projection(h) -> None:
    model = h.model
    rows = h.store.conn.execute(
        "SELECT n.anchor, n.type, n.valid_from, n.valid_to, n.t_ingested, n.retired_at, n.record IS NULL "
        "FROM nodes n").fetchall()
    if {r[0] for r in rows} != set(model.nodes):
        extra = {r[0] for r in rows} - set(model.nodes)
        raise Violation(f"nodes differ: engine-only {sorted(extra)[:3]}, "
                        f"model-only {sorted(set(model.nodes) - {r[0] for r in rows})[:3]}")
    for anchor, ntype, vf, vt, ingested, retired, erased in rows:
        m = model.nodes[anchor]
        got = (ntype, vf, vt, ingested, retired, bool(erased))
        want = (m.type, m.valid_from, m.valid_to, m.t_ingested, m.retired_at, m.erased)
        if got != want:
            raise Violation(f"node {anchor[:12]} ({ntype}): engine (type, from, to, ingested, retired, erased)"
                            f" = {got}, model = {want}")
        _history_kept(h, anchor, vt)


def check_edges(h) -> None:
    rows = [(rowid, bytes(edge_id).hex(), vt) for rowid, edge_id, vt in h.store.conn.execute(
        "SELECT rowid, id, valid_to FROM edges WHERE seq_removed IS NULL")]
    live = {e.id: e for e in h.model.live_edges()}
    if {r[1] for r in rows} != set(live):
        engine = {r[1] for r in rows}
        raise Violation(f"live edges differ: engine-only {[h.store.edge(i).type for i in engine - set(live)]}, "
                        f"model-only {[live[i].type for i in set(live) - engine]}")
    for _rowid, edge_id, vt in rows:
        if vt != live[edge_id].valid_to:
            raise Violation(f"edge {live[edge_id].type} valid_to {vt}, model {live[edge_id].valid_to}")
    for rowid, vt in h.store.conn.execute("SELECT rowid, valid_to FROM edges"):
        _only_tightens(h.edge_valid_to_seen, rowid, vt, "edge validity")


def _history_kept(h, anchor: str, valid_to: int | None) -> None:
    """The valid_to seen at the last check is still what the store says was known then; then
    remember the one seen now, as known at the latest transaction."""
    seen = h.valid_to_seen.get(anchor)
    if seen is not None and h.store.valid_to_known_at(anchor, seen[0]) != seen[1]:
        raise Violation(f"validity of {anchor[:12]} as known at {seen[0]} changed from {seen[1]} "
                        f"to {h.store.valid_to_known_at(anchor, seen[0])}")
    latest = h.store.conn.execute("SELECT max(at) FROM tx").fetchone()[0]
    if latest is not None:
        h.valid_to_seen[anchor] = (latest, valid_to)


def _only_tightens(seen_by_key: dict, key, valid_to: int | None, what: str) -> None:
    """A valid_to once seen never re-opens nor moves later; remember the latest seen."""
    seen = seen_by_key.get(key)
    if seen is not None and (valid_to is None or valid_to > seen):
        raise Violation(f"{what} moved from {seen} to {valid_to}")
    if valid_to is not None:
        seen_by_key[key] = valid_to


def check_proposals(h) -> None:
    import json

    conn = h.store.conn
    rows = conn.execute("SELECT id, a, b, edge_id, status, evidence FROM proposals").fetchall()
    if {r[0] for r in rows} != set(h.model.proposals):
        raise Violation("merge proposals differ from the model's")
    for pid, a, b, edge_id, status, evidence in rows:
        for end in (a, b):
            if h.store.get(end) is None:
                raise Violation(f"proposal {pid[:12]} names a node that does not exist")
        edge = conn.execute("SELECT e.type, s.anchor, d.anchor, e.seq_removed IS NULL FROM edges e "
                            "JOIN nodes s ON s.rowid = e.src JOIN nodes d ON d.rowid = e.dst WHERE e.id=? "
                            "ORDER BY e.seq_removed IS NULL DESC LIMIT 1", (bytes.fromhex(edge_id),)).fetchone()
        if edge is None or edge[:3] != ("same_as", a, b):
            raise Violation(f"proposal {pid[:12]} has no same_as edge behind it")
        if status in ("pending", "accepted") and not edge[3]:
            raise Violation(f"{status} proposal {pid[:12]} outlived its same_as edge")
        json.loads(evidence)
        if status != h.model.proposals[pid].status:
            raise Violation(f"proposal {pid[:12]} is {status}; model says {h.model.proposals[pid].status}")
    classes = h.model.classes()
    for node in {r[1] for r in rows} | {r[2] for r in rows}:
        got = identity.equivalence_class(h.store, node)
        want = classes.get(node, frozenset({node}))
        if got != want:
            raise Violation(f"equivalence class of {node[:12]} has {len(got)} members, model {len(want)}")
        for other in got:
            if node not in identity.equivalence_class(h.store, other):
                raise Violation("same_as acceptance is not symmetric")


def check_ann(h) -> None:
    conn = h.store.conn
    indexes = [(h.engine.index, EFFECTIVE), (h.engine.units, UNIT)]
    names = getattr(h.engine.resolver.index, "_ann", None)
    if names is not None:
        indexes.append((names, NAME))
    for index, kind in indexes:
        index.sync()
        stored = {r[0] for r in conn.execute("SELECT DISTINCT node FROM vectors WHERE kind=? AND data IS NOT NULL",
                                             (kind,))}
        if index.nodes() != stored:
            raise Violation(f"ANN index of kind {kind}: {len(index.nodes() - stored)} extra, "
                            f"{len(stored - index.nodes())} missing")


def check_erased(h) -> None:
    conn = h.store.conn
    for anchor, node in h.model.nodes.items():
        if not node.erased:
            continue
        rowid, name = conn.execute("SELECT rowid, name FROM nodes WHERE anchor=?", (anchor,)).fetchone()
        left = {
            "body": conn.execute("SELECT 1 FROM nodes WHERE anchor=? AND record IS NOT NULL", (anchor,)).fetchone(),
            "name": name or None,
            "fts": conn.execute("SELECT 1 FROM fts WHERE rowid=?", (rowid,)).fetchone(),
            "vector": conn.execute("SELECT kind FROM vectors WHERE node=? AND data IS NOT NULL", (rowid,)).fetchone(),
            "resolver name": conn.execute("SELECT 1 FROM resolver_names WHERE node=? AND norm IS NOT NULL",
                                          (rowid,)).fetchone(),
            "composed sums": conn.execute("SELECT 1 FROM compose WHERE world=?", (anchor,)).fetchone(),
            # the names a merge proposal compared are the erased entity's name
            "merge evidence": conn.execute("SELECT 1 FROM proposals WHERE (a=? OR b=?) AND evidence != '{}'",
                                           (anchor, anchor)).fetchone(),
            "same_as props": conn.execute(
                "SELECT 1 FROM edges WHERE type='same_as' AND (src=? OR dst=?) AND props LIKE ?",
                (rowid, rowid, '%"evidence"%')).fetchone(),
        }
        kept = sorted(k for k, v in left.items() if v)
        if kept:
            raise Violation(f"erased {node.type} {anchor[:12]} still has {kept}")


def _pins(h, rng: random.Random) -> list[tuple]:
    as_ofs = [None, *TIMES.values()] + [n.valid_from for n in rng.sample(list(h.model.nodes.values()),
                                                                           min(2, len(h.model.nodes)))]
    known = [None] + ([rng.choice(h.tx_times), rng.choice(h.tx_times) - 1] if h.tx_times else [])
    return [(rng.choice(as_ofs), rng.choice(known), rng.random() < 0.2) for _ in range(3)]


def check_visibility(h) -> None:
    model, rng = h.model, random.Random(h.steps)
    everything = list(model.nodes)
    worlds = [None, *model.scopes.values()]
    if h.graph:
        worlds.append(rng.choice(h.graph))
    for as_of, known_at, closed in _pins(h, rng):
        for world in rng.sample(worlds, min(3, len(worlds))):
            now = now_us()
            sub = h.db.query(worlds=[world] if world else (), as_of=as_of, known_at=known_at,
                             include_closed=closed).seed(*everything).run()
            inside = model.closure(world) if world else set(everything)
            want = {n for n in inside if model.visible(n, as_of, known_at, closed, now)}
            if set(sub.nodes) != want:
                raise Violation(f"query(as_of={as_of}, known_at={known_at}, closed={closed}) in "
                                f"{(world or 'all')[:12]}: engine-only {_types(h, set(sub.nodes) - want)}, "
                                f"model-only {_types(h, want - set(sub.nodes))}")
            for anchor, view in sub.nodes.items():
                expect = model.nodes[anchor].valid_to if known_at is None else model.valid_to_known_at(anchor, known_at)
                if view.valid_to != expect:
                    raise Violation(f"{view.type} {anchor[:12]} read with valid_to {view.valid_to}, model {expect}")


def _types(h, anchors) -> list[str]:
    return sorted(f"{h.model.nodes[a].type}:{a[:8]}" for a in anchors)


def check_memory_reads(h) -> None:
    model, rng = h.model, random.Random(h.steps * 7 + 1)
    now = now_us()
    for kind, sid in SCOPES:
        key = f"{kind}:{sid}"
        scope = ScopeSet(((kind, sid),))
        texts = {n for n in model.closure(model.scopes[key]) if model.nodes[n].type in MEMORY_TYPES} \
            if key in model.scopes else set()
        for include in (True, False):
            page = h.engine.list_memories(scope, limit=500, include_retired=include)
            # a list holds every memory not closed now, one whose valid time starts later too,
            # unless it was retired before it began, or closed at its start
            want = texts if include else {n for n in texts if model.nodes[n].retired_at is None and (
                model.nodes[n].valid_to is None or model.nodes[n].valid_to > max(now, model.nodes[n].valid_from))}
            got = [m.id for m in page.memories]
            if set(got) != want or len(got) != len(want):
                raise Violation(f"memory_list({key}, include_retired={include}): engine-only "
                                f"{_types(h, set(got) - want)}, model-only {_types(h, want - set(got))}")
        paged, cursor = [], None
        while True:
            page = h.engine.list_memories(scope, limit=3, cursor=cursor, include_retired=True)
            paged += [m.id for m in page.memories]
            cursor = page.next_cursor
            if cursor is None:
                break
        full = [m.id for m in h.engine.list_memories(scope, limit=500, include_retired=True).memories]
        if paged != full:
            raise Violation(f"memory_list({key}) pages do not add up to the whole list")
    marked = [n for n in model.nodes.values() if n.marker]
    if marked:
        _check_recall(h, rng.choice(marked), rng)


def _check_recall(h, target, rng: random.Random) -> None:
    model = h.model
    pairs = list(dict.fromkeys(rng.sample(SCOPES, rng.choice((1, 1, 2)))))
    scopes = ScopeSet(tuple(pairs))
    worlds = [model.scopes[k] for k in scopes.keys if k in model.scopes]
    inside = set().union(*[model.closure(w) for w in worlds]) if worlds else set()
    as_of, known_at, include = None, None, False
    roll = rng.random()
    if roll < 0.3:
        as_of = rng.choice([*TIMES.values(), target.valid_from])
    if 0.2 < roll < 0.5 and h.tx_times:
        known_at = rng.choice(h.tx_times)
    include = rng.random() < 0.3
    now = now_us()
    result = h.engine.recall(target.marker, scopes, limit=100, include_retired=include,
                             as_of=to_iso(as_of) if as_of is not None else None,
                             known_at=to_iso(known_at) if known_at is not None else None)
    hits = {hit.id: hit for hit in result.results}
    for anchor, hit in hits.items():
        if anchor not in inside:
            raise Violation(f"recall in {scopes.keys} returned {hit.type} {anchor[:12]} from outside those scopes")
        if not model.visible(anchor, as_of, known_at, include, now):
            raise Violation(f"recall returned {anchor[:12]}, which is not visible at as_of={as_of}, "
                            f"known_at={known_at}, include_retired={include}")
        outside = [c for c in hit.conflicts + hit.superseded_by if c not in inside]
        if outside:
            raise Violation(f"recall named a node outside the asked scopes (conflict or replacement): {outside[:1]}")
    texts = [n for n in inside if model.nodes[n].type in TEXT_TYPES]
    must = (target.anchor in inside and not target.erased and len(texts) <= 60
            and model.visible(target.anchor, as_of, known_at, include, now))
    if must and target.anchor not in hits:
        raise Violation(f"recall of marker {target.marker} in {scopes.keys} missed its memory "
                        f"(as_of={as_of}, known_at={known_at}, include_retired={include})")
