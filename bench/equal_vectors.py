"""HNSW beside many equal vectors: what is found, and what building and searching cost.

    python -m bench.equal_vectors [--distinct 5000] [--shares 0 0.1 0.5] [--probes 300]
                                  [--dim 384] [--baseline-python PY] [--out FILE]

For each share, a fresh SQLite store holds `--distinct` random unit vectors, plus enough
copies of one other vector to make up that share of the store. The copies are written first,
as a text said over and over before the rest. An `AnnIndex` is built from SQL, timed in CPU
seconds. Then it is asked, for each of `--probes` distinct vectors, for the 10 nearest to that
vector. `self_found` is the share of probes whose own node comes back; the search's CPU ms is
per query.

With `--baseline-python PY` (the interpreter of another checkout, which imports its own
`worlddb`), this file is run again by PY, right after this run, and its figures are put
beside these. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from worlddb.core.records import Node
from worlddb.graph.database import WorldDB
from worlddb.vectors.hnsw import EFFECTIVE, AnnIndex

MODEL = "bench-equal-vectors"


def one_share(folder: Path, distinct: int, share: float, probes: int, dim: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((distinct + 1, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    equal = round(share * distinct / (1 - share)) if share < 1 else 0
    path = folder / f"share-{share}.db"
    with WorldDB.open(path, synchronous="OFF") as db, db.write() as w:
        scope = w.scope("user", "bench")
        for i in range(equal):
            anchor = w.add(Node("Memory", content=f"equal {i}"), parents=[scope])
            w.put_vector(anchor, EFFECTIVE, MODEL, vectors[0].tobytes(), dim)
        own = []
        for i, vector in enumerate(vectors[1:]):
            own.append(w.add(Node("Memory", content=f"distinct {i}"), parents=[scope]))
            w.put_vector(own[-1], EFFECTIVE, MODEL, vector.tobytes(), dim)
    with WorldDB.open(path) as db:
        index = AnnIndex(db.store, EFFECTIVE)
        started = time.process_time()
        index.sync()
        build = time.process_time() - started
        picks = rng.choice(distinct, size=min(probes, distinct), replace=False).tolist()
        rowids = [db.store.rowid(own[i]) for i in picks]
        started = time.process_time()
        found = sum(rowid in {node for node, _ in index.search(vectors[1 + i], 10)} for i, rowid in zip(picks, rowids))
        search = time.process_time() - started
    return {"share": share, "equal": equal, "distinct": distinct, "self_found": round(found / len(picks), 4),
            "build_cpu_s": round(build, 3), "search_cpu_ms": round(1e3 * search / len(picks), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--distinct", type=int, default=5000)
    parser.add_argument("--shares", type=float, nargs="+", default=[0.0, 0.1, 0.5])
    parser.add_argument("--probes", type=int, default=300)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--baseline-python", default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if not all(0 <= share < 1 for share in args.shares):
        parser.error("each share is at least 0 and below 1")
    with tempfile.TemporaryDirectory() as tmp:
        rows = [one_share(Path(tmp), args.distinct, share, args.probes, args.dim, args.seed) for share in args.shares]
    report: dict = {"benchmark": "equal_vectors", "results": rows}
    if args.baseline_python:
        command = [args.baseline_python, str(Path(__file__).resolve()), "--distinct", str(args.distinct),
                   "--probes", str(args.probes), "--dim", str(args.dim), "--seed", str(args.seed),
                   "--shares", *map(str, args.shares)]
        # run by path, not with -m: its own folder comes first on PY's import path, never this
        # checkout's root, so PY imports its own worlddb wherever it starts (and this file
        # imports nothing from bench/, which PY's checkout may not have)
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        report["baseline"] = {"python": args.baseline_python, "results": json.loads(done.stdout)["results"]}
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
