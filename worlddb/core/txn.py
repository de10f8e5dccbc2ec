"""One write transaction: node projection, validity, world interiors and their versions.

A `Tx` exists only inside `Store.transaction()`. Every method writes through the open
transaction (SQL both backends accept: worlddb.core.backends), so everything a write
does commits or rolls back together.

Worlds. A world's interior is two id sets: its children (their current version ids) and
its interior edges. Changing either marks the world dirty. When the transaction ends,
`seal()` visits dirty worlds deepest first, derives each one's new version id from its
genesis record and the new Merkle roots (worlddb.core.trie), records the version, and swaps
the old version id for the new one in every parent's child set - which dirties the
parents in turn, up to the roots. One transaction therefore yields at most one new
version per world, and the cost per added child is O(log n) in the world's size.

Big transactions. Once a transaction has changed a large share of one id set (at
least DEFER_MIN changes, and at least 1/REBUILD_SHARE of the set's size), it stops
maintaining that set's trie change by change and rebuilds it once, from the member
set, when the world is sealed (`trie.rebuild`, linear in the set's size). The trie is
a function of the set alone, so the roots and versions are the same either way; only
the cost differs - a bulk load into one world pays O(n) once instead of O(n log n)
in per-change SQL. Within a transaction the Tx also remembers what cannot change
under it: node rowids, the ancestors of a world (forgotten whenever containment
changes), the name and meta of a node it was asked for (forgotten when it erases that
node), and what it knows of the nodes it created itself: their version is their
anchor until seal, their parents are the worlds it put them in, and until it gives
them children, vectors or text, they contain nothing and have no index rows to replace;
and an edge touching one of them is live exactly when this transaction wrote its row and
has not removed it.

Rows name nodes by rowid (worlddb.core.schema): callers of the Tx name nodes by anchor,
and the Tx looks each rowid up once. A node written with parents gets its parent column
in the same INSERT.

Edge rows are not written here: `_insert_edge_row` / `_remove_edge_row` are reserved for
the reconciler (worlddb.graph.reconciler), which runs the edge type's handler in the same
transaction. Nothing else in the engine calls them.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from worlddb.core import ids, trie
from worlddb.core.errors import Conflict, InvalidInput, NotFound, ValidityConflict
from worlddb.core.records import ERASED_PROPS, Edge, Node, nul_refused
from worlddb.core.schema import VECTOR_FROM


class TxStore(Protocol):
    """What a transaction uses of the store that opened it (worlddb.core.store.Store).
    Declared here so that the store can import the transaction and not the reverse."""

    conn: Any
    backend: Any
    observers: list[Any]
    erase_hooks: list[Callable[..., None]]

    def parents(self, anchor: str) -> list[str]: ...
    def rowid(self, anchor: str) -> int | None: ...
    def get(self, anchor: str) -> Any: ...
    def enter_bulk(self) -> None: ...

def _retire_reason(reason: object) -> str | None:
    """A retire reason as it is stored, or InvalidInput: text SQLite can store, without NUL."""
    if reason is None:
        return None
    if not isinstance(reason, str):
        raise InvalidInput("a retire reason must be text")
    reason = ids.normalize(reason)  # refuses text SQLite cannot store (lone surrogates)
    if "\x00" in reason:
        raise InvalidInput(nul_refused("a retire reason"))
    return reason


#: how many nodes a transaction writes before it is treated as a bulk load (more page cache)
BULK_NODES = 2_000

CHILDREN, EDGES = 0, 1


class _Fresh:
    """What a transaction knows of a node it created (see the module docstring)."""

    __slots__ = ("leaf", "parents", "parent", "vector_kinds", "holds", "text")

    def __init__(self, parent: int | None) -> None:
        self.leaf = True            # no children yet
        self.parents: tuple[str, ...] = ()
        self.parent = parent        # the rowid in its parent column
        self.vector_kinds = 0       # bit k: some vector of kind k was written
        self.holds = 0              # bit k: it holds a vector of kind k, ordinal 0
        self.text = False           # a text index row was written

#: membership log rows a transaction keeps before writing them in one statement
LOG_BATCH = 4096

#: incremental trie maintenance of one id set is given up, for the rest of the
#: transaction, after DEFER_MIN changes once changes * REBUILD_SHARE >= the set's size
#: (checked at DEFER_MIN, 2*DEFER_MIN, 4*DEFER_MIN, ... changes)
DEFER_MIN = 64
REBUILD_SHARE = 16


class Tx:
    def __init__(self, store: TxStore, seq: int, at: int):
        self.store = store
        self.conn = store.conn
        self.seq = seq
        self.at = at
        self._dirty: set[str] = set()
        self.closed: list[tuple[str, int]] = []
        self._rowids: dict[str, int] = {}
        #: nodes created in this transaction
        self._new: dict[str, _Fresh] = {}
        #: world rowid -> the rowids of the worlds it lies inside
        self._ancestors: dict[int, list[int]] = {}
        #: member changes per (world, kind) id set, and the sets whose tries wait for seal
        self._changes: dict[tuple[int, int], int] = {}
        self._deferred: set[tuple[int, int]] = set()
        self._model: str | None = None
        #: (node rowid, bytes, vector_data id) of the last vector stored: the next vector of
        #: the same node with the same bytes names it instead of storing it again
        self._last_vector: tuple[int, bytes, int] | None = None
        #: live edges with an end created in this transaction (only this transaction can
        #: have written them, so the set settles edge_live for them without a lookup)
        self._fresh_edges: set[str] = set()
        #: anchors whose content this transaction erased
        self.erased: list[str] = []
        #: member_log rows not written yet (see _log_member)
        self._member_log: list[tuple[int, int, int, bytes, int]] = []
        #: text nodes indexed, and the wordpieces they hold, not counted in the tables yet
        self._texts = 0
        self._pieces: dict[int, int] = {}
        #: anchor -> (name, meta) of nodes read through `name_and_meta`
        self._names: dict[str, tuple[str, Mapping[str, Any]]] = {}

    # ------------------------------------------------------------------ nodes
    def add_node(self, node: Node, *, valid_from: int | None = None, valid_to: int | None = None,
                 parent: str | None = None) -> bool:
        """Store a node's genesis record and projection. False when it already exists.
        `parent`: the world it is about to be put in (the caller then adds the contains
        edge), recorded in its parent column now rather than by an update then."""
        anchor = node.id
        start = self.at if valid_from is None else valid_from
        if valid_to is not None and valid_to < start:
            if self.conn.execute("SELECT 1 FROM nodes WHERE anchor=?", (anchor,)).fetchone():
                return False
            raise InvalidInput("valid_to is earlier than valid_from")
        parent_row = None if parent is None else self.rowid(parent)
        row = self.conn.execute(
            "INSERT INTO nodes(anchor, type, name, parent, valid_from, valid_to, created_at, "
            "t_ingested, seq, record) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING RETURNING rowid",
            (anchor, node.type, node.name, parent_row, start, valid_to, node.created_at, self.at, self.seq,
             node.record),
        ).fetchone()
        if row is None:
            return False  # it exists (the unique anchor refused the row)
        self._rowids[anchor] = row[0]
        self._new[anchor] = _Fresh(parent_row)
        if len(self._new) == BULK_NODES:
            self.store.enter_bulk()
        if valid_to is not None:
            self._log_validity(anchor, valid_to, "created", None)
        return True

    def rowid(self, anchor: str) -> int | None:
        """The node's rowid (None if it does not exist); remembered for the transaction."""
        found = self._rowids.get(anchor)
        if found is None:
            found = self.store.rowid(anchor)
            if found is not None:
                self._rowids[anchor] = found
        return found

    def rowids(self) -> dict[str, int]:
        """The rowids this transaction made or looked up, by anchor (all committed once it is)."""
        return self._rowids

    def name_and_meta(self, anchor: str) -> tuple[str, Mapping[str, Any]] | None:
        """A node's name and meta as stored (None if it does not exist), remembered for the
        transaction: both belong to its genesis record, which only erasure changes (and
        `erase_node` forgets them)."""
        found = self._names.get(anchor)
        if found is None:
            view = self.store.get(anchor)
            if view is None:
                return None
            found = self._names[anchor] = (view.name, view.meta)
        return found

    def is_new(self, anchor: str) -> bool:
        """Created in this transaction."""
        return anchor in self._new

    def release(self) -> None:
        """Forget what the transaction remembered of the nodes and edges it wrote, once it
        has ended: a bulk load's Tx, kept by a caller that holds its writer, would
        otherwise keep an entry for every node and edge."""
        for held in (self._rowids, self._new, self._ancestors, self._changes, self._fresh_edges, self._pieces,
                     self._names):
            held.clear()
        self._deferred.clear()
        self._member_log = []
        self._last_vector = None

    def is_new_leaf(self, anchor: str) -> bool:
        """Created in this transaction and given no children yet: it contains nothing."""
        fresh = self._new.get(anchor)
        return fresh is not None and fresh.leaf

    def parents(self, anchor: str) -> list[str]:
        """The worlds that directly contain `anchor` (its live contains edges)."""
        fresh = self._new.get(anchor)
        if fresh is not None:
            return list(fresh.parents)
        return self.store.parents(anchor)

    def within(self, node: str, world: str) -> bool:
        """Whether `node` lies (transitively) inside `world`."""
        if self.is_new_leaf(world):
            return False
        fresh = self._new.get(node)
        if fresh is not None and world in fresh.parents:
            return True  # put there by this transaction, and not taken out since
        world_row, node_row = self.rowid(world), self.rowid(node)
        if world_row is None or node_row is None:
            return False
        return bool(self.conn.execute("SELECT 1 FROM closure WHERE world=? AND node=?",
                                      (world_row, node_row)).fetchone())

    def _ancestor_rows(self, rowid: int) -> list[int]:
        """Rowids of the worlds that `rowid` lies inside."""
        found = self._ancestors.get(rowid)
        if found is None:
            found = self._ancestors[rowid] = [
                r[0] for r in self.conn.execute("SELECT world FROM closure WHERE node=?", (rowid,))]
        return found

    def require(self, anchor: str) -> tuple[int, int | None]:
        row = self.conn.execute("SELECT valid_from, valid_to FROM nodes WHERE anchor=?", (anchor,)).fetchone()
        if row is None:
            raise NotFound(f"no node has id {anchor}")
        return row[0], row[1]

    def close_validity(self, anchor: str, to: int, reason: str, cause: str | None = None) -> bool:
        """Tighten valid_to to `to`; True if it moved. Without a `cause`, extending or re-opening
        is refused and an equal end is a no-op. With one (the id of the edge whose write ends the
        node), the closure is recorded whatever the node's end: a later one changes nothing now,
        and takes over if the earlier ones are withdrawn (`withdraw`)."""
        valid_from, current = self.require(anchor)
        if cause is None and current is not None and to > current:
            raise ValidityConflict(
                f"validity of {anchor} already ends at {current}; it may only tighten, not move to {to}"
            )
        if to < valid_from:
            raise InvalidInput(f"cannot end the validity of {anchor} before it starts")
        if current is not None and to >= current:
            if cause is not None:
                self._log_validity(anchor, to, reason, cause)
            return False
        self.conn.execute("UPDATE nodes SET valid_to=? WHERE anchor=?", (to, anchor))
        self._log_validity(anchor, to, reason, cause)
        self.closed.append((anchor, to))
        return True

    def retire(self, anchor: str, reason: str | None) -> bool:
        """Close a node's validity now and mark it retired. False if it already was. The
        closure is recorded even where an earlier one already ends the node, so that the node
        stays closed if that one is withdrawn."""
        reason = _retire_reason(reason)
        valid_from, current = self.require(anchor)
        row = self.conn.execute("SELECT retired_at FROM nodes WHERE anchor=?", (anchor,)).fetchone()
        if row[0] is not None:
            return False
        end = max(self.at, valid_from)
        if current is None or end < current:
            self.close_validity(anchor, end, "retired")
        else:
            self._log_validity(anchor, end, "retired", None)
        self.conn.execute(
            "UPDATE nodes SET retired_at=?, retire_reason=? WHERE anchor=?", (self.at, reason, anchor)
        )
        return True

    def restate_retirement(self, anchor: str, reason: str | None) -> None:
        """Say again why a retired node is retired (a retirement as never true of a node retired
        before as having stopped holding): `reason`, when given, takes the place of the earlier
        one; when it was retired stays."""
        reason = _retire_reason(reason)
        if reason is not None:
            self.conn.execute("UPDATE nodes SET retire_reason=? WHERE anchor=? AND retired_at IS NOT NULL",
                              (reason, anchor))

    def withdraw(self, cause: str) -> list[str]:
        """Withdraw every standing closure recorded with `cause` (an edge id): each node it closed
        ends where its other standing closures say, or never. The closures stay in the log,
        marked withdrawn by this transaction, so reads pinned to an earlier transaction time see
        them. Returns the anchors whose valid_to changed."""
        # (`cause <> ''` as the partial index validity_log_cause says it: SQLite then reads it)
        rows = self.conn.execute(
            "SELECT DISTINCT anchor FROM validity_log WHERE cause=? AND cause <> '' AND seq_withdrawn IS NULL", (cause,)
        ).fetchall()
        if not rows:
            return []
        self.conn.execute("UPDATE validity_log SET seq_withdrawn=? WHERE cause=? AND cause <> '' "
                          "AND seq_withdrawn IS NULL", (self.seq, cause))
        changed = []
        for (anchor,) in rows:
            end = self.conn.execute(
                "SELECT min(valid_to) FROM validity_log WHERE anchor=? AND seq_withdrawn IS NULL", (anchor,)
            ).fetchone()[0]
            if end != self.require(anchor)[1]:
                self.conn.execute("UPDATE nodes SET valid_to=? WHERE anchor=?", (end, anchor))
                changed.append(anchor)
        return changed

    def _log_validity(self, anchor: str, to: int, reason: str, cause: str | None) -> None:
        self.conn.execute(
            "INSERT INTO validity_log(anchor, seq, valid_to, reason, cause) VALUES (?,?,?,?,?) "
            "ON CONFLICT(anchor, seq, cause) DO UPDATE SET valid_to=CASE WHEN validity_log.seq_withdrawn IS NOT NULL "
            "OR excluded.valid_to < validity_log.valid_to THEN excluded.valid_to ELSE validity_log.valid_to END, "
            "seq_withdrawn=NULL",
            (anchor, self.seq, to, reason, cause or ""),
        )

    # ------------------------------------------------------------------ world interiors
    def add_child(self, world: str, child: str) -> bool:
        """Put `child` (an anchor) into `world`'s interior. Structural: the contains
        handler calls this; everything else writes a contains edge."""
        fresh = self._new.get(child)
        # a node created in this transaction keeps its anchor as version until seal
        version = child if fresh is not None else self._version(child)
        world_row, child_row = self._rowid_of(world), self._rowid_of(child)
        if not self._member_add(world, world_row, CHILDREN, version):
            return False
        if fresh is None:
            self.conn.execute("UPDATE nodes SET parent=? WHERE rowid=? AND parent IS NULL", (world_row, child_row))
        elif fresh.parent is None:
            self.conn.execute("UPDATE nodes SET parent=? WHERE rowid=?", (world_row, child_row))
            fresh.parent = world_row
        above = [world_row, *self._ancestor_rows(world_row)]
        below = [child_row] if fresh is not None and fresh.leaf else [child_row] + [
            r[0] for r in self.conn.execute("SELECT node FROM closure WHERE world=?", (child_row,))]
        if len(above) == 1 and len(below) == 1:
            self.conn.execute("INSERT INTO closure(world, node) VALUES (?, ?) ON CONFLICT DO NOTHING",
                              (world_row, child_row))
        else:
            self.conn.executemany(
                "INSERT INTO closure(world, node) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [(a, d) for a in above for d in below])
        for moved in below:  # the child's subtree has new ancestors
            self._ancestors.pop(moved, None)
        if fresh is not None:
            fresh.parents += (world,)
        if world in self._new:
            self._new[world].leaf = False
        for observer in self.store.observers:
            observer.on_child(self, world, child, True)
        return True

    def remove_child(self, world: str, child: str) -> bool:
        world_row, child_row = self._rowid_of(world), self._rowid_of(child)
        if not self._member_remove(world, world_row, CHILDREN, self._version(child)):
            return False
        self.conn.execute("UPDATE nodes SET parent=NULL WHERE rowid=? AND parent=?", (child_row, world_row))
        self._drop_closure(world_row, child_row)
        self._ancestors.clear()
        fresh = self._new.get(child)
        if fresh is not None:
            fresh.parents = tuple(p for p in fresh.parents if p != world)
            if fresh.parent == world_row:
                fresh.parent = None
        for observer in self.store.observers:
            observer.on_child(self, world, child, False)
        return True

    def add_interior_edge(self, world: str, edge_id: str) -> None:
        self._member_add(world, self._rowid_of(world), EDGES, edge_id)

    def remove_interior_edge(self, world: str, edge_id: str) -> None:
        self._member_remove(world, self._rowid_of(world), EDGES, edge_id)

    def _rowid_of(self, anchor: str) -> int:
        found = self.rowid(anchor)
        if found is None:
            raise NotFound(f"no node has id {anchor}")
        return found

    def _version(self, anchor: str) -> str:
        row = self.conn.execute("SELECT coalesce(version, anchor) FROM nodes WHERE anchor=?", (anchor,)).fetchone()
        if row is None:
            raise NotFound(f"no node has id {anchor}")
        return row[0]

    def _member_add(self, world: str, world_row: int, kind: int, key: str) -> bool:
        blob = bytes.fromhex(key)
        cursor = self.conn.execute(
            "INSERT INTO members(world, kind, key) VALUES (?,?,?) ON CONFLICT DO NOTHING", (world_row, kind, blob)
        )
        if cursor.rowcount == 0:
            return False
        self._log_member(world_row, kind, blob, 1)
        if self._maintain(world_row, kind):
            trie.added(trie.SqlTrieStore(self.conn, world_row, kind), key)
        self._dirty.add(world)
        return True

    def _member_remove(self, world: str, world_row: int, kind: int, key: str) -> bool:
        blob = bytes.fromhex(key)
        cursor = self.conn.execute("DELETE FROM members WHERE world=? AND kind=? AND key=?", (world_row, kind, blob))
        if cursor.rowcount == 0:
            return False
        self._log_member(world_row, kind, blob, -1)
        if self._maintain(world_row, kind):
            trie.removed(trie.SqlTrieStore(self.conn, world_row, kind), key)
        self._dirty.add(world)
        return True

    def _log_member(self, world_row: int, kind: int, key: bytes, op: int) -> None:
        """Log a membership change. Nothing reads the log inside a transaction, so rows are
        written in batches (in order), at the latest when the transaction seals."""
        self._member_log.append((self.seq, world_row, kind, key, op))
        if len(self._member_log) >= LOG_BATCH:
            self._flush_member_log()

    def _flush_member_log(self) -> None:
        if self._member_log:
            self.conn.executemany("INSERT INTO member_log(seq, world, kind, key, op) VALUES (?,?,?,?,?)",
                                  self._member_log)
            self._member_log = []

    def _maintain(self, world_row: int, kind: int) -> bool:
        """Whether to update this id set's trie now (False: it is rebuilt at seal)."""
        slot = (world_row, kind)
        if slot in self._deferred:
            return False
        n = self._changes.get(slot, 0) + 1
        self._changes[slot] = n
        if n >= DEFER_MIN and n & (n - 1) == 0:  # at DEFER_MIN, 2*DEFER_MIN, ...
            _, size = trie.root(trie.SqlTrieStore(self.conn, world_row, kind))
            if n * REBUILD_SHARE >= size:
                self._deferred.add(slot)
                return False
        return True

    def _drop_closure(self, world: int, child: int) -> None:
        """Closure rows that `child` leaving `world` ends (rowids). Only `child` and what lies
        below it can lose ancestors, and only `world` and its ancestors can be lost; each of
        those nodes keeps an ancestor exactly when one of its other parents is that ancestor
        or lies inside it. Parents inside the subtree are settled first (they are its own
        members), so the cost is the size of the subtree times its parents, never the size
        of the worlds above - a node leaving one of several containers (a memory leaving a
        topic) touches a handful of rows, where recomputing each ancestor's closure would
        read the whole scope. The contains edge being removed is still live while its
        handler runs: it is skipped."""
        above = {world, *self._ancestor_rows(world)}
        below = [child, *(r[0] for r in self.conn.execute("SELECT node FROM closure WHERE world=?", (child,)))]
        inside = set(below)
        kept: dict[int, set[int]] = {}

        def keeps(node: int, trail: frozenset[int] = frozenset()) -> set[int]:
            found = kept.get(node)
            if found is not None:
                return found
            found = set()
            for (parent,) in self.conn.execute(
                    "SELECT src FROM edges WHERE dst=? AND type='contains' AND seq_removed IS NULL", (node,)):
                if (parent, node) == (world, child) or parent in trail:
                    continue
                if parent in above:
                    found.add(parent)
                found |= keeps(parent, trail | {node}) if parent in inside else (
                    above & set(self._ancestor_rows(parent)))
            kept[node] = found
            return found

        gone = [(ancestor, node) for node in below for ancestor in above - keeps(node)]
        self.conn.executemany("DELETE FROM closure WHERE world=? AND node=?", gone)

    # ------------------------------------------------------------------ edge rows (reconciler only)
    def edge_live(self, edge: Edge) -> bool:
        """Whether an edge with this id is live."""
        if edge.src in self._new or edge.dst in self._new:
            return edge.id in self._fresh_edges
        return self.conn.execute("SELECT 1 FROM edges WHERE id=? AND seq_removed IS NULL",
                                 (bytes.fromhex(edge.id),)).fetchone() is not None

    def _insert_edge_row(self, edge: Edge, valid_from: int | None, valid_to: int | None) -> bool:
        """Reserved for the reconciler. False when the same edge is already live."""
        props = edge.props_json
        rowids = self._rowids  # the reconciler looked both ends up
        src = rowids.get(edge.src) or self._rowid_of(edge.src)
        dst = rowids.get(edge.dst) or self._rowid_of(edge.dst)
        edge_id = edge.id
        cursor = self.conn.execute(
            "INSERT INTO edges(id, type, src, dst, world, props, seq_added, t_added, valid_from, valid_to) "
            "VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
            (bytes.fromhex(edge_id), edge.type, src, dst, None if edge.world is None else self._rowid_of(edge.world),
             None if props == "{}" else props, self.seq, self.at, valid_from, valid_to),
        )
        fresh = edge.src in self._new or edge.dst in self._new
        # with an end created in this transaction, the reconciler's edge_live check has
        # settled that no live row has this id; reading the rowcount would cost PostgreSQL a
        # round trip for nothing (backends: statements whose results nobody reads pipeline)
        if not fresh and cursor.rowcount == 0:
            return False
        if fresh:
            self._fresh_edges.add(edge_id)
        if edge.world is not None:
            self.add_interior_edge(edge.world, edge.id)
        return True

    def _remove_edge_row(self, edge: Edge) -> bool:
        """Reserved for the reconciler. False when no live row has this id."""
        cursor = self.conn.execute(
            "UPDATE edges SET seq_removed=?, t_removed=? WHERE id=? AND seq_removed IS NULL",
            (self.seq, self.at, bytes.fromhex(edge.id)),
        )
        if cursor.rowcount == 0:
            return False
        self._fresh_edges.discard(edge.id)
        if edge.world is not None:
            self.remove_interior_edge(edge.world, edge.id)
        return True

    def close_edge_validity(self, edge_id: str, to: int) -> bool:
        key = bytes.fromhex(edge_id) if ids.is_full_id(edge_id) else b""
        row = self.conn.execute(
            "SELECT valid_from, valid_to FROM edges WHERE id=? AND seq_removed IS NULL", (key,)
        ).fetchone()
        if row is None:
            raise NotFound(f"no live edge has id {edge_id}")
        valid_from, current = row
        if current is not None and to > current:
            raise ValidityConflict(f"validity of edge {edge_id} may only tighten")
        if current is not None and to == current:
            return False
        if valid_from is not None and to < valid_from:
            raise InvalidInput(f"cannot end the validity of edge {edge_id} before it starts")
        self.conn.execute("UPDATE edges SET valid_to=? WHERE id=? AND seq_removed IS NULL", (to, key))
        return True

    # ------------------------------------------------------------------ indexes
    def index_text(self, anchor: str, text: str) -> None:
        rowid = self.rowid(anchor)
        fresh = self._new.get(anchor)
        if fresh is None or fresh.text:
            self.conn.execute("DELETE FROM fts WHERE rowid=?", (rowid,))
        if fresh is not None:
            fresh.text = True
        self.conn.execute("INSERT INTO fts(rowid, text) VALUES (?, ?)", (rowid, text))

    def count_text(self, pieces: Iterable[int]) -> None:
        """One more text node indexed, holding these wordpieces: the counts behind model-free
        query vectors (meta text_docs, token_df). Nothing reads them inside a write, so they
        are added up here and written when the transaction seals."""
        self._texts += 1
        counts = self._pieces
        for piece in pieces:
            counts[piece] = counts.get(piece, 0) + 1

    def _flush_counts(self) -> None:
        if self._pieces:
            self.conn.executemany(
                "INSERT INTO token_df(token, df) VALUES (?, ?) "
                "ON CONFLICT(token) DO UPDATE SET df = token_df.df + excluded.df",
                sorted(self._pieces.items()))
            self._pieces = {}
        if self._texts:
            self.conn.execute("INSERT INTO meta(key, value) VALUES ('text_docs', ?) "
                              "ON CONFLICT(key) DO UPDATE SET value = "
                              "CAST(CAST(meta.value AS INTEGER) + CAST(excluded.value AS INTEGER) AS TEXT)",
                              (str(self._texts),))
            self._texts = 0

    def put_vectors(self, anchor: str, model: str, dim: int, vectors: Sequence[tuple[int, int, bytes]]) -> None:
        """Store several vectors of one node, (kind, ord, bytes) each, as `put_vector` would
        one after another (observers are told in the same order). For a node made in this
        transaction that has none of them yet, the distinct bytes once each and the rows
        in one executemany."""
        fresh = self._new.get(anchor)
        slots = {(kind, ord) for kind, ord, _ in vectors}
        if fresh is None or len(slots) != len(vectors) or any(fresh.vector_kinds & (1 << k) for k, _ in slots):
            for kind, ord, vector in vectors:
                self.put_vector(anchor, kind, model, vector, dim, ord)
            return
        if model != self._model:
            self._claim_model(model, dim)
            self._model = model
        rowid = self._rowids[anchor]
        stored: list[tuple[bytes, int]] = []
        last = self._last_vector
        if last is not None and last[0] == rowid:
            stored.append((last[1], last[2]))
        rows: list[tuple[int, int, int, int, int]] = []
        for kind, ord, vector in vectors:
            data = next((d for b, d in stored if b is vector or b == vector), None)
            if data is None:
                data = self.conn.execute("INSERT INTO vector_data(vec) VALUES (?) RETURNING id",
                                         (self.store.backend.vector_param(vector),)).fetchone()[0]
                stored.append((vector, data))
                self._last_vector = (rowid, vector, data)
            rows.append((rowid, kind, ord, data, self.seq))
            fresh.vector_kinds |= 1 << kind
            if ord == 0:
                fresh.holds |= 1 << kind
        # one row per execution: a statement inserting several rows opens a statement
        # journal, and each one makes FTS5 flush the terms it holds back for the transaction
        self.conn.executemany("INSERT INTO vectors(node, kind, ord, data, seq) VALUES (?,?,?,?,?)", rows)
        for kind, ord, vector in vectors:
            if ord == 0:
                for observer in self.store.observers:
                    observer.on_vector(self, anchor, kind, None, vector)

    def put_vector(self, anchor: str, kind: int, model: str, vector: bytes, dim: int, ord: int = 0) -> bytes | None:
        """Store (or replace) one vector of a node; returns the vector it replaced, if any.
        Bytes equal to the vector this transaction last stored for the same node, or to
        what the row already holds, are not stored again (schema 4: vector_data)."""
        rowid = self.rowid(anchor)
        if rowid is None:
            raise NotFound(f"no node has id {anchor}")
        if model != self._model:
            self._claim_model(model, dim)
            self._model = model
        fresh = self._new.get(anchor)
        if fresh is not None and not fresh.vector_kinds & (1 << kind):
            old_data = old = None  # a node made in this transaction has no vector of this kind yet
            fresh.vector_kinds |= 1 << kind
            upsert = False
        else:
            row = self.conn.execute(f"SELECT v.data, d.vec FROM {VECTOR_FROM} WHERE v.node=? AND v.kind=? AND v.ord=?",
                                    (rowid, kind, ord)).fetchone()
            old_data, old = row if row else (None, None)
            upsert = True
        if fresh is not None and ord == 0:
            fresh.holds |= 1 << kind
        last = self._last_vector
        if last is not None and last[0] == rowid and last[1] == vector:
            data = last[2]
        elif old is not None and old == vector:
            data = old_data
        else:
            data = self.conn.execute("INSERT INTO vector_data(vec) VALUES (?) RETURNING id",
                                     (self.store.backend.vector_param(vector),)).fetchone()[0]
            self._last_vector = (rowid, vector, data)
        if upsert:
            self.conn.execute(
                "INSERT INTO vectors(node, kind, ord, data, seq) VALUES (?,?,?,?,?) "
                "ON CONFLICT(node, kind, ord) DO UPDATE SET data=excluded.data, seq=excluded.seq",
                (rowid, kind, ord, data, self.seq))
            if old_data is not None and old_data != data:
                self._release(rowid, old_data)
        else:
            self.conn.execute("INSERT INTO vectors(node, kind, ord, data, seq) VALUES (?,?,?,?,?)",
                              (rowid, kind, ord, data, self.seq))
        if ord == 0:
            for observer in self.store.observers:
                observer.on_vector(self, anchor, kind, old, vector)
        return old

    def drop_vector(self, anchor: str, kind: int, ord: int = 0) -> bytes | None:
        """Clear one vector of a node (it no longer has one of this kind); returns the
        vector it held, or None when there was none. The row stays, with no vector and
        this transaction's seq, so every process's HNSW index drops it on catching up;
        its bytes go when no other row of the node names them."""
        rowid = self.rowid(anchor)
        if rowid is None:
            raise NotFound(f"no node has id {anchor}")
        old = self.conn.execute(f"SELECT v.data, d.vec FROM {VECTOR_FROM} WHERE v.node=? AND v.kind=? AND v.ord=? "
                                "AND v.data IS NOT NULL", (rowid, kind, ord)).fetchone()
        if old is None:
            return None
        self.conn.execute("UPDATE vectors SET data=NULL, seq=? WHERE node=? AND kind=? AND ord=?",
                          (self.seq, rowid, kind, ord))
        fresh = self._new.get(anchor)
        if fresh is not None and ord == 0:
            fresh.holds &= ~(1 << kind)
        self._release(rowid, old[0])
        if ord == 0:
            for observer in self.store.observers:
                observer.on_vector(self, anchor, kind, old[1], None)
        return old[1]

    def _release(self, rowid: int, data: int) -> None:
        """Delete a node's vector bytes once none of its rows names them (they are only
        ever shared between rows of one node)."""
        if self.conn.execute("SELECT 1 FROM vectors WHERE node=? AND data=?", (rowid, data)).fetchone() is None:
            self.conn.execute("DELETE FROM vector_data WHERE id=?", (data,))
            if self._last_vector is not None and self._last_vector[2] == data:
                self._last_vector = None

    def has_vector(self, anchor: str, kind: int) -> bool:
        """Whether the node holds a vector of `kind` (ordinal 0) as this transaction sees it."""
        fresh = self._new.get(anchor)
        if fresh is not None:
            return bool(fresh.holds & (1 << kind))
        rowid = self.rowid(anchor)
        return rowid is not None and self.conn.execute(
            "SELECT 1 FROM vectors WHERE node=? AND kind=? AND ord=0 AND data IS NOT NULL", (rowid, kind)
        ).fetchone() is not None

    def vector(self, anchor: str, kind: int, ord: int = 0) -> bytes | None:
        """The node's vector of `kind` and ordinal, as this transaction sees it."""
        fresh = self._new.get(anchor)
        if fresh is not None and not fresh.vector_kinds & (1 << kind):
            return None
        rowid = self.rowid(anchor)
        if rowid is None:
            return None
        row = self.conn.execute(f"SELECT d.vec FROM {VECTOR_FROM} WHERE v.node=? AND v.kind=? AND v.ord=?",
                                (rowid, kind, ord)).fetchone()
        return row[0] if row else None

    def _claim_model(self, model: str, dim: int) -> None:
        """The first vector fixes the database's model; a different one is refused."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='embed_model'").fetchone()
        if row is None:
            self.set_meta("embed_model", model)
            self.set_meta("embed_dim", str(dim))
            self.store.backend.vector_model_claimed(self.conn, dim)
        elif row[0] != model:
            raise Conflict(f"this database holds vectors of {row[0]}; refusing vectors of {model}")

    def set_meta(self, key: str, value: str) -> None:
        if key == "embed_model":
            self._model = None  # check the model again on the next vector
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    # ------------------------------------------------------------------ erasure
    def erase_node(self, anchor: str) -> None:
        """Physically remove a node's content, keeping its id as a tombstone: the blob body, its
        text index entry, its claims and reading (schema: claims, readings), the caller's id of a
        session world (schema: sessions) and its vectors go;
        ids, versions and edges stay, so every hash that mentions it still verifies. The names a
        merge proposal quotes as its evidence go too, from the proposal and from the props of the
        same_as edge that staged it (that edge's props become ERASED_PROPS; verify counts it as a
        tombstone). Only this node is erased: another node that states its name in its own text
        (a memory that mentions an entity, a Fact derived from it) keeps that text until it is
        erased too; memory_purge_scope with erase erases every node a scope holds alone."""
        rowid = self.rowid(anchor)
        if rowid is None:
            raise NotFound(f"no node has id {anchor}")
        self.erased.append(anchor)
        self._names.pop(anchor, None)
        # the record goes first, so observers told about the vectors below see an erased node
        self.conn.execute("UPDATE nodes SET record=NULL, erased_at=?, name='', retire_reason=NULL WHERE rowid=?",
                          (self.at, rowid))
        self.conn.execute("DELETE FROM fts WHERE rowid=?", (rowid,))
        self.conn.execute("DELETE FROM claims WHERE node=?", (rowid,))
        self.conn.execute("DELETE FROM readings WHERE node=?", (rowid,))
        # a session world's row names it by the caller's own session id (schema: sessions)
        self.conn.execute("DELETE FROM sessions WHERE session=?", (rowid,))
        for kind, ord in self.conn.execute(
                "SELECT kind, ord FROM vectors WHERE node=? AND data IS NOT NULL", (rowid,)).fetchall():
            self.drop_vector(anchor, kind, ord)
        self.conn.execute("UPDATE proposals SET evidence='{}' WHERE (a=? OR b=?) AND evidence != '{}'",
                          (anchor, anchor))
        self.conn.execute("UPDATE edges SET props=? WHERE type='same_as' AND (src=? OR dst=?) "
                          "AND props IS NOT NULL AND props NOT IN ('{}', ?)",
                          (ERASED_PROPS, rowid, rowid, ERASED_PROPS))
        for hook in self.store.erase_hooks:
            hook(self.conn, anchor, rowid)

    # ------------------------------------------------------------------ sealing
    def seal(self) -> None:
        """Write what was kept back (observers' writes, counts, the membership log), then
        give every world whose interior changed its new version, deepest first."""
        for observer in self.store.observers:
            on_seal = getattr(observer, "on_seal", None)
            if on_seal is not None:
                on_seal(self)
        self._flush_counts()
        self._seal_worlds()
        self._flush_member_log()

    def _seal_worlds(self) -> None:
        if not self._dirty:
            return
        depth_cache: dict[str, int] = {}
        # sealing changes member sets, never a contains edge: a world's parents stay as read
        parents_of: dict[str, list[str]] = {}
        heap = [(-self._depth(w, depth_cache, parents_of), w) for w in self._dirty]
        heapq.heapify(heap)
        done: set[str] = set()
        while heap:
            _, world = heapq.heappop(heap)
            if world in done:
                continue
            done.add(world)
            for parent in self._seal_one(world, parents_of):
                if parent not in done:
                    heapq.heappush(heap, (-self._depth(parent, depth_cache, parents_of), parent))
        self._dirty.clear()

    def _parents(self, anchor: str, known: dict[str, list[str]]) -> list[str]:
        found = known.get(anchor)
        if found is None:
            found = known[anchor] = self.store.parents(anchor)
        return found

    def _depth(self, anchor: str, cache: dict[str, int], parents_of: dict[str, list[str]], _guard: int = 0) -> int:
        if anchor in cache:
            return cache[anchor]
        if _guard > 256:
            raise InvalidInput("worlds are nested more than 256 levels deep")
        parents = self._parents(anchor, parents_of)
        depth = 0 if not parents else 1 + max(self._depth(p, cache, parents_of, _guard + 1) for p in parents)
        cache[anchor] = depth
        return depth

    def _seal_one(self, world: str, parents_of: dict[str, list[str]]) -> list[str]:
        world_row = self._rowid_of(world)
        for kind in (CHILDREN, EDGES):
            if (world_row, kind) in self._deferred:
                trie.rebuild(trie.SqlTrieStore(self.conn, world_row, kind))
                self._deferred.discard((world_row, kind))
        children_root, n_children = trie.root(trie.SqlTrieStore(self.conn, world_row, CHILDREN))
        edges_root, n_edges = trie.root(trie.SqlTrieStore(self.conn, world_row, EDGES))
        genesis = self.conn.execute("SELECT record FROM nodes WHERE rowid=?", (world_row,)).fetchone()
        old = self._version(world)
        if genesis[0] is None:
            # erased: its interior may still change (a child it shares with a live scope
            # gets a new version), and the worlds above must still get their versions
            new = ids.erased_version_id(old, children_root.hex(), n_children, edges_root.hex(), n_edges)
        else:
            body = ids.with_interior(genesis[0], children_root.hex(), n_children, edges_root.hex(), n_edges)
            new = ids.node_id(body)
        if new == old:
            return []
        self.conn.execute(
            "INSERT INTO versions(anchor, seq, id, children_root, n_children, edges_root, n_edges) "
            "VALUES (?,?,?,?,?,?,?) ON CONFLICT(anchor, seq) DO UPDATE SET id=excluded.id, "
            "children_root=excluded.children_root, n_children=excluded.n_children, "
            "edges_root=excluded.edges_root, n_edges=excluded.n_edges",
            (world, self.seq, new, children_root, n_children, edges_root, n_edges),
        )
        self.conn.execute(
            "UPDATE nodes SET version=?, n_children=?, n_edges=? WHERE rowid=?", (new, n_children, n_edges, world_row)
        )
        parents = self._parents(world, parents_of)
        for parent in parents:
            parent_row = self._rowid_of(parent)
            self._member_remove(parent, parent_row, CHILDREN, old)
            self._member_add(parent, parent_row, CHILDREN, new)
        return parents
