"""How much of a bulk load is SQLite itself: the floor under writes/s.

    python -m bench.write_floor [--nodes 10000] [--repeats 3] [--layout-edges 250000]

1. Loads `--nodes` synthetic nodes with `bench.scale.load` (the real write path, one
   transaction) while recording every statement the connection runs, with its parameters.
2. Replays the recorded statements, with no engine code between them, on a copy of the
   file as it was before the load, through a connection opened like the engine's
   (WAL, synchronous=FULL):
     sequential  each call as recorded
     batched     runs of the same INSERT merged into one executemany
   Each replay runs `--repeats` times, alternating; the medians are reported, with the
   share of the sequential replay's CPU time each kind of statement took.
3. Edge rows alone: `--layout-edges` edges over 100k nodes inserted in one transaction
   into the edges table as schema 5 and earlier kept it (64-hex TEXT ids, src and dst as
   TEXT, the canonical body stored in the row) and as schema 6 keeps it (node rowids for
   src and dst, the 32-byte digest as a BLOB, canonical props instead of the body), with
   the same indexes, alternating.

Prints JSON. The load's CPU time and the replays' come from the same run, so their ratio
is the result: the replay is what the current rows cost however little Python runs
around them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from blake3 import blake3

from bench.scale import load
from bench.synthetic import Corpus
from worlddb.core.store import Store
from worlddb.memory.engine import Engine


class Recorder:
    """Stands in for the store's connection during the load: every execute and
    executemany is logged with its parameters, then passed on."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn
        self.log: list[tuple[str, str, object]] = []

    def execute(self, sql, params=()):
        self.log.append(("one", sql, tuple(params)))
        return self._conn.execute(sql, params)

    def executemany(self, sql, rows):
        rows = [tuple(r) for r in rows]
        self.log.append(("many", sql, rows))
        return self._conn.executemany(sql, rows)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def table_counts(conn) -> dict[str, int]:
    """Rows per table (FTS5 shadow tables included): the replay must rebuild what the load wrote."""
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type='table' AND sql NOT LIKE "
                                        "'CREATE VIRTUAL%' ORDER BY name")]
    return {name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names}


def record(nodes: int, workdir: Path) -> tuple[dict, list, Path]:
    corpus = Corpus(nodes, int(nodes * 2.5), 7)
    engine = Engine.open(workdir / "load.db", embedder=corpus.embedder, query_model=True)
    engine.db.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    empty = workdir / "empty.db"
    shutil.copy(workdir / "load.db", empty)
    recorder = Recorder(engine.db.store.conn)
    engine.db.store.conn = recorder  # a transaction takes the store's connection when it begins
    try:
        report = load(engine, corpus, 5000, False)["report"]
    finally:
        engine.db.store.conn = recorder._conn
        report["tables"] = table_counts(engine.db.store.conn)
        engine.close()
    return report, recorder.log, empty


