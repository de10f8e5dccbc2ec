"""Knowledge updates through the nine tools: does recall give the new value, and mark the old?

    python -m bench.updates --cases ../shared/data/updates-dev.json --out results.json [--mode write|amend]
                            [--embedder minilm|hash] [--python PATH] [--distractors 0 2000 ...]
                            [--locomo ../shared/data/locomo-dev.json]

`worlddb serve` runs as a subprocess over stdio, started as a desktop client starts it (with
the default embedding model unless --embedder says otherwise), and the MCP SDK's client
drives it. Each case gets a scope of its own (user:<case id>) in one database:

  1. memory_write the old statement, valid from `gap_days` before now;
  2. memory_write each distractor, valid at even steps between the old statement and now;
  3. write mode: memory_write the new statement (valid now), as an agent that just saves what
     it heard; amend mode: memory_amend the old memory's id with the new statement, as an
     agent that recalled it first;
  4. memory_recall the case's question (limit 5), once as an agent asks and once with
     include_retired.

Per case it reports what the write said (superseded, conflicts, duplicate_of, related, revised) and:
  top_new      the first hit of the plain recall holds the new value (case-insensitive)
  stale_marked every hit of either recall that holds the old value and not the new one carries
               superseded_by, conflicts or revised_by (a newer memory changed it in part), or is
               retired (a stale memory hidden altogether counts as marked: the agent does not
               see it)
  top_old      (controls) the first hit of the plain recall holds the old value, which still
               holds (a control that adds a value - a second language - may fairly answer
               with either, so this is a rate to compare between runs, not one to reach 100)
  kept         (controls) both memories are current and neither carries superseded_by,
               conflicts or revised_by, as memory_read shows them
Rates: top_new and stale_marked over the update cases, kept and top_old over the controls; amend mode
runs the update cases only and reports top_new. Goals on the dev cases: write mode >= 90 / 90 /
90 %, amend mode top_new >= 95 %.
`--python` runs the server with another interpreter (another checkout's virtualenv), so a
baseline can be measured with the same client, cases and machine.

`--distractors N [N ...]` runs the cases once per N, each in a scope that already holds N
other memories, as a scope does after months of use (N = 0: the empty scopes above). The
other memories are the turns of the LoCoMo dev conversations (`--locomo`), in order, each
stored as a plain user memory: first-person chat about the speakers' homes, jobs, family,
pets and plans, written by other people than the cases' authors and so independent of
their phrasings (the generator of bench/synthetic.py writes pseudo-words, which no
sentence model reads as such). They are valid at even steps over the two years before now.
They are written once, in process and in batches through the memory_write path
(Engine.write_memories, with the embedder the server uses; a batch is not judged for
updates, so they neither supersede nor duplicate each other), into a store that is copied
for each case; each case then gets a server of its own on its copy (started as above, its
indexes warmed before the first call, as `worlddb serve` does), so no case sees another's
memories. N is at most the number of turns (2,760 in the dev file).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

LIMIT = 5


def case_times(case: dict, now: datetime) -> tuple[str, list[str]]:
    """valid_from of the old statement, and of each distractor (evenly between it and now)."""
    start = now - timedelta(days=case["gap_days"])
    steps = len(case["distractors"]) + 1
    return start.isoformat(), [(start + (now - start) * (i + 1) / (steps + 1)).isoformat()
                               for i in range(len(case["distractors"]))]


def holds(text: str, value: str) -> bool:
    return value.casefold() in text.casefold()


def marked(hit: dict) -> bool:
    """Whether a recalled memory shows the agent it is out of date."""
    return bool(hit["superseded_by"] or hit["conflicts"] or hit["retired"]
                or hit.get("annotations", {}).get("revised_by"))


async def call(client, tool: str, **arguments: Any) -> dict:
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content[0].text if result.content else '?'}")
    return result.structured_content


async def run_case(client, case: dict, mode: str, now: datetime, user: str | None = None) -> dict:
    scope = {"user_id": user or f"bench-{case['id']}"}
    old_from, distractor_from = case_times(case, now)
    old = await call(client, "memory_write", text=case["old"], valid_from=old_from, **scope)
    for text, when in zip(case["distractors"], distractor_from):
        await call(client, "memory_write", text=text, valid_from=when, **scope)
    if mode == "amend":
        new = await call(client, "memory_amend", id=old["id"], text=case["new"], **scope)
        said = {"superseded": [new["supersedes"]], "conflicts": [], "duplicate_of": None, "related": [],
                "revised": []}
    else:
        new = await call(client, "memory_write", text=case["new"], **scope)
        said = {"superseded": new["superseded"], "conflicts": [c["with_id"] for c in new["conflicts"]],
                "duplicate_of": new.get("duplicate_of"), "related": new.get("related", []),
                "revised": new.get("revised", [])}
    plain = (await call(client, "memory_recall", query=case["question"], limit=LIMIT, **scope))["results"]
    full = (await call(client, "memory_recall", query=case["question"], limit=LIMIT, include_retired=True,
                       **scope))["results"]
    stale = [h for h in plain + full if holds(h["text"], case["old_value"]) and not holds(h["text"], case["new_value"])]
    outcome = {
        "id": case["id"], "slot": case["slot"], "style": case["style"], "control": case["control"],
        "write": said, "top": plain[0]["text"] if plain else None,
        "top_new": bool(plain) and holds(plain[0]["text"], case["new_value"]),
        "stale_marked": all(marked(h) for h in stale),
    }
    if case["control"]:
        outcome["top_old"] = bool(plain) and holds(plain[0]["text"], case["old_value"])
        shown = [await call(client, "memory_read", id=old["id"], **scope),
                 await call(client, "memory_read", id=new["id"], **scope)]
        outcome["kept"] = old["id"] != new["id"] and all(
            m["valid_to"] is None and not m["superseded_by"] and not m["contradicts"]
            and not m.get("annotations", {}).get("revised_by") for m in shown)
    return outcome


def rates(outcomes: list[dict], mode: str) -> dict:
    updates = [o for o in outcomes if not o["control"]]
    controls = [o for o in outcomes if o["control"]]

    def pct(items: list[dict], key: str) -> float | None:
        return round(100 * sum(bool(o[key]) for o in items) / len(items), 1) if items else None

    out = {"top_new": pct(updates, "top_new"), "n_updates": len(updates)}
    if mode == "write":
        out.update(stale_marked=pct(updates, "stale_marked"), kept=pct(controls, "kept"),
                   top_old=pct(controls, "top_old"), n_controls=len(controls))
    return out


async def run(cases: list[dict], mode: str, embedder: str, python: str) -> list[dict]:
    from mcp import Client, StdioServerParameters

    from bench.serverproc import child_env, serve_args

    with tempfile.TemporaryDirectory() as tmp:
        args = serve_args(Path(tmp) / "updates.db", embedder=embedder, default_user=None,
                          extra=("--consolidate-every", "0"))
        # run from the temporary directory: `python -m` puts its working directory first on the
        # path, and the server must import the package installed for `python`, not this checkout
        params = StdioServerParameters(command=python, args=args, env=child_env(), cwd=tmp)
        now = datetime.now(UTC).replace(microsecond=0)
        outcomes = []
        async with Client(params) as client:
            for i, case in enumerate(cases, start=1):
                outcomes.append(await run_case(client, case, mode, now))
                print(f"\r  {mode} {i}/{len(cases)}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        return outcomes


#: the scope the distractor store's memories are in; each case runs in it, on its own copy
STORE_USER = "bench-store"
#: memories per transaction when the distractor store is built
BATCH = 200


def locomo_turns(path: str | Path) -> list[str]:
    """Every turn text of the LoCoMo conversations in `path`, in conversation order."""
    turns = []
    for sample in json.loads(Path(path).read_text()):
        conversation = sample["conversation"]
        sessions = sorted((k for k, v in conversation.items() if k.startswith("session_") and isinstance(v, list)),
                          key=lambda k: int(k.split("_")[1]))
        turns += [t["text"].strip() for k in sessions for t in conversation[k] if t.get("text", "").strip()]
    return turns


def build_store(path: Path, texts: list[str], embedder: str, now: datetime) -> float:
    """Write `texts` into scope user:STORE_USER of a new store at `path`, as plain memories
    valid at even steps over the two years before `now`; returns the seconds it took."""
    from worlddb.memory.engine import Engine
    from worlddb.memory.scopes import ScopeSet

    started = time.perf_counter()
    start, span = now - timedelta(days=730), timedelta(days=729)
    scopes = ScopeSet((("user", STORE_USER),))
    options: dict = {}
    if embedder == "hash":  # as `worlddb serve --embedder hash` opens it
        from worlddb.vectors.embedder import HashEmbedder

        options = {"embedder": HashEmbedder(), "query_model": True}
    with Engine.open(path, **options) as engine:
        for first in range(0, len(texts), BATCH):
            items = [{"text": text, "valid_from": (start + span * (first + i) / len(texts)).isoformat()}
                     for i, text in enumerate(texts[first:first + BATCH])]
            engine.write_memories(items, scopes)
    return time.perf_counter() - started


async def run_on_store(store: Path, cases: list[dict], mode: str, embedder: str, python: str,
                       label: str) -> list[dict]:
    """Each case on its own copy of `store`, with a server of its own, in the store's scope."""
    from mcp import Client, StdioServerParameters

    from bench.serverproc import child_env, serve_args

    now = datetime.now(UTC).replace(microsecond=0)
    outcomes = []
    for i, case in enumerate(cases, start=1):
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "case.db"
            shutil.copyfile(store, copy)
            args = serve_args(copy, embedder=embedder, default_user=None, extra=("--consolidate-every", "0"))
            params = StdioServerParameters(command=python, args=args, env=child_env(), cwd=tmp)
            async with Client(params) as client:
                outcomes.append(await run_case(client, case, mode, now, user=STORE_USER))
        print(f"\r  {mode} {label} {i}/{len(cases)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return outcomes


def with_distractors(cases: list[dict], mode: str, embedder: str, python: str, sizes: list[int],
                     locomo: str) -> dict:
    """Rates per store size, all in this run: {N: {rates, seconds, build_seconds, load}}."""
    turns = locomo_turns(locomo)
    if max(sizes) > len(turns):
        raise SystemExit(f"--distractors: at most {len(turns)} (the turns in {locomo})")
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            started, load = time.perf_counter(), list(os.getloadavg())
            if n == 0:
                outcomes, built = asyncio.run(run(cases, mode, embedder, python)), 0.0
            else:
                store = Path(tmp) / f"store-{n}.db"
                built = build_store(store, turns[:n], embedder, datetime.now(UTC).replace(microsecond=0))
                outcomes = asyncio.run(run_on_store(store, cases, mode, embedder, python, f"N={n}"))
            out[str(n)] = {"rates": rates(outcomes, mode), "seconds": round(time.perf_counter() - started, 1),
                           "build_seconds": round(built, 1), "load_average_start": load,
                           "load_average_end": list(os.getloadavg()), "outcomes": outcomes}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--mode", choices=("write", "amend"), default="write")
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--python", default=sys.executable, help="interpreter that runs `worlddb serve`")
    parser.add_argument("--distractors", type=int, nargs="+", metavar="N",
                        help="run once per N, in scopes already holding N other memories")
    parser.add_argument("--locomo", default="../shared/data/locomo-dev.json",
                        help="conversations whose turns are the other memories")
    args = parser.parse_args()
    cases = json.loads(Path(args.cases).read_text())["cases"]
    if args.mode == "amend":
        cases = [c for c in cases if not c["control"]]  # an agent amends only what changed
    started = time.perf_counter()
    if args.distractors:
        sizes = with_distractors(cases, args.mode, args.embedder, args.python, args.distractors, args.locomo)
        report = {
            "benchmark": "updates", "cases": args.cases, "mode": args.mode, "embedder": args.embedder,
            "server_python": args.python, "recall_limit": LIMIT, "distractors": "locomo turns",
            "locomo": args.locomo, "rates": {n: r["rates"] for n, r in sizes.items()},
            "seconds": round(time.perf_counter() - started, 1), "load_average": list(os.getloadavg()),
            "sizes": sizes,
        }
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
        print(json.dumps(report["rates"], indent=2))
        return
    outcomes = asyncio.run(run(cases, args.mode, args.embedder, args.python))
    report = {
        "benchmark": "updates", "cases": args.cases, "mode": args.mode, "embedder": args.embedder,
        "server_python": args.python, "recall_limit": LIMIT, "rates": rates(outcomes, args.mode),
        "seconds": round(time.perf_counter() - started, 1), "load_average": list(os.getloadavg()),
        "outcomes": outcomes,
    }
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["rates"], indent=2))


if __name__ == "__main__":
    main()
