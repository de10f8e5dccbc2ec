"""verify(): re-derive every id from the stored bytes and every world version from its interior.

Checks, each reported as a `Mismatch` rather than raised:
  blob        blake3 of a node's stored genesis record (ids.genesis_body of `record`) must
              equal its anchor
  edge        blake3 of the edge record its row's columns make (type, ends, world, props)
              must equal its id, and its ends must be nodes (a same_as edge with an erased
              end has lost its props, the evidence it quoted: it is counted, not derived)
  projection  every node row's type/name match its record, and it has a record unless it
              is marked erased; valid_to equals the tightest logged closing
  version     replaying a world's membership history through the Merkle trie must give
              the roots recorded for every version, and each version id must re-derive
              from the genesis record with those roots (once the record is erased, from
              the version before it with those roots: ids.erased_version_id)
  interior    the replayed final interior must equal the live members, the live trie root,
              and the node's current version
  vector      every vector row names stored bytes or none (cleared), bytes are named only by
              rows of one node (so clearing that node's rows frees them), and no bytes are
              left that no row names (an erased vector must not outlive its rows)
  snapshot    an HNSW snapshot beside the file (worlddb.vectors.hnsw_snapshots) must hash to the digests
              its header names and stand for this file's history, and the index loaded
              from it, caught up, must hold exactly the nodes with stored vectors
Erased content leaves tombstones (an id without a body): those are counted, not flagged,
because every hash that mentions them still verifies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from worlddb.core import ids, trie
from worlddb.core.records import ERASED_PROPS
from worlddb.core.store import Store
from worlddb.vectors import hnsw_snapshots
from worlddb.vectors.hnsw import AnnIndex


@dataclass(frozen=True)
class Mismatch:
    kind: str
    id: str
    detail: str


@dataclass
class VerifyReport:
    blobs: int = 0
    erased: int = 0
    edges: int = 0
    nodes: int = 0
    worlds: int = 0
    versions: int = 0
    vectors: int = 0
    snapshots: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def summary(self) -> dict:
        return {
            "ok": self.ok,
            "blobs": self.blobs,
            "erased": self.erased,
            "edges": self.edges,
            "nodes": self.nodes,
            "worlds": self.worlds,
            "versions": self.versions,
            "vectors": self.vectors,
            "snapshots": self.snapshots,
            "mismatches": len(self.mismatches),
        }


def verify(store: Store) -> VerifyReport:
    report = VerifyReport()
    conn = store.conn
    _check_blobs(conn, report)
    _check_edges(conn, report)
    _check_projection(conn, report)
    _check_worlds(conn, report)
    _check_vectors(conn, report)
    _check_snapshots(store, report)
    return report


def _check_vectors(conn, report: VerifyReport) -> None:
    report.vectors = conn.execute("SELECT count(*) FROM vector_data").fetchone()[0]
    for (label,) in conn.execute("SELECT v.id FROM vectors v LEFT JOIN vector_data d ON d.id = v.data "
                                 "WHERE v.data IS NOT NULL AND d.id IS NULL"):
        report.mismatches.append(Mismatch("vector", str(label), "the vector row names bytes that are not stored"))
    for (data,) in conn.execute("SELECT data FROM vectors WHERE data IS NOT NULL GROUP BY data "
                                "HAVING count(DISTINCT node) > 1"):
        report.mismatches.append(Mismatch("vector", str(data), "stored bytes are named by rows of several nodes"))
    for (data,) in conn.execute("SELECT id FROM vector_data WHERE id NOT IN "
                                "(SELECT data FROM vectors WHERE data IS NOT NULL)"):
        report.mismatches.append(Mismatch("vector", str(data), "stored bytes that no vector row names"))


def _check_snapshots(store: Store, report: VerifyReport) -> None:
    directory = hnsw_snapshots.directory_for(store.path)
    if directory is None:
        return
    for kind, name in hnsw_snapshots.KIND_NAMES.items():
        if hnsw_snapshots.read_header(directory, kind) is None:
            continue
        report.snapshots += 1
        index = AnnIndex(store, kind, snapshots=directory)
        if not index.load_snapshot():  # never a build from SQL here: minutes at a million nodes
            report.mismatches.append(Mismatch(
                "snapshot", name, f"the {name} HNSW snapshot in {directory} is altered, incomplete or of another "
                                  "history; it is not used, and the next server start replaces it"))
            continue
        index.sync()
        stored = {row[0] for row in store.conn.execute(
            "SELECT DISTINCT node FROM vectors WHERE kind=? AND data IS NOT NULL", (kind,))}
        if index.nodes() != stored:
            report.mismatches.append(Mismatch(
                "snapshot", name, f"the {name} index loaded from its snapshot differs from the stored vectors "
                                  f"in {len(index.nodes() ^ stored)} nodes after catching up"))


def _check_blobs(conn, report: VerifyReport) -> None:
    for anchor, record, erased_at in conn.execute("SELECT anchor, record, erased_at FROM nodes"):
        report.blobs += 1
        if record is None:
            report.erased += 1
            if erased_at is None:
                report.mismatches.append(Mismatch("blob", anchor, "record missing but not marked erased"))
            continue
        derived = ids.node_id(ids.genesis_body(_bytes(record)))
        if derived != anchor:
            report.mismatches.append(Mismatch("blob", anchor, f"stored bytes hash to {derived}"))


def _check_edges(conn, report: VerifyReport) -> None:
    rows = conn.execute(
        "SELECT e.id, e.type, s.anchor, d.anchor, e.world, w.anchor, e.props, "
        "s.record IS NULL OR d.record IS NULL FROM edges e "
        "LEFT JOIN nodes s ON s.rowid = e.src LEFT JOIN nodes d ON d.rowid = e.dst "
        "LEFT JOIN nodes w ON w.rowid = e.world")
    for key, etype, src, dst, world_row, world, props, end_erased in rows:
        report.edges += 1
        edge_id = _bytes(key).hex()
        if src is None or dst is None or (world_row is not None and world is None):
            report.mismatches.append(Mismatch("edge", edge_id, "an end or the world of the edge is not a node"))
            continue
        if props == ERASED_PROPS and etype == "same_as" and end_erased:
            continue  # its evidence went with the erased end (Tx.erase_node): a tombstone
        body = ids.edge_body_of(type=str(etype), src=src, dst=dst, world=world, props_json=props or "{}")
        derived = ids.edge_id(body)
        if derived != edge_id:
            report.mismatches.append(Mismatch("edge", edge_id, f"the row's record hashes to {derived}"))


def _bytes(value) -> bytes:
    # A tampered row may hold TEXT where a BLOB belongs; hash what is there, as bytes.
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else bytes(value)


def _check_projection(conn, report: VerifyReport) -> None:
    rows = conn.execute(
        "SELECT n.anchor, n.type, n.name, n.valid_to, n.record, "
        "(SELECT min(valid_to) FROM validity_log v WHERE v.anchor = n.anchor AND v.seq_withdrawn IS NULL) FROM nodes n"
    )
    for anchor, ntype, name, valid_to, stored, logged in rows:
        report.nodes += 1
        if stored is not None:
            try:
                record = json.loads(_bytes(stored))
                agrees = record["type"] == ntype and record["name"] == name
            except (ValueError, TypeError, KeyError):
                agrees = False
            if not agrees:
                report.mismatches.append(Mismatch("projection", anchor, "type or name disagrees with the record"))
        if valid_to != logged:
            report.mismatches.append(
                Mismatch("projection", anchor, f"valid_to {valid_to} but the validity log says {logged}")
            )


def _check_worlds(conn, report: VerifyReport) -> None:
    rows = conn.execute(
        "SELECT w.world, n.anchor FROM (SELECT DISTINCT world FROM member_log UNION "
        "SELECT n.rowid FROM versions v JOIN nodes n ON n.anchor = v.anchor) w LEFT JOIN nodes n ON n.rowid = w.world "
        "ORDER BY w.world").fetchall()
    for world_row, world in rows:
        report.worlds += 1
        if world is None:
            report.mismatches.append(Mismatch("interior", str(world_row), "an interior belongs to no node"))
            continue
        _replay_world(conn, world_row, world, report)
    orphans = conn.execute("SELECT DISTINCT anchor FROM versions WHERE anchor NOT IN (SELECT anchor FROM nodes)")
    for (anchor,) in orphans:
        report.mismatches.append(Mismatch("version", anchor, "versions of a node that does not exist"))


def _replay_world(conn, world_row: int, world: str, report: VerifyReport) -> None:
    genesis_row = conn.execute("SELECT record, erased_at FROM nodes WHERE rowid=?", (world_row,)).fetchone()
    genesis = _bytes(genesis_row[0]) if genesis_row and genesis_row[0] is not None else None
    # versions recorded from the erasing transaction on are named from their predecessor
    erased_seq = None
    if genesis_row is not None and genesis_row[1] is not None:
        found = conn.execute("SELECT seq FROM tx WHERE at=?", (genesis_row[1],)).fetchone()
        erased_seq = found[0] if found else 0
    sets = (trie.MemoryTrieStore(), trie.MemoryTrieStore())
    log = conn.execute("SELECT seq, kind, key, op FROM member_log WHERE world=? ORDER BY seq, rowid", (world_row,))
    versions = iter(conn.execute(
        "SELECT seq, id, children_root, n_children, edges_root, n_edges FROM versions WHERE anchor=? ORDER BY seq",
        (world,)).fetchall())
    pending = next(versions, None)
    last_id = world

    def check_version(version, previous: str) -> str:
        seq, vid, c_root, n_c, e_root, n_e = version
        report.versions += 1
        got_c, got_e = trie.root(sets[0]), trie.root(sets[1])
        if (bytes(c_root), n_c) != got_c or (bytes(e_root), n_e) != got_e:
            report.mismatches.append(Mismatch("version", vid, f"interior of {world} at seq {seq} does not replay"))
            return vid
        if erased_seq is not None and seq >= erased_seq:
            derived = ids.erased_version_id(previous, got_c[0].hex(), got_c[1], got_e[0].hex(), got_e[1])
        elif genesis is not None:
            derived = ids.node_id(ids.with_interior(genesis, got_c[0].hex(), got_c[1], got_e[0].hex(), got_e[1]))
        else:
            return vid  # recorded before the erasure: its record is gone, so it cannot re-derive
        if derived != vid:
            report.mismatches.append(Mismatch("version", vid, f"version of {world} at seq {seq} does not re-derive"))
        return vid

    for seq, kind, key, op in log:
        while pending is not None and pending[0] < seq:
            last_id = check_version(pending, last_id)
            pending = next(versions, None)
        key = _bytes(key).hex()
        applied = sets[kind].add_member(key) if op > 0 else sets[kind].remove_member(key)
        if not applied:
            report.mismatches.append(Mismatch("interior", world, f"membership log op {op:+d} on {key} does not apply"))
    while pending is not None:
        last_id = check_version(pending, last_id)
        pending = next(versions, None)

    for kind in (0, 1):
        live = [_bytes(row[0]).hex() for row in conn.execute(
            "SELECT key FROM members WHERE world=? AND kind=? ORDER BY key", (world_row, kind))]
        if live != sets[kind].members(""):
            report.mismatches.append(Mismatch("interior", world, f"live members (kind {kind}) differ from the log"))
        stored = trie.SqlTrieStore(conn, world_row, kind).node("")
        if (stored or (ids.EMPTY_ROOT, 0)) != trie.root(sets[kind]):
            report.mismatches.append(Mismatch("interior", world, f"live trie root (kind {kind}) is wrong"))
    current = conn.execute("SELECT coalesce(version, anchor) FROM nodes WHERE rowid=?", (world_row,)).fetchone()
    if current is None or current[0] != last_id:
        report.mismatches.append(Mismatch("interior", world, "current version is not the last recorded version"))
