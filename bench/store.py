"""Per-write cost of adding a child to a world of 1k, 10k and 100k children.

    python -m bench.store [--sizes 1000 10000 100000] [--writes 300] [--seed 7]

For each size, a fresh database gets a scope holding a Session world pre-filled with
that many Turn children (one bulk transaction), then `--writes` more Turns are added,
each in its own committed transaction, through the real write path (contains edge ->
reconciler -> handler -> Merkle trie -> versions of session and scope). Printed as JSON:
writes/s and per-write P50/P95 latency, plus the in-transaction cost per add measured on
a batch, and - as a baseline in the same run - the time to re-hash the full sorted child
list once per write, which is what a flat (non-trie) Merkle encoding would pay.
The claim to check: the per-write numbers stay flat while the baseline grows with size.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from blake3 import blake3

from worlddb.core.records import Node
from worlddb.graph.database import WorldDB


def _turn(rng: random.Random, i: int) -> Node:
    return Node("Turn", content=f"turn {i} {rng.random()}", created_at=i)


def run_size(size: int, writes: int, seed: int, workdir: Path) -> dict:
    rng = random.Random(seed)
    db = WorldDB.open(workdir / f"store-{size}.db", synchronous="NORMAL")
    with db.write() as w:
        scope = w.scope("user", "bench")
        session = w.add(Node("Session", name=f"s{size}", created_at=0), parents=[scope])
    started = time.perf_counter()
    with db.write() as w:
        for i in range(size):
            w.add(_turn(rng, i), parents=[session])
    prefill_s = time.perf_counter() - started

    latencies = []
    for i in range(writes):
        node = _turn(rng, size + i)
        t = time.perf_counter()
        with db.write() as w:
            w.add(node, parents=[session])
        latencies.append(time.perf_counter() - t)

    batch = 1000
    t = time.perf_counter()
    with db.write() as w:
        for i in range(batch):
            w.add(_turn(rng, size + writes + i), parents=[session])
    in_tx_us = (time.perf_counter() - t) / batch * 1e6

    children = sorted(bytes.fromhex(c) for c in db.store.children(session))
    t = time.perf_counter()
    rounds = 20
    for _ in range(rounds):
        blake3(b"".join(children)).digest()
    flat_rehash_us = (time.perf_counter() - t) / rounds * 1e6
    assert db.verify().ok
    db.close()
    latencies.sort()
    return {
        "children": size,
        "writes": writes,
        "writes_per_s": round(writes / sum(latencies), 1),
        "p50_ms": round(statistics.median(latencies) * 1e3, 3),
        "p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))] * 1e3, 3),
        "in_transaction_us_per_add": round(in_tx_us, 1),
        "baseline_flat_rehash_us_per_write": round(flat_rehash_us, 1),
        "prefill_adds_per_s": round(size / prefill_s, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [run_size(size, args.writes, args.seed, Path(tmp)) for size in args.sizes]
    first, last = rows[0], rows[-1]
    print(json.dumps({
        "benchmark": "store.add_child",
        "synchronous": "NORMAL",
        "results": rows,
        "p50_ratio_largest_to_smallest": round(last["p50_ms"] / first["p50_ms"], 2),
        "in_tx_ratio_largest_to_smallest": round(
            last["in_transaction_us_per_add"] / first["in_transaction_us_per_add"], 2),
        "baseline_ratio_largest_to_smallest": round(
            last["baseline_flat_rehash_us_per_write"] / first["baseline_flat_rehash_us_per_write"], 2),
    }, indent=2))


if __name__ == "__main__":
    main()
