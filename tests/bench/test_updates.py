"""bench.updates drives the real server over stdio and scores what recall shows: checked on a
few cases of its own, where the answers are known, with the real model (hashed vectors do
not find "We moved to Porto" near "I live in Lisbon": they share no word)."""

from __future__ import annotations

import asyncio
import sys

from bench import updates

CASES = [
    {"id": "t-home", "slot": "home", "style": "explicit", "control": False, "gap_days": 100,
     "old": "I live in Lisbon.", "new": "We moved to Porto last month.",
     "distractors": ["I flew to Rome for a conference."], "question": "Where do I live?",
     "old_value": "Lisbon", "new_value": "Porto"},
    {"id": "t-lang", "slot": "languages", "style": "control", "control": True, "gap_days": 50,
     "old": "I speak French.", "new": "I also speak some German.",
     "distractors": ["My cousin lives in Montreal."], "question": "What languages do I speak?",
     "old_value": "French", "new_value": "German"},
    {"id": "t-trip", "slot": "home", "style": "control", "control": True, "gap_days": 80,
     "old": "I live in Leipzig.", "new": "Spending the week in Vienna for a workshop.",
     "distractors": ["My sister studies in Graz."], "question": "Which city do I live in?",
     "old_value": "Leipzig", "new_value": "Vienna"},
]


def test_a_detected_update_and_a_control_score_as_they_should():
    outcomes = asyncio.run(updates.run(CASES, "write", "minilm", sys.executable))
    by_id = {o["id"]: o for o in outcomes}
    assert by_id["t-home"]["write"]["superseded"] and by_id["t-home"]["stale_marked"]
    assert by_id["t-lang"]["kept"] and not by_id["t-lang"]["write"]["superseded"]
    # a visit leaves the home the answer: the old value is still the first hit
    assert by_id["t-trip"]["kept"] and by_id["t-trip"]["top_old"]
    rates = updates.rates(outcomes, "write")
    assert rates["stale_marked"] == 100.0 and rates["kept"] == 100.0 and rates["n_updates"] == 1
    assert rates["n_controls"] == 2 and rates["top_old"] in (50.0, 100.0)


def test_scoring_counts_an_unmarked_stale_hit_as_a_miss():
    stale = {"text": "I live in Lisbon.", "superseded_by": [], "conflicts": [], "retired": False}
    assert not updates.marked(stale)
    assert updates.marked(dict(stale, superseded_by=["x"])) and updates.marked(dict(stale, retired=True))
    outcomes = [{"control": False, "top_new": True, "stale_marked": False},
                {"control": False, "top_new": False, "stale_marked": True}]
    assert updates.rates(outcomes, "write")["top_new"] == 50.0
