"""The store: one database, read and written through one connection.

Contract
- `Store.open(target)` connects through the target's backend (worlddb.core.backends: a
  SQLite file in WAL mode, or PostgreSQL with pgvector for a postgresql:// URL), creates
  or migrates the schema and refuses one written by a newer WorldDB. The connection runs
  in autocommit mode; every write goes through `Store.transaction()`, which takes the
  store's one write lock up front (the backend's `begin`), allocates the transaction's
  sequence number and time, and either commits everything or nothing. Driver errors are
  translated at that boundary. SQL here and in every module above is written once, for
  both backends (the rules are in worlddb.core.backends).
- Records are immutable: the same node written twice is stored once. Node projection
  (validity, retirement, parent world, current version) is the only mutable state, and
  valid_to only ever tightens.
- Rows name nodes by rowid and hold edge ids as 32-byte BLOBs (worlddb.core.schema);
  callers name nodes by anchor. The SQL fragments below (NODE_COLUMNS, EDGE_COLUMNS,
  ROWID_OF, rowids_sql, inside_sql, within_sql) are how other modules read the layout; a
  list of anchors they take is bound with `list_params` (a long one as one JSON array).
- Reads return `NodeView`/`EdgeView` values. Bitemporal reads pin valid time (`as_of`)
  and/or transaction time (`known_at`); a node is visible at (as_of, known_at) when the
  store had ingested it by known_at and its validity interval, as known at known_at,
  contains as_of.
- A new file gets pages of schema.PAGE_SIZE bytes; a file keeps the page size it was
  created with.
- Page cache: `cache_mib` per connection (SQLite's own default is 2 MiB, far too little
  once indexes outgrow it). A transaction that turns out big (txn.BULK_NODES nodes
  written) raises it to `bulk_cache_mib` until it ends (then the Tx forgets what it knew of
  every node it wrote, and `return_free_memory()` hands the freed memory back to the OS): a bulk load inserts random
  keys (anchors, edge ids, member ids) into several indexes, and every index page it has
  to re-read from the OS costs a system call.
- A Store is used by one thread at a time (the async facade gives it a thread of its own).
  Several processes (and, on PostgreSQL, several servers) may open the same store; each
  sees the others' commits on its next read.
"""

from __future__ import annotations

import ctypes
import functools
import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from worlddb.core import backends, ids
from worlddb.core.errors import AmbiguousId, NotFound
from worlddb.core.records import Edge, EdgeView, Node, NodeView
from worlddb.core.schema import VECTOR_FROM
from worlddb.core.timeutil import now_us
from worlddb.core.txn import Tx

# ---------------------------------------------------------------------- SQL of the layout
# Other modules that must speak SQL read nodes and edges through these fragments, so that
# the layout (worlddb.core.schema) is known here. Callers name nodes by anchor; rowids stay
# inside the statements.

#: a node read with its record: `SELECT {NODE_COLUMNS} FROM {NODE_FROM} WHERE ...` (aliases
#: `n`, and `p` for the parent), turned into a NodeView by `node_view(row)`
NODE_COLUMNS = (
    "n.anchor, coalesce(n.version, n.anchor), n.type, n.name, n.valid_from, n.valid_to, n.created_at, "
    "n.t_ingested, p.anchor, n.retired_at, n.retire_reason, n.n_children, n.n_edges, n.record"
)
NODE_FROM = "nodes n LEFT JOIN nodes p ON p.rowid = n.parent"

#: an edge read with its ends' anchors: `SELECT {EDGE_COLUMNS} FROM {EDGE_FROM} WHERE ...`
#: (aliases `e`; `s`, `d`, `w` for the src, dst and world nodes), turned into an EdgeView
#: by `edge_view(row)`. Name the edge table's columns through `e.`: nodes share some names.
EDGE_COLUMNS = "e.id, e.type, s.anchor, d.anchor, w.anchor, e.props, e.t_added, e.t_removed, e.valid_from, e.valid_to"
EDGE_JOINS = "JOIN nodes s ON s.rowid = e.src JOIN nodes d ON d.rowid = e.dst LEFT JOIN nodes w ON w.rowid = e.world"
EDGE_FROM = f"edges e {EDGE_JOINS}"

