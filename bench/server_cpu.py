"""Where a stdio server's CPU goes per memory_write, thread by thread, against a baseline.

    python -m bench.server_cpu [--memories 10000] [--writes 200] [--rounds 3]
                               [--embedder minilm|hash] [--baseline-python PY] [--out FILE]

A file of `--memories` synthetic memories (bench.mcp's generator and prefill; with
`--baseline-python`, that installation prefills its own file with the same memories) is served
over stdio by `worlddb serve`, started and spoken to as bench.mcp does. Each round serves a
fresh copy of each file, this code's and the baseline's one after the other: 20 writes and
recalls to warm up, then `--writes` memory_write calls, each followed by a recall (bench.mcp
alternates them so). Around each write every thread's CPU time is read from
/proc/<pid>/task/<tid>/schedstat (nanoseconds; psutil's per-thread times tick at 10 ms), so a
write's CPU is split by thread: the main thread runs the event loop (the MCP SDK's JSON-RPC,
argument validation, results, the transport and the hand-offs to the engine's threads), the
others the engine (`worlddb`), the model (`worlddb-model`), the stdio workers of the SDK's
transport (`AnyIO worker thread`) and the background threads. Threads are named by `py-spy
dump` when py-spy is installed; otherwise only the main thread is. Linux only.

Prints JSON: per server, per round, the write's wall P50 / P95, its CPU in ms and that CPU by
thread name (threads of one name summed), and the medians over the rounds; the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.mcp import memory_text, prefill, question, start_server, stats
from bench.output import emit

WARM = 20


def thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of each thread of `pid`, by thread id."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                out[int(tid)] = int(f.read().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended between the listing and the read
    return out


def thread_names(pid: int) -> dict[int, str]:
    """Thread id -> Python thread name, from `py-spy dump` if it is installed; the main thread always."""
    names = {pid: "main"}
    spy = shutil.which("py-spy") or shutil.which("py-spy", path=os.path.dirname(sys.executable))
    if spy:
        dump = subprocess.run([spy, "dump", "--pid", str(pid)], capture_output=True, text=True, timeout=60).stdout
        for tid, name in re.findall(r'^Thread (\d+) \(\w+\): "([^"]*)"', dump, re.M):
            names.setdefault(int(tid), re.sub(r"_\d+$", "", name))
    return names


async def one_server(path: Path, embedder: str, python: str, writes: int, seed: int) -> dict:
    process, peer = await start_server(path, embedder, python)
    try:
        rng, asked = random.Random(seed), random.Random(seed + 1)
        for i in range(WARM):
            await peer.request("tools/call", {"name": "memory_write", "arguments": {"text": memory_text(rng, i)}})
            await peer.request("tools/call", {"name": "memory_recall", "arguments": {"query": question(asked)}})
        spent: dict[int, float] = {}
        walls, totals = [], []
        for i in range(writes):
            before, started = thread_cpu(process.pid), time.perf_counter()
            result = await peer.request("tools/call", {"name": "memory_write",
                                                       "arguments": {"text": memory_text(rng, WARM + i)}})
            walls.append(time.perf_counter() - started)
            after = thread_cpu(process.pid)
            if result.get("isError"):
                raise RuntimeError(result["content"][0]["text"])
            total = 0.0
            for tid, seconds in after.items():
                delta = seconds - before.get(tid, 0.0)
                spent[tid] = spent.get(tid, 0.0) + delta
                total += delta
            totals.append(total)
            await peer.request("tools/call", {"name": "memory_recall", "arguments": {"query": question(asked)}})
        names = thread_names(process.pid)
        by_name: dict[str, float] = {}
        for tid, seconds in spent.items():
            name = names.get(tid, "other threads")
            by_name[name] = by_name.get(name, 0.0) + seconds
        wall = stats(walls)
        ordered = sorted(by_name.items(), key=lambda item: -item[1])
        return {"write_p50_ms": wall["p50_ms"], "write_p95_ms": wall["p95_ms"],
                "cpu_ms": round(1e3 * statistics.mean(totals), 2),
                "by_thread_ms": {name: round(1e3 * seconds / writes, 2) for name, seconds in ordered}}
    finally:
        process.stdin.close()
        await process.wait()


def medians(rounds: list[dict]) -> dict:
    names = {name for r in rounds for name in r["by_thread_ms"]}
    def median(values) -> float:
        return round(statistics.median(values), 2)

    return {"write_p95_ms": median(r["write_p95_ms"] for r in rounds), "cpu_ms": median(r["cpu_ms"] for r in rounds),
            "by_thread_ms": {n: median(r["by_thread_ms"].get(n, 0.0) for r in rounds) for n in sorted(names)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--baseline-python", default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    servers = {"now": sys.executable}
    if args.baseline_python:
        servers["baseline"] = args.baseline_python
    report: dict = {"benchmark": "server_cpu", "memories": args.memories, "writes": args.writes,
                    "embedder": args.embedder, "loadavg_before": [round(x, 2) for x in os.getloadavg()],
                    "servers": {name: {"python": python, "rounds": []} for name, python in servers.items()}}
    with tempfile.TemporaryDirectory() as tmp:
        filled = {}
        for name, python in servers.items():
            filled[name] = Path(tmp) / f"{name}.db"
            prefill(filled[name], args.memories, args.embedder, args.seed, python=python)
        for r in range(args.rounds):
            for name, python in servers.items():
                copy = Path(tmp) / f"{name}-round{r}.db"
                shutil.copyfile(filled[name], copy)
                row = asyncio.run(one_server(copy, args.embedder, python, args.writes, args.seed + 1))
                report["servers"][name]["rounds"].append({**row, "loadavg_1min": round(os.getloadavg()[0], 2)})
                print(json.dumps({name: row}), file=sys.stderr)
                for suffix in ("", "-wal", "-shm"):
                    Path(str(copy) + suffix).unlink(missing_ok=True)
    for entry in report["servers"].values():
        entry["median"] = medians(entry["rounds"])
    report["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    emit(report, args.out)


if __name__ == "__main__":
    main()
