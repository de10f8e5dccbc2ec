"""A prior on what a turn asks, in recall, studied on LoCoMo dev.

    python -m bench.question_study --data ../shared/data/locomo-dev.json --db /tmp/qs/locomo.db
                                   --out bench/results/locomo-dev-question-prior.json

Builds the dev store once as bench.context_study does (all conversations in one file, each in
its own scope, with their topic worlds; reused when it and its turn map exist). Per question
the lanes recall runs are computed once (depth 250), and recall's own ranking
(worlddb.retrieval.recall.rank) is re-run over them with each setting of
worlddb.retrieval.brevity.QUESTION_DAMPING b: a turn's fused score times 1 - b * the share of
its words in questions (brevity.asked_share), next to the length prior, in two forms: "own",
what recall does (the graph step lifts a turn's neighbours by its score before this prior,
and the turn keeps the lowered score of its own), and "own and lift" (the lowered score
both ways, as the length prior is applied). "b 0" is the prior turned off. recall.rank over
its own lanes, with the value recall has and with 0, must give exactly what the re-ranking
gives (checked), and Engine.recall itself runs every question both ways in the same process
("recall_itself": the page a client gets, where the memory layer deals a set of turns that
conflict with one another out newest first, so a few questions differ from the ranking
there).

Also reported: the mean asked share of the evidence turns and of the other turns in each
question's top 50 without the prior (the difference the prior acts on), and
leave-one-conversation-out as in bench.context_study: each fold chooses, on the other four
conversations, the setting with the best turn_all@50 + turn_any@10, among all settings
("loo") and among those of the form recall implements ("loo_implemented_form").
"""

from __future__ import annotations

import json
import os
import statistics
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
DAMPINGS = (0.0, 0.25, 0.5, 0.75, 1.0)
FORMS = ("own", "own and lift")


def setting_name(damping: float, form: str = "own") -> str:
    return f"b {damping:g}" + (f" / {form}" if damping else "")


def rank(engine: Engine, question: str, worlds: list[str], damping: float, lanes: dict | None = None,
         user: str | None = None, form: str = "own") -> list:
    """recall.rank as Engine.recall calls it (the store's read plan, now), with QUESTION_DAMPING
    = `damping` in `form`, over `lanes` when given (computed once) instead of its own."""
    patches = [mock.patch.object(brevity, "QUESTION_DAMPING", damping)]
    if form == "own and lift":
        damp = brevity.damp_turns

        def both(store, scores):
            _, own = damp(store, scores)
            return own, own
        patches.append(mock.patch.object(brevity, "damp_turns", both))
    if lanes is not None:
        patches.append(mock.patch.object(recall, "run_lanes", lambda *a, **k: lanes))
    plan = engine.services.db.plan(as_of=None, known_at=None, include_closed=False)
    for patch in patches:
        patch.start()
    try:
        return recall.rank(engine.services.sources, question, worlds, limit=LIMIT, plan=plan, user=user)
    finally:
        for patch in reversed(patches):
            patch.stop()


def main() -> None:
    args = study_args(__doc__.splitlines()[0])
    data = json.loads(args.data.read_text())
    report: dict = {"benchmark": "locomo question prior study", "data": str(args.data)}
    turn_map = dev_store(data, args.db, report)
    implemented = brevity.QUESTION_DAMPING
    settings = {setting_name(b, f): (b, f) for b in DAMPINGS for f in FORMS}
    per_setting: dict[str, list[dict]] = {name: [] for name in settings}
    recall_rows: dict[str, list[dict]] = {"with the prior": [], "without it": []}
    shares: dict[str, list[float]] = {"evidence": [], "other top 50": []}
    mismatches = 0
    engine = Engine.open(args.db, synchronous="NORMAL")
    started = time.perf_counter()
    try:
        views = conversation_views(engine, data, turn_map)
        for conv, sample, info, by_rowid, scope, worlds, anchor_turn in views:
            asked = {r: brevity.asked_share(t) for r, t in brevity.turn_texts(engine.store, list(by_rowid)).items()}
            for item in questions_of(conv, set(info["rowid"])):
                question, evidence = item["question"], item["_evidence"]
                base = {"conversation": sample, "category": item["category"]}
                own = {}
                for name, damping in (("with the prior", implemented), ("without it", 0.0)):
                    with mock.patch.object(brevity, "QUESTION_DAMPING", damping):
                        hits = engine.recall(question, scope, limit=LIMIT).results
                    recall_rows[name].append({**base, "metrics": score(
                        [anchor_turn[h.id] for h in hits if h.id in anchor_turn], evidence)})
                    own[damping] = [c.view.anchor for c in rank(engine, question, worlds, damping, user=sample)]
                lanes = run_lanes(engine.services.sources, question, worlds, DEPTH, open_only_at=now_us())
                for name, (damping, form) in settings.items():
                    chosen = rank(engine, question, worlds, damping, lanes, user=sample, form=form)
                    if form == "own" and damping in own and [c.view.anchor for c in chosen] != own[damping]:
                        mismatches += 1
                    ranked = [anchor_turn[c.view.anchor] for c in chosen if c.view.anchor in anchor_turn]
                    per_setting[name].append({**base, "metrics": score(ranked, evidence)})
                    if name == setting_name(0.0):
                        turn_rowid = {t: r for r, t in by_rowid.items()}
                        for turn in ranked:
                            key = "evidence" if turn in evidence else "other top 50"
                            shares[key].append(asked[turn_rowid[turn]])
    finally:
        engine.close()
    if mismatches:
        raise SystemExit(f"the re-ranking differs from recall.rank on {mismatches} questions")
    conversations = [c["sample_id"] for c in data]
    report["seconds"] = round(time.perf_counter() - started, 1)
    report["loadavg_1min"] = round(os.getloadavg()[0], 2)
    report["implemented"] = setting_name(implemented)
    report["mean_asked_share"] = {k: round(statistics.mean(v), 4) for k, v in shares.items()}
    report["recall_itself"] = {name: headline(rows) for name, rows in recall_rows.items()}
    report["settings"] = {name: headline(rows) for name, rows in per_setting.items()}
    report["per_conversation"] = {
        name: {c: {k: v for k, v in headline([r for r in rows if r["conversation"] == c]).items()
                   if k in ("turn_any@10", "turn_all@10", "turn_all@50", "category_1_turn_all@50")}
               for c in conversations}
        for name, rows in per_setting.items()}
    report["loo"] = loo(per_setting, conversations)
    # the form recall implements: b 0 and the "own" settings
    report["loo_implemented_form"] = loo({n: r for n, r in per_setting.items() if settings[n][1] == "own"},
                                         conversations)
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    keys = ("turn_any@10", "turn_all@10", "turn_all@50", "category_1_turn_all@50")
    print(json.dumps({"mean_asked_share": report["mean_asked_share"],
                      "recall_itself": {n: {k: v[k] for k in keys} for n, v in report["recall_itself"].items()},
                      "settings": {n: {k: v[k] for k in keys} for n, v in report["settings"].items()},
                      **{name: {"choices": report[name]["choices"],
                                "held_out": {k: report[name]["held_out"][k] for k in keys}}
                         for name in ("loo", "loo_implemented_form")},
                      "loadavg_1min": report["loadavg_1min"]}, indent=2))


if __name__ == "__main__":
    main()
