"""Knowledge updates through the nine tools: does recall give the new value, and mark the old?

    python -m bench.updates --cases ../shared/data/updates-dev.json --out results.json [--mode write|amend]
                            [--embedder minilm|hash] [--python PATH]

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
  kept         (controls) both memories are current and neither carries superseded_by,
               conflicts or revised_by, as memory_read shows them
Rates: top_new and stale_marked over the update cases, kept over the controls; amend mode
runs the update cases only and reports top_new. Goals on the dev cases: write mode >= 90 / 90 /
90 %, amend mode top_new >= 95 %.
`--python` runs the server with another interpreter (another checkout's virtualenv), so a
baseline can be measured with the same client, cases and machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
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


async def run_case(client, case: dict, mode: str, now: datetime) -> dict:
    scope = {"user_id": f"bench-{case['id']}"}
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
        out.update(stale_marked=pct(updates, "stale_marked"), kept=pct(controls, "kept"), n_controls=len(controls))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--mode", choices=("write", "amend"), default="write")
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--python", default=sys.executable, help="interpreter that runs `worlddb serve`")
    args = parser.parse_args()
    cases = json.loads(Path(args.cases).read_text())["cases"]
    if args.mode == "amend":
        cases = [c for c in cases if not c["control"]]  # an agent amends only what changed
    started = time.perf_counter()
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
