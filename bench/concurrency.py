"""Concurrency: many clients on one HTTP server, and two server processes on one file.

    python -m bench.concurrency --clients 8 --writes 200                 # streamable HTTP
    python -m bench.concurrency --db postgresql://... --servers 3 --clients 8 --writes 50
    python -m bench.concurrency --two-stdio --writes 100 --embedder minilm
    python -m bench.concurrency --principals 8 --calls 200               # multi-tenant HTTP

HTTP: `clients` MCP clients, each with its own connection, interleave memory_write and
memory_recall against one `worlddb serve --transport http`. Every write's own recall must
return it (read-your-writes) and so must a recall of the latest write another client had
acknowledged before the call was made; at the end, paging through memory_list must give
exactly the acknowledged ids, each once, with its text. With `--servers N` (a PostgreSQL
store, `--db postgresql://...`: several servers share one only there) N HTTP servers run
on the same store with `clients` clients each; the other client whose latest write a
client recalls is one of another server's, so every write is checked to be visible on
another server's next call, and at the end each server's memory_list must give exactly
the acknowledged ids.

Two stdio servers on the same file, as two desktop windows would start them: each client
writes through its own server while the other does the same; after each write the client
recalls the *other* process's latest acknowledged write, which must be there - found by
an HNSW lane too, so the in-memory index caught up from SQL - and must show up in its
memory_list; every fifth write is retired at once, and the other process's next recall
must no longer return it. Both write the same entity names at the same time; each name must end up
as one entity in the scope, not one per process.

Multi-tenant HTTP: `principals` principals, each with a token of its own (worlddb auth)
granted only user:<its name>, make `calls` mixed calls each, all at once, against one
server with its default limits: writes, recalls of their own text and of another's,
pages, reads and amendments and retirements of their own memories, and - as an intruder -
reads of another principal's ids and calls naming another's scope, which must fail as if
it did not exist. Every answer is checked: any id, text or scope of another principal in
it is a leak. A call refused by the rate limit is retried after the hint it gives.

All end with `bench.invariants.check` on the file. Any tool error, lost, duplicated or
unseen write, or leak raises `Failure`; the script exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import invariants
from bench.serverproc import UNLIMITED, HttpServer, call, stdio_params
from worlddb.core.backends import is_url


class Failure(AssertionError):
    pass


@dataclass
class Outcome:
    writes: int = 0
    recalls: int = 0
    seconds: float = 0.0
    latencies: dict[str, list[float]] = field(default_factory=dict)

    def timed(self, tool: str, seconds: float) -> None:
        self.latencies.setdefault(tool, []).append(seconds)

    def summary(self) -> dict:
        out = {"writes": self.writes, "recalls": self.recalls, "seconds": round(self.seconds, 2),
               "ops_per_s": round((self.writes + self.recalls) / self.seconds, 1) if self.seconds else None}
        for tool, values in self.latencies.items():
            values = sorted(values)
            out[f"{tool}_p50_ms"] = round(1000 * values[len(values) // 2], 1)
            out[f"{tool}_p95_ms"] = round(1000 * values[int(len(values) * 0.95)], 1)
        return out


async def _timed(outcome: Outcome, client, tool: str, **args) -> dict:
    start = time.perf_counter()
    result = await call(client, tool, **args)
    outcome.timed(tool, time.perf_counter() - start)
    return result


def _ids(hits: list[dict]) -> list[str]:
    return [h["id"] for h in hits]


async def list_all(client, **args) -> list[dict]:
    memories, cursor = [], ""
    while True:
        page = await call(client, "memory_list", limit=500, cursor=cursor, **args)
        memories += page["memories"]
        if not page["next_cursor"]:
            return memories
        cursor = page["next_cursor"]


async def http_clients(url: str | list[str], clients: int, writes: int, outcome: Outcome | None = None
                       ) -> Outcome:
    """`clients` concurrent clients against each server of `url`; see the module docstring."""
    from mcp import Client

    urls = [url] if isinstance(url, str) else list(url)
    servers = len(urls)
    outcome = outcome or Outcome()
    acked: dict[str, str] = {}
    latest: dict[int, tuple[str, str]] = {}
    start = time.perf_counter()

    async def one(c: int) -> None:
        async with Client(urls[c % servers]) as client:
            for i in range(writes):
                text = f"client {c} wrote item {i} token c{c}i{i}"
                res = await _timed(outcome, client, "memory_write", text=text)
                acked[res["id"]] = text
                latest[c] = (res["id"], text)
                outcome.writes += 1
                hits = (await _timed(outcome, client, "memory_recall", query=text, limit=5))["results"]
                outcome.recalls += 1
                if res["id"] not in _ids(hits):
                    raise Failure(f"client {c}: its own write {res['id']} is not recalled right after it")
                # with several servers: the latest write of a client of another server
                others = [v for k, v in list(latest.items()) if k != c and (servers == 1 or k % servers != c % servers)]
                if others:
                    other_id, other_text = others[i % len(others)]
                    hits = (await _timed(outcome, client, "memory_recall", query=other_text, limit=5))["results"]
                    outcome.recalls += 1
                    if other_id not in _ids(hits):
                        raise Failure(f"client {c}: another client's acknowledged write {other_id} is not recalled")

    await asyncio.gather(*(one(c) for c in range(clients * servers)))
    outcome.seconds += time.perf_counter() - start
    for each in urls:
        async with Client(each) as client:
            listed = await list_all(client)
        _same_set(listed, acked)
    return outcome


def _same_set(listed: list[dict], acked: dict[str, str]) -> None:
    ids = [m["id"] for m in listed]
    if len(ids) != len(set(ids)):
        raise Failure(f"memory_list returns duplicates: {len(ids) - len(set(ids))}")
    texts = [m["text"] for m in listed]
    if len(texts) != len(set(texts)):
        raise Failure("the same text is stored as more than one memory")
    if set(ids) != set(acked):
        raise Failure(f"{len(set(acked) - set(ids))} acknowledged writes missing, "
                      f"{len(set(ids) - set(acked))} unexpected memories")
    wrong = [m["id"] for m in listed if acked[m["id"]] != m["text"]]
    if wrong:
        raise Failure(f"{len(wrong)} memories hold other text than was written")


async def run_http(db: Path | str, *, clients: int = 8, writes: int = 200, embedder: str = "hash",
                   servers: int = 1, logs: Path | None = None) -> dict:
    started = [HttpServer(db, embedder=embedder, extra=("--consolidate-every", "0", *UNLIMITED),
                          log=None if logs is None else logs / f"http-{i}.log") for i in range(servers)]
    try:
        for server in started:
            server.start()
        outcome = await http_clients([server.url for server in started], clients, writes)
    finally:
        for server in started:
            server.stop()
    report = invariants.check(db)
    if not report.ok:
        raise Failure(f"invariants broken:\n{report}")
    return {**outcome.summary(), "servers": servers, "clients_per_server": clients,
            "load_avg": [round(x, 2) for x in os.getloadavg()]}


ANN_LANES = ("vector", "sentence")
SHARED_NAMES = ["Alice Moreau", "Bob Tanaka", "Carla Diaz"]


async def run_two_stdio(db: Path, *, writes: int = 40, embedder: str = "minilm") -> dict:
    """Two `worlddb serve` (stdio) processes on one file; see the module docstring."""
    from mcp import Client

    outcome = Outcome()
    acked: dict[str, str] = {}
    latest: dict[str, tuple[str, str] | None] = {"A": None, "B": None}
    retired: dict[str, tuple[str, str] | None] = {"A": None, "B": None}
    gone_ids: set[str] = set()
    params = stdio_params(db, embedder=embedder)
    async with Client(params) as first:
        # the second window starts once the first has created the file
        await call(first, "memory_list", limit=1)
        async with Client(stdio_params(db, embedder=embedder)) as second:
            start = time.perf_counter()
            # each window waits, after its first write, for the other's first write, so every
            # step from then on has the other's latest write to recall (however slow a start)
            started = {"A": asyncio.Event(), "B": asyncio.Event()}

            async def side(name: str, client, other: str) -> None:
                for i in range(writes):
                    person = SHARED_NAMES[i % len(SHARED_NAMES)]
                    text = f"window {name} note {i}: met {person} about topic{name}{i}"
                    res = await _timed(outcome, client, "memory_write", text=text,
                                       entities=[{"name": person, "type": "person"}])
                    outcome.writes += 1
                    if i % 5 == 4:  # retiring is a write too: the other window must stop seeing it
                        await call(client, "memory_retire", id=res["id"])
                        retired[name] = (res["id"], text)
                        gone_ids.add(res["id"])
                    else:
                        acked[res["id"]] = text
                        latest[name] = (res["id"], text)
                    if i == 0:
                        started[name].set()
                        await started[other].wait()
                    gone = retired[other]
                    if gone is not None:
                        hits = (await call(client, "memory_recall", query=gone[1], limit=5))["results"]
                        if gone[0] in _ids(hits):
                            raise Failure(f"window {name} still recalls {gone[0]}, retired by window {other}")
                    seen = latest[other]
                    if seen is None:
                        continue
                    other_id, other_text = seen
                    hits = (await _timed(outcome, client, "memory_recall", query=other_text, limit=5))["results"]
                    outcome.recalls += 1
                    found = [h for h in hits if h["id"] == other_id]
                    if not found:
                        raise Failure(f"window {name} does not recall window {other}'s acknowledged {other_id}")
                    if not set(found[0]["lanes"]) & set(ANN_LANES):
                        raise Failure(f"window {name}: {other_id} found only by {found[0]['lanes']}; "
                                      "its HNSW index did not catch up")
                    page = await call(client, "memory_list", limit=10)
                    if other_id not in [m["id"] for m in page["memories"]]:
                        # newer writes may have pushed it off the first page
                        if other_id not in [m["id"] for m in await list_all(client)]:
                            raise Failure(f"window {name}'s memory_list lacks {other_id}")

            await asyncio.gather(side("A", first, "B"), side("B", second, "A"))
            outcome.seconds = time.perf_counter() - start
            for client in (first, second):
                _same_set(await list_all(client), acked)
                everything = await list_all(client, include_retired=True)
                if {m["id"] for m in everything} != set(acked) | gone_ids:
                    raise Failure("memory_list with include_retired differs from what was written")
    report = invariants.check(db)
    if not report.ok:
        raise Failure(f"invariants broken:\n{report}")
    _one_entity_per_name(db)
    return outcome.summary()


def _one_entity_per_name(db: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(str(db))
    try:
        rows = conn.execute(
            "SELECT n.name, count(*) FROM nodes n JOIN closure c ON c.node = n.rowid "
            "JOIN nodes w ON w.rowid = c.world JOIN scopes s ON s.anchor = w.anchor "
            "WHERE n.type = 'Entity' AND s.kind = 'user' AND s.sid = 'u' GROUP BY n.name").fetchall()
    finally:
        conn.close()
    doubled = {name: n for name, n in rows if name in SHARED_NAMES and n > 1}
    if doubled:
        raise Failure(f"entities written by two processes at once were duplicated: {doubled}")


@dataclass
class _Tenant:
    """What one principal wrote and can still see: id -> text (current memories only)."""

    name: str
    token: str
    current: dict[str, str] = field(default_factory=dict)
    ever: set[str] = field(default_factory=set)

    @property
    def scope(self) -> str:
        return f"user:{self.name}"

    @property
    def marker(self) -> str:
        return f"tenant {self.name} "


async def run_principals(db: Path, *, principals: int = 8, calls: int = 200, embedder: str = "hash",
                         seed: int = 7, open_server: bool = False) -> dict:
    """`principals` principals x `calls` mixed calls each, at once; see the module docstring.

    :param open_server: the baseline: the same clients and calls against a server with no
        tokens and no limits (every client is one principal with every scope), so nothing is
        refused or checked for leaks - what multi-tenancy costs is the difference.
    """
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from worlddb.core.store import Store
    from worlddb.memory import principals as tokens

    store = Store.open(db)
    try:
        tenants = [_Tenant(f"p{i}", "" if open_server else tokens.add_token(store, f"p{i}", [f"user:p{i}"]))
                   for i in range(principals)]
    finally:
        store.close()
    outcome = Outcome()
    counts: dict[str, int] = {}
    checked = {"answers": 0, "refused_as_expected": 0, "rate_limited_retries": 0}

    def leak(tenant: _Tenant, where: str, ids=(), texts=(), scopes=()) -> None:
        checked["answers"] += 1
        if open_server:
            return
        foreign_ids = [i for i in ids if i not in tenant.ever]
        foreign_texts = [t for t in texts if not t.startswith(tenant.marker)]
        foreign_scopes = [s for s in scopes if s != tenant.scope]
        if foreign_ids or foreign_texts or foreign_scopes:
            raise Failure(f"{tenant.name} was shown another principal's data by {where}: "
                          f"ids {foreign_ids[:3]}, texts {foreign_texts[:3]}, scopes {foreign_scopes[:3]}")

    async def attempt(client, tool: str, **args):
        """The call's result; retried after the hint when the rate limit refuses it."""
        while True:
            start = time.perf_counter()
            result = await client.call_tool(tool, args)
            outcome.timed(tool, time.perf_counter() - start)
            text = result.content[0].text if result.is_error and result.content else ""
            hint = re.search(r"retry in (\d+(?:\.\d+)?) s", text)
            if result.is_error and hint:
                checked["rate_limited_retries"] += 1
                await asyncio.sleep(float(hint.group(1)))
                continue
            counts[tool] = counts.get(tool, 0) + 1
            return result

    async def ok(tenant, client, tool: str, **args) -> dict:
        result = await attempt(client, tool, **args)
        if result.is_error:
            raise Failure(f"{tenant.name}: {tool} failed: {result.content[0].text}")
        return result.structured_content

    async def refused(tenant, client, tool: str, expected: str, **args) -> None:
        result = await attempt(client, tool, **args)
        if open_server:
            return
        if not result.is_error or result.content[0].text != expected:
            raise Failure(f"{tenant.name}: {tool} as an intruder was answered "
                          f"{(result.content[0].text if result.is_error else result.structured_content)!r:.300}")
        checked["refused_as_expected"] += 1

    async def one(tenant: _Tenant, others: list[_Tenant], rng: random.Random) -> None:
        headers = {"authorization": f"Bearer {tenant.token}"} if tenant.token else {}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(server.url, http_client=http)) as client:
                mine = {"user_id": tenant.name}
                for k in range(calls):
                    other = rng.choice(others)
                    roll = rng.random()
                    if roll < 0.3 or not tenant.current:
                        text = f"{tenant.marker}note {k}: the {rng.choice(WORDS)} is by the {rng.choice(WORDS)}"
                        res = await ok(tenant, client, "memory_write", text=text, **mine)
                        outcome.writes += 1
                        tenant.current[res["id"]] = text
                        tenant.ever.add(res["id"])
                        leak(tenant, "memory_write", [res["id"]], scopes=res["scopes"])
                    elif roll < 0.5:
                        query = rng.choice(list(tenant.current.values()) + list(other.current.values()))
                        hits = (await ok(tenant, client, "memory_recall", query=query, limit=10, **mine))["results"]
                        outcome.recalls += 1
                        leak(tenant, "memory_recall", [h["id"] for h in hits], [h["text"] for h in hits],
                             [s for h in hits for s in h["scopes"]])
                    elif roll < 0.6:
                        page = await ok(tenant, client, "memory_list", limit=50, include_retired=True, **mine)
                        leak(tenant, "memory_list", [m["id"] for m in page["memories"]],
                             [m["text"] for m in page["memories"]], [s for m in page["memories"] for s in m["scopes"]])
                    elif roll < 0.7:
                        memory_id = rng.choice(list(tenant.current))
                        detail = await ok(tenant, client, "memory_read", id=memory_id, **mine)
                        leak(tenant, "memory_read", [detail["id"], *detail["supersedes"], *detail["superseded_by"]],
                             [detail["text"]], detail["scopes"] + detail["provenance"].get("scopes", []))
                    elif roll < 0.78 and other.ever:
                        # on the open baseline every id is everyone's: the same call, for an id nobody has
                        theirs = "0" * 64 if open_server else rng.choice(sorted(other.ever))
                        await refused(tenant, client, "memory_read",
                                      f"memory_read: no memory with id {theirs} in scope {tenant.scope}",
                                      id=theirs, **mine)
                    elif roll < 0.84:
                        tool, args = rng.choice([("memory_recall", {"query": "note"}), ("memory_list", {}),
                                                 ("memory_write", {"text": f"{tenant.marker}intrusion"}),
                                                 ("memory_retire_all", {})])
                        intruded = f"ghost-{tenant.name}" if open_server else other.name
                        await refused(tenant, client, tool, f"{tool}: no scope user:{intruded} exists",
                                      user_id=intruded, **args)
                    elif roll < 0.92:
                        old = rng.choice(list(tenant.current))
                        text = f"{tenant.marker}amended note {k}"
                        res = await ok(tenant, client, "memory_amend", id=old, text=text, **mine)
                        del tenant.current[old]
                        tenant.current[res["id"]] = text
                        tenant.ever.add(res["id"])
                        leak(tenant, "memory_amend", [res["id"], res["supersedes"]], scopes=res["scopes"])
                    elif roll < 0.97:
                        old = rng.choice(list(tenant.current))
                        res = await ok(tenant, client, "memory_retire", id=old, **mine)
                        leak(tenant, "memory_retire", [res["id"]])
                        del tenant.current[old]
                    else:
                        listed = await ok(tenant, client, "memory_list_scopes")
                        leak(tenant, "memory_list_scopes", scopes=[s["key"] for s in listed["scopes"]])

    # on the open baseline every client is the one principal `anonymous`, whose limits would
    # throttle all eight together: they are off there, and default for the tenants
    extra = ("--consolidate-every", "0", *(UNLIMITED if open_server else ()))
    with HttpServer(db, embedder=embedder, default_user=None, extra=extra) as server:
        start = time.perf_counter()
        await asyncio.gather(*(one(t, [o for o in tenants if o is not t], random.Random(seed + i))
                               for i, t in enumerate(tenants)))
        outcome.seconds = time.perf_counter() - start
        # at the end, each principal's pages hold exactly what it wrote and did not retire
        for tenant in tenants:
            headers = {"authorization": f"Bearer {tenant.token}"} if tenant.token else {}
            async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
                async with Client(streamable_http_client(server.url, http_client=http)) as client:
                    _same_set(await list_all(client, user_id=tenant.name), tenant.current)
    report = invariants.check(db)
    if not report.ok:
        raise Failure(f"invariants broken:\n{report}")
    total = sum(counts.values())
    summary = outcome.summary()
    summary.update(principals=principals, calls_per_principal=calls, calls=total,
                   leaks=None if open_server else 0, **checked,
                   calls_by_tool=dict(sorted(counts.items())), ops_per_s=round(total / outcome.seconds, 1),
                   load_avg=[round(x, 2) for x in os.getloadavg()])
    return summary


