"""Why the engine core is synchronous: per-statement async vs one thread hop per operation.

    python -m bench.aio_overhead [--ops 300] [--statements 30]

Runs the same write - `--statements` inserts and a commit, roughly what one memory write
costs - two ways against a WAL-mode SQLite file, in the same process and run:
  aiosqlite      every statement awaited through aiosqlite's connection thread
  thread-per-op  the whole operation run on one worker thread, awaited once
and prints per-operation latency for both and their ratio as JSON. Absolute numbers move
with the machine's load; the ratio is the result.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


async def with_aiosqlite(path: Path, ops: int, statements: int) -> list[float]:
    import aiosqlite

    times = []
    async with aiosqlite.connect(path, isolation_level=None) as db:
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")
        for _ in range(ops):
            start = time.perf_counter()
            await db.execute("BEGIN IMMEDIATE")
            for _ in range(statements):
                await db.execute("INSERT INTO t(b) VALUES (?)", ("x" * 64,))
            await db.execute("COMMIT")
            times.append(time.perf_counter() - start)
    return times


async def with_thread(path: Path, ops: int, statements: int) -> list[float]:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)")
    executor = ThreadPoolExecutor(max_workers=1)
    loop = asyncio.get_running_loop()

    def operation() -> None:
        conn.execute("BEGIN IMMEDIATE")
        for _ in range(statements):
            conn.execute("INSERT INTO t(b) VALUES (?)", ("x" * 64,))
        conn.execute("COMMIT")

    times = []
    for _ in range(ops):
        start = time.perf_counter()
        await loop.run_in_executor(executor, operation)
        times.append(time.perf_counter() - start)
    executor.shutdown()
    conn.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=300)
    parser.add_argument("--statements", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        a = asyncio.run(with_aiosqlite(Path(tmp) / "a.db", args.ops, args.statements))
        b = asyncio.run(with_thread(Path(tmp) / "b.db", args.ops, args.statements))
    a_ms, b_ms = statistics.median(a) * 1e3, statistics.median(b) * 1e3
    print(json.dumps({
        "benchmark": "aio_overhead", "ops": args.ops, "statements_per_op": args.statements,
        "aiosqlite_median_ms_per_op": round(a_ms, 3), "thread_per_op_median_ms": round(b_ms, 3),
        "ratio": round(a_ms / b_ms, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
