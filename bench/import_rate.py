"""`worlddb import` rate per format, next to single memory_write calls over stdio, in one run.

    python -m bench.import_rate [--memories 5000] [--single 200] [--judge] [--out FILE]

Writes three files of the same synthetic memories (bench.mcp's generator: people, places,
activities, dates and numbers) - JSON lines of memory_write arguments, the MCP reference
memory server's JSONL (entities with observations, and relations between them) and a Mem0
export - and times `python -m worlddb.cli import` on each into a fresh database (a child
process, as a user runs it, default MiniLM embedder; the rate is the command's own report:
memories written per second of import, model load and file read included). The old way in,
in the same run: a stdio server (`worlddb serve`, as a desktop client starts it) taking
`--single` memory_write calls one after another from newline-delimited JSON-RPC. With
`--judge`, the jsonl file is imported once more with `worlddb import --judge` (each memory
judged against the current ones as memory_write judges it, a transaction each): row
"jsonl --judge".

Baseline: with `--baseline-python PY` (the interpreter of another installation of worlddb, a
checkout of an earlier commit), each import and the single writes are run once more by that
interpreter, right after this one's, into files of their own: the code before a change,
measured in the same run ("baseline" in the output).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.mcp import PEOPLE, PLACES, StdioPeer, memory_text
from bench.output import emit
from bench.serverproc import child_env, serve_args, working_dir


def write_files(folder: Path, count: int, seed: int) -> dict[str, Path]:
    rng = random.Random(seed)
    texts = [memory_text(rng, i) for i in range(count)]
    paths = {"jsonl": folder / "calls.jsonl", "official-memory": folder / "memory.jsonl", "mem0": folder / "mem0.json"}
    paths["jsonl"].write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    # the reference server's file: one entity per person and place, each observation a memory
    names = PEOPLE + PLACES
    relations = [{"type": "relation", "from": p, "to": q, "relationType": "knows"}
                 for p in PEOPLE for q in PEOPLE if p < q][: count // 10]
    observations: dict[str, list[str]] = {n: [] for n in names}
    for i, text in enumerate(texts[: count - len(relations)]):
        observations[names[i % len(names)]].append(text)
    entities = [{"type": "entity", "name": n, "entityType": "person" if n in PEOPLE else "place",
                 "observations": observations[n]} for n in names]
    paths["official-memory"].write_text("\n".join(json.dumps(r) for r in entities + relations))
    records = [{"id": f"m{i}", "memory": t, "hash": str(i), "metadata": None, "created_at": "2024-07-20T01:09:24Z",
                "updated_at": None, "user_id": "bench"} for i, t in enumerate(texts)]
    paths["mem0"].write_text(json.dumps({"results": records}))
    return paths


def import_file(path: Path, fmt: str, db: Path, python: str | None = None, judge: bool = False) -> dict:
    started = time.perf_counter()
    done = subprocess.run([python or sys.executable, "-m", "worlddb.cli", "import", str(path), "--db", str(db),
                           "--format", fmt, "--scope", "user:bench", *(["--judge"] if judge else [])],
                          env=child_env(), capture_output=True, text=True, check=True, cwd=working_dir(python))
    report = json.loads(done.stdout)
    report["wall_with_process_start_s"] = round(time.perf_counter() - started, 2)
    return report


async def single_writes(db: Path, count: int, seed: int, python: str | None = None) -> dict:
    process = await asyncio.create_subprocess_exec(
        python or sys.executable,
        *serve_args(db, embedder="minilm", default_user="bench", extra=("--consolidate-every", "0")),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        limit=2**24, cwd=working_dir(python))
    peer = StdioPeer(process)
    rng = random.Random(seed + 7)
    try:
        await peer.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "bench.import_rate", "version": "1"}})
        await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        await peer.request("tools/call", {"name": "memory_write", "arguments": {"text": "warm up"}})
        started = time.perf_counter()
        for i in range(count):
            result = await peer.request("tools/call", {"name": "memory_write",
                                                       "arguments": {"text": memory_text(rng, i)}})
            if result.get("isError"):
                raise RuntimeError(result["content"][0]["text"])
        seconds = time.perf_counter() - started
    finally:
        process.stdin.close()
        await process.wait()
    return {"memories": count, "seconds": round(seconds, 2), "per_second": round(count / seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--single", type=int, default=200,
                        help="single memory_write calls for the old way in (0: none, imports only)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--judge", action="store_true", help="also import the jsonl file with --judge")
    parser.add_argument("--baseline-python", default=None,
                        help="also run every part with this interpreter (another installation of worlddb)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rows, before = {}, {}
    single = "single_memory_write_over_stdio"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = write_files(folder, args.memories, args.seed)
        for fmt, path in paths.items():
            for name, python, out in (("", None, rows), ("baseline-", args.baseline_python, before)):
                if name and not python:
                    continue
                load = round(os.getloadavg()[0], 2)
                out[fmt] = {**import_file(path, fmt, folder / f"{name}{fmt}.db", python), "loadavg_1min": load}
                print(json.dumps({"baseline": bool(name), fmt: out[fmt]}), file=sys.stderr)
        if args.judge:
            load = round(os.getloadavg()[0], 2)
            rows["jsonl --judge"] = {**import_file(paths["jsonl"], "jsonl", folder / "judged.db", judge=True),
                                     "loadavg_1min": load}
        for name, python, out in (("", None, rows), ("baseline-", args.baseline_python, before)):
            if (name and not python) or not args.single:
                continue
            load = round(os.getloadavg()[0], 2)
            out[single] = {**asyncio.run(single_writes(folder / f"{name}single.db", args.single, args.seed, python)),
                           "loadavg_1min": load}
    best = max(r["per_second"] for f, r in rows.items() if f in paths)
    report = {"benchmark": "import_rate", "memories_per_file": args.memories, "cpus": os.cpu_count(), "results": rows}
    if single in rows:
        report["import_vs_single_writes"] = round(best / rows[single]["per_second"], 1)
    if before:
        report["vs_baseline"] = {f: round(rows[f]["per_second"] / before[f]["per_second"], 2) for f in paths}
    if before:
        report["baseline"] = {"python": args.baseline_python, "results": before}
    emit(report, args.out)


if __name__ == "__main__":
    main()