WORDS = ["lamp", "garden", "harbour", "violin", "ledger", "kettle", "compass", "lantern", "orchard", "bicycle"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.concurrency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--writes", type=int, default=200, help="writes per client (each followed by recalls)")
    parser.add_argument("--two-stdio", action="store_true", help="two stdio servers on one file instead of HTTP")
    parser.add_argument("--principals", type=int, default=0,
                        help="this many principals with tokens of their own instead of one (multi-tenant HTTP)")
    parser.add_argument("--calls", type=int, default=200, help="mixed calls per principal (with --principals)")
    parser.add_argument("--embedder", choices=("hash", "minilm"), default=None,
                        help="default: hash for HTTP, minilm for --two-stdio")
    parser.add_argument("--servers", type=int, default=1,
                        help="HTTP servers on the one store, `clients` clients each (more than one: --db URL)")
    parser.add_argument("--db", default=None, help="a postgresql:// URL of an empty database (default: a file)")
    parser.add_argument("--dir", default=None)
    args = parser.parse_args(argv)
    directory = Path(args.dir or tempfile.mkdtemp(prefix="worlddb-concurrency-"))
    directory.mkdir(parents=True, exist_ok=True)
    db = args.db if args.db else directory / "concurrency.db"
    if args.servers > 1 and not (args.db and is_url(args.db)):
        parser.error("several HTTP servers share a PostgreSQL store: give --db postgresql://...")
    if args.db and is_url(args.db) and (args.two_stdio or args.principals):
        parser.error("--db URL runs the HTTP mode")
    try:
        if args.two_stdio:
            summary = asyncio.run(run_two_stdio(db, writes=args.writes, embedder=args.embedder or "minilm"))
        elif args.principals:
            embedder = args.embedder or "hash"
            tenants = asyncio.run(run_principals(db, principals=args.principals, calls=args.calls, embedder=embedder))
            baseline = asyncio.run(run_principals(directory / "open.db", principals=args.principals, calls=args.calls,
                                                  embedder=embedder, open_server=True))
            summary = {"tenants": tenants, "baseline_open_server": baseline,
                       "ops_per_s_vs_baseline": round(tenants["ops_per_s"] / baseline["ops_per_s"], 3)}
        else:
            summary = asyncio.run(run_http(db, clients=args.clients, writes=args.writes,
                                           embedder=args.embedder or "hash", servers=args.servers, logs=directory))
    except Failure as exc:
        print(json.dumps({"ok": False, "failure": str(exc), "db": str(db) if not args.db else "postgresql"}, indent=2))
        return 1
    print(json.dumps({"ok": True, "db": str(db) if not (args.db and is_url(args.db)) else "postgresql",
                      **summary}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
