"""Statements and round trips of a PostgreSQL write and recall, and their speed, for two
source trees side by side in one run.

    python -m bench.pg_roundtrips [--baseline DIR] [--nodes 3000] [--writes 40] [--recalls 40]
                                  [--rounds 2] [--no-topics] [--out bench/results/pg-roundtrips.json]

Starts a throwaway PostgreSQL (bench.pgserver) and, for each tree (the working tree and,
with --baseline, another checkout of WorldDB, e.g. `git worktree add /tmp/base main`),
runs a child process (this script, importing WorldDB and bench.scale from the tree) on a
fresh database that
1. loads --nodes synthetic nodes (bench.synthetic) in one transaction through the real
   write path (bench.scale.load: nodes, contains edges, text rows, vectors, refers_to
   edges) - nodes per second;
   Then (--topics, the default) the scope's topic worlds and their summaries, as bench.scale
   builds them (worlddb.consolidator), so that recall runs its global lane - seconds,
   statements, round trips;
2. writes --writes memories one by one (`Engine.write_memory`, one transaction each, the
   store's embedder being the corpus's) - per write: milliseconds, statements, round trips;
3. answers --recalls recall probes (`Engine.recall`, all lanes) - per recall the same.
The trees alternate for --rounds rounds, so that a change in the machine's load falls on
both; the report gives each tree's medians over its rounds and the load average around
every child, and for the load the CPU seconds of the client and of its server process.
Statements are counted at the connection (an executemany counts its rows);
a round trip is a statement the client waited for: outside a write transaction every
statement, inside one (where the working tree pipelines) each wait for results.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cpu_seconds(pid: int) -> float:
    """CPU seconds of a local process (the server process of the store's connection)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child(url: str, nodes: int, writes: int, recalls: int, topics: bool) -> dict:
    from bench import scale
    from bench.synthetic import Corpus
    from worlddb.core.backends import postgres
    from worlddb.memory.engine import Engine

    if not hasattr(postgres.PgConnection, "sync"):  # a tree that does not count: every call is a round trip
        execute, executemany = postgres.PgConnection.execute, postgres.PgConnection.executemany

        def counting_execute(self, sql, params=()):
            self.statements = getattr(self, "statements", 0) + 1
            self.round_trips = getattr(self, "round_trips", 0) + 1
            return execute(self, sql, params)

        def counting_executemany(self, sql, seq):
            rows = list(seq)
            self.statements = getattr(self, "statements", 0) + len(rows)
            self.round_trips = getattr(self, "round_trips", 0) + 1
            return executemany(self, sql, rows)

        postgres.PgConnection.execute, postgres.PgConnection.executemany = counting_execute, counting_executemany

    corpus = Corpus(nodes, int(nodes * 2.5), 7)
    engine = Engine.open(url, embedder=corpus.embedder, query_model=True)
    conn = engine.store.conn

    def counts() -> tuple[int, int]:
        return getattr(conn, "statements", 0), getattr(conn, "round_trips", 0)

    out: dict = {"loadavg_before": [round(x, 2) for x in os.getloadavg()]}
    backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
    s0, r0 = counts()
    t, c, b = time.perf_counter(), time.process_time(), _cpu_seconds(backend)
    scale.load(engine, corpus, 5_000, False)
    seconds = time.perf_counter() - t
    s1, r1 = counts()
    out["load"] = {"nodes_per_s": round(nodes / seconds, 1), "seconds": round(seconds, 2),
                   "client_cpu_s": round(time.process_time() - c, 2),
                   "server_cpu_s": round(_cpu_seconds(backend) - b, 2),
                   "statements_per_node": round((s1 - s0) / nodes, 2),
                   "round_trips_per_node": round((r1 - r0) / nodes, 2)}
    if topics:  # the scope's topic worlds and summaries, as bench.scale builds them: recall's global lane
        from worlddb.consolidator import Consolidator

        s0, r0 = counts()
        t = time.perf_counter()
        consolidator = Consolidator(engine.db, min_age_secs=0)
        made = consolidator.topics()
        consolidator.summarize(types=["Topic"])
        s1, r1 = counts()
        out["topics"] = {"seconds": round(time.perf_counter() - t, 2), "topics": len(made.topics),
                         "statements": s1 - s0, "round_trips": r1 - r0}
    probes = corpus.probes(writes + recalls + 5, 11)

    def per_call(fn, items) -> dict:
        ms, statements, trips = [], [], []
        for item in items:
            s, r = counts()
            t = time.perf_counter()
            fn(item)
            ms.append((time.perf_counter() - t) * 1e3)
            s2, r2 = counts()
            statements.append(s2 - s)
            trips.append(r2 - r)
        return {"ms_p50": round(statistics.median(ms), 2), "ms_mean": round(statistics.fmean(ms), 2),
                "statements": round(statistics.fmean(statements), 1),
                "round_trips": round(statistics.fmean(trips), 1), "n": len(ms)}

    texts = [corpus.text_of(p.node) + f" (note {i})" for i, p in enumerate(probes[:writes])]
    out["write_memory"] = per_call(lambda text: engine.write_memory(text, scale.SCOPE), texts)
    queries = [p.query for p in probes[writes:writes + recalls]]
    engine.recall(queries[0], scale.SCOPE, limit=10)  # caches of a running server
    out["recall"] = per_call(lambda q: engine.recall(q, scale.SCOPE, limit=10), queries)
    out["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    engine.close()
    return out


def run_child(tree: Path, url: str, args) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", url, "--nodes", str(args.nodes),
                           "--writes", str(args.writes), "--recalls", str(args.recalls),
                           "--topics" if args.topics else "--no-topics"],
                          cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child in {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(runs: list[dict]) -> dict:
    def med(part: str, key: str) -> float:
        return round(statistics.median(r[part][key] for r in runs), 2)

    return {"load": {k: med("load", k) for k in runs[0]["load"]},
            **({"topics": {k: med("topics", k) for k in runs[0]["topics"]}} if "topics" in runs[0] else {}),
            "write_memory": {k: med("write_memory", k) for k in runs[0]["write_memory"]},
            "recall": {k: med("recall", k) for k in runs[0]["recall"]}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another WorldDB checkout to compare with")
    parser.add_argument("--nodes", type=int, default=3_000)
    parser.add_argument("--writes", type=int, default=40)
    parser.add_argument("--recalls", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--topics", action=argparse.BooleanOptionalAction, default=True,
                        help="build the scope's topic worlds after the load, as bench.scale does (default: on)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.nodes, args.writes, args.recalls, args.topics)))
        return
    from bench import pgserver

    trees = {"working_tree": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    server, urls = pgserver.start(Path(tempfile.mkdtemp(prefix="worlddb-rt-")), len(trees) * args.rounds)
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    try:
        for round_ in range(args.rounds):
            order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
            for name in order:
                url = urls.pop()
                print(f"round {round_ + 1}: {name} ...", file=sys.stderr, flush=True)
                runs[name].append(run_child(trees[name], url, args))
    finally:
        server.cleanup()
    report = {"benchmark": "bench.pg_roundtrips", "nodes": args.nodes, "writes": args.writes,
              "recalls": args.recalls, "rounds": args.rounds,
              "trees": {name: str(path) for name, path in trees.items()},
              "median_over_rounds": {name: summary(r) for name, r in runs.items()}, "runs": runs}
    if args.baseline:
        new, old = report["median_over_rounds"]["working_tree"], report["median_over_rounds"]["baseline"]
        report["speedup"] = {
            "load_nodes_per_s": round(new["load"]["nodes_per_s"] / old["load"]["nodes_per_s"], 2),
            "write_memory_p50": round(old["write_memory"]["ms_p50"] / new["write_memory"]["ms_p50"], 2),
            "recall_p50": round(old["recall"]["ms_p50"] / new["recall"]["ms_p50"], 2)}
        if "topics" in new:
            report["speedup"]["topics_s"] = round(old["topics"]["seconds"] / new["topics"]["seconds"], 2)
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(json.dumps({k: report[k] for k in ("median_over_rounds", "speedup") if k in report}, indent=2))


if __name__ == "__main__":
    main()
