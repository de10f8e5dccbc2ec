"""Merkle roots of id sets that update in O(log n): a 16-ary hash trie.

A world's interior (its child ids, and separately its interior edge ids) is a set of
ids, handled here as 64-hex text. Its root digest is defined recursively on id prefixes:

    digest(prefix) = leaf_digest(sorted members under prefix)       if count <= LEAF_MAX
                   = branch_digest(digest(prefix + d) for d in 0..f) otherwise

with an empty prefix standing for the whole set and an empty subset digesting to
`ids.EMPTY_ROOT`. The shape depends only on the set, never on insertion order, so the
same interior always has the same root. Ids are uniform hashes, so the trie stays
balanced: adding or removing one member recomputes one leaf of at most LEAF_MAX ids
and about log16(n / LEAF_MAX) branches of 16 digests - the cost of adding a child does
not grow with the size of the world.

`TrieStore` is the storage contract the algorithm runs against. The engine keeps trie
nodes in SQLite (`SqlTrieStore`); verification replays membership history into
`MemoryTrieStore`, the same algorithm over dicts.
"""

from __future__ import annotations

import bisect
from typing import Protocol

from worlddb.core import ids

LEAF_MAX = 16
NIBBLES = "0123456789abcdef"
#: Bucket length of the in-memory store: members are grouped by this many hex chars.
_BUCKET = 3
_SIXTEEN = ",".join("?" * 16)


class TrieStore(Protocol):
    """Where trie nodes and the member set live. Keys and prefixes are lowercase hex.

    members(prefix)       -> sorted member ids starting with prefix
    node(prefix)          -> (digest, count) of the trie node at prefix, or None
    below(prefix)         -> {child prefix: (digest, count)} of the nodes one level below prefix
    set_node(prefix, digest, count)
    set_nodes([(prefix, digest, count), ...])   (many at once)
    drop(prefix)          -> remove the node at prefix and every node below it
    drop_below(prefix)    -> remove every node strictly below prefix
    """

    def members(self, prefix: str) -> list[str]: ...
    def node(self, prefix: str) -> tuple[bytes, int] | None: ...
    def below(self, prefix: str) -> dict[str, tuple[bytes, int]]: ...
    def set_node(self, prefix: str, digest: bytes, count: int) -> None: ...
    def set_nodes(self, nodes: list[tuple[str, bytes, int]]) -> None: ...
    def drop(self, prefix: str) -> None: ...
    def drop_below(self, prefix: str) -> None: ...


def root(store: TrieStore) -> tuple[bytes, int]:
    found = store.node("")
    return found if found is not None else (ids.EMPTY_ROOT, 0)


def added(store: TrieStore, key: str) -> None:
    """Update the trie after `key` joined the member set."""
    _apply(store, "", key, +1)


def removed(store: TrieStore, key: str) -> None:
    """Update the trie after `key` left the member set."""
    _apply(store, "", key, -1)


def rebuild(store: TrieStore) -> tuple[bytes, int]:
    """Recompute every node from the member set (after bulk changes, or to check).

    Reads the member set once, in order, and lays the whole trie out from that sorted
    list - the same nodes `added`/`removed` would have left, at a cost linear in the
    size of the set rather than one read per trie node."""
    members = store.members("")
    nodes: list[tuple[str, bytes, int]] = []
    _build_sorted(members, 0, len(members), "", nodes)
    store.drop("")
    store.set_nodes(nodes)
    return root(store)


def _build_sorted(members: list[str], lo: int, hi: int, prefix: str, out: list) -> bytes:
    """Digest of members[lo:hi] (all starting with prefix); appends every node it lays out."""
    if hi == lo:
        return ids.EMPTY_ROOT
    if hi - lo <= LEAF_MAX:
        digest = ids.leaf_digest([bytes.fromhex(member) for member in members[lo:hi]])
    else:
        digests = []
        start = lo
        for nibble in NIBBLES:
            end = bisect.bisect_left(members, prefix + nibble + "g", start, hi) if nibble != "f" else hi
            digests.append(_build_sorted(members, start, end, prefix + nibble, out) if end > start
                           else ids.EMPTY_ROOT)
            start = end
        digest = ids.branch_digest(digests)
    out.append((prefix, digest, hi - lo))
    return digest


