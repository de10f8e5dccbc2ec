"""bench.import_rate: the baseline's `worlddb import` and its server run by another
interpreter start outside this checkout, so they import that installation's engine."""

from __future__ import annotations

import asyncio
import os
import tempfile

import pytest

from bench.import_rate import import_file, single_writes


def _recording_python(tmp_path, output: str):
    """A stand-in for another installation's interpreter: it notes where it was started."""
    script = tmp_path / "python"
    script.write_text(f"#!/bin/sh\npwd > '{tmp_path}/cwd'\n{output}\n")
    script.chmod(0o755)
    return str(script)


def _started_in(tmp_path) -> str:
    return os.path.realpath((tmp_path / "cwd").read_text().strip())


def test_another_interpreters_import_starts_in_the_temporary_directory(tmp_path):
    python = _recording_python(tmp_path, "echo '{\"memories\": 0}'")
    report = import_file(tmp_path / "calls.jsonl", "jsonl", tmp_path / "x.db", python)
    assert report["memories"] == 0
    assert _started_in(tmp_path) == os.path.realpath(tempfile.gettempdir())


def test_another_interpreters_server_starts_in_the_temporary_directory(tmp_path):
    python = _recording_python(tmp_path, "read line")  # takes the first request, then hangs up
    with pytest.raises(RuntimeError, match="closed its output"):
        asyncio.run(single_writes(tmp_path / "x.db", 1, 5, python))
    assert _started_in(tmp_path) == os.path.realpath(tempfile.gettempdir())
