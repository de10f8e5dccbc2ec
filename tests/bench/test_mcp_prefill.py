"""bench.mcp's baseline file: written by the baseline's own installation, with the same memories."""

from __future__ import annotations

import sqlite3
import sys

from bench.mcp import prefill


def memories(path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return sorted(row[0] for row in conn.execute("SELECT json_extract(record, '$.content') FROM nodes "
                                                    "WHERE type = 'Memory'"))
    finally:
        conn.close()


def test_another_interpreter_prefills_its_own_file_with_the_same_memories(tmp_path):
    other = tmp_path / "python"  # another path to this interpreter stands in for another installation
    other.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    other.chmod(0o755)
    prefill(tmp_path / "here.db", 30, "hash", 7)
    prefill(tmp_path / "there.db", 30, "hash", 7, python=str(other))
    here = memories(tmp_path / "here.db")
    assert len(here) == 30 and memories(tmp_path / "there.db") == here
