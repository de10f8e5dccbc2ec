"""What a desktop client waits for when it starts `worlddb serve`: the answer to initialize,
the first memory_write and the first memory_recall, and the server's CPU seconds for each.

    python -m bench.startup [--rounds 5] [--embedder minilm|hash] [--baseline-python PY] [--out FILE]

Each round starts `worlddb serve` over stdio on a new file, as a desktop client does (the
server builds its indexes and the readers' tables in the background from the start; a call
that comes first waits for that), and speaks newline-delimited JSON-RPC to it
(bench.mcp.StdioPeer): initialize, then one memory_write, then one memory_recall, each
timed from the process's start. With `--baseline-python` (the interpreter of another
installation: a checkout of an earlier commit), its server is started in alternation with
this one's, round by round, so both see the same machine; the CPU seconds are the steadier
figure on a busy machine.

Prints JSON: per server, the median and each round's seconds to the initialize answer, to the
first write's answer and to the first recall's, and the server's CPU seconds at each point.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.mcp import StdioPeer, _cpu

#: the points a round is timed at, in order
POINTS = ("initialized", "first_write", "first_recall")


async def one_start(path: Path, embedder: str, python: str) -> dict[str, float]:
    """Start a server on `path`, write once and recall once; wall and CPU seconds at each point."""
    from bench.serverproc import serve_args, working_dir

    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        python, *serve_args(path, embedder=embedder, default_user="bench"),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        limit=2**24, cwd=working_dir(python))
    peer, out = StdioPeer(process), {}
    try:
        await peer.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "bench.startup", "version": "1"}})
        await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        out["initialized"] = time.perf_counter() - started
        out["initialized_cpu"] = _cpu(process.pid)
        for point, tool, arguments in (("first_write", "memory_write", {"text": "I moved to Denver last week."}),
                                       ("first_recall", "memory_recall", {"query": "Where do I live?"})):
            result = await peer.request("tools/call", {"name": tool, "arguments": arguments})
            if result.get("isError"):
                raise RuntimeError(result["content"][0]["text"])
            out[point] = time.perf_counter() - started
            out[point + "_cpu"] = _cpu(process.pid)
    finally:
        process.stdin.close()
        await process.wait()
    return {k: round(v, 3) for k, v in out.items()}


def summary(rounds: list[dict[str, float]]) -> dict:
    return {"median": {k: round(statistics.median(r[k] for r in rounds), 3) for k in rounds[0]}, "rounds": rounds}


async def run(rounds: int, embedder: str, baseline_python: str | None) -> dict:
    servers = {"this": sys.executable} | ({"baseline": baseline_python} if baseline_python else {})
    seen: dict[str, list[dict[str, float]]] = {name: [] for name in servers}
    with tempfile.TemporaryDirectory() as work:
        for i in range(rounds):
            order = list(servers) if i % 2 == 0 else list(reversed(servers))
            for name in order:
                seen[name].append(await one_start(Path(work) / f"{name}-{i}.db", embedder, servers[name]))
                print(f"\r  round {i + 1}/{rounds}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return {name: summary(r) for name, r in seen.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--baseline-python", default=None,
                        help="another installation's interpreter, started in alternation with this one")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    result = {"benchmark": "startup", "embedder": args.embedder, "load_average_before": round(load, 2),
              **asyncio.run(run(args.rounds, args.embedder, args.baseline_python)),
              "load_average_after": round(os.getloadavg()[0], 2)}
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
