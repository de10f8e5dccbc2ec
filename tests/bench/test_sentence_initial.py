"""bench.sentence_initial labels each sentence-initial word by how the rest of the corpus writes
it and scores the extractor's decisions: checked on a small corpus of its own, where the labels
and the decisions are known, and against a baseline run by another interpreter (this one)."""

from __future__ import annotations

import json
import sys

from bench import sentence_initial

TURNS = ["Sarah prefers tea. I met Sarah there.", "Coffee is great. I like coffee.",
         "Things changed. Some things stay.", "Gina laughed."]


def write_corpus(path):
    session = [{"speaker": "Ann", "dia_id": f"D1:{i}", "text": t} for i, t in enumerate(TURNS)]
    path.joinpath("locomo-dev.json").write_text(json.dumps([{"sample_id": "c", "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo", "session_1_date_time": "1:00 pm on 8 May, 2023",
        "session_1": session}}]))
    path.joinpath("updates-dev.json").write_text(json.dumps({"cases": [
        {"old": "Tom is allergic to peanuts.", "new": "Tom moved to Lisbon.", "distractors": ["Ask Tom."]}]}))


def test_labels_come_from_the_corpus_and_the_scores_from_the_extractor(tmp_path, capsys):
    write_corpus(tmp_path)
    texts = sentence_initial.load_texts(tmp_path)
    truth = sentence_initial.labels(texts)
    assert {w: truth.get(w) for w in ("sarah", "coffee", "things", "tom", "gina")} == {
        "sarah": True, "coffee": False, "things": False, "tom": True, "gina": None}
    result = sentence_initial.main(["--data-dir", str(tmp_path), "--baseline", sys.executable])
    # Sarah, Tom (twice) are names before a verb; Coffee and Things are not; Gina is unlabelled
    assert result["branch"]["bare"] == {"precision": 1.0, "recall": 1.0, "tp": 3, "fp": 0, "fn": 0}
    assert result["baseline"] == result["branch"] and result["changed"] == {"bare": 0, "context": 0}
    assert json.loads(capsys.readouterr().out) == result
