"""memory_write / memory_recall latency over stdio with 1k, 10k and 100k memories in scope.

    python -m bench.mcp [--sizes 1000 10000 100000] [--probes 200] [--embedder minilm|hash]

For each size, a fresh database is filled with that many synthetic memories (seeded
generator: people, places, activities and numbers, so texts differ and share vocabulary
the way real notes do) through Engine.write_memories - the same write path as
memory_write, batched 500 per transaction. Then `worlddb serve` is started as a
subprocess over stdio, exactly as a desktop client starts it, and the benchmark speaks
newline-delimited JSON-RPC to it as such a client does (initialize, initialized, then
tools/call), timing `--probes` memory_write and `--probes` memory_recall round trips.
(The Python SDK's client is not used for timing: it re-validates every structured
result against the tool's output schema, ~25 ms per recall here, which is that client's
cost, not the server's.) Prints JSON: P50/P95/mean per tool and size, and the prefill rate.
Goal: recall P95 <= 50 ms and write P95 <= 50 ms at 100k memories on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
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


def prefill(path: Path, size: int, embedder_name: str, seed: int) -> float:
    from worlddb.memory.engine import Engine
    from worlddb.memory.scopes import ScopeSet

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


async def probe(path: Path, probes: int, embedder_name: str, seed: int) -> dict:
    from bench.serverproc import serve_args

    process = await asyncio.create_subprocess_exec(
        sys.executable, *serve_args(path, embedder=embedder_name, default_user="bench",
                                    extra=("--consolidate-every", "0")),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        limit=2**24)
    peer = StdioPeer(process)
    rng = random.Random(seed + 1)
    timings: dict[str, list[float]] = {"memory_write": [], "memory_recall": []}
    try:
        await peer.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "bench.mcp", "version": "1"}})
        await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        await peer.request("tools/call", {"name": "memory_recall", "arguments": {"query": "warm up"}})
        for i in range(probes):
            for tool, arguments in (("memory_write", {"text": memory_text(rng, 10**7 + i)}),
                                    ("memory_recall", {"query": question(rng), "limit": 10})):
                started = time.perf_counter()
                result = await peer.request("tools/call", {"name": tool, "arguments": arguments})
                timings[tool].append(time.perf_counter() - started)
                if result.get("isError"):
                    raise RuntimeError(result["content"][0]["text"])
    finally:
        process.stdin.close()
        await process.wait()
    return {tool: {"p50_ms": round(1e3 * statistics.median(t), 2),
                   "p95_ms": round(1e3 * sorted(t)[int(0.95 * (len(t) - 1))], 2),
                   "p99_ms": round(1e3 * sorted(t)[int(0.99 * (len(t) - 1))], 2),
                   "mean_ms": round(1e3 * statistics.mean(t), 2)} for tool, t in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"mcp-{size}.db"
            rate = prefill(path, size, args.embedder, args.seed)
            # the machine may be shared: the load average says how quiet the probes ran
            load = [round(x, 2) for x in os.getloadavg()]
            rows.append({"memories": size, "prefill_per_s": round(rate, 1), "loadavg_before_probes": load,
                         **asyncio.run(probe(path, args.probes, args.embedder, args.seed))})
            print(json.dumps(rows[-1]), file=sys.stderr)
    print(json.dumps({"benchmark": "mcp_stdio", "embedder": args.embedder, "probes": args.probes,
                      "results": rows}, indent=2))


if __name__ == "__main__":
    main()
