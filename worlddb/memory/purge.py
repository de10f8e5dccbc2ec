"""memory_purge_scope: retire a scope and everything in it; with erase, remove its content.

Retiring closes the validity of every memory, turn, summary, fact and entity that belongs
to this scope alone, and of the scope world itself: nothing is returned by default any
more, but the history stays readable with include_retired. A node shared with another
scope is not retired - that would take it from the other scope too; the scope lets go of
it instead (its contains edge is removed, and so are those of the scope's topic worlds,
which index the scope and nothing else), so it stays current where else it belongs.

Erasing additionally removes, for every node that belongs to this scope *alone*, its
text from the blob (the id stays as a tombstone, so every hash that mentions it still
verifies), its FTS entry, its vectors (and so its ANN entry) and names held in side
indexes. Nodes shared with another scope keep their content (the scope only lets go
of them). `erased` counts what this call erased: a node erased before (by an earlier purge
of the scope) is not counted again, so purging an erased scope a second time reports 0. To
make sure the bytes are gone from storage, not just unreachable, the erase runs inside the
backend's `erasing` and is followed by its `compact` (worlddb.core.backends): on SQLite,
secure_delete, then the write-ahead log checkpointed into the file and truncated, the FTS
index merged, a vacuum, and the log truncated again; on PostgreSQL, VACUUM FULL of the
tables that held the content (what remains in the WAL is said in
worlddb.core.backends.postgres). Compaction needs free disk space. When it fails after the
erase has committed, the error says so - the scope is purged, but erased text may remain in
unused parts of the store - and running the same purge again, once there is space, finishes
the job.
"""

from __future__ import annotations

from contextlib import nullcontext

from worlddb.consolidator.topics import is_topic
from worlddb.core.errors import StorageError
from worlddb.core.records import MEMORY_TYPES, Edge
from worlddb.core.store import ROWID_OF
from worlddb.core.timeutil import now_us
from worlddb.memory.results import PurgeResult
from worlddb.memory.scopes import scope_key, unknown_scope
from worlddb.memory.services import Services
from worlddb.memory.succession import holds_at


def purge(services: Services, kind: str, sid: str, *, erase: bool) -> PurgeResult:
    store = services.store
    anchor = store.scope_anchor(kind, sid)
    if anchor is None:
        raise unknown_scope(scope_key(kind, sid))
    members = [row[0] for row in store.conn.execute(
        f"SELECT n.anchor FROM closure c JOIN nodes n ON n.rowid = c.node WHERE c.world = {ROWID_OF} "
        "ORDER BY n.rowid", (anchor,))]
    scopes = {row[0] for row in store.conn.execute("SELECT anchor FROM scopes")}
    alone, shared = [], 0
    for node in members:
        others = [w for w in store.ancestors(node) if w in scopes and w != anchor]
        if others:
            shared += 1
        else:
            alone.append(node)
    retired = erased = 0
    now = now_us()  # a memory a planned change ends later is current now, and counted
    backend = store.backend
    with backend.erasing(store.conn) if erase else nullcontext():
        with services.db.write("purge") as w:
            held = set(alone)
            for node in alone:
                view = store.get(node)
                # counted when this call erases it: a purge run again erases it again (its
                # tombstone stays a tombstone) but reports it no more
                erased += int(erase and not view.erased)
                if view.retired_at is None and view.type != "Scope":
                    closed = w.retire(node, "scope purged")
                    retired += int(closed and view.type in MEMORY_TYPES and holds_at(view, now))
                if is_topic(view) and view.meta.get("scope") == anchor:
                    # a topic is an index over the scope: it lets go of what another scope shares
                    for child in store.ends(node, "contains", "out"):
                        if child not in held:
                            w.unlink(Edge("contains", node, child))
            for child in store.ends(anchor, "contains", "out"):
                if child not in alone:
                    w.unlink(Edge("contains", anchor, child))
            w.retire(anchor, "scope purged")
            if erase:
                for node in alone:
                    w.erase(node)
        if erase:
            try:
                backend.compact(store.conn)
            except backend.Error as exc:
                where = "the file" if backend.name == "sqlite" else "the database"
                raise StorageError(
                    f"{scope_key(kind, sid)} was purged and {erased} items erased, but compacting {where} "
                    f"failed ({exc}); erased text may remain in unused parts of {where} until this purge is "
                    "run again with erase=true") from exc
    return PurgeResult(scope=scope_key(kind, sid), retired=retired, erased=erased, kept_shared=shared)

