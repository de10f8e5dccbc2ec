"""memory_write / memory_recall latency over stdio with 1k, 10k and 100k memories in scope,
and the first recalls after bursts of writes.

    python -m bench.mcp [--sizes 1000 10000 100000] [--probes 200] [--bursts 1000 10000]
                        [--embedder minilm|hash] [--baseline-python PY] [--out FILE]

For each size, a fresh database is filled with that many synthetic memories (seeded
generator: people, places, activities and numbers, so texts differ and share vocabulary
the way real notes do) through Engine.write_memories - the same write path as
memory_write, batched 500 per transaction. Then `worlddb serve` is started as a
subprocess over stdio, exactly as a desktop client starts it, and the benchmark speaks
newline-delimited JSON-RPC to it as such a client does (initialize, initialized, then
tools/call), timing `--probes` memory_write and `--probes` memory_recall round trips,
alternating (the steady state). (The Python SDK's client is not used for timing: it
re-validates every structured result against the tool's output schema, ~25 ms per recall
here, which is that client's cost, not the server's.)

Bursts: then, for each burst size, the server takes that many memory_write calls back to
back, and the first five recalls after it are timed: the first and the largest are
reported, against the steady-state recall P95 (goal: the first within 2x). A second
server on the same file, started and warmed before the burst but never written through,
is asked the same recalls after it: it must catch up on another process's writes before
it can answer, which is what every server did after its own burst before its indexes took
each commit as it happened - the old behaviour, measured in the same run.

Baseline: with `--baseline-python`, the interpreter of another installation of worlddb (a
checkout of an earlier commit with its own virtualenv) prefills a file of its own with the same
memories (its own schema and vectors: an older installation refuses a file newer code wrote) and
serves it, and the steady-state probes alternate between the two servers call by call (the same
texts and questions), so both see the same machine load; reported under "baseline", with
each server's mean CPU milliseconds per call (`server_cpu_ms_per_call`), which a busy
machine moves less than wall times.

Prints JSON: P50/P95/P99/mean per tool and size, the bursts, the prefill rate and the
load average before and after the probes. Goals: recall P95 <= 50 ms and write P95 <= 50 ms at 100k memories; a
single memory_write P95 <= 15 ms at 10k.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PEOPLE = ["Ana", "Ben", "Chen", "Dara", "Eli", "Farah", "Gus", "Hana", "Ivo", "Jade", "Kofi", "Lena", "Milo",
          "Nia", "Omar", "Priya", "Quinn", "Rosa", "Sami", "Tova"]
PLACES = ["Lisbon", "Denver", "Osaka", "the cabin", "the office", "Leeds", "the lake house", "Austin", "Quito",
          "the studio", "Tromso", "Nairobi", "the garden", "Perth", "the gym"]
DOING = ["started learning the cello", "booked a dentist appointment", "adopted a rescue dog",
         "finished the quarterly report", "planted tomatoes", "switched to decaf", "ran a half marathon",
         "fixed the bike brakes", "moved the standup to 10am", "ordered a new laptop", "visited grandma",
         "signed up for pottery", "paid the electricity bill", "lost the spare key", "painted the fence"]
WHEN = ["on Monday", "last weekend", "in March", "yesterday", "two weeks ago", "this morning", "in 2023"]


def memory_text(rng: random.Random, i: int) -> str:
    return (f"{rng.choice(PEOPLE)} {rng.choice(DOING)} in {rng.choice(PLACES)} {rng.choice(WHEN)} "
            f"(note {i}, budget {rng.randint(10, 9999)})")


def question(rng: random.Random) -> str:
    return f"what did {rng.choice(PEOPLE)} do in {rng.choice(PLACES)}?"


#: the prefill, run by another installation's interpreter: batches of write_memories items on stdin
_PREFILL = """
import json, sys
from worlddb.memory.engine import Engine
from worlddb.memory.scopes import ScopeSet
options = {}
if sys.argv[2] == "hash":
    from worlddb.vectors.embedder import HashEmbedder
    options = {"embedder": HashEmbedder(), "query_model": True}
with Engine.open(sys.argv[1], synchronous="NORMAL", **options) as engine:
    for line in sys.stdin:
        engine.write_memories(json.loads(line), ScopeSet((("user", "bench"),)))
