"""Whole-store consistency checks: what "nothing half-written" means for a WorldDB file.

`check(path)` opens the file (which also runs SQLite's crash recovery on it) and returns a
`Report` listing every broken invariant; an empty list means the file is whole. It is
what the crash, concurrency and storage-error tests and the long-running scripts in
bench/ (crash, soak) assert after each run, together with the id-level `verify`.

Checked, beyond `PRAGMA integrity_check`, the FTS5 index's own integrity check and
worlddb.graph.verify (ids and world versions re-derive from the stored bytes):
  scope       every node except Scope worlds lies inside some Scope world (a memory is
              never written without its scope membership)
  index       every live (not erased) Memory/Turn/Summary node has its FTS row, its
              content and effective vectors and at least one sentence-unit vector
  contains    every live contains edge has its interior member row and its closure
              row, and every interior member row has a live contains edge
  supersedes  the target of every supersedes edge is closed at or before the source
              starts (the edge never lands without its handler's effect)
  same_as     every same_as edge has its merge proposal
  edges       both ends of every edge exist; derived_from starts at a Fact
  amend       a memory written by memory_amend has its supersedes edge
  validity    valid_to >= valid_from, and a retired node is closed
  ann         a fresh in-memory HNSW index built from SQL (and, if given, an index kept
              open across the writes) holds exactly the nodes that have stored vectors;
              verify checks an index loaded from the file's snapshots the same way

On PostgreSQL (a postgresql:// target) the SQLite and FTS5 integrity checks and the ann
check (the vectors are searched by pgvector's index in the database) do not apply; the
row checks and verify run as on a file.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

TEXT_TYPES = ("Memory", "Turn", "Summary")


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, kind: str, detail: str) -> None:
        if len(self.problems) < 200:
            self.problems.append(f"{kind}: {detail}")

    def __str__(self) -> str:
        return "\n".join(self.problems) if self.problems else "ok"


def check(path: str | Path, *, ann_indexes=()) -> Report:
    """Every invariant above, on the file at `path`. `ann_indexes`: AnnIndex objects kept
    open by a long-lived process on this file; each is synced and compared with SQL."""
    from worlddb.core.backends import is_url
    from worlddb.core.store import Store
    from worlddb.graph.verify import verify

    report = Report()
    on_pg = is_url(str(path))
    raw = None if on_pg else sqlite3.connect(str(path))
    try:
        if raw is not None:
            result = raw.execute("PRAGMA integrity_check").fetchall()
            if result != [("ok",)]:
                report.add("sqlite", f"integrity_check: {result[:5]}")
            try:
                raw.execute("INSERT INTO fts(fts) VALUES ('integrity-check')")
            except sqlite3.Error as exc:
                report.add("fts", f"integrity-check failed: {exc}")
    finally:
        if raw is not None:
            raw.close()
    store = Store.open(path)
    try:
        verified = verify(store)
        for mismatch in verified.mismatches[:20]:
            report.add("verify", f"{mismatch.kind} {mismatch.id} {mismatch.detail}")
        _check_rows(store.conn, report, hex_sql="upper(encode({}, 'hex'))" if on_pg else "hex({})")
        if not on_pg:
            _check_ann(store, report, ann_indexes)
    finally:
        store.close()
    return report


def _check_rows(conn: sqlite3.Connection, report: Report, hex_sql: str = "hex({})") -> None:
    def hexed(column: str) -> str:  # a BLOB column as uppercase hex, in the store's dialect
        return hex_sql.format(column)

    text = ",".join(f"'{t}'" for t in TEXT_TYPES)
    counts = dict(conn.execute("SELECT type, count(*) FROM nodes GROUP BY type").fetchall())
    report.counts.update(counts)
    report.counts["tx"] = conn.execute("SELECT count(*) FROM tx").fetchone()[0]

    for (anchor, ntype) in conn.execute(
            "SELECT n.anchor, n.type FROM nodes n WHERE n.type != 'Scope' AND NOT EXISTS ("
            " SELECT 1 FROM closure c JOIN nodes w ON w.rowid = c.world JOIN scopes s ON s.anchor = w.anchor "
            " WHERE c.node = n.rowid)"):
        report.add("scope", f"{ntype} {anchor} lies in no scope")

    for (anchor, ntype, has_fts, content, effective, units) in conn.execute(
            f"SELECT n.anchor, n.type, EXISTS(SELECT 1 FROM fts WHERE fts.rowid = n.rowid), "
            f" EXISTS(SELECT 1 FROM vectors v WHERE v.node = n.rowid AND v.kind = 0 AND v.data IS NOT NULL), "
            f" EXISTS(SELECT 1 FROM vectors v WHERE v.node = n.rowid AND v.kind = 1 AND v.data IS NOT NULL), "
            f" EXISTS(SELECT 1 FROM vectors v WHERE v.node = n.rowid AND v.kind = 3 AND v.data IS NOT NULL) "
            f"FROM nodes n WHERE n.type IN ({text}) AND n.record IS NOT NULL"):
        missing = [what for what, there in (("fts row", has_fts), ("content vector", content),
                                            ("effective vector", effective), ("unit vector", units)) if not there]
        # summaries get FTS rows from the consolidator; vectors only when an indexer gives them
        if ntype == "Summary":
            missing = [m for m in missing if m == "fts row"]
        if missing:
            report.add("index", f"{ntype} {anchor} lacks {', '.join(missing)}")

    # a member key is the child's current version: its anchor while it never changed
    version = "coalesce(n.version, n.anchor)"
    for (src, dst) in conn.execute(
            "SELECT s.anchor, n.anchor FROM edges e JOIN nodes s ON s.rowid = e.src JOIN nodes n ON n.rowid = e.dst "
            "WHERE e.type = 'contains' AND e.seq_removed IS NULL AND ("
            " NOT EXISTS (SELECT 1 FROM closure c WHERE c.world = e.src AND c.node = e.dst) OR"
            " NOT EXISTS (SELECT 1 FROM members m"
            f"             WHERE m.world = e.src AND m.kind = 0 AND {hexed('m.key')} = upper({version})))"):
        report.add("contains", f"{src} contains {dst} but the interior or closure lacks it")
    for (world, key) in conn.execute(
            f"SELECT w.anchor, {hexed('m.key')} FROM members m JOIN nodes w ON w.rowid = m.world WHERE m.kind = 0 "
            "AND NOT EXISTS (SELECT 1 FROM edges e JOIN nodes n ON n.rowid = e.dst WHERE e.src = m.world "
            f" AND e.type = 'contains' AND e.seq_removed IS NULL AND upper({version}) = {hexed('m.key')})"):
        report.add("contains", f"interior of {world} holds {key.lower()} without a live contains edge")

    for (src, dst, src_from, dst_to) in conn.execute(
            "SELECT a.anchor, b.anchor, a.valid_from, b.valid_to FROM edges e JOIN nodes a ON a.rowid = e.src "
            "JOIN nodes b ON b.rowid = e.dst WHERE e.type = 'supersedes' AND e.seq_removed IS NULL"):
        if dst_to is None or dst_to > src_from:
            report.add("supersedes", f"{dst} is superseded by {src} but stays valid until {dst_to}")

    for (edge_id,) in conn.execute(
            f"SELECT lower({hexed('e.id')}) FROM edges e WHERE e.type = 'same_as' AND e.seq_removed IS NULL "
            f"AND NOT EXISTS (SELECT 1 FROM proposals p WHERE p.edge_id = lower({hexed('e.id')}))"):
        report.add("same_as", f"edge {edge_id} has no merge proposal")

    for column in ("src", "dst"):
        for (edge_id, etype, end) in conn.execute(
                f"SELECT lower({hexed('e.id')}), e.type, e.{column} FROM edges e "
                f"WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.rowid = e.{column})"):
            report.add("edges", f"{etype} edge {edge_id} ends at missing node {end}")
    for (edge_id, ntype) in conn.execute(
            f"SELECT lower({hexed('e.id')}), n.type FROM edges e JOIN nodes n ON n.rowid = e.src "
            "WHERE e.type = 'derived_from' AND n.type != 'Fact'"):
        report.add("edges", f"derived_from edge {edge_id} starts at a {ntype}")

    for (anchor, record) in conn.execute(
            "SELECT n.anchor, n.record FROM nodes n WHERE n.type = 'Memory' AND n.record IS NOT NULL"):
        old = json.loads(record)["prov"].get("supersedes")
        if old and not conn.execute(
                "SELECT 1 FROM edges e JOIN nodes a ON a.rowid = e.src JOIN nodes b ON b.rowid = e.dst "
                "WHERE a.anchor=? AND b.anchor=? AND e.type='supersedes'", (anchor, old)).fetchone():
            report.add("amend", f"{anchor} amends {old} without a supersedes edge")

    for (anchor, vfrom, vto, retired) in conn.execute(
            "SELECT anchor, valid_from, valid_to, retired_at FROM nodes "
            "WHERE (valid_to IS NOT NULL AND valid_to < valid_from) OR (retired_at IS NOT NULL AND valid_to IS NULL)"):
        report.add("validity", f"{anchor}: valid {vfrom}..{vto}, retired at {retired}")


def _check_ann(store, report: Report, kept) -> None:
    from worlddb.vectors.hnsw import CONTENT, EFFECTIVE, NAME, UNIT, AnnIndex

    def stored(kind: int) -> set[int]:
        return {row[0] for row in store.conn.execute(
            "SELECT DISTINCT node FROM vectors WHERE kind=? AND data IS NOT NULL", (kind,))}

    for kind in (CONTENT, EFFECTIVE, NAME, UNIT):
        fresh = AnnIndex(store, kind)
        fresh.sync()
        want = stored(kind)
        if fresh.nodes() != want:
            report.add("ann", f"fresh index of kind {kind}: {len(fresh.nodes() ^ want)} nodes differ from SQL")
        report.counts[f"ann_{kind}"] = len(want)
    for index in kept:
        index.sync()
        want = {row[0] for row in index.store.conn.execute(
            "SELECT DISTINCT node FROM vectors WHERE kind=? AND data IS NOT NULL", (index.kind,))}
        if index.nodes() != want:
            report.add("ann", f"long-lived index of kind {index.kind}: {len(index.nodes() ^ want)} nodes differ "
                              "from SQL after catching up")
