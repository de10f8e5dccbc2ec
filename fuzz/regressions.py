"""Saved failing examples: operation lists that once broke a promise, replayed as tests.

A file in fuzz/regressions/ is JSON: {"found": how, "error": the violation, and either
"ops": [...] (state-machine operations, fuzz.machine.replay) or "calls": [[tool, args], ...]
(MCP tool calls, fuzz.mcp_fuzz.replay)}. `save()` writes a failing run (after Hypothesis
shrank it) under a name derived from its content; `fuzz/test_fuzz.py` replays every file on a
fresh database with all checks on, so a fixed bug stays fixed. Commit the file with the fix.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

DIR = Path(__file__).parent / "regressions"


def save(steps: list, error: str, *, found: str, kind: str = "ops", name: str | None = None) -> Path:
    text = json.dumps(steps, sort_keys=True)
    name = name or f"failure-{kind}-" + hashlib.blake2b(text.encode(), digest_size=6).hexdigest()
    path = DIR / f"{name}.json"
    DIR.mkdir(exist_ok=True)
    path.write_text(json.dumps({"found": found, "error": error, kind: steps}, indent=1, sort_keys=True) + "\n")
    return path


def saved() -> list[Path]:
    return sorted(DIR.glob("*.json"))


def replay(path: Path) -> int:
    """Replay one saved example with every check on; returns how many steps ran."""
    from fuzz import machine, mcp_fuzz

    record = json.loads(path.read_text())
    if "calls" in record:
        return mcp_fuzz.replay(record["calls"])
    return machine.replay(record["ops"])