"""


def prefill(path: Path, size: int, embedder_name: str, seed: int, python: str | None = None) -> float:
    """Write `size` memories into a new file at `path`; with `python`, through that interpreter's
    installation of worlddb (its own schema and vectors), the same memories."""
    from worlddb.memory.engine import Engine
    from worlddb.memory.scopes import ScopeSet

    if python is not None and python != sys.executable:
        from bench.serverproc import working_dir

        rng = random.Random(seed)
        batches = "".join(json.dumps([{"text": memory_text(rng, i)} for i in range(start, min(size, start + 500))])
                          + "\n" for start in range(0, size, 500))
        started = time.perf_counter()
        subprocess.run([python, "-c", _PREFILL, str(path), embedder_name], input=batches, text=True, check=True,
                       cwd=working_dir(python))
        return size / (time.perf_counter() - started)
    options = {}
    if embedder_name == "hash":
        from worlddb.vectors.embedder import HashEmbedder

        options = {"embedder": HashEmbedder(), "query_model": True}
    rng = random.Random(seed)
    scope = ScopeSet((("user", "bench"),))
    started = time.perf_counter()
    with Engine.open(path, synchronous="NORMAL", **options) as engine:
        for start in range(0, size, 500):
            items = [{"text": memory_text(rng, i)} for i in range(start, min(size, start + 500))]
            engine.write_memories(items, scope)
            print(f"\r  prefill {min(size, start + 500)}/{size}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return size / (time.perf_counter() - started)


class StdioPeer:
    """A minimal MCP client over a subprocess's stdin/stdout (newline-delimited JSON-RPC)."""

    def __init__(self, process: asyncio.subprocess.Process):
        self.process = process
        self.next_id = 0

    async def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        await self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = await self.process.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]

    async def send(self, message: dict) -> None:
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        await self.process.stdin.drain()


async def start_server(path: Path, embedder_name: str, python: str = sys.executable
                       ) -> tuple[asyncio.subprocess.Process, StdioPeer]:
    from bench.serverproc import serve_args, working_dir

    process = await asyncio.create_subprocess_exec(
        python, *serve_args(path, embedder=embedder_name, default_user="bench",
                                    extra=("--consolidate-every", "0")),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        limit=2**24, cwd=working_dir(python))
    peer = StdioPeer(process)
    await peer.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "bench.mcp", "version": "1"}})
    await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    await peer.request("tools/call", {"name": "memory_recall", "arguments": {"query": "warm up"}})
    return process, peer


async def timed(peer: StdioPeer, tool: str, arguments: dict, cpu: list[float] | None = None) -> float:
    """Wall seconds of one call; with `cpu`, also appends the server's CPU seconds for it."""
    before = _cpu(peer.process.pid) if cpu is not None else 0.0
    started = time.perf_counter()
    result = await peer.request("tools/call", {"name": tool, "arguments": arguments})
    elapsed = time.perf_counter() - started
    if cpu is not None:
        cpu.append(_cpu(peer.process.pid) - before)
    if result.get("isError"):
        raise RuntimeError(result["content"][0]["text"])
    return elapsed


def _cpu(pid: int) -> float:
    import psutil

    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def stats(t: list[float]) -> dict:
    ordered = sorted(t)
    return {"p50_ms": round(1e3 * statistics.median(t), 2), "p95_ms": round(1e3 * ordered[int(0.95 * (len(t) - 1))], 2),
            "p99_ms": round(1e3 * ordered[int(0.99 * (len(t) - 1))], 2), "mean_ms": round(1e3 * statistics.mean(t), 2)}


