"""Big transactions: the deferred Merkle trie, the per-transaction caches and the bulk
page cache change what a write costs, never what it writes."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worlddb.core import store as store_module
from worlddb.core import trie, txn
from worlddb.core.errors import Refused
from worlddb.core.records import Edge, Node
from worlddb.graph import lexical, reconciler
from worlddb.graph.database import WorldDB
from worlddb.vectors import hnsw

T0 = 1_700_000_000_000_000
hex_ids = st.binary(min_size=32, max_size=32).map(bytes.hex)


def _trie_rows(db: WorldDB) -> list[tuple]:
    return db.store.conn.execute("SELECT n.anchor, t.kind, t.prefix, t.digest, t.count FROM trie t "
                                 "JOIN nodes n ON n.rowid = t.world ORDER BY 1, 2, 3").fetchall()


def _state(db: WorldDB, anchors: list[str]) -> dict:
    views = db.store.get_many(anchors)
    return {a: (views[a].version, views[a].n_children, views[a].n_edges) for a in anchors}


def _script(batch: int | None) -> list[list[tuple]]:
    """One workload as transactions: all in one (batch=None) or `batch` operations each.
    A scope holds 300 memories and a session world; the session holds 150 turns chained
    by interior precedes edges; then 40 memories leave the scope again."""
    ops: list[tuple] = [("add", "scope", i) for i in range(300)]
    ops += [("session",)]
    ops += [("turn", i) for i in range(150)]
    ops += [("precedes", i) for i in range(1, 150)]
    ops += [("drop", i) for i in range(0, 300, 7)[:40]]
    if batch is None:
        return [ops]
    return [ops[i:i + batch] for i in range(0, len(ops), batch)]


def _run(db: WorldDB, transactions: list[list[tuple]], deferred: set | None = None) -> list[str]:
    memories = [Node("Memory", content=f"memory {i}", created_at=T0 + i) for i in range(300)]
    session = Node("Session", name="s1", created_at=T0)
    turns = [Node("Turn", content=f"turn {i}", created_at=T0 + i) for i in range(150)]
    scope = None
    for ops in transactions:
        with db.write() as w:
            scope = w.scope("user", "alice")
            for op in ops:
                if op[0] == "add":
                    w.add(memories[op[2]], parents=[scope])
                elif op[0] == "session":
                    w.add(session, parents=[scope])
                elif op[0] == "turn":
                    w.add(turns[op[1]], parents=[session.id])
                elif op[0] == "precedes":
                    w.link(Edge("precedes", turns[op[1] - 1].id, turns[op[1]].id, world=session.id))
                else:
                    w.unlink(Edge("contains", scope, memories[op[1]].id))
            if deferred is not None:
                deferred |= w.tx._deferred
    return [scope, session.id]


def test_one_big_transaction_gives_the_same_worlds_as_many_small_ones(tmp_path):
    big = WorldDB.open(tmp_path / "big.db")
    small = WorldDB.open(tmp_path / "small.db")
    try:
        deferred_big, deferred_small = set(), set()
        worlds = _run(big, _script(None), deferred_big)
        assert _run(small, _script(txn.DEFER_MIN // 2), deferred_small) == worlds
        # the big transaction did give up incremental maintenance; the small ones never did
        scope, session = (big.store.rowid(world) for world in worlds)
        assert deferred_big == {(scope, txn.CHILDREN), (session, txn.CHILDREN), (session, txn.EDGES)}
        assert not deferred_small
        assert _state(big, worlds) == _state(small, worlds)
        assert big.get(worlds[1]).n_children == 150 and big.get(worlds[1]).n_edges == 149
        assert _trie_rows(big) == _trie_rows(small)
        assert big.verify().ok and small.verify().ok
    finally:
        big.close()
        small.close()


def test_a_transaction_defers_only_the_sets_it_changes_a_lot(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
        for i in range(2_000):
            w.add(Node("Memory", content=f"m{i}", created_at=T0 + i), parents=[scope])
        assert (w.tx.rowid(scope), txn.CHILDREN) in w.tx._deferred
    with db.write() as w:  # a few more children of a big world: incremental, as before
        for i in range(txn.DEFER_MIN + 10):
            w.add(Node("Memory", content=f"late {i}", created_at=T0 + i), parents=[scope])
        assert not w.tx._deferred
    assert db.verify().ok


@settings(max_examples=30, deadline=None)
@given(st.lists(hex_ids, max_size=300, unique=True), st.data())
def test_rebuild_lays_out_the_same_trie_nodes_as_incremental_updates(keys, data):
    incremental = trie.MemoryTrieStore()
    for key in keys:
        incremental.add_member(key)
    for key in (data.draw(st.sets(st.sampled_from(keys))) if keys else ()):
        incremental.remove_member(key)
    rebuilt = trie.MemoryTrieStore()
    rebuilt._buckets = {b: list(m) for b, m in incremental._buckets.items()}
    assert trie.rebuild(rebuilt) == trie.root(incremental)
    assert rebuilt._nodes == incremental._nodes


@pytest.mark.sqlite_only("SQLite's page cache (PRAGMA cache_size); PostgreSQL's shared_buffers are the server's")
def test_a_big_transaction_gets_the_bulk_page_cache_and_gives_it_back(db):
    store = db.store

    def cache_kib() -> int:
        return -store.conn.execute("PRAGMA cache_size").fetchone()[0]

    assert cache_kib() == store.cache_mib * 1024
    with db.write() as w:
        scope = w.scope("user", "alice")
        for i in range(txn.BULK_NODES):
            w.add(Node("Memory", content=f"m{i}", created_at=T0 + i), parents=[scope])
        assert cache_kib() == store.bulk_cache_mib * 1024
    assert cache_kib() == store.cache_mib * 1024
    with pytest.raises(RuntimeError):
        with db.write() as w:
            for i in range(txn.BULK_NODES):
                w.add(Node("Memory", content=f"n{i}", created_at=T0 + i))
            raise RuntimeError("roll back")
    assert cache_kib() == store.cache_mib * 1024


def test_ancestors_learnt_early_in_a_transaction_follow_later_containment(db):
    with db.write() as w:
        world = w.add(Node("Topic", name="travel", created_at=T0))
        first = w.add(Node("Memory", content="first", created_at=T0), parents=[world])
        scope = w.scope("user", "alice")
        w.link(Edge("contains", scope, world))           # the topic moves under the scope
        second = w.add(Node("Memory", content="second", created_at=T0), parents=[world])
    assert db.store.in_worlds([scope], [first, second]) == {first, second}
    assert db.verify().ok


def test_a_world_made_in_the_same_transaction_cannot_swallow_its_container(db):
    with pytest.raises(Refused):
        with db.write() as w:
            outer = w.add(Node("Topic", name="outer", created_at=T0))
            inner = w.add(Node("Topic", name="inner", created_at=T0), parents=[outer])
            w.link(Edge("contains", inner, outer))


def _unit(seed: int) -> bytes:
    v = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
    return (v / np.linalg.norm(v)).tobytes()


def test_a_new_nodes_vectors_and_text_replace_each_other_within_one_transaction(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
        session = w.add(Node("Session", name="s", created_at=T0), parents=[scope])
        turn = w.add(Node("Turn", content="hello", created_at=T0), parents=[session])
        assert w.tx.put_vector(turn, hnsw.EFFECTIVE, "m", _unit(1), 8) is None
        assert w.tx.put_vector(turn, hnsw.EFFECTIVE, "m", _unit(2), 8) == _unit(1)
        w.index_text(turn, "hello there")
        w.index_text(turn, "goodbye")
    conn = db.store.conn
    assert conn.execute("SELECT count(*) FROM fts").fetchone()[0] == 1
    row = db.store.rowid(turn)
    assert lexical.lexical_matching(db.store, [row], "goodbye") == {row}
    assert lexical.lexical_matching(db.store, [row], "hello there") == set()
    # the session composed its embedding from its one child's latest vector
    composed = db.store.vector(session, hnsw.EFFECTIVE)
    assert np.allclose(np.frombuffer(composed, np.float32), np.frombuffer(_unit(2), np.float32), atol=1e-6)


def test_a_new_node_taken_out_of_its_world_no_longer_feeds_its_embedding(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
        session = w.add(Node("Session", name="s", created_at=T0), parents=[scope])
        keep = w.add(Node("Turn", content="stays", created_at=T0), parents=[session])
        leave = w.add(Node("Turn", content="leaves", created_at=T0), parents=[session])
        w.unlink(Edge("contains", session, leave))
        w.put_vector(keep, hnsw.EFFECTIVE, "m", _unit(3), 8)
        w.put_vector(leave, hnsw.EFFECTIVE, "m", _unit(4), 8)
    row = db.store.conn.execute("SELECT n FROM compose WHERE world=?", (session,)).fetchone()
    assert row[0] == 1
    assert db.verify().ok


def test_shuffled_bulk_loads_agree(tmp_path):
    """The same set of children added in different orders, in one transaction each."""
    nodes = [Node("Memory", content=f"m{i}", created_at=T0 + i) for i in range(500)]
    roots = []
    for seed in (1, 2):
        order = list(nodes)
        random.Random(seed).shuffle(order)
        db = WorldDB.open(tmp_path / f"{seed}.db")
        with db.write() as w:
            scope = w.scope("user", "alice")
            for node in order:
                w.add(node, parents=[scope])
        roots.append((db.get(scope).version, _trie_rows(db)))
        assert db.verify().ok
        db.close()
    assert roots[0] == roots[1]


def test_an_index_built_from_sql_in_batches_holds_every_stored_vector(db, monkeypatch):
    monkeypatch.setattr(hnsw, "SYNC_BATCH", 7)
    vectors = {}
    with db.write() as w:
        scope = w.scope("user", "alice")
        for i in range(50):
            anchor = w.add(Node("Memory", content=f"m{i}", created_at=T0 + i), parents=[scope])
            vectors[anchor] = _unit(100 + i)
            w.put_vector(anchor, hnsw.EFFECTIVE, "m", vectors[anchor], 8)
    gone = next(iter(vectors))
    with db.write() as w:
        w.erase(gone)
    index = hnsw.AnnIndex(db.store, hnsw.EFFECTIVE)
    calls = []
    assert index.sync(progress=lambda done, expected: calls.append((done, expected))) == 50
    assert [done for done, _ in calls] == [7, 14, 21, 28, 35, 42, 49, 50]
    assert all(expected == 49 for _, expected in calls[:-1])  # the stored vectors, erased one excluded
    assert len(index) == 49
    rowid = {a: db.store.rowid(a) for a in vectors}
    for anchor, vec in vectors.items():
        best = index.search(np.frombuffer(vec, np.float32), 1)
        if anchor == gone:
            assert best[0][0] != rowid[gone]
        else:
            assert best[0][0] == rowid[anchor]


def test_a_bulk_write_leaves_neither_its_receipt_nor_its_transaction_holding_every_id(db, monkeypatch):
    monkeypatch.setattr(reconciler, "RECEIPT_IDS", 5)
    with db.write() as w:
        scope = w.scope("user", "alice")
        made = [w.add(Node("Memory", content=f"m{i}", created_at=T0 + i), parents=[scope]) for i in range(20)]
        assert all(w.is_new(anchor) for anchor in made)
    assert w.receipt.nodes == [scope, *made[:4]] and len(w.receipt.edges) == 5
    assert w.receipt.left_out == 16 + 15  # nodes, then contains edges, past the first five of each
    assert not w.tx.is_new(made[0]) and not w.tx._rowids and not w.tx._fresh_edges
    assert [db.get(anchor).content for anchor in made] == [f"m{i}" for i in range(20)]


def test_a_bulk_write_returns_free_memory_once_its_callbacks_have_let_go(db, monkeypatch):
    events = []
    monkeypatch.setattr(txn, "BULK_NODES", 5)
    monkeypatch.setattr(store_module, "_return_free_memory", lambda: events.append("trim"))
    with db.write() as w:
        scope = w.scope("user", "alice")
        for i in range(10):
            w.add(Node("Memory", content=f"m{i}", created_at=T0 + i), parents=[scope])
        w.after_commit(lambda: events.append("callback"))
    assert events == ["callback", "trim"]
    with db.write() as w:  # not a bulk transaction: nothing to hand back
        w.add(Node("Memory", content="one more", created_at=T0 + 99), parents=[scope])
    assert events == ["callback", "trim"]
    with pytest.raises(RuntimeError), db.write() as w:  # rolled back: what it took is free as well
        for i in range(10):
            w.add(Node("Memory", content=f"n{i}", created_at=T0 + 100 + i), parents=[scope])
        raise RuntimeError("abandoned")
    assert events == ["callback", "trim", "trim"]
