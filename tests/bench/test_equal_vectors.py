"""bench.equal_vectors: a small run reports every share, and finds each distinct vector beside
equal ones."""

from __future__ import annotations

import json
import sys

from bench import equal_vectors


def test_a_small_run_finds_the_distinct_vectors_beside_equal_ones(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["equal_vectors", "--distinct", "300", "--shares", "0", "0.6",
                                      "--probes", "40", "--dim", "32"])
    equal_vectors.main()
    rows = json.loads(capsys.readouterr().out)["results"]
    assert [(row["share"], row["equal"], row["distinct"]) for row in rows] == [(0.0, 0, 300), (0.6, 450, 300)]
    assert all(row["self_found"] == 1.0 and row["build_cpu_s"] > 0 for row in rows)