def _kind(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip()[:60]


def replay(log: list, empty: Path, workdir: Path, batched: bool, shares: bool = False
           ) -> tuple[float, dict, dict[str, int]]:
    path = workdir / "replay.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copy(empty, path)
    store = Store.open(path)  # the engine's pragmas
    conn = store.conn
    per: dict[str, float] = defaultdict(float)
    kinds = [_kind(sql) for _, sql, _ in log] if shares else None
    clock = time.process_time
    started = clock()
    if batched:
        pending_sql, pending = None, []
        for how, sql, params in log:
            if how == "one" and sql.lstrip()[:6].upper() == "INSERT":
                if sql != pending_sql:
                    if pending:
                        conn.executemany(pending_sql, pending)
                    pending_sql, pending = sql, []
                pending.append(params)
                continue
            if pending:
                conn.executemany(pending_sql, pending)
                pending_sql, pending = None, []
            if how == "one":
                conn.execute(sql, params).fetchall()
            else:
                conn.executemany(sql, params)
        if pending:
            conn.executemany(pending_sql, pending)
    else:
        for i, (how, sql, params) in enumerate(log):
            t = clock() if shares else 0.0
            if how == "one":
                conn.execute(sql, params).fetchall()
            else:
                conn.executemany(sql, params)
            if shares:
                per[kinds[i]] += clock() - t
    cpu = clock() - started
    counts = table_counts(conn)
    store.close()
    return cpu, per, counts


EDGES_TEXT = ("CREATE TABLE edges(id TEXT NOT NULL, type TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL, "
              "world TEXT, body BLOB, seq_added INTEGER, t_added INTEGER, valid_from INTEGER, valid_to INTEGER, "
              "seq_removed INTEGER)")
EDGES_INT = ("CREATE TABLE edges(id BLOB NOT NULL, type TEXT NOT NULL, src INTEGER NOT NULL, "
             "dst INTEGER NOT NULL, world INTEGER, props TEXT, seq_added INTEGER, t_added INTEGER, "
             "valid_from INTEGER, valid_to INTEGER, seq_removed INTEGER)")
EDGE_INDEXES = ("CREATE UNIQUE INDEX edges_live ON edges(id) WHERE seq_removed IS NULL",
                "CREATE INDEX edges_src ON edges(src, type)", "CREATE INDEX edges_dst ON edges(dst, type)")


def edge_layouts(edges: int, workdir: Path, repeats: int) -> dict:
    nodes = 100_000
    rnd = random.Random(1)
    anchors = [blake3(str(i).encode()).hexdigest() for i in range(nodes)]
    pairs = [(rnd.randrange(nodes), rnd.randrange(nodes)) for _ in range(edges)]
    bodies = [(f'{{"dst":"{anchors[d]}","props":{{"role":"mention"}},"src":"{anchors[s]}","type":"refers_to",'
               f'"v":1,"world":null}}').encode() for s, d in pairs]
    digests = [blake3(b).digest() for b in bodies]
    layouts = {
        "hex_text": (EDGES_TEXT, "INSERT OR IGNORE INTO edges(id, type, src, dst, world, body, seq_added, t_added) "
                      "VALUES (?,?,?,?,NULL,?,1,1)",
                      [(h.hex(), "refers_to", anchors[s], anchors[d], b)
                       for h, (s, d), b in zip(digests, pairs, bodies)]),
        "integer_keys": (EDGES_INT, "INSERT OR IGNORE INTO edges(id, type, src, dst, world, props, seq_added, t_added) "
                         "VALUES (?,?,?,?,NULL,?,1,1)",
                         [(h, "refers_to", s + 1, d + 1, '{"role":"mention"}') for h, (s, d) in zip(digests, pairs)]),
    }
    cpu: dict[str, list[float]] = defaultdict(list)
    size: dict[str, int] = {}
    for _ in range(repeats):
        for name, (create, insert, rows) in layouts.items():
            path = workdir / f"edges-{name}.db"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            conn = sqlite3.connect(path, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA cache_size=-1048576")
            for statement in (create, *EDGE_INDEXES):
                conn.execute(statement)
            started = time.process_time()
            conn.execute("BEGIN IMMEDIATE")
            for row in rows:
                conn.execute(insert, row)
            conn.execute("COMMIT")
            cpu[name].append(time.process_time() - started)
            conn.close()  # the last connection checkpoints: the file holds everything
            size[name] = os.path.getsize(path)
    return {name: {"cpu_s_median": round(statistics.median(cpu[name]), 2),
                   "us_per_edge": round(1e6 * statistics.median(cpu[name]) / edges, 1),
                   "mib_on_disk": round(size[name] / 2**20, 1)} for name in layouts}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--layout-edges", type=int, default=250_000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="worlddb-floor-") as directory:
        workdir = Path(directory)
        report, log, empty = record(args.nodes, workdir)
        runs: dict[str, list[float]] = defaultdict(list)
        shares: dict[str, float] = {}
        for i in range(args.repeats):
            cpu, per, counts = replay(log, empty, workdir, batched=False, shares=i == 0)
            if i == 0:
                shares = per  # timed per statement once; the medians come from untimed runs
            else:
                runs["sequential"].append(cpu)
            cpu_batched, _, counts_batched = replay(log, empty, workdir, batched=True)
            runs["batched"].append(cpu_batched)
            if counts != report["tables"] or counts_batched != report["tables"]:
                raise SystemExit(f"the replay did not rebuild the load's rows: {counts} vs {report['tables']}")
        if args.repeats == 1:
            runs["sequential"].append(cpu)
        total = sum(shares.values())
        sequential = statistics.median(runs["sequential"])
        result = {
            "nodes": args.nodes,
            "load": {k: report[k] for k in ("writes_per_s", "writes_per_cpu_s", "seconds", "cpu_seconds")},
            "statements_recorded": sum(1 if how == "one" else len(p) for how, _, p in log),
            "replay_rebuilds_the_load": True,  # the same rows in every table, checked on every replay
            "rows_after_load": report["tables"],
            "replay_cpu_s": {"sequential": round(sequential, 2),
                             "batched": round(statistics.median(runs["batched"]), 2),
                             "runs": {k: [round(x, 2) for x in v] for k, v in runs.items()}},
            "replay_share_of_load_cpu": round(sequential / report["cpu_seconds"], 3),
            "nodes_per_s_if_only_the_replay": round(args.nodes / sequential),
            "replay_cpu_by_statement": [
                {"statement": k, "share": round(v / total, 3)}
                for k, v in sorted(shares.items(), key=lambda kv: -kv[1])[:12]],
            "edge_rows": edge_layouts(args.layout_edges, workdir, args.repeats) if args.layout_edges else None,
            "loadavg": os.getloadavg(),
        }
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return result


if __name__ == "__main__":
    main()
