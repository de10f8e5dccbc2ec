"""Composed world embeddings: running sums equal a from-scratch composition, and a leaf
change recomposes only its path to the root."""

from __future__ import annotations

import numpy as np
import pytest

from worlddb.core.records import Node
from worlddb.graph.database import WorldDB
from worlddb.vectors import hnsw, pooling

DIM = 8


def vec(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def stored(db, anchor, kind=hnsw.EFFECTIVE):
    row = db.store.conn.execute(
        "SELECT d.vec, v.seq FROM vectors v JOIN nodes n ON n.rowid = v.node LEFT JOIN vector_data d ON d.id = v.data "
        "WHERE n.anchor=? AND v.kind=? AND v.ord=0", (anchor, kind)).fetchone()
    if row is None or row[0] is None:  # never written, or cleared
        return None, None if row is None else row[1]
    return np.frombuffer(row[0], dtype=np.float32), row[1]


@pytest.fixture
def world(db_path):
    db = WorldDB.open(db_path)
    with db.write() as w:
        scope = w.scope("user", "alice")
        topic = w.add(Node("Topic", name="garden", content="garden"), parents=[scope])
        w.put_vector(topic, hnsw.CONTENT, "test", vec(0).tobytes(), DIM)
        plain = w.add(Node("Topic", name="plain"), parents=[scope])  # no content: mean pooling
        inner = w.add(Node("Session", name="inner", content="inner"), parents=[topic])
        w.put_vector(inner, hnsw.CONTENT, "test", vec(99).tobytes(), DIM)
    yield db, topic, plain, inner
    db.close()


def add_leaf(db, parent, i):
    with db.write() as w:
        leaf = w.add(Node("Memory", content=f"leaf {i}", created_at=i), parents=[parent])
        w.put_vector(leaf, hnsw.EFFECTIVE, "test", vec(i).tobytes(), DIM)
    return leaf


def test_attention_composition_matches_the_direct_formula(world):
    db, topic, _, _ = world
    leaves = [add_leaf(db, topic, i) for i in range(1, 6)]
    children = np.array([stored(db, a)[0] for a in leaves] + [stored(db, world[3])[0]])
    expected = pooling.attention_pool(vec(0), children)
    got, _ = stored(db, topic)
    assert np.allclose(got, expected, atol=1e-5)


def test_a_world_without_content_is_mean_pooled(world):
    db, _, plain, _ = world
    leaves = [add_leaf(db, plain, i) for i in range(10, 14)]
    expected = pooling.mean_pool(np.array([stored(db, a)[0] for a in leaves]))
    assert np.allclose(stored(db, plain)[0], expected, atol=1e-5)


def test_a_leaf_change_recomposes_only_its_path_to_the_root(world):
    db, topic, plain, inner = world
    add_leaf(db, plain, 20)
    add_leaf(db, topic, 21)
    plain_before = stored(db, plain)
    topic_before = stored(db, topic)
    add_leaf(db, inner, 22)  # inner -> topic is the path; plain is elsewhere
    plain_after = stored(db, plain)
    assert np.array_equal(plain_after[0], plain_before[0]) and plain_after[1] == plain_before[1]
    inner_after, topic_after = stored(db, inner), stored(db, topic)
    assert topic_after[1] > topic_before[1] and not np.allclose(topic_after[0], topic_before[0])
    assert inner_after[1] == topic_after[1]
    # the change to topic comes from inner's new effective vector, as the formula says
    children = np.array([stored(db, a)[0] for a in db.store.children(topic)])
    assert np.allclose(topic_after[0], pooling.attention_pool(vec(0), children), atol=1e-5)


def test_removing_a_child_takes_its_term_out(world):
    from worlddb.core.records import Edge

    db, topic, _, _ = world
    keep = [add_leaf(db, topic, i) for i in range(30, 33)]
    gone = add_leaf(db, topic, 33)
    with db.write() as w:
        w.unlink(Edge("contains", topic, gone))
    children = np.array([stored(db, a)[0] for a in keep] + [stored(db, world[3])[0]])
    assert np.allclose(stored(db, topic)[0], pooling.attention_pool(vec(0), children), atol=1e-5)


def test_scopes_are_not_composed(world):
    db, topic, _, _ = world
    add_leaf(db, topic, 40)
    scope = db.store.scope_anchor("user", "alice")
    assert stored(db, scope)[0] is None


def test_a_world_without_content_loses_its_vector_with_its_last_child(world):
    from worlddb.core.records import Edge

    db, topic, _, _ = world
    with db.write() as w:  # a world with no content inside topic, so its change shows one level up
        holder = w.add(Node("Topic", name="holder"), parents=[topic])
    only = add_leaf(db, holder, 50)
    assert np.allclose(stored(db, holder)[0], stored(db, only)[0], atol=1e-6)
    with db.write() as w:
        w.unlink(Edge("contains", holder, only))
    assert stored(db, holder)[0] is None
    # topic no longer counts holder's old direction among its children's
    with_vectors = [stored(db, a)[0] for a in db.store.children(topic) if stored(db, a)[0] is not None]
    assert np.allclose(stored(db, topic)[0], pooling.attention_pool(vec(0), np.array(with_vectors)), atol=1e-5)
    # a child joining again gives it a vector again
    again = add_leaf(db, holder, 51)
    assert np.allclose(stored(db, holder)[0], stored(db, again)[0], atol=1e-6)


def test_a_world_without_content_leaves_the_vector_lane_with_its_last_child(world):
    from worlddb.core.records import Edge

    db, _, plain, _ = world
    only = add_leaf(db, plain, 60)
    index = hnsw.AnnIndex(db.store, hnsw.EFFECTIVE)
    index.sync()
    plain_row = db.store.rowid(plain)
    assert plain_row in index.nodes()
    with db.write() as w:
        w.unlink(Edge("contains", plain, only))
    index.sync()
    assert plain_row not in index.nodes()
    assert db.store.rowid(only) in index.nodes()


class _VectorWrites:
    """A store observer that records every vector write (anchor, kind)."""

    def __init__(self):
        self.writes: list[tuple[str, int]] = []

    def on_child(self, tx, world, child, added):
        pass

    def on_vector(self, tx, anchor, kind, old, new):
        self.writes.append((anchor, kind))


def test_a_world_gets_one_vector_write_per_transaction_however_many_children_join(target):
    # a topic pass adds a topic's members in one transaction: each intermediate vector
    # would be stored and deleted, and on PostgreSQL left behind in pgvector's HNSW graph
    db = WorldDB.open(target)
    try:
        with db.write() as w:
            scope = w.scope("user", "alice")
            topic = w.add(Node("Topic", name="garden", content="garden"), parents=[scope])
            w.put_vector(topic, hnsw.CONTENT, "test", vec(0).tobytes(), DIM)
            inner = w.add(Node("Topic", name="inner"), parents=[topic])
        seen = _VectorWrites()
        db.store.observers.append(seen)
        data_rows = db.store.conn.execute("SELECT count(*) FROM vector_data").fetchone()[0]
        with db.write() as w:
            leaves = []
            for i in range(1, 21):
                leaf = w.add(Node("Memory", content=f"leaf {i}", created_at=i), parents=[inner if i % 2 else topic])
                w.put_vector(leaf, hnsw.EFFECTIVE, "test", vec(i).tobytes(), DIM)
                leaves.append(leaf)
        effective = [anchor for anchor, kind in seen.writes if kind == hnsw.EFFECTIVE]
        assert effective.count(inner) == 1 and effective.count(topic) == 1
        # nothing stored only to be deleted: one new vector per leaf, one per world
        assert db.store.conn.execute("SELECT count(*) FROM vector_data").fetchone()[0] == data_rows + 20 + 2
        if target.startswith("postgresql"):  # every vector_data row ever inserted is live
            inserted = db.store.conn.execute("SELECT last_value FROM vector_data_id_seq").fetchone()[0]
            assert inserted == db.store.conn.execute("SELECT count(*) FROM vector_data").fetchone()[0]
        # and the vectors are what composing from scratch gives, one level and two
        inner_children = np.array([stored(db, a)[0] for a in leaves[0::2]])
        assert np.allclose(stored(db, inner)[0], pooling.mean_pool(inner_children), atol=1e-5)
        children = np.array([stored(db, a)[0] for a in db.store.children(topic)])
        assert np.allclose(stored(db, topic)[0], pooling.attention_pool(vec(0), children), atol=1e-5)
    finally:
        db.close()