_UNREAD = object()


def _apply(store: TrieStore, prefix: str, key: str, delta: int, found=_UNREAD) -> bytes:
    """Update the node at `prefix` (`found`: its (digest, count) or None, if already read)
    for `key`, and the nodes below it on the way to `key`; returns its new digest."""
    if found is _UNREAD:
        found = store.node(prefix)
    old = found[1] if found else 0
    new = old + delta
    if new <= 0:
        store.drop(prefix)
        return ids.EMPTY_ROOT
    if new <= LEAF_MAX:
        if old > LEAF_MAX:
            store.drop_below(prefix)
        digest = _leaf(store, prefix)
    elif old <= LEAF_MAX:
        # The node outgrows a leaf: lay out its children once, from at most LEAF_MAX+1 ids.
        return _build(store, prefix)
    else:
        # one read of the children serves twice: the child's count for the step down, and
        # the digests around the child's new one (the step down changes nothing else here)
        below = store.below(prefix)
        child = prefix + key[len(prefix)]
        digests = {p: digest for p, (digest, _) in below.items()}
        digests[child] = _apply(store, child, key, delta, below.get(child))
        digest = ids.branch_digest([digests.get(prefix + nibble, ids.EMPTY_ROOT) for nibble in NIBBLES])
    store.set_node(prefix, digest, new)
    return digest


def _leaf(store: TrieStore, prefix: str) -> bytes:
    return ids.leaf_digest([bytes.fromhex(member) for member in store.members(prefix)])


def _build(store: TrieStore, prefix: str) -> bytes:
    members = store.members(prefix)
    if not members:
        return ids.EMPTY_ROOT
    if len(members) <= LEAF_MAX:
        digest = ids.leaf_digest([bytes.fromhex(member) for member in members])
    else:
        digests = [_build(store, prefix + nibble) for nibble in NIBBLES]
        digest = ids.branch_digest(digests)
    store.set_node(prefix, digest, len(members))
    return digest


class MemoryTrieStore:
    """The TrieStore contract over dicts; also keeps the member set itself."""

    def __init__(self) -> None:
        self._buckets: dict[str, list[str]] = {}
        self._nodes: dict[str, tuple[bytes, int]] = {}

    # -- the member set, kept here so the algorithm can be replayed without SQL
    def add_member(self, key: str) -> bool:
        bucket = self._buckets.setdefault(key[:_BUCKET], [])
        at = bisect.bisect_left(bucket, key)
        if at < len(bucket) and bucket[at] == key:
            return False
        bucket.insert(at, key)
        added(self, key)
        return True

    def remove_member(self, key: str) -> bool:
        bucket = self._buckets.get(key[:_BUCKET])
        if not bucket:
            return False
        at = bisect.bisect_left(bucket, key)
        if at == len(bucket) or bucket[at] != key:
            return False
        bucket.pop(at)
        if not bucket:
            del self._buckets[key[:_BUCKET]]
        removed(self, key)
        return True

    # -- TrieStore
    def members(self, prefix: str) -> list[str]:
        if len(prefix) >= _BUCKET:
            bucket = self._buckets.get(prefix[:_BUCKET], [])
            lo = bisect.bisect_left(bucket, prefix)
            hi = bisect.bisect_left(bucket, prefix + "g")
            return bucket[lo:hi]
        out: list[str] = []
        for name in sorted(b for b in self._buckets if b.startswith(prefix)):
            out.extend(self._buckets[name])
        return out

    def node(self, prefix: str) -> tuple[bytes, int] | None:
        return self._nodes.get(prefix)

    def below(self, prefix: str) -> dict[str, tuple[bytes, int]]:
        out = {}
        for nibble in NIBBLES:
            found = self._nodes.get(prefix + nibble)
            if found is not None:
                out[prefix + nibble] = found
        return out

    def set_node(self, prefix: str, digest: bytes, count: int) -> None:
        self._nodes[prefix] = (digest, count)

    def set_nodes(self, nodes: list[tuple[str, bytes, int]]) -> None:
        for prefix, digest, count in nodes:
            self._nodes[prefix] = (digest, count)

    def drop(self, prefix: str) -> None:
        self._nodes.pop(prefix, None)
        self.drop_below(prefix)

    def drop_below(self, prefix: str) -> None:
        # Only ever called on small subtrees (a branch shrinking back into a leaf).
        doomed = [p for p in self._nodes if len(p) > len(prefix) and p.startswith(prefix)]
        for p in doomed:
            del self._nodes[p]