#: the rowid of the node whose anchor is bound (NULL when there is none)
ROWID_OF = "(SELECT rowid FROM nodes WHERE anchor=?)"


#: how many nodes' rowids a Store keeps (Store.rowid)
ROWIDS_KEPT = 8192

#: a list bound to `IN (...)` of at most this many values takes one `?` per value; a longer
#: one is bound as a single JSON array (list_sql, list_params)
LIST_INLINE = 500


def list_sql(count: int) -> str:
    """The inside of `IN (...)` for a list of `count` values that `list_params` binds: one
    `?` each for a short list; for a longer one, the values of one JSON array
    (`SELECT value FROM json_each(?)`), so that a caller with thousands of scopes never
    meets the engine's cap on bound parameters (SQLite's SQLITE_MAX_VARIABLE_NUMBER,
    32,766 in a default build, far fewer in old ones). The PostgreSQL backend binds both
    forms as one array (`= ANY(%s)`)."""
    return ",".join("?" * count) if count <= LIST_INLINE else "SELECT value FROM json_each(?)"


def list_params(values: Iterable) -> list:
    """What `list_sql(len(values))` binds: the values, or one JSON array of them."""
    values = list(values)
    return values if len(values) <= LIST_INLINE else [json.dumps(values)]


def rowids_sql(count: int) -> str:
    """The rowids of the nodes whose `count` anchors are bound (`list_params(anchors)`):
    a subquery for `IN`."""
    return f"(SELECT rowid FROM nodes WHERE anchor IN ({list_sql(count)}))"


def inside_sql(node: str, n_worlds: int) -> str:
    """A condition on the nodes row aliased `node`: it lies inside one of `n_worlds` worlds
    (bind `list_params(worlds)` twice). The row's parent column names a world that currently
    contains it, so a direct child is settled from the row the query reads anyway; only a
    deeper node, or one whose first container let go of it, costs a closure lookup - a
    random page read in a large file."""
    worlds = rowids_sql(n_worlds)
    return (f"(+{node}.parent IN {worlds} OR EXISTS (SELECT 1 FROM closure c WHERE c.node = {node}.rowid "
            f"AND c.world IN {worlds}))")


def within_sql(anchor: str, n_worlds: int) -> str:
    """A condition: the node whose anchor is the SQL expression `anchor` (a column holding
    anchors, say) lies inside one of `n_worlds` worlds (bind `list_params(worlds)` once)."""
    return (f"EXISTS (SELECT 1 FROM closure c WHERE c.node = (SELECT rowid FROM nodes WHERE anchor = {anchor}) "
            f"AND c.world IN {rowids_sql(n_worlds)})")


def live_sql(pinned: bool, alias: str = "") -> str:
    """The condition that an edge row (aliased `alias`) is live: now, or when `pinned`, at
    a transaction time bound twice after it."""
    e = f"{alias}." if alias else ""
    return f"{e}t_added<=? AND ({e}t_removed IS NULL OR {e}t_removed>?)" if pinned else f"{e}seq_removed IS NULL"


def live_params(known_at: int | None) -> list[int]:
    """What `live_sql(known_at is not None)` binds."""
    return [] if known_at is None else [known_at, known_at]


def edge_key(edge_id: str) -> bytes:
    """How the edges table keys an edge id (a 64-hex id as its 32 bytes)."""
    return bytes.fromhex(edge_id)


@functools.lru_cache(maxsize=1024)
def scope_node(kind: str, sid: str) -> Node:
    """The genesis record of a scope world. A function of kind:id only, so every process
    derives the same anchor for "user:alice" without asking the database (made once per
    scope here: a Node is immutable)."""
    return Node(type="Scope", name=f"{kind}:{sid}", meta={"kind": kind, "id": sid}, created_at=0)


