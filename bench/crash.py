"""Crash safety: kill a serving WorldDB with SIGKILL at random moments during writes,
restart it on the same file, and check that nothing acknowledged was lost and nothing
half-written is visible.

    python -m bench.crash --kills 200                      # 100 stdio + 100 HTTP rounds
    python -m bench.crash --kills 40 --transport http --embedder minilm --seed 7

One database file per transport, reused across every round. A round:
  1. start `worlddb serve` (stdio: as a desktop app starts it; HTTP: on a loopback port);
  2. through it, memory_read every write acknowledged in the previous round (the text is
     exactly what was sent; acknowledged amends are superseded, retires retired) and
     recall a few of them as of their own start (the restarted server's ANN index holds
     them; a later write may have superseded them);
  3. let several clients write at once - plain, multi-scope, with entities and facts
     (relation lives_in is functional, so facts supersede one another), amend, retire,
     purge-with-erase of a throwaway scope, recall and list in between - and SIGKILL the
     server after a random delay, while requests are in flight;
  4. offline, on the same file: PRAGMA integrity_check, FTS5 integrity-check,
     worlddb.graph.verify, every invariant of bench.invariants (no memory outside its scope,
     no supersedes edge without its closing, no same_as without its proposal, index rows
     and vectors present, the ANN index equal to SQL - both a fresh one and one kept open
     in this process across all rounds, as another window's server would), and every
     acknowledged operation's effect present.
After the last kill the server is started once more for step 2, stopped cleanly, and
`worlddb verify` (the command) must exit 0. A tool error during the load, a server that
dies before it is killed, or any failed check stops the run. Prints a JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

from bench import invariants
from bench.serverproc import UNLIMITED, HttpServer, ToolFailed, call, stdio_params, stdio_pid

PEOPLE = ["Alice Moreau", "Alise Moreau", "Bob Tanaka", "Carla Diaz", "Karla Diaz", "Dmitri Volkov", "Esther Okafor"]
CITIES = ["Austin", "Denver", "Lisbon", "Osaka", "Nairobi", "Quito"]
TOPICS = ["the garden", "a train delay", "the quarterly report", "jazz records", "a hiking plan", "tax forms"]
EXTRA = ("--functional", "lives_in", "--consolidate-every", "0", *UNLIMITED)


@dataclass
class Ledger:
    """What the server acknowledged, by operation."""

    written: dict[str, tuple[str, dict]] = field(default_factory=dict)   # id -> (text, scope args)
    amended: dict[str, str] = field(default_factory=dict)                # old id -> new id
    retired: set[str] = field(default_factory=set)
    purged: dict[str, list[str]] = field(default_factory=dict)           # scope key -> ids written into it
    maybe_erased: set[str] = field(default_factory=set)                  # a purge was sent, unanswered
    round_ids: list[str] = field(default_factory=list)                   # acknowledged in the last round
    counts: dict[str, int] = field(default_factory=dict)

    def count(self, op: str) -> None:
        self.counts[op] = self.counts.get(op, 0) + 1


class Failure(AssertionError):
    pass


@dataclass
class Round:
    number: int
    rng: random.Random
    killed: bool = False
    in_flight: int = 0
    at_kill: int = 0
    workers: int = 1
    ready: int = 0
    going: asyncio.Event = field(default_factory=asyncio.Event)
    acked: asyncio.Event = field(default_factory=asyncio.Event)  # a write of this round was acknowledged
    failures: list[str] = field(default_factory=list)


async def _worker(client, ledger: Ledger, rnd: Round, worker: int, own: list[str]) -> None:
    rng = rnd.rng
    n = 0
    rnd.ready += 1
    if rnd.ready == rnd.workers:
        rnd.going.set()
    while True:
        n += 1
        tag = f"r{rnd.number}w{worker}n{n}"
        roll = rng.random()
        rnd.in_flight += 1
        try:
            if roll < 0.45 or (roll < 0.85 and not own):
                text = f"note {tag} about {rng.choice(TOPICS)}"
                res = await call(client, "memory_write", text=text)
                _written(rnd, ledger, res["id"], text, {}, own)
            elif roll < 0.57:
                person, city = rng.choice(PEOPLE), rng.choice(CITIES)
                text = f"{person} lives in {city} ({tag})"
                res = await call(client, "memory_write", text=text, entities=[{"name": person, "type": "person"}],
                                 facts=[{"subject": person, "relation": "lives_in", "object": city}])
                # a later "lives in" of the same person supersedes it: never amended or retired here
                _written(rnd, ledger, res["id"], text, {}, [])
            elif roll < 0.65:
                text = f"shared {tag}: {rng.choice(PEOPLE)} mentioned {rng.choice(TOPICS)}"
                scopes = {"user_id": "u", "agent_id": "crash"}
                res = await call(client, "memory_write", text=text, **scopes)
                _written(rnd, ledger, res["id"], text, scopes, own)
            elif roll < 0.73:
                old = own.pop(rng.randrange(len(own)))
                text = f"amended {tag}: {ledger.written[old][0]}"[:2000]
                res = await call(client, "memory_amend", id=old, text=text, **ledger.written[old][1])
                ledger.amended[old] = res["id"]
                _written(rnd, ledger, res["id"], text, ledger.written[old][1], own)
                ledger.count("amend")
            elif roll < 0.78:
                old = own.pop(rng.randrange(len(own)))
                await call(client, "memory_retire", id=old, reason=f"retired {tag}", **ledger.written[old][1])
                ledger.retired.add(old)
                ledger.count("retire")
            elif roll < 0.80 and worker == 0:
                await _purge_cycle(client, ledger, tag)
            elif roll < 0.93 and ledger.written:
                text, scopes = ledger.written[rng.choice(list(ledger.written))]
                await call(client, "memory_recall", query=text, limit=5, **scopes)
                ledger.count("recall")
            else:
                await call(client, "memory_list", limit=20)
                ledger.count("list")
        except ToolFailed as exc:
            rnd.failures.append(f"round {rnd.number} worker {worker}: {exc}")
            return
        except Exception as exc:  # the connection went away: expected only once the server was killed
            if not rnd.killed:
                rnd.failures.append(f"round {rnd.number} worker {worker}: lost the server before the kill: {exc!r}")
            return
        finally:
            rnd.in_flight -= 1


def _written(rnd: Round, ledger: Ledger, anchor: str, text: str, scopes: dict, own: list[str]) -> None:
    ledger.written[anchor] = (text, scopes)
    ledger.round_ids.append(anchor)
    own.append(anchor)
    ledger.count("write")
    rnd.acked.set()


async def _purge_cycle(client, ledger: Ledger, tag: str) -> None:
    """Write into a throwaway run scope, then purge it with erase (which vacuums the file)."""
    scope = {"run_id": f"purge-{tag}"}
    ids = []
    for i in range(3):
        text = f"doomed {tag} number {i}"
        res = await call(client, "memory_write", text=text, **scope)
        ledger.written[res["id"]] = (text, scope)
        ledger.round_ids.append(res["id"])
        ids.append(res["id"])
    ledger.maybe_erased.update(ids)  # from here until the answer, either outcome is allowed
    await call(client, "memory_purge_scope", confirm=f"run:purge-{tag}", erase=True, **scope)
    ledger.purged[f"run:purge-{tag}"] = ids
    ledger.maybe_erased.difference_update(ids)
    ledger.count("purge")


async def _confirm(client, ledger: Ledger, rng: random.Random) -> int:
    """Through a freshly started server: every id acknowledged last round reads back."""
    erased = {i for ids in ledger.purged.values() for i in ids}
    checked = 0
    began: dict[str, str] = {}
    for anchor in ledger.round_ids:
        text, scopes = ledger.written[anchor]
        got = await call(client, "memory_read", id=anchor, **scopes)
        began[anchor] = got["valid_from"]
        checked += 1
        if anchor in erased:
            if got["text"] is not None:
                raise Failure(f"{anchor} was erased but memory_read returns its text")
            continue
        if anchor in ledger.maybe_erased and got["text"] is None:
            continue
        if got["text"] != text:
            raise Failure(f"{anchor}: read back {got['text']!r}, wrote {text!r}")
        if anchor in ledger.amended and ledger.amended[anchor] not in got["superseded_by"]:
            raise Failure(f"{anchor} was amended by {ledger.amended[anchor]} but is not superseded by it")
        if anchor in ledger.retired and not got["retired"]:
            raise Failure(f"{anchor} was retired (acknowledged) but reads as not retired")
    current = [a for a in ledger.round_ids if a not in ledger.amended and a not in ledger.retired
               and a not in erased and a not in ledger.maybe_erased]
    for anchor in rng.sample(current, min(3, len(current))):
        text, scopes = ledger.written[anchor]
        # as of the memory's own start: a later write may have superseded it ("Bob lives in
        # Lisbon", then "... in Denver"), and a recall of now puts each newer text ahead of
        # the one it replaced, which among many near-equal texts can fill the five places
        hits = (await call(client, "memory_recall", query=text, limit=5, include_retired=True,
                           as_of=began[anchor], **scopes))["results"]
        found = [h for h in hits if h["id"] == anchor]
        if not found or "vector" not in found[0]["lanes"]:
            raise Failure(f"recall of {text!r} after restart: {anchor} not found by the vector lane ({hits[:2]})")
    ledger.round_ids = []
    # warm up: the first write of a process loads the extractor; the kill should land on
    # writes in their stride, not on that one
    text = f"warm-up write {len(ledger.written)}"
    res = await call(client, "memory_write", text=text)
    ledger.written[res["id"]] = (text, {})
    ledger.round_ids.append(res["id"])
    return checked


def offline_check(db: Path, ledger: Ledger, kept_indexes) -> dict:
    """Everything bench.invariants checks, plus every acknowledged effect, on the file."""
    import sqlite3

    report = invariants.check(db, ann_indexes=kept_indexes)
    if not report.ok:
        raise Failure(f"invariants broken after a kill:\n{report}")
    conn = sqlite3.connect(str(db))
    try:
        bodies = {}
        ids = list(ledger.written)
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            bodies.update(conn.execute(
                f"SELECT n.anchor, n.record FROM nodes n WHERE n.anchor IN ({','.join('?' * len(chunk))})",
                chunk).fetchall())
        erased = {i for group in ledger.purged.values() for i in group}
        for anchor, (text, _) in ledger.written.items():
            if anchor not in bodies:
                raise Failure(f"acknowledged write {anchor} ({text!r}) is missing")
            body = bodies[anchor]
            if anchor in erased:
                if body is not None:
                    raise Failure(f"{anchor} was erased by an acknowledged purge but its record is still there")
            elif anchor in ledger.maybe_erased and body is None:
                continue
            elif body is None or json.loads(body)["content"] != text:
                raise Failure(f"acknowledged write {anchor} does not hold its text")
        for old, new in ledger.amended.items():
            row = conn.execute("SELECT valid_to FROM nodes WHERE anchor=?", (old,)).fetchone()
            edge = conn.execute("SELECT 1 FROM edges e JOIN nodes a ON a.rowid = e.src JOIN nodes b ON b.rowid = e.dst "
                                "WHERE e.type='supersedes' AND a.anchor=? AND b.anchor=?", (new, old)).fetchone()
            if row[0] is None or edge is None:
                raise Failure(f"acknowledged amend {old} -> {new} is not in effect")
        for anchor in ledger.retired:
            row = conn.execute("SELECT retired_at, valid_to FROM nodes WHERE anchor=?", (anchor,)).fetchone()
            if row[0] is None or row[1] is None:
                raise Failure(f"acknowledged retire of {anchor} is not in effect")
        for key in ledger.purged:
            kind, sid = key.split(":", 1)
            live = conn.execute(
                "SELECT count(*) FROM scopes s JOIN nodes w ON w.anchor = s.anchor JOIN closure c ON c.world = w.rowid "
                "JOIN nodes n ON n.rowid = c.node WHERE s.kind=? AND s.sid=? AND n.retired_at IS NULL",
                (kind, sid)).fetchone()[0]
            if live:
                raise Failure(f"acknowledged purge of {key} left {live} nodes unretired")
    finally:
        conn.close()
    return report.counts


@dataclass
class Result:
    transport: str
    kills: int = 0
    acked: dict[str, int] = field(default_factory=dict)
    in_flight_at_kill: list[int] = field(default_factory=list)
    confirmed_reads: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


async def run_transport(transport: str, db: Path, kills: int, *, seed: int = 0, workers: int = 3,
                        embedder: str = "hash", max_delay: float = 0.8, log=None) -> Result:
    """`kills` rounds of load-then-SIGKILL on one file; raises Failure on any violation."""
    from worlddb.core.store import Store
    from worlddb.vectors.hnsw import EFFECTIVE, NAME, UNIT, AnnIndex

    rng = random.Random(f"{seed}-{transport}")
    ledger = Ledger()
    result = Result(transport)
    started = time.monotonic()
    observer, kept = None, []
    owned: list[list[str]] = [[] for _ in range(workers)]
    try:
        for number in range(kills + 1):
            rnd = Round(number, random.Random(rng.random()), workers=workers)
            async with AsyncExitStack() as stack:
                if transport == "stdio":
                    from mcp import Client

                    client = await stack.enter_async_context(
                        Client(stdio_params(db, embedder=embedder, extra=EXTRA)))
                    pid = stdio_pid(db)
                    clients = [client] * workers
                    server = None
                else:
                    server = HttpServer(db, embedder=embedder, extra=EXTRA)
                    await asyncio.to_thread(server.start)
                    stack.callback(server.kill)
                    pid = server.pid
                    clients = None
                result.confirmed_reads += await _with_client(transport, server, clients,
                                                             lambda c, rng=rnd.rng: _confirm(c, ledger, rng))
                if observer is None:
                    observer = Store.open(db)
                    kept = [AnnIndex(observer, kind) for kind in (EFFECTIVE, UNIT, NAME)]
                    for index in kept:
                        index.sync()
                if number == kills:
                    if server is not None:
                        server.stop()
                    break
                owned = [own[-50:] for own in owned]
                await _load_and_kill(transport, server, clients, pid, ledger, rnd, owned, max_delay)
                try:
                    await stack.aclose()
                except Exception:
                    pass  # closing clients whose server was killed fails, as it should
            if rnd.failures:
                raise Failure("; ".join(rnd.failures[:5]))
            result.kills += 1
            result.in_flight_at_kill.append(rnd.at_kill)
            result.counts = await asyncio.to_thread(offline_check, db, ledger, kept)
            if log:
                log(f"{transport} kill {result.kills}/{kills}: acked {sum(ledger.counts.values())} ops, "
                    f"{rnd.at_kill} in flight at the kill; checks ok")
    finally:
        if observer is not None:
            observer.close()
    verify = subprocess.run([sys.executable, "-m", "worlddb.cli", "verify", "--db", str(db)],
                            capture_output=True, text=True, timeout=300)
    if verify.returncode != 0:
        raise Failure(f"worlddb verify failed: {verify.stdout[-2000:]}{verify.stderr[-2000:]}")
    result.acked = dict(ledger.counts)
    result.seconds = round(time.monotonic() - started, 1)
    return result


async def _with_client(transport, server, clients, fn):
    if transport == "stdio":
        return await fn(clients[0])
    from mcp import Client

    async with Client(server.url) as client:
        return await fn(client)


async def _load_and_kill(transport, server, clients, pid, ledger, rnd: Round, owned, max_delay) -> None:
    async def http_worker(i: int) -> None:
        from mcp import Client

        try:
            async with Client(server.url) as client:
                await _worker(client, ledger, rnd, i, owned[i])
        except Exception as exc:
            if not rnd.killed:
                rnd.failures.append(f"round {rnd.number} worker {i}: {exc!r}")

    async def killer() -> None:
        try:  # the delay counts from when every client is sending, not from connecting, and
            # from the round's first acknowledged write: a slow (busy) machine gets to write
            # something before each kill, so every round tests what "acknowledged" promises
            await asyncio.wait_for(rnd.going.wait(), 60)
            await asyncio.wait_for(rnd.acked.wait(), 60)
        except TimeoutError:
            pass  # a client that never got going or never got a write through has reported why
        await asyncio.sleep(rnd.rng.uniform(0.05, max_delay))
        rnd.killed = True
        rnd.at_kill = rnd.in_flight
        os.kill(pid, signal.SIGKILL)
        if server is not None:
            await asyncio.to_thread(server.proc.wait)

    if transport == "stdio":
        tasks = [_worker(clients[i], ledger, rnd, i, owned[i]) for i in range(len(clients))]
    else:
        tasks = [http_worker(i) for i in range(len(owned))]
    await asyncio.gather(killer(), *tasks)


async def run(kills: int, *, transports=("stdio", "http"), directory: Path, seed: int = 0, embedder: str = "hash",
              workers: int = 3, max_delay: float = 0.8, log=None) -> list[Result]:
    """Split `kills` over the transports and run them side by side, one file each."""
    share = [kills // len(transports) + (1 if i < kills % len(transports) else 0) for i in range(len(transports))]
    jobs = [run_transport(t, directory / f"crash-{t}.db", n, seed=seed, workers=workers, embedder=embedder,
                          max_delay=max_delay, log=log) for t, n in zip(transports, share)]
    return list(await asyncio.gather(*jobs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.crash", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200, help="SIGKILLs in total, split over the transports")
    parser.add_argument("--transport", choices=("both", "stdio", "http"), default="both")
    parser.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    parser.add_argument("--workers", type=int, default=3, help="concurrent clients per round")
    parser.add_argument("--max-delay", type=float, default=0.8, help="longest time before the kill, seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", default=None, help="where the database files go (default: a temporary dir)")
    args = parser.parse_args(argv)
    transports = ("stdio", "http") if args.transport == "both" else (args.transport,)
    directory = Path(args.dir or tempfile.mkdtemp(prefix="worlddb-crash-"))
    directory.mkdir(parents=True, exist_ok=True)

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        results = asyncio.run(run(args.kills, transports=transports, directory=directory, seed=args.seed,
                                  embedder=args.embedder, workers=args.workers, max_delay=args.max_delay, log=log))
    except Failure as exc:
        print(json.dumps({"ok": False, "failure": str(exc), "dir": str(directory)}, indent=2))
        return 1
    print(json.dumps({"ok": True, "dir": str(directory), "results": [r.__dict__ for r in results]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
