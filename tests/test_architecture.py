"""The package's shape: layers that import one way, no cycles, and a clean lint.

import-linter reads the layers and the acyclic contract from pyproject.toml. It finds a
package through the import system, and an editable install maps worlddb.handlers and
worlddb.server onto the repository's handlers/ and server/ folders through a finder
grimp cannot follow; so the three trees are copied into the layout a wheel installs,
and the contracts run on that copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def installed_layout(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("layout")
    skip = shutil.ignore_patterns("__pycache__", "data")
    shutil.copytree(ROOT / "worlddb", site / "worlddb", ignore=skip)
    shutil.copytree(ROOT / "handlers", site / "worlddb" / "handlers", ignore=skip)
    shutil.copytree(ROOT / "server", site / "worlddb" / "server", ignore=skip)
    return site


def test_imports_follow_the_layers_and_form_no_cycle(installed_layout):
    result = subprocess.run(
        [str(BIN / "lint-imports"), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=installed_layout, env={**os.environ, "PYTHONPATH": str(installed_layout)},
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "2 kept, 0 broken" in result.stdout


def test_a_layer_violation_is_caught(installed_layout, tmp_path):
    # the check itself can fail: a core module that reaches up into memory breaks it
    broken = tmp_path / "site"
    shutil.copytree(installed_layout, broken)
    ids = broken / "worlddb" / "core" / "ids.py"
    ids.write_text(ids.read_text() + "\n\ndef _upward():\n    from worlddb.memory import engine  # noqa\n")
    result = subprocess.run(
        [str(BIN / "lint-imports"), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=broken, env={**os.environ, "PYTHONPATH": str(broken)}, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "worlddb.core.ids -> worlddb.memory.engine" in result.stdout


def test_ruff_finds_nothing():
    result = subprocess.run([str(BIN / "ruff"), "check", "--no-cache", "."], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