def _key_range(prefix: str) -> tuple[bytes, bytes | None]:
    """The BLOB keys (32-byte ids) whose hex starts with `prefix`: [low, high), high None
    when the range runs to the end. Byte order is the order of the hex."""
    if not prefix:
        return b"", None
    pad = "0" * (len(prefix) % 2)
    above = int(prefix, 16) + 1
    if above >= 16 ** len(prefix):
        return bytes.fromhex(prefix + pad), None
    return bytes.fromhex(prefix + pad), bytes.fromhex(f"{above:0{len(prefix)}x}" + pad)


class SqlTrieStore:
    """The TrieStore contract over the `members` and `trie` tables, for one id set.

    `world` is the world's node rowid; `kind` 0 is its child set and 1 its interior edge
    set. Members are stored as 32-byte BLOBs and handed to the algorithm as hex. The
    connection belongs to an open write transaction; this class never commits.
    """

    def __init__(self, conn, world: int, kind: int):
        self._conn = conn
        self._world = world
        self._kind = kind

    def members(self, prefix: str) -> list[str]:
        low, high = _key_range(prefix)
        bound = "" if high is None else " AND key<?"
        rows = self._conn.execute(
            f"SELECT key FROM members WHERE world=? AND kind=? AND key>=?{bound} ORDER BY key",
            (self._world, self._kind, low) + (() if high is None else (high,)),
        )
        return [row[0].hex() for row in rows]

    def node(self, prefix: str) -> tuple[bytes, int] | None:
        row = self._conn.execute(
            "SELECT digest, count FROM trie WHERE world=? AND kind=? AND prefix=?",
            (self._world, self._kind, prefix),
        ).fetchone()
        return (row[0], row[1]) if row else None

    def below(self, prefix: str) -> dict[str, tuple[bytes, int]]:
        # Name the 16 possible children: a range over the prefix would scan the whole subtree.
        rows = self._conn.execute(
            f"SELECT prefix, digest, count FROM trie WHERE world=? AND kind=? AND prefix IN ({_SIXTEEN})",
            (self._world, self._kind, *(prefix + nibble for nibble in NIBBLES)),
        )
        return {row[0]: (row[1], row[2]) for row in rows}

    def set_node(self, prefix: str, digest: bytes, count: int) -> None:
        self._conn.execute(
            "INSERT INTO trie(world, kind, prefix, digest, count) VALUES (?,?,?,?,?) "
            "ON CONFLICT(world, kind, prefix) DO UPDATE SET digest=excluded.digest, count=excluded.count",
            (self._world, self._kind, prefix, digest, count),
        )

    def set_nodes(self, nodes: list[tuple[str, bytes, int]]) -> None:
        self._conn.executemany(
            "INSERT INTO trie(world, kind, prefix, digest, count) VALUES (?,?,?,?,?) "
            "ON CONFLICT(world, kind, prefix) DO UPDATE SET digest=excluded.digest, count=excluded.count",
            [(self._world, self._kind, prefix, digest, count) for prefix, digest, count in nodes],
        )

    def drop(self, prefix: str) -> None:
        self._conn.execute(
            "DELETE FROM trie WHERE world=? AND kind=? AND prefix>=? AND prefix<?",
            (self._world, self._kind, prefix, prefix + "g"),
        )

    def drop_below(self, prefix: str) -> None:
        self._conn.execute(
            "DELETE FROM trie WHERE world=? AND kind=? AND prefix>? AND prefix<?",
            (self._world, self._kind, prefix, prefix + "g"),
        )
