"""verify(): re-derive every id from the stored bytes and every world version from its interior.

Checks, each reported as a `Mismatch` rather than raised:
  blob        blake3 of a stored node record must equal the id it is stored under
  edge        blake3 of a stored edge record must equal its id; its columns must match it
  projection  every node row points at a stored record whose type/name match it; valid_to
              equals the tightest logged closing
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

from dataclasses import dataclass, field

from worlddb.core import ids, trie
from worlddb.core.records import Edge
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
    for blob_id, body, erased_at in conn.execute("SELECT id, body, erased_at FROM blobs"):
        report.blobs += 1
        if body is None:
            report.erased += 1
            if erased_at is None:
                report.mismatches.append(Mismatch("blob", blob_id, "body missing but not marked erased"))
            continue
        derived = ids.node_id(_bytes(body))
        if derived != blob_id:
            report.mismatches.append(Mismatch("blob", blob_id, f"stored bytes hash to {derived}"))


def _check_edges(conn, report: VerifyReport) -> None:
    for edge_id, etype, src, dst, world, body in conn.execute("SELECT id, type, src, dst, world, body FROM edges"):
        report.edges += 1
        derived = ids.edge_id(_bytes(body))
        if derived != edge_id:
            report.mismatches.append(Mismatch("edge", edge_id, f"stored bytes hash to {derived}"))
            continue
        edge = Edge.from_body(_bytes(body))
        if (edge.type, edge.src, edge.dst, edge.world) != (etype, src, dst, world):
            report.mismatches.append(Mismatch("edge", edge_id, "row columns disagree with the stored record"))


def _bytes(value) -> bytes:
    # A tampered row may hold TEXT where a BLOB belongs; hash what is there, as bytes.
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else bytes(value)


def _check_projection(conn, report: VerifyReport) -> None:
    import json

    rows = conn.execute(
        "SELECT n.anchor, n.type, n.name, n.valid_to, b.body, b.id IS NULL, "
        "(SELECT min(valid_to) FROM validity_log v WHERE v.anchor = n.anchor) "
        "FROM nodes n LEFT JOIN blobs b ON b.id = n.anchor"
    )
    for anchor, ntype, name, valid_to, body, missing, logged in rows:
        report.nodes += 1
        if missing:
            report.mismatches.append(Mismatch("projection", anchor, "node has no stored record"))
            continue
        if body is not None:
            record = json.loads(body)
            if record["type"] != ntype or record["name"] != name:
                report.mismatches.append(Mismatch("projection", anchor, "type or name disagrees with the record"))
        if valid_to != logged:
            report.mismatches.append(
                Mismatch("projection", anchor, f"valid_to {valid_to} but the validity log says {logged}")
            )


def _check_worlds(conn, report: VerifyReport) -> None:
    worlds = [row[0] for row in conn.execute(
        "SELECT DISTINCT world FROM member_log UNION SELECT DISTINCT anchor FROM versions")]
    for world in worlds:
        report.worlds += 1
        _replay_world(conn, world, report)


def _replay_world(conn, world: str, report: VerifyReport) -> None:
    genesis_row = conn.execute("SELECT body, erased_at FROM blobs WHERE id=?", (world,)).fetchone()
    genesis = _bytes(genesis_row[0]) if genesis_row and genesis_row[0] is not None else None
    # versions recorded from the erasing transaction on are named from their predecessor
    erased_seq = None
    if genesis_row is not None and genesis_row[1] is not None:
        found = conn.execute("SELECT seq FROM tx WHERE at=?", (genesis_row[1],)).fetchone()
        erased_seq = found[0] if found else 0
    sets = (trie.MemoryTrieStore(), trie.MemoryTrieStore())
    log = conn.execute("SELECT seq, kind, key, op FROM member_log WHERE world=? ORDER BY seq, rowid", (world,))
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
        applied = sets[kind].add_member(key) if op > 0 else sets[kind].remove_member(key)
        if not applied:
            report.mismatches.append(Mismatch("interior", world, f"membership log op {op:+d} on {key} does not apply"))
    while pending is not None:
        last_id = check_version(pending, last_id)
        pending = next(versions, None)

    for kind in (0, 1):
        live = [row[0] for row in conn.execute(
            "SELECT key FROM members WHERE world=? AND kind=? ORDER BY key", (world, kind))]
        if live != sets[kind].members(""):
            report.mismatches.append(Mismatch("interior", world, f"live members (kind {kind}) differ from the log"))
        stored = trie.SqlTrieStore(conn, world, kind).node("")
        if (stored or (ids.EMPTY_ROOT, 0)) != trie.root(sets[kind]):
            report.mismatches.append(Mismatch("interior", world, f"live trie root (kind {kind}) is wrong"))
    current = conn.execute("SELECT version FROM nodes WHERE anchor=?", (world,)).fetchone()
    if current is None or current[0] != last_id:
        report.mismatches.append(Mismatch("interior", world, "current version is not the last recorded version"))
