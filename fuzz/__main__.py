"""The long profile: `python -m fuzz --examples N --seed S [--seeds K] [--steps M] [--mcp-examples E]`.

Runs the state machine for each of K seeds (S, S+1, ...), N sequences of up to M operations
each, then the MCP argument fuzzer with E sequences per seed. A failing example is shrunk by
Hypothesis and saved under fuzz/regressions/ (printed), so it replays as a regular test;
the run then goes on with the next seed. Prints a JSON summary (operations run, seeds,
violations) and exits non-zero if anything failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from fuzz import machine, mcp_fuzz, regressions
from fuzz.harness import OUTCOMES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=200, help="operation sequences per seed")
    parser.add_argument("--steps", type=int, default=60, help="operations per sequence, at most")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--seeds", type=int, default=1, help="how many seeds, counting up from --seed")
    parser.add_argument("--mcp-examples", type=int, default=50, help="MCP call sequences per seed (0: none)")
    parser.add_argument("--mcp-calls", type=int, default=10, help="calls per MCP sequence, at most")
    args = parser.parse_args(argv)

    started = time.monotonic()
    failures, mcp_calls = [], 0
    for seed in range(args.seed, args.seed + args.seeds):
        began = machine.STATS["ops"]
        try:
            machine.run(examples=args.examples, steps=args.steps, seed=seed)
        except Exception as exc:
            path = _save(seed, exc)
            failures.append({"seed": seed, "layer": "engine", "error": f"{type(exc).__name__}: {exc}"[:500],
                             "saved": str(path) if path else None})
        print(f"seed {seed}: {machine.STATS['ops'] - began} operations", file=sys.stderr, flush=True)
        if args.mcp_examples:
            try:
                made = mcp_fuzz.run(examples=args.mcp_examples, calls=args.mcp_calls, seed=seed)
                mcp_calls += made
                print(f"seed {seed}: {made} MCP calls", file=sys.stderr, flush=True)
            except Exception as exc:
                failure, path = mcp_fuzz.LAST_FAILURE, None
                if failure.get("calls"):
                    path = regressions.save(failure["calls"], failure["error"], kind="calls",
                                            found=f"python -m fuzz, MCP, seed {seed}, shrunk")
                    print(f"seed {seed}: MCP violation, shrunk example saved to {path}", file=sys.stderr)
                failures.append({"seed": seed, "layer": "mcp", "error": f"{type(exc).__name__}: {exc}"[:500],
                                 "saved": str(path) if path else None})
    summary = {
        "seeds": list(range(args.seed, args.seed + args.seeds)),
        "examples_per_seed": args.examples, "max_steps": args.steps,
        "machine_runs": machine.STATS["runs"], "operations": machine.STATS["ops"],
        "refused_operations": sum(n for (op, outcome), n in OUTCOMES.items() if outcome != "ok"),
        "mcp_calls": mcp_calls, "mcp_tool_errors": sum(n for (t, r), n in mcp_fuzz.OUTCOMES.items() if r == "error"),
        "violations": failures, "seconds": round(time.monotonic() - started, 1),
    }
    print(json.dumps(summary, indent=1))
    return 1 if failures else 0


def _save(seed: int, exc: Exception):
    failure = machine.LAST_FAILURE
    if not failure.get("ops"):
        return None
    path = regressions.save(failure["ops"], failure["error"], found=f"python -m fuzz, seed {seed}, shrunk")
    print(f"seed {seed}: violation, shrunk example saved to {path}", file=sys.stderr)
    return path


if __name__ == "__main__":
    sys.exit(main())
