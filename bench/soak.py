"""Soak: mixed load against one `worlddb serve --transport http` for N minutes.

    python -m bench.soak --minutes 10                       # real default model, 6 clients
    python -m bench.soak --minutes 2 --embedder hash --clients 8 --out soak.json

Each client loops until the time is up over a mix of every tool: write (plain, with
entities and facts, multi-scope), recall (with and without pins), list, read, amend,
retire, list_scopes, and now and then a retire_all and a purge with erase of a throwaway
run scope. Traffic goes to 127.0.0.1 only and stops by itself.

Reported (JSON): operations and throughput per tool, latency p50/p95/p99, errors (must be
zero; the first few are quoted), the server's resident memory sampled every few seconds
(after warm-up, at the end, peak, growth and growth per 1,000 memories - the HNSW index
and page cache grow with the data, a leak grows with time), and the database size. At the
end the server is stopped, every acknowledged write must be in the file with its text,
and the file must pass bench.invariants. Exit status 1 on any error or failed check.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench import invariants
from bench.serverproc import UNLIMITED, HttpServer, ToolFailed, call

PEOPLE = ["Alice Moreau", "Bob Tanaka", "Carla Diaz", "Dmitri Volkov", "Esther Okafor", "Farid Haddad"]
CITIES = ["Austin", "Denver", "Lisbon", "Osaka", "Nairobi", "Quito"]
TOPICS = ["the garden", "a train delay", "the quarterly report", "jazz records", "a hiking plan", "tax forms",
          "the new kitten", "a dentist appointment", "the book club", "a birthday present"]


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    error_count: int = 0
    acked: dict[str, str] = field(default_factory=dict)  # id -> text
    erased: set[str] = field(default_factory=set)

    def fail(self, message: str) -> None:
        self.error_count += 1
        if len(self.errors) < 10:
            self.errors.append(message)


async def _client(url: str, number: int, deadline: float, stats: Stats, seed: int) -> None:
    from mcp import Client

    rng = random.Random(seed * 1000 + number)
    user = {"user_id": f"soak-{number % 4}"}
    own: list[str] = []
    n = 0

    async def op(tool: str, **args):
        start = time.perf_counter()
        result = await call(client, tool, **args)
        stats.latencies[tool].append(time.perf_counter() - start)
        return result

    async with Client(url) as client:
        while time.monotonic() < deadline:
            n += 1
            roll = rng.random()
            try:
                if roll < 0.25 or not own:
                    text = f"client {number} note {n}: {rng.choice(PEOPLE)} talked about {rng.choice(TOPICS)}"
                    own.append((await op("memory_write", text=text, **user))["id"])
                    stats.acked[own[-1]] = text
                elif roll < 0.32:
                    person, city = rng.choice(PEOPLE), rng.choice(CITIES)
                    text = f"{person} lives in {city} (client {number}, note {n})"
                    # a later "lives in" of the same person supersedes it: not amended or retired here
                    written = await op("memory_write", text=text, **user, entities=[{"name": person}],
                                       facts=[{"subject": person, "relation": "lives_in", "object": city}])
                    stats.acked[written["id"]] = text
                elif roll < 0.36:
                    text = f"shared note {number}-{n} about {rng.choice(TOPICS)}"
                    own.append((await op("memory_write", text=text, agent_id="soak-agent", **user))["id"])
                    stats.acked[own[-1]] = text
                elif roll < 0.66:
                    query = rng.choice([rng.choice(TOPICS), f"where does {rng.choice(PEOPLE)} live",
                                        f"what did {rng.choice(PEOPLE)} talk about", stats.acked.get(own[-1], "")])
                    pins = rng.choice([{}, {}, {"include_retired": True}, {"as_of": "2020-01-01"}])
                    await op("memory_recall", query=query or "notes", limit=rng.choice([5, 10, 20]), **user, **pins)
                elif roll < 0.74:
                    await op("memory_list", limit=rng.choice([10, 50]), **user)
                elif roll < 0.84:
                    await op("memory_read", id=rng.choice(own), **user)
                elif roll < 0.89 and len(own) > 5:
                    old = own.pop(rng.randrange(len(own) - 1))
                    text = f"amended by client {number} at {n}"
                    new = (await op("memory_amend", id=old, text=text, **_scopes_of(stats, old, user)))["id"]
                    stats.acked[new] = text
                    own.append(new)
                elif roll < 0.93 and len(own) > 5:
                    old = own.pop(rng.randrange(len(own) - 1))
                    await op("memory_retire", id=old, **_scopes_of(stats, old, user))
                elif roll < 0.995:
                    await op("memory_list_scopes")
                else:
                    scope = {"run_id": f"soak-{number}-{n}"}
                    ids = [(await op("memory_write", text=f"throwaway {number}-{n}-{i}", **scope))["id"]
                           for i in range(3)]
                    for anchor, i in zip(ids, range(3)):
                        stats.acked[anchor] = f"throwaway {number}-{n}-{i}"
                    await op("memory_retire_all", **scope)
                    await op("memory_purge_scope", confirm=f"run:soak-{number}-{n}", erase=True, **scope)
                    stats.erased.update(ids)
            except ToolFailed as exc:
                stats.fail(f"client {number}: {exc}")
            except Exception as exc:  # a transport failure is an error too
                stats.fail(f"client {number}: {exc!r}")
                return


def _scopes_of(stats: Stats, anchor: str, user: dict) -> dict:
    return {**user, "agent_id": "soak-agent"} if stats.acked.get(anchor, "").startswith("shared note") else user


def _percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return round(1000 * values[min(len(values) - 1, int(len(values) * q))], 1) if values else 0.0


async def soak(directory: Path, *, minutes: float, clients: int, embedder: str, seed: int = 0,
               sample_every: float = 5.0, log=None) -> dict:
    import psutil

    db = directory / "soak.db"
    stats = Stats()
    server = HttpServer(db, embedder=embedder, extra=("--functional", "lives_in", *UNLIMITED),
                        log=directory / "server.log")
    await asyncio.to_thread(server.start)
    process = psutil.Process(server.pid)
    samples: list[tuple[float, float, int]] = []  # (seconds, rss MiB, memories acknowledged)
    started = time.monotonic()
    deadline = started + minutes * 60

    async def sampler() -> None:
        while time.monotonic() < deadline:
            samples.append((time.monotonic() - started, process.memory_info().rss / 2**20, len(stats.acked)))
            if log and len(samples) % 12 == 1:
                log(f"{samples[-1][0]:.0f} s: rss {samples[-1][1]:.0f} MiB, {len(stats.acked)} writes, "
                    f"{stats.error_count} errors")
            await asyncio.sleep(sample_every)

    try:
        await asyncio.gather(sampler(), *(_client(server.url, i, deadline, stats, seed) for i in range(clients)))
        samples.append((time.monotonic() - started, process.memory_info().rss / 2**20, len(stats.acked)))
    finally:
        code = server.stop()
    elapsed = time.monotonic() - started
    report = invariants.check(db)
    missing = _missing(db, stats)
    ops = {tool: len(values) for tool, values in stats.latencies.items()}
    warm = samples[min(len(samples) - 1, max(1, len(samples) // 10))]
    end = samples[-1]
    grown = end[2] - warm[2]
    return {
        "ok": stats.error_count == 0 and report.ok and not missing,
        "minutes": minutes, "clients": clients, "embedder": embedder, "seconds": round(elapsed, 1),
        "operations": sum(ops.values()), "ops_per_s": round(sum(ops.values()) / elapsed, 1),
        "writes_acknowledged": len(stats.acked),
        "per_tool": {tool: {"count": ops[tool], "per_s": round(ops[tool] / elapsed, 2),
                            "p50_ms": _percentile(v, 0.5), "p95_ms": _percentile(v, 0.95),
                            "p99_ms": _percentile(v, 0.99)} for tool, v in sorted(stats.latencies.items())},
        "errors": stats.error_count, "first_errors": stats.errors,
        "rss_mib": {"after_warmup": round(warm[1], 1), "end": round(end[1], 1),
                    "peak": round(max(s[1] for s in samples), 1), "growth": round(end[1] - warm[1], 1),
                    "growth_per_1000_memories": round(1000 * (end[1] - warm[1]) / grown, 2) if grown else None,
                    "samples": len(samples)},
        "db_mib": round(sum(p.stat().st_size for p in directory.glob("soak.db*")) / 2**20, 1),
        "server_exit": code,
        "missing_acknowledged": len(missing),
        "invariants": "ok" if report.ok else report.problems[:10],
        "counts": report.counts,
    }


def _missing(db: Path, stats: Stats) -> list[str]:
    conn = sqlite3.connect(str(db))
    try:
        bodies = dict(conn.execute("SELECT n.anchor, n.record FROM nodes n WHERE n.type = 'Memory'").fetchall())
    finally:
        conn.close()
    missing = []
    for anchor, text in stats.acked.items():
        body = bodies.get(anchor, b"")
        if anchor in stats.erased:
            if anchor not in bodies or body is not None:
                missing.append(anchor)
        elif not body or json.loads(body)["content"] != text:
            missing.append(anchor)
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", default=None, help="where the database goes (default: a temporary dir)")
    parser.add_argument("--out", default=None, help="also write the JSON report here")
    args = parser.parse_args(argv)
    directory = Path(args.dir or tempfile.mkdtemp(prefix="worlddb-soak-"))
    directory.mkdir(parents=True, exist_ok=True)

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    result = asyncio.run(soak(directory, minutes=args.minutes, clients=args.clients, embedder=args.embedder,
                              seed=args.seed, log=log))
    result["dir"] = str(directory)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
