"""bench.typed_lane: the places it writes are typed, so the lane it times has something to read."""

from __future__ import annotations

import json
import random
import sys

from bench import typed_lane


def test_made_up_place_names_are_distinct_and_seeded():
    names = typed_lane.place_names(50, random.Random(1))
    assert len(set(names)) == 50 and names == typed_lane.place_names(50, random.Random(1))


def test_a_small_run_times_a_lane_that_found_the_places(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["typed_lane", "--places", "12", "--mentions", "2", "--probes", "3"])
    typed_lane.main()  # exits with a message if the lane found nothing
    out = json.loads(capsys.readouterr().out)
    assert out["typed_places"] == 12 and out["memories"] == 48
    assert out["lane"]["p50"] > 0 and out["recall_typed"]["p95"] >= out["recall_typed"]["p50"]
