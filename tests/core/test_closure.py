"""The containment closure stays exactly the transitive closure of live contains edges when
a node with several containers leaves one of them (the removal touches only its subtree)."""

from __future__ import annotations

import random

from worlddb.core.records import Edge, Node


def closure_rows(db) -> set[tuple[str, str]]:
    return set(db.store.conn.execute("SELECT world, node FROM closure").fetchall())


def reference(db) -> set[tuple[str, str]]:
    """The transitive closure recomputed from the live contains edges (rowids, as stored)."""
    below: dict[str, set[str]] = {}
    for src, dst in db.store.conn.execute("SELECT src, dst FROM edges WHERE type='contains' AND seq_removed IS NULL"):
        below.setdefault(src, set()).add(dst)
    out = set()
    for world in below:
        stack, seen = list(below[world]), set()
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack += below.get(node, ())
        out |= {(world, node) for node in seen}
    return out


def test_leaving_one_of_two_containers_keeps_what_the_other_gives(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
        session = w.add(Node("Session", name="s"), parents=[scope])
        topic = w.add(Node("Topic", name="t"), parents=[scope])
        turn = w.add(Node("Turn", content="hello", created_at=1), parents=[session, topic])
    with db.write() as w:
        w.unlink(Edge("contains", topic, turn))
    rowid = db.store.rowid
    rows = closure_rows(db)
    assert (rowid(scope), rowid(turn)) in rows and (rowid(session), rowid(turn)) in rows
    assert (rowid(topic), rowid(turn)) not in rows
    with db.write() as w:
        w.unlink(Edge("contains", session, turn))
    assert not {row for row in closure_rows(db) if row[1] == rowid(turn)}
    assert closure_rows(db) == reference(db)
    assert db.verify().ok


def test_random_containment_changes_keep_the_closure_exact(db):
    rng = random.Random(7)
    with db.write() as w:
        scope = w.scope("user", "alice")
        worlds = [w.add(Node("Topic", name=f"w{i}", created_at=i), parents=[scope]) for i in range(6)]
        leaves = [w.add(Node("Memory", content=f"m{i}", created_at=i), parents=[scope]) for i in range(10)]
    # an acyclic order: a world only ever contains later worlds and leaves
    for _ in range(120):
        with db.write() as w:
            i = rng.randrange(len(worlds))
            child = rng.choice(worlds[i + 1:] + leaves)
            edge = Edge("contains", worlds[i], child)
            if rng.random() < 0.55:
                w.link(edge)
            else:
                w.unlink(edge)
        assert closure_rows(db) == reference(db)
    assert db.verify().ok
