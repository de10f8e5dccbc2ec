"""How a benchmark hands back its report: JSON on stdout, and the same text in `--out` if given.

Every bench prints its report so a run in a terminal shows it, and writes it where `--out`
names (bench/results/ keeps those files). bench.equal_vectors writes the same form itself: it
also runs under another checkout's interpreter, which may not have this module.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["emit"]


def emit(report: object, out: Path | str | None) -> None:
    """Print `report` as indented JSON and, when `out` is given, write the same text there."""
    text = json.dumps(report, indent=2)
    if out:
        Path(out).write_text(text + "\n")
    print(text)
