"""Memory after a bulk load: does the process come back to what serving the file needs?

    python -m bench.load_rss [--nodes 100000] [--steady 300] [--out bench/out/load-rss.json]

One process opens a new file and runs a steady-state workload (`--steady` rounds, each a
`memory_write`, a `memory_list` page and a lexical search in the benchmark's scope), then
bulk-loads the bench.scale corpus in one transaction (bench.scale.load: the same write
path), drops everything the benchmark itself holds of the load (its anchors, the corpus
chunks), and runs the steady workload again. Reported, as resident set size (RSS): after
the first steady period, the peak (ru_maxrss), right after the load, and after the second
steady period. Then a fresh process opens the loaded file and runs the same steady
workload: its RSS is the steady state of a server on that file which never loaded it in
bulk, and `after_steady_minus_fresh_gib` is what the load left behind.

The workload runs no recall: recall would build the HNSW indexes (50 s at 100k), which
both processes would hold alike. Run it with old code next to new (each checkout's own
interpreter) to compare; the load average is recorded at each step.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCOPE_KEY = ("user", "bench")


def rss_gib() -> float:
    import psutil

    return round(psutil.Process().memory_info().rss / 2**30, 3)


def peak_gib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30, 3)  # Linux: KiB


def steady(engine, rounds: int, offset: int) -> dict:
    """`rounds` single writes, list pages and lexical searches, as a server answers them."""
    from worlddb.core.timeutil import now_us
    from worlddb.graph import lexical
    from worlddb.memory.scopes import ScopeSet

    scopes = ScopeSet((SCOPE_KEY,))
    scope = engine.store.scope_anchor(*SCOPE_KEY)
    t = time.perf_counter()
    for i in range(rounds):
        engine.write_memory(f"steady note {offset + i}: the heron came back to pond {i % 17}", scopes)
        engine.list_memories(scopes, limit=20)
        if scope is not None:
            lexical.lexical(engine.store, f"heron pond {i % 17}", [scope], 10, open_only_at=now_us())
    return {"rounds": rounds, "seconds": round(time.perf_counter() - t, 1)}


def fresh_child(path: str, rounds: int, nodes: int, edges: int, seed: int) -> dict:
    from bench.synthetic import Corpus
    from worlddb.memory.engine import Engine

    corpus = Corpus(nodes, edges, seed)  # for its embedder: the file's model
    engine = Engine.open(path, embedder=corpus.embedder, query_model=True)
    try:
        gc.collect()
        opened = rss_gib()
        work = steady(engine, rounds, 1_000_000)
        gc.collect()
        return {"rss_open_gib": opened, "rss_after_steady_gib": rss_gib(), "steady": work,
                "loadavg": [round(x, 2) for x in os.getloadavg()]}
    finally:
        engine.close()


def run(args) -> dict:
    from bench.scale import load
    from bench.synthetic import Corpus
    from worlddb.memory.engine import Engine

    workdir = Path(tempfile.mkdtemp(prefix="worlddb-rss-", dir=args.workdir))
    path = workdir / "load.db"
    corpus = Corpus(args.nodes, args.edges, args.seed)
    report: dict = {"benchmark": "bench.load_rss", "nodes": args.nodes, "edges": args.edges,
                    "steady_rounds": args.steady, "code": args.label, "loadavg_start": list(os.getloadavg())}
    engine = Engine.open(path, embedder=corpus.embedder, query_model=True)
    try:
        report["rss_open_gib"] = rss_gib()
        report["steady_before"] = steady(engine, args.steady, 0)
        gc.collect()
        report["rss_steady_before_load_gib"] = rss_gib()
        loaded = load(engine, corpus, args.chunk, False)
        report["load"] = {k: loaded["report"][k] for k in ("writes_per_s", "seconds", "cpu_seconds")}
        del loaded
        gc.collect()
        report["peak_rss_gib"] = peak_gib()
        report["rss_after_load_gib"] = rss_gib()
        report["steady_after"] = steady(engine, args.steady, args.steady)
        gc.collect()
        report["rss_after_steady_gib"] = rss_gib()
        report["loadavg_after_load"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        engine.close()
    child = subprocess.run([sys.executable, "-m", "bench.load_rss", "--fresh-child", str(path),
                            "--nodes", str(args.nodes), "--edges", str(args.edges), "--seed", str(args.seed),
                            "--steady", str(args.steady)], capture_output=True, text=True, check=True)
    report["fresh_process"] = json.loads(child.stdout)
    report["after_steady_minus_fresh_gib"] = round(
        report["rss_after_steady_gib"] - report["fresh_process"]["rss_after_steady_gib"], 3)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    for leftover in workdir.iterdir():  # HNSW snapshot directory, if any
        if leftover.is_dir():
            for f in leftover.iterdir():
                f.unlink()
            leftover.rmdir()
    workdir.rmdir()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=None, help="default: 2.5 x nodes")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--chunk", type=int, default=5_000)
    parser.add_argument("--steady", type=int, default=300, help="rounds of the steady workload")
    parser.add_argument("--label", default="", help="names the code measured, in the report")
    parser.add_argument("--workdir", help="where the temporary database goes")
    parser.add_argument("--out", help="JSON report path (default: bench/out/load-rss.json)")
    parser.add_argument("--fresh-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.edges is None:
        args.edges = int(args.nodes * 2.5)
    if args.fresh_child:
        print(json.dumps(fresh_child(args.fresh_child, args.steady, args.nodes, args.edges, args.seed)))
        return
    report = run(args)
    out = Path(args.out or "bench/out/load-rss.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
