"""A length prior for conversational turns in recall, studied on LoCoMo dev.

    python -m bench.turn_length_study --data ../shared/data/locomo-dev.json --db /tmp/tl/locomo.db
                                      --out bench/results/locomo-dev-turn-length.json

Builds the dev store once as bench.context_study does (all conversations in one file, each in
its own scope, with their topic worlds; reused when it and its turn map exist). Per question
the lanes recall runs are computed once (depth 250), and recall's own ranking
(worlddb.retrieval.recall.rank) is re-run over them with a turn's fused score times
min(1, words / L) ** a before the graph step (worlddb.retrieval.brevity with exponent a;
words as brevity.turn_words counts them), for L in 8, 12, 16, 24 and a in 0.5, 1, a turn
that follows a question kept whole ("replies kept", what recall does) or damped like any
other. "baseline" is the prior turned off, which must reproduce Engine.recall without it
exactly (checked). Then Engine.recall itself runs every question
with the prior as recall has it and without it, in the same process.

Leave-one-conversation-out as in bench.context_study: each fold chooses, on the other four
conversations, the setting with the best turn_all@50 + turn_any@10 (`loo_all_settings`, and
`loo_implemented_form` over the form recall implements: a = 1, replies kept, the four L).
"""

from __future__ import annotations

import json
import os
import time
from unittest import mock

from worlddb.core.timeutil import now_us
from worlddb.memory.engine import Engine
from worlddb.retrieval import brevity, recall
from worlddb.retrieval.lanes import run_lanes

from .context_study import conversation_views, dev_store, headline, loo, study_args
from .locomo import questions_of, score

DEPTH = 250
LIMIT = 50
LENGTHS = (8, 12, 16, 24)
EXPONENTS = (0.5, 1.0)
REPLIES = ("replies kept", "replies damped")
#: the setting recall implements (worlddb.retrieval.brevity)
IMPLEMENTED = f"L {brevity.SHORT_TURN_WORDS} / a 1.0 / replies kept"


def _rank(engine: Engine, question: str, worlds: list[str], lanes: dict, words: dict[int, int], replies: set[int],
          setting):
    sources = engine.services.sources
    patches = [mock.patch.object(recall, "run_lanes", lambda *a, **k: lanes),
               mock.patch.object(brevity, "SHORT_TURN_WORDS", 0)]
    if setting is not None:
        length, exponent, kept = setting

        def prior(rowid: int) -> float:
            n = words.get(rowid)
            if n is None or (kept and rowid in replies):
                return 1.0
            return min(1.0, n / length) ** exponent

        patches.append(mock.patch.object(
            brevity, "damp_turns", lambda store, scores: ({r: s * prior(r) for r, s in scores.items()},) * 2))
    for p in patches:
        p.start()
    try:
        return recall.rank(sources, question, worlds, limit=LIMIT)
    finally:
        for p in reversed(patches):
            p.stop()


def main() -> None:
    # recall as it ranked when this study was made, before the prior on what a turn asks
    # (worlddb.retrieval.brevity.QUESTION_DAMPING; bench.question_study), which it does not
    # model: its re-rankings must reproduce Engine.recall
    with mock.patch.object(brevity, "QUESTION_DAMPING", 0.0):
        _study()


def _study() -> None:
    args = study_args(__doc__.splitlines()[0])
    data = json.loads(args.data.read_text())
    report: dict = {"benchmark": "locomo turn length prior study", "data": str(args.data)}
    turn_map = dev_store(data, args.db, report)
    settings: dict[str, tuple | None] = {"baseline": None}
    for replies in REPLIES:
        for length in LENGTHS:
            for exponent in EXPONENTS:
                settings[f"L {length} / a {exponent} / {replies}"] = (length, exponent, replies == "replies kept")
    per_setting: dict[str, list[dict]] = {name: [] for name in settings}
    recall_rows: dict[str, list[dict]] = {"with the prior": [], "without it": []}
    engine = Engine.open(args.db, synchronous="NORMAL")
    started = time.perf_counter()
    try:
        views = conversation_views(engine, data, turn_map)
        for conv, sample, info, by_rowid, scope, worlds, anchor_turn in views:
            words = brevity.turn_words(engine.store, list(by_rowid))
            replies = brevity.replies_to_questions(engine.store, list(by_rowid))
            for item in questions_of(conv, set(info["rowid"])):
                question, evidence = item["question"], item["_evidence"]
                base = {"conversation": sample, "category": item["category"]}
                for name, short in (("with the prior", brevity.SHORT_TURN_WORDS), ("without it", 0)):
                    with mock.patch.object(brevity, "SHORT_TURN_WORDS", short):
                        hits = engine.recall(question, scope, limit=LIMIT).results
                    recall_rows[name].append({**base, "metrics": score(
                        [anchor_turn[h.id] for h in hits if h.id in anchor_turn], evidence)})
                lanes = run_lanes(engine.services.sources, question, worlds, DEPTH, open_only_at=now_us())
                for name, setting in settings.items():
                    chosen = _rank(engine, question, worlds, lanes, words, replies, setting)
                    ranked = [by_rowid[r] for r in (engine.store.rowid(c.view.anchor) for c in chosen) if r in by_rowid]
                    per_setting[name].append({**base, "metrics": score(ranked, evidence)})
                if per_setting[IMPLEMENTED][-1]["metrics"] != recall_rows["with the prior"][-1]["metrics"]:
                    report["implemented_setting_differs_from_recall"] = report.get(
                        "implemented_setting_differs_from_recall", 0) + 1
                if per_setting["baseline"][-1]["metrics"] != recall_rows["without it"][-1]["metrics"]:
                    raise SystemExit(f"the re-ranking does not reproduce Engine.recall: {question!r}")
    finally:
        engine.close()
    conversations = [c["sample_id"] for c in data]
    report["seconds"] = round(time.perf_counter() - started, 1)
    report["loadavg_1min"] = round(os.getloadavg()[0], 2)
    report.setdefault("implemented_setting_differs_from_recall", 0)
    report["recall_itself"] = {name: headline(rows) for name, rows in recall_rows.items()}
    report["settings"] = {name: headline(rows) for name, rows in per_setting.items()}
    report["per_conversation"] = {
        name: {c: {k: v for k, v in headline([r for r in rows if r["conversation"] == c]).items()
                   if k in ("turn_any@10", "turn_all@10", "turn_all@50")} for c in conversations}
        for name, rows in per_setting.items()}
    report["loo_all_settings"] = loo(per_setting, conversations)
    form = {n: r for n, r in per_setting.items() if n == "baseline" or n.endswith("a 1.0 / replies kept")}
    report["loo_implemented_form"] = loo(form, conversations)
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    keys = ("turn_any@10", "turn_all@10", "turn_all@50", "category_1_turn_all@50")
    print(json.dumps({"recall_itself": {n: {k: v[k] for k in keys} for n, v in report["recall_itself"].items()},
                      "settings": {n: {k: v[k] for k in keys} for n, v in report["settings"].items()},
                      "loo_all_settings": {"choices": report["loo_all_settings"]["choices"],
                                           "held_out": {k: report["loo_all_settings"]["held_out"][k] for k in keys}},
                      "loo_implemented_form": {"choices": report["loo_implemented_form"]["choices"],
                                               "held_out": {k: report["loo_implemented_form"]["held_out"][k]
                                                            for k in keys}},
                      "implemented_setting_differs_from_recall": report["implemented_setting_differs_from_recall"],
                      "loadavg_1min": report["loadavg_1min"]}, indent=2))


if __name__ == "__main__":
    main()
