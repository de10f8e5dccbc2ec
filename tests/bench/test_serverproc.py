"""bench.serverproc: a server run by another interpreter starts outside this checkout (so it
imports its own installation, not this checkout's engine), on the same database file."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from mcp import Client

from bench.serverproc import call, stdio_params, working_dir


def test_only_another_interpreter_moves_out_of_the_checkout():
    assert working_dir(None) is None and working_dir(sys.executable) is None
    assert working_dir("/opt/other/bin/python") == tempfile.gettempdir()


async def test_a_relative_database_path_names_the_same_file_from_the_temporary_directory(tmp_path, monkeypatch):
    other = tmp_path / "python"  # another path to this interpreter stands in for another installation
    other.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    other.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    params = stdio_params(Path("stores") / "memory.db", python=str(other))
    (tmp_path / "stores").mkdir()
    assert params.cwd == tempfile.gettempdir() and os.path.isabs(params.args[params.args.index("--db") + 1])
    async with Client(params) as client:
        written = await call(client, "memory_write", text="The spare key is under the blue pot.")
    assert written["id"] and (tmp_path / "stores" / "memory.db").exists()