async def probe(path: Path, probes: int, embedder_name: str, seed: int, bursts: list[int],
                baseline_python: str | None = None, baseline_path: Path | None = None) -> dict:
    rng = random.Random(seed + 1)
    timings: dict[str, list[float]] = {"memory_write": [], "memory_recall": []}
    before: dict[str, list[float]] = {"memory_write": [], "memory_recall": []}
    # server CPU seconds per call, for the paired comparison (a busy machine moves it less)
    cpu: dict[str, list[float]] = {"memory_write": [], "memory_recall": [], "baseline_memory_write": [],
                                   "baseline_memory_recall": []}
    baseline = None
    if baseline_python:
        baseline = await start_server(baseline_path, embedder_name, baseline_python)
    process, peer = await start_server(path, embedder_name)
    reader = None
    try:
        for i in range(probes):
            write, ask = {"text": memory_text(rng, 10**7 + i)}, {"query": question(rng), "limit": 10}
            paired = cpu if baseline else None
            for tool, arguments in (("memory_write", write), ("memory_recall", ask)):
                timings[tool].append(await timed(peer, tool, arguments, paired and paired[tool]))
                if baseline:
                    before[tool].append(await timed(baseline[1], tool, arguments, cpu["baseline_" + tool]))
        out: dict = {tool: stats(t) for tool, t in timings.items()}
        out["loadavg_after_probes"] = [round(x, 2) for x in os.getloadavg()]
        if baseline:
            mean_ms = {tool: round(1e3 * statistics.mean(t), 2) for tool, t in cpu.items()}
            out["server_cpu_ms_per_call"] = {tool: mean_ms[tool] for tool in timings}
            out["baseline"] = {"python": baseline_python, **{tool: stats(t) for tool, t in before.items()},
                               "server_cpu_ms_per_call": {tool: mean_ms["baseline_" + tool] for tool in timings}}
            baseline[0].stdin.close()
            await baseline[0].wait()
            baseline = None
        steady = out["memory_recall"]["p95_ms"]
        out["bursts"] = []
        written = 0
        for burst in bursts:
            reader = await start_server(path, embedder_name)  # warmed now, before the burst
            writes = []
            started = time.perf_counter()
            for i in range(burst):
                writes.append(await timed(peer, "memory_write", {"text": memory_text(rng, 2 * 10**7 + written + i)}))
            seconds = time.perf_counter() - started
            written += burst
            queries = [question(rng) for _ in range(5)]
            after = [await timed(peer, "memory_recall", {"query": q, "limit": 10}) for q in queries]
            other = [await timed(reader[1], "memory_recall", {"query": q, "limit": 10}) for q in queries]
            reader[0].stdin.close()
            await reader[0].wait()
            reader = None
            out["bursts"].append({
                "writes": burst, "writes_per_s": round(burst / seconds, 1), "memory_write": stats(writes),
                "loadavg_1min": round(os.getloadavg()[0], 2), "steady_recall_p95_ms": steady,
                "first_recall_ms": round(1e3 * after[0], 2), "max_recall_ms": round(1e3 * max(after), 2),
                "first_over_steady_p95": round(1e3 * after[0] / steady, 2),
                "other_process_first_recall_ms": round(1e3 * other[0], 2),
                "other_process_max_recall_ms": round(1e3 * max(other), 2)})
            print(json.dumps(out["bursts"][-1]), file=sys.stderr)
        return out
    finally:
        for proc in (process, reader[0] if reader else None, baseline[0] if baseline else None):
            if proc is not None and proc.returncode is None:
                proc.stdin.close()
                await proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--bursts", type=int, nargs="*", default=[1000, 10_000],
                        help="memory_write calls per burst, after the steady-state probes (default 1000 10000)")
    parser.add_argument("--baseline-python", default=None,
                        help="interpreter of another worlddb installation to serve a copy of each file, "
                             "probed call by call alongside")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"mcp-{size}.db"
            rate = prefill(path, size, args.embedder, args.seed)
            baseline_path = None
            if args.baseline_python:
                # the same memories, written by the baseline's own installation: a file written by
                # newer code may carry a schema an older one refuses to open
                baseline_path = Path(tmp) / f"baseline-mcp-{size}.db"
                prefill(baseline_path, size, args.embedder, args.seed, python=args.baseline_python)
            # the machine may be shared: the load average says how quiet the probes ran
            load = [round(x, 2) for x in os.getloadavg()]
            rows.append({"memories": size, "prefill_per_s": round(rate, 1), "loadavg_before_probes": load,
                         **asyncio.run(probe(path, args.probes, args.embedder, args.seed, args.bursts,
                                             args.baseline_python, baseline_path))})
            print(json.dumps(rows[-1]), file=sys.stderr)
    text = json.dumps({"benchmark": "mcp_stdio", "embedder": args.embedder, "probes": args.probes,
                       "results": rows}, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
