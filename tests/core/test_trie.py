"""The Merkle trie: roots depend only on the set, and agree with a from-scratch definition."""

from __future__ import annotations

import random
import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from worlddb.core import ids, schema, trie

hex_ids = st.binary(min_size=32, max_size=32).map(bytes.hex)


def reference_root(members: set[str]) -> tuple[bytes, int]:
    """The definition in worlddb.core.trie's docstring, computed directly."""

    def digest(prefix: str, subset: list[str]) -> bytes:
        if len(subset) <= trie.LEAF_MAX:
            return ids.leaf_digest([bytes.fromhex(m) for m in sorted(subset)])
        return ids.branch_digest([
            digest(prefix + n, [m for m in subset if m[len(prefix)] == n]) for n in trie.NIBBLES
        ])

    return digest("", sorted(members)), len(members)


@settings(max_examples=60, deadline=None)
@given(st.lists(hex_ids, max_size=120, unique=True), st.randoms(use_true_random=False))
def test_root_depends_only_on_the_set(keys, rng):
    forward, shuffled = trie.MemoryTrieStore(), trie.MemoryTrieStore()
    for key in keys:
        forward.add_member(key)
    order = list(keys)
    rng.shuffle(order)
    for key in order:
        shuffled.add_member(key)
    assert trie.root(forward) == trie.root(shuffled) == reference_root(set(keys))


@settings(max_examples=40, deadline=None)
@given(st.lists(hex_ids, min_size=1, max_size=150, unique=True), st.data())
def test_removals_return_to_the_root_of_the_smaller_set(keys, data):
    store = trie.MemoryTrieStore()
    for key in keys:
        store.add_member(key)
    doomed = data.draw(st.sets(st.sampled_from(keys)))
    for key in doomed:
        store.remove_member(key)
    assert trie.root(store) == reference_root(set(keys) - doomed)


def test_sql_trie_agrees_with_memory_trie(tmp_path):
    conn = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    schema.migrate(conn)
    rng = random.Random(7)
    keys = [rng.randbytes(32).hex() for _ in range(600)]
    memory = trie.MemoryTrieStore()
    sql = trie.SqlTrieStore(conn, 1, 0)
    conn.execute("BEGIN")
    for i, key in enumerate(keys):
        memory.add_member(key)
        conn.execute("INSERT INTO members(world, kind, key) VALUES (?,?,?)", (1, 0, bytes.fromhex(key)))
        trie.added(sql, key)
        if i % 3 == 2:
            gone = keys[i - 1]
            memory.remove_member(gone)
            conn.execute("DELETE FROM members WHERE key=?", (bytes.fromhex(gone),))
            trie.removed(sql, gone)
    conn.execute("COMMIT")
    assert trie.root(sql) == trie.root(memory)
    assert trie.rebuild(sql) == trie.root(memory)


def test_empty_set_has_the_empty_root():
    assert trie.root(trie.MemoryTrieStore()) == (ids.EMPTY_ROOT, 0)
