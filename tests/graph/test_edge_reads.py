"""A query's annotations (conflicts, superseded_by, equivalents) are read for the whole
subgraph at once; they must be what asking about each returned node in turn gives."""

from __future__ import annotations

import random

import pytest

from worlddb.core.records import Edge, Node
from worlddb.core.timeutil import now_us
from worlddb.graph import edge_reads, identity

T0 = 1_700_000_000_000_000
DAY = 86_400_000_000


def build(db, facts: int, seed: int):
    """A hub entity mentioned by `facts` facts of alice's and a few of bob's, with
    contradictions, supersessions and accepted merges among them, some withdrawn later.
    Returns the anchors and the transaction time before the withdrawals."""
    rng = random.Random(seed)
    with db.write() as w:
        alice, bob = w.scope("user", "alice"), w.scope("user", "bob")
        hub = w.add(Node("Entity", name="Hub"), parents=[alice])
        entities = [w.add(Node("Entity", name=f"E{i}"), parents=[alice if i % 3 else bob]) for i in range(6)]
        mine = [w.add(Node("Fact", content=f"fact {i}", name=f"fact {i}"), valid_from=T0 + i * DAY, parents=[alice])
                for i in range(facts)]
        theirs = [w.add(Node("Fact", content=f"bob {i}", name=f"bob {i}"), valid_from=T0 + i * DAY, parents=[bob])
                  for i in range(5)]
        for fact in mine + theirs:
            w.link(Edge("refers_to", fact, hub))
    everyone = mine + theirs
    contradictions = set()
    while len(contradictions) < facts // 4:
        a, b = rng.sample(everyone, 2)
        if (b, a) not in contradictions:
            contradictions.add((a, b))
    with db.write() as w:
        for k, (a, b) in enumerate(sorted(contradictions)):
            # some held only for a while, long ago: hidden unless closed things are asked for
            w.link(Edge("contradicts", a, b), valid_to=T0 + DAY if k % 4 == 1 else None)
        # newer supersedes older only, so no cycle is ever asked for
        for _ in range(facts // 5):
            i, j = sorted(rng.sample(range(len(mine)), 2))
            w.link(Edge("supersedes", mine[j], mine[i]))
        w.link(Edge("supersedes", theirs[4], mine[0]))
    with db.write() as w:
        for a, b in ((entities[0], entities[1]), (entities[1], entities[2]), (entities[3], entities[4])):
            w.link(Edge("same_as", a, b))
        for proposal in w.receipt.proposals[:2]:
            identity.decide(w, proposal, True)
    before = w.at
    with db.write() as w:
        for a, b in sorted(contradictions)[::3]:
            w.unlink(Edge("contradicts", a, b))
    return alice, hub, entities, before


def one_by_one(db, sub, worlds, known_at, include_closed):
    """The annotations, asked about each returned node in turn through public reads."""
    store = db.store

    def inside(anchor):
        return not worlds or bool(store.in_worlds(worlds, [anchor]))

    def visible(anchor):
        view = store.get(anchor)
        return view is not None and store.visible(view, None, known_at, include_closed) is not None

    conflicts, newer, equivalents = {}, {}, {}
    for anchor in sub.nodes:
        def held(edge):
            return include_closed or edge.valid_to is None or edge.valid_to > now_us()

        others = {e.dst for e in store.edges(src=anchor, type="contradicts", known_at=known_at) if held(e)}
        others |= {e.src for e in store.edges(dst=anchor, type="contradicts", known_at=known_at) if held(e)}
        others = sorted(o for o in others if inside(o) and visible(o))
        if others:
            conflicts[anchor] = others
        later = [e.src for e in store.edges(dst=anchor, type="supersedes", known_at=known_at)
                 if inside(e.src) and store.get(e.src) is not None]
        if later:  # in the order they begin, whatever order their edges were written in
            newer[anchor] = sorted(later, key=lambda a: (store.get(a).valid_from, a))
        members = sorted(m for m in identity.equivalence_class(store, anchor)
                         if m != anchor and inside(m) and store.get(m) is not None)
        if members:
            equivalents[anchor] = members
    return conflicts, newer, equivalents


@pytest.mark.parametrize("facts, seed", [(40, 1), (40, 2), (edge_reads.CHUNK + 30, 3)])
def test_a_hubs_neighbours_carry_the_annotations_each_would_get_alone(db, facts, seed):
    alice, hub, entities, before = build(db, facts, seed)
    for known_at in (None, before):
        for include_closed in (False, True):
            sub = (db.query(worlds=[alice], known_at=known_at, include_closed=include_closed)
                   .seed(hub, *entities).expand(None, "both", 1).run())
            assert len(sub.nodes) > facts // 2
            expected = one_by_one(db, sub, [alice], known_at, include_closed)
            assert (sub.conflicts, sub.superseded_by, sub.equivalents) == expected
            assert sub.conflicts and sub.equivalents
            # a superseded node is closed: it is returned, with what replaced it, on request
            assert bool(sub.superseded_by) == include_closed


def test_withdrawn_contradictions_show_only_at_a_time_they_were_live(db):
    alice, hub, entities, before = build(db, 40, 4)
    now = db.query(worlds=[alice]).seed(hub).expand(None, "both", 1).run()
    then = db.query(worlds=[alice], known_at=before).seed(hub).expand(None, "both", 1).run()
    shown_now = {(a, b) for a, others in now.conflicts.items() for b in others}
    shown_then = {(a, b) for a, others in then.conflicts.items() for b in others}
    assert shown_now < shown_then


def test_another_scopes_node_is_never_named_though_the_hub_reaches_it(db):
    alice, hub, entities, before = build(db, 40, 5)
    sub = db.query(worlds=[alice]).seed(hub, *entities).expand(None, "both", 1).run()
    inside = db.store.in_worlds([alice], list(sub.nodes))
    assert set(sub.nodes) - inside  # bob's facts are reached through refers_to
    named = {o for found in (sub.conflicts, sub.superseded_by, sub.equivalents)
             for others in found.values() for o in others}
    assert named and named <= inside


def test_nodes_alone_in_their_class_have_no_equivalents(db):
    alice, hub, entities, before = build(db, 10, 6)
    classes = edge_reads.equivalents(db.store, [hub, *entities])
    assert set(classes) == set(entities[:3])
    assert all(members == set(entities[:3]) for members in classes.values())


@pytest.mark.sqlite_only("SQLite's query plans (EXPLAIN QUERY PLAN); PostgreSQL's planner chooses its own")
@pytest.mark.parametrize("edge_type, direction, index", [
    ("contradicts", "out", "edges_marked_src"), ("contradicts", "in", "edges_marked_dst"),
    ("supersedes", "in", "edges_marked_dst"), ("refers_to", "in", "edges_dst"),
    (None, "out", "edges_src"), (None, "in", "edges_dst")])
@pytest.mark.parametrize("pinned", [False, True])
def test_annotation_reads_use_the_small_indexes_of_their_types(db, edge_type, direction, index, pinned):
    alice, hub, entities, before = build(db, 60, 7)
    # statistics for the big indexes only, as in a file that gained the small ones by migration
    db.store.conn.execute("ANALYZE edges_src")
    db.store.conn.execute("ANALYZE edges_dst")
    sql = edge_reads.statement(edge_type, direction, 3, pinned)
    plan = [row[3] for row in db.store.conn.execute(
        "EXPLAIN QUERY PLAN " + sql,
        [hub, *entities[:2], *([edge_type] if edge_type else []), *([before, before] if pinned else [])])]
    assert any(f"USING INDEX {index} " in step for step in plan), plan
    assert not any(step.startswith("SCAN") for step in plan), plan


def bfs_one_by_one(db, seed: str, types, direction: str, hops: int, world: str):
    """What expanding `seed` inside `world` gives, asking each node's edges in turn through
    public reads: (nodes in discovery order, edge ids in the order traversed). Every node
    but the world itself is inside it and open, so only the walk itself is compared."""
    store = db.store
    nodes, edges, frontier = [seed], [], [seed]
    for _ in range(hops):
        nxt = []
        for anchor in frontier:
            for edge_type in ([None] if types is None else types):
                for way in [w for w in ("out", "in") if direction in (w, "both")]:
                    found = store.edges(src=anchor, type=edge_type) if way == "out" else \
                        store.edges(dst=anchor, type=edge_type)
                    for edge in found:
                        other = edge.dst if way == "out" else edge.src
                        if other == world:
                            continue  # a world is not part of its own interior
                        if edge.id not in edges:
                            edges.append(edge.id)
                        if other not in nodes:
                            nodes.append(other)
                            nxt.append(other)
        frontier = nxt
    return nodes, edges


@pytest.mark.parametrize("types, direction, hops", [
    (None, "both", 2), (None, "out", 3), (["refers_to"], "in", 2), (["refers_to", "causes"], "both", 3)])
def test_expanding_a_frontier_wider_than_one_read_finds_what_node_by_node_reads_find(db, types, direction, hops):
    # a hub mentioned by 700 notes (two of edges_touching's chunks), each note mentioning
    # one of 40 topics, and some topics mentioning each other: hops 2 and 3 walk frontiers
    # of hundreds of nodes
    rng = random.Random(11)
    with db.write() as w:
        alice = w.scope("user", "alice")
        hub = w.add(Node("Entity", name="Hub"), parents=[alice])
        topics = [w.add(Node("Entity", name=f"topic {i}"), parents=[alice]) for i in range(40)]
        notes = [w.add(Node("Memory", content=f"note {i}"), parents=[alice]) for i in range(700)]
        for i, note in enumerate(notes):
            w.link(Edge("refers_to", note, hub))
            w.link(Edge("refers_to", note, topics[rng.randrange(40)]))
            if i % 7 == 0:
                w.link(Edge("causes", note, notes[(i + 1 + rng.randrange(699)) % 700]))
        for a, b in {tuple(rng.sample(range(40), 2)) for _ in range(30)}:
            w.link(Edge("causes", topics[a], topics[b]))
    sub = db.query(worlds=[alice]).seed(hub).expand(types, direction, hops).run()
    nodes, edges = bfs_one_by_one(db, hub, types, direction, hops, alice)
    assert list(sub.nodes) == nodes and [e.id for e in sub.edges] == edges
    assert len(nodes) > 500 or direction == "out"