class Store:
    def __init__(self, conn, path: str, *, cache_mib: int = 64, bulk_cache_mib: int = 1024,
                 backend: backends.Backend | None = None):
        self.conn = conn
        self.path = path
        #: the database engine behind this store (worlddb.core.backends)
        self.backend: backends.Backend = backend if backend is not None else backends.for_target(path)
        self.cache_mib = cache_mib
        self.bulk_cache_mib = bulk_cache_mib
        self._bulk = False
        self._trim_due = False
        self.erase_hooks: list = []
        #: commits made through this connection (data_version only counts other connections')
        self.commits = 0
        #: (kind, sid) -> anchor of the scopes found committed. A scope, once made, is never
        #: unmade (its node row and its scopes row stay when its content is erased), so a scope
        #: found once is there for good; one made by a transaction still open is not kept here
        #: until a read after its commit finds it.
        self._scopes: dict[tuple[str, str], str] = {}
        #: anchor -> rowid of nodes found committed, for up to ROWIDS_KEPT nodes at a time: a
        #: node row is never deleted and its rowid never changes (INTEGER PRIMARY KEY), so what
        #: a read outside any write found, or a write that committed looked up or made, holds
        self._rowids: dict[str, int] = {}
        self._writing = False
        #: objects told about interior and vector changes inside each write transaction:
        #: on_child(tx, world, child, added) and on_vector(tx, anchor, kind, old, new), and
        #: on_seal(tx), if they have it, when the transaction seals (before its counts)
        self.observers: list = []

    @classmethod
    def open(cls, path: str | Path, *, synchronous: str = "FULL", timeout: float = 30.0, cache_mib: int = 64,
             bulk_cache_mib: int = 1024) -> Store:
        """Open (creating or migrating) the store at `path`: a SQLite file, ":memory:", or a
        postgresql:// URL (worlddb.core.backends)."""
        path = str(path)
        backend = backends.for_target(path)
        conn = backend.connect(path, timeout=timeout, synchronous=synchronous, cache_mib=cache_mib)
        return cls(conn, path, cache_mib=cache_mib, bulk_cache_mib=bulk_cache_mib, backend=backend)

    def close(self) -> None:
        self.backend.close(self.conn)

    @property
    def label(self) -> str:
        """The store's target as it may be shown (a URL without its password)."""
        return self.backend.display(self.path)

    # ------------------------------------------------------------------ transactions
    @contextmanager
    def transaction(self, kind: str = "write") -> Iterator[Tx]:
        conn, backend = self.conn, self.backend
        try:
            backend.begin(conn)
        except backend.Error as exc:
            backend.rollback(conn)
            raise backend.translate(exc) from exc
        tx = None
        self._writing = True
        try:
            last = conn.execute("SELECT seq, at FROM tx ORDER BY seq DESC LIMIT 1").fetchone()
            seq = (last[0] + 1) if last else 1
            at = max(now_us(), (last[1] + 1) if last else 0)
            conn.execute("INSERT INTO tx(seq, at, kind) VALUES (?,?,?)", (seq, at, kind))
            tx = Tx(self, seq, at)
            yield tx
            tx.seal()
            backend.commit(conn)
            self.commits += 1
            self._keep_rowids(tx.rowids())
        except backend.Error as exc:
            backend.rollback(conn)
            raise backend.translate(exc) from exc
        except BaseException:
            backend.rollback(conn)
            raise
        finally:
            self._writing = False
            if tx is not None:
                tx.release()
            if self._bulk:
                self._bulk = False
                backend.page_cache(conn, self.cache_mib)
                self._trim_due = True

    def return_free_memory(self) -> bool:
        """After a bulk transaction, hand the heap's free pages back to the OS (glibc's
        malloc_trim; a no-op elsewhere); returns whether one was due. The transaction's
        caller runs this once what it kept of the transaction is gone too (WorldDB.write
        does, after the commit's callbacks): trimming earlier returns only part of it."""
        if not self._trim_due:
            return False
        self._trim_due = False
        _return_free_memory()
        return True

    def enter_bulk(self) -> None:
        """Give the open transaction the bulk page cache (see the module docstring)."""
        if not self._bulk and self.bulk_cache_mib > self.cache_mib:
            self._bulk = True
            self.backend.page_cache(self.conn, self.bulk_cache_mib)

    def add_erase_hook(self, hook) -> None:
        """Register `hook(conn, anchor, rowid)`, called when a node's content is erased, so
        indexes kept outside the core tables (e.g. the resolver's names) forget it too."""
        self.erase_hooks.append(hook)

    # ------------------------------------------------------------------ node reads
    def get(self, anchor: str) -> NodeView | None:
        row = self.conn.execute(f"SELECT {NODE_COLUMNS} FROM {NODE_FROM} WHERE n.anchor=?", (anchor,)).fetchone()
        return node_view(row) if row else None

    def require(self, anchor: str) -> NodeView:
        view = self.get(anchor)
        if view is None:
            raise NotFound(f"no node has id {anchor}")
        return view

    def get_many(self, anchors: Iterable[str]) -> dict[str, NodeView]:
        out: dict[str, NodeView] = {}
        batch = list(dict.fromkeys(anchors))
        for start in range(0, len(batch), 500):
            chunk = batch[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT {NODE_COLUMNS} FROM {NODE_FROM} WHERE n.anchor IN ({marks})", chunk)
            for row in rows:
                out[row[0]] = node_view(row)
        return out

    def rowid(self, anchor: str) -> int | None:
        found = self._rowids.get(anchor)
        if found is not None:
            return found
        row = self.conn.execute("SELECT rowid FROM nodes WHERE anchor=?", (anchor,)).fetchone()
        if row is None:
            return None
        if not self._writing:  # a row the open write made is not committed yet
            self._keep_rowids({anchor: row[0]})
        return row[0]

    def _keep_rowids(self, found: dict[str, int]) -> None:
        if len(found) > ROWIDS_KEPT // 4:
            return  # a bulk write's nodes: too many to keep, and rarely read again one by one
        if len(self._rowids) + len(found) > ROWIDS_KEPT:
            self._rowids.clear()
        self._rowids.update(found)

    def anchors_for_rowids(self, rowids: Iterable[int]) -> dict[int, str]:
        batch = list(rowids)
        out: dict[int, str] = {}
        for start in range(0, len(batch), 500):
            chunk = batch[start : start + 500]
            rows = self.conn.execute(
                f"SELECT rowid, anchor FROM nodes WHERE rowid IN ({','.join('?' * len(chunk))})", chunk
            )
            out.update(rows)
        return out

    def resolve_id(self, text: str, *, within: Iterable[str] | None = None) -> str:
        """A full id or a unique prefix of >= 8 hex chars -> the node's anchor.

        Version ids of worlds resolve to their anchor, so an old version id still names
        the world it belonged to. With `within` (world anchors), only nodes inside those
        worlds count: a prefix is unique or ambiguous among them alone, and nodes outside
        are neither found nor named in the error."""
        prefix = ids.check_prefix(text)
        upper = prefix + "g"
        inside, params = "", []
        if within is not None:
            worlds = list(within)
            if not worlds:
                raise NotFound(f"no node has an id starting with {prefix}")
            inside = (" AND anchor IN (SELECT n.anchor FROM closure c JOIN nodes n ON n.rowid = c.node "
                      f"WHERE c.world IN {rowids_sql(len(worlds))})")
            params = list_params(worlds)
        found = [r[0] for r in self.conn.execute(
            f"SELECT anchor FROM nodes WHERE anchor>=? AND anchor<?{inside} LIMIT 11", (prefix, upper, *params))]
        if not found:
            found = [r[0] for r in self.conn.execute(
                f"SELECT DISTINCT anchor FROM versions WHERE id>=? AND id<?{inside} LIMIT 11",
                (prefix, upper, *params))]
        if not found:
            raise NotFound(f"no node has an id starting with {prefix}")
        if len(found) > 1:
            raise AmbiguousId(prefix, found)
        return found[0]

    def valid_to_known_at(self, anchor: str, known_at: int) -> int | None:
        """valid_to as the store knew it at transaction time `known_at`: the earliest end of the
        closures recorded by then and not withdrawn by then."""
        row = self.conn.execute(
            "SELECT min(v.valid_to) FROM validity_log v JOIN tx ON tx.seq = v.seq WHERE v.anchor=? AND tx.at<=? "
            "AND NOT EXISTS (SELECT 1 FROM tx w WHERE w.seq = v.seq_withdrawn AND w.at<=?)",
            (anchor, known_at, known_at),
        ).fetchone()
        return row[0]

    def as_known(self, view: NodeView, known_at: int | None) -> NodeView | None:
        """The view as it stood at transaction time `known_at`, or None if not yet ingested."""
        if known_at is None:
            return view
        if view.t_ingested > known_at:
            return None
        retired = view.retired_at is not None and view.retired_at <= known_at
        return replace(
            view,
            valid_to=self.valid_to_known_at(view.anchor, known_at),
            retired_at=view.retired_at if retired else None,
            retire_reason=view.retire_reason if retired else None,
        )

    def visible(self, view: NodeView, as_of: int | None, known_at: int | None, include_closed: bool) -> NodeView | None:
        """Apply a bitemporal pin to one node; None when it must not be shown. Unpinned in valid
        time (`as_of` None), a node is shown as of now (or `known_at`): not closed by then, and
        begun by then - one whose valid time starts later is not true yet. `include_closed`
        shows what was closed by then too, but never, pinned to `as_of`, what began after it."""
        seen = self.as_known(view, known_at)
        if seen is None:
            return None
        if include_closed:
            return seen if as_of is None or seen.valid_from <= as_of else None
        if as_of is None:
            now = known_at if known_at is not None else now_us()
            return seen if (seen.valid_to is None or seen.valid_to > now) and seen.valid_from <= now else None
        return seen if seen.valid_at(as_of) else None

    # ------------------------------------------------------------------ worlds
    def children(self, world: str) -> list[str]:
        """Anchors of the world's current children, in the order of their version ids."""
        rows = self.conn.execute(
            "SELECT DISTINCT d.anchor, coalesce(d.version, d.anchor) AS v FROM edges e JOIN nodes d ON d.rowid = e.dst "
            f"WHERE e.src = {ROWID_OF} AND e.type='contains' AND e.seq_removed IS NULL ORDER BY v", (world,))
        return [row[0] for row in rows]

    def parents(self, anchor: str) -> list[str]:
        rows = self.conn.execute(
            f"SELECT s.anchor FROM edges e JOIN nodes s ON s.rowid = e.src WHERE e.dst = {ROWID_OF} "
            "AND e.type='contains' AND e.seq_removed IS NULL ORDER BY e.rowid", (anchor,))
        return [row[0] for row in rows]

    def ancestors(self, anchor: str) -> list[str]:
        rows = self.conn.execute(
            f"SELECT w.anchor FROM closure c JOIN nodes w ON w.rowid = c.world WHERE c.node = {ROWID_OF}", (anchor,))
        return [row[0] for row in rows]

    def in_worlds(self, worlds: Iterable[str], anchors: Iterable[str]) -> set[str]:
        """Which of `anchors` lie (transitively) inside any of `worlds`."""
        worlds = list(worlds)
        batch = list(anchors)
        out: set[str] = set()
        for start in range(0, len(batch), 400):
            chunk = batch[start : start + 400]
            rows = self.conn.execute(
                f"SELECT DISTINCT n.anchor FROM closure c JOIN nodes n ON n.rowid = c.node "
                f"WHERE c.world IN {rowids_sql(len(worlds))} AND c.node IN {rowids_sql(len(chunk))}",
                list_params(worlds) + list_params(chunk),
            )
            out.update(row[0] for row in rows)
        return out

    def versions(self, anchor: str) -> list[tuple[int, str]]:
        rows = self.conn.execute("SELECT seq, id FROM versions WHERE anchor=? ORDER BY seq", (anchor,))
        return list(rows)

    # ------------------------------------------------------------------ edge reads
    def edges(
        self,
        *,
        src: str | None = None,
        dst: str | None = None,
        type: str | None = None,
        known_at: int | None = None,
    ) -> list[EdgeView]:
        """Edges matching the given ends/type that were live at `known_at` (None: now)."""
        clauses, params = [], []
        for column, value in (("e.src", src), ("e.dst", dst)):
            if value is not None:
                clauses.append(f"{column} = {ROWID_OF}")
                params.append(value)
        if type is not None:
            clauses.append("e.type=?")
            params.append(type)
        clauses.append(live_sql(known_at is not None, "e"))
        params += live_params(known_at)
        where = " AND ".join(clauses)
        rows = self.conn.execute(f"SELECT {EDGE_COLUMNS} FROM {EDGE_FROM} WHERE {where} ORDER BY e.rowid", params)
        return [edge_view(row) for row in rows]

    def edges_added_after(self, seq: int) -> list[EdgeView]:
        """Every edge row written by a transaction after `seq`, removed since or not, in
        the order they were written."""
        rows = self.conn.execute(f"SELECT {EDGE_COLUMNS} FROM {EDGE_FROM} WHERE e.seq_added > ? ORDER BY e.rowid",
                                 (seq,))
        return [edge_view(row) for row in rows]

    def ends(self, anchor: str, edge_type: str, direction: str = "out", known_at: int | None = None, *,
             node_type: str | None = None, name: str | None = None) -> list[str]:
        """The other ends of `anchor`'s edges of one type - columns only, no record parsing,
        for hot read paths. direction: "out" (anchor is src), "in", or "both"; `node_type`
        and `name` keep only the ends of that type and name (a subject's facts of one relation
        among the hundreds of memories that name it)."""
        live, params = live_sql(known_at is not None, "e"), live_params(known_at)
        kept, kept_params = "", []
        for column, value in (("o.type", node_type), ("o.name", name)):
            if value is not None:
                kept += f" AND {column}=?"
                kept_params.append(value)
        out: list[str] = []
        for wanted, end, near in (("out", "dst", "src"), ("in", "src", "dst")):
            if direction in (wanted, "both"):
                out += [r[0] for r in self.conn.execute(
                    f"SELECT o.anchor FROM edges e JOIN nodes o ON o.rowid = e.{end} WHERE e.{near} = {ROWID_OF} "
                    f"AND e.type=? AND {live}{kept} ORDER BY e.rowid", [anchor, edge_type, *params, *kept_params])]
        return out

    def sources(self, anchors: Iterable[str], edge_type: str, *, node_type: str | None = None) -> dict[str, list[str]]:
        """For each of `anchors` that has any, the src anchors of its live incoming edges of one
        type (of `node_type` only, if given), in the order the edges were written: `ends(...,
        "in")` for many nodes in one statement."""
        batch = list(dict.fromkeys(anchors))
        if not batch:
            return {}
        # (o.type || '') keeps SQLite off the type index, which would start from every node of the type
        kept, params = (" AND (o.type || '')=?", [node_type]) if node_type is not None else ("", [])
        rows = self.conn.execute(
            f"SELECT d.anchor, o.anchor FROM edges e JOIN nodes d ON d.rowid = e.dst JOIN nodes o ON o.rowid = e.src "
            f"WHERE e.dst IN {rowids_sql(len(batch))} AND e.type=? AND {live_sql(False, 'e')}{kept} ORDER BY e.rowid",
            [*list_params(batch), edge_type, *live_params(None), *params])
        out: dict[str, list[str]] = {}
        for dst, src in rows:
            out.setdefault(dst, []).append(src)
        return out

    def names(self, anchors: Iterable[str], node_type: str) -> list[str]:
        """Names of those of `anchors` that are of `node_type` (no record parsing)."""
        batch = list(anchors)
        if not batch:
            return []
        rows = self.conn.execute(
            f"SELECT name FROM nodes WHERE anchor IN ({','.join('?' * len(batch))}) AND type=?", (*batch, node_type))
        return [row[0] for row in rows]

    def edge(self, edge_id: str) -> EdgeView | None:
        """The edge with this id: its live row, else its latest removed one."""
        if not ids.is_full_id(edge_id):
            return None
        row = self.conn.execute(
            f"SELECT {EDGE_COLUMNS} FROM {EDGE_FROM} WHERE e.id=? ORDER BY e.seq_removed IS NULL DESC, e.rowid DESC "
            "LIMIT 1", (edge_key(edge_id),)).fetchone()
        return edge_view(row) if row else None

    # ------------------------------------------------------------------ vectors
    def vector(self, anchor: str, kind: int, ord: int = 0) -> bytes | None:
        """A node's stored vector of `kind` (and sentence ordinal), or None."""
        row = self.conn.execute(
            f"SELECT d.vec FROM {VECTOR_FROM} JOIN nodes n ON n.rowid = v.node WHERE n.anchor=? AND v.kind=? "
            "AND v.ord=?", (anchor, kind, ord)).fetchone()
        return row[0] if row else None

    def vectors(self, rowids: Iterable[int], kind: int) -> dict[int, bytes]:
        """Node rowid -> its stored vector of `kind` (ordinal 0), for those that have one."""
        batch = list(rowids)
        out: dict[int, bytes] = {}
        for start in range(0, len(batch), 500):
            chunk = batch[start:start + 500]
            rows = self.conn.execute(
                f"SELECT v.node, d.vec FROM {VECTOR_FROM} WHERE v.kind=? AND v.ord=0 AND d.vec IS NOT NULL "
                f"AND v.node IN ({','.join('?' * len(chunk))})", (kind, *chunk))
            out.update(rows)
        return out

    def scope_anchor(self, kind: str, sid: str) -> str | None:
        found = self._scopes.get((kind, sid))
        if found is not None:
            return found
        row = self.conn.execute("SELECT anchor FROM scopes WHERE kind=? AND sid=?", (kind, sid)).fetchone()
        if row is None:
            return None
        if not self._writing:
            self._scopes[(kind, sid)] = row[0]
        return row[0]

    def committed_scope(self, kind: str, sid: str) -> str | None:
        """The anchor of scope kind:sid if a read outside any write found it (so it exists for
        good); None says nothing (it may exist all the same)."""
        return self._scopes.get((kind, sid))

    def meta_get(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def last_seq(self) -> int:
        row = self.conn.execute("SELECT max(seq) FROM tx").fetchone()
        return row[0] or 0

    def data_version(self) -> tuple[object, int]:
        """Changes whenever anyone - another connection or this one - commits; cheap to
        poll before a read (the backend's change token, with this connection's own commits:
        SQLite's data_version alone ignores them)."""
        return self.backend.change_token(self.conn), self.commits


def _return_free_memory() -> None:
    """Hand the heap's free pages back to the OS after a bulk transaction (glibc only; a
    no-op elsewhere). Shrinking the page cache frees hundreds of MiB of small blocks, which
    malloc otherwise keeps, so the process would stay at the size of its largest load."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None  # not glibc (musl has no malloc_trim)


#: a record as stored is canonical JSON in UTF-8 (ids.genesis_record), which json.loads would
#: decode after guessing its encoding from its first bytes; read on every node a query returns
_decode = json.JSONDecoder().decode


def node_view(row: tuple) -> NodeView:
    """The NodeView of a row read with NODE_COLUMNS."""
    record = row[13]
    if record is None:
        content, meta, prov, erased = None, {}, {}, True
    else:
        fields = _decode(record.decode("utf-8", "surrogatepass")) if type(record) is bytes and \
            record[:2] == b'{"' else json.loads(record)
        content, meta, prov, erased = fields["content"], fields["meta"], fields["prov"], False
    return NodeView(
        anchor=row[0],
        version=row[1],
        type=row[2],
        name=row[3],
        content=content,
        meta=meta,
        provenance=prov,
        created_at=row[6],
        valid_from=row[4],
        valid_to=row[5],
        t_ingested=row[7],
        parent=row[8],
        retired_at=row[9],
        retire_reason=row[10],
        n_children=row[11],
        n_edges=row[12],
        erased=erased,
    )


def edge_view(row: tuple) -> EdgeView:
    """The EdgeView of a row read with EDGE_COLUMNS."""
    return EdgeView(edge=Edge.stored(row[0], row[1], row[2], row[3], row[4], row[5]), t_added=row[6],
                    t_removed=row[7], valid_from=row[8], valid_to=row[9])
