"""A lexical context lane for recall, studied on LoCoMo dev: each turn found by its neighbours' words.

    python -m bench.context_study --data ../shared/data/locomo-dev.json --db /tmp/ctx/locomo.db
                                  --out bench/results/locomo-dev-context-lane.json

Builds the dev store once (all conversations in one file, each in its own scope, with their
topic worlds, as bench.locomo does; kept at --db with a turn map beside it, and reused when
both exist). Then, per question, the lanes recall runs are computed once (depth 250, as recall
asks for 50 results) and recall's own ranking (worlddb.retrieval.recall.rank: fusion, the
graph step, the pins) is run over them plus a "context" lane at each setting:

  an FTS5 table (the store's tokenizer) per conversation whose row for a turn holds the
  index text (the `fts` row) of its previous turn in the session ("prev"), of its next
  ("next"), or of both ("prev+next"), alone ("alone"), with the turn's own text in the same
  field ("with turn"), or the turn's own text in a second column weighted 1 and the
  neighbours' weighted 0.5 ("with turn, neighbours x0.5"). It is searched with the bm25
  lane's query (every word but stopwords, any of them), 250 deep, and fused by reciprocal
  rank with weight w (0.25, 0.5, 0.75, 1), for every question or for aggregation questions
  only (worlddb.retrieval.global_lane.aggregates).

Leave-one-conversation-out: each fold chooses, on the other four conversations, the setting
(the baseline, w = 0, included) with the best turn_all@50 + turn_any@10, and is scored on
the held-out one; the held-out figures pool the five folds' questions (`loo_all_settings`
over every setting, `loo_per_variant` over each variant's weights; `loo_by_turn_all50_only`
choosing by turn_all@50 alone). Also reported: every setting's whole-dev figures, per
category and per conversation; the share of evidence turns each table ranks in its top 50;
of the category-1 questions whose evidence the baseline leaves out of its top 50, how much of
what is missing each table ranks in its own top 50; and the cost of building each table.

The store holds all conversations before any question is asked (bench.locomo asks each
conversation's questions before writing the next), so the store-wide word statistics (FTS5's
idf, the static query vectors' weights) differ, and so do the baseline's figures; the study
compares every setting with the baseline of the same store ("recall_itself" is
Engine.recall's own answer, which the baseline reproduces).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import time
from pathlib import Path
from unittest import mock

from worlddb.consolidator import Consolidator
from worlddb.core.timeutil import now_us
from worlddb.graph.lexical import fts_query
from worlddb.memory.engine import Engine
from worlddb.memory.scopes import ScopeSet
from worlddb.retrieval import recall
from worlddb.retrieval.fusion import WEIGHTS
from worlddb.retrieval.global_lane import aggregates
from worlddb.retrieval.lanes import run_lanes

from .locomo import questions_of, score, sessions_of, summarize

DEPTH = 250
LIMIT = 50
NEIGHBOURS = {"prev": (-1,), "next": (1,), "prev+next": (-1, 1)}
FORMS = ("alone", "with turn", "with turn, neighbours x0.5")
WEIGHTS_TRIED = (0.25, 0.5, 0.75, 1.0)
SCOPES_TRIED = ("all", "aggregation")


def build(data: list[dict], db: Path) -> dict:
    """Ingest every conversation into its own scope of one store, with topic worlds; the
    turn map (turn id -> node rowid per conversation, in conversation order)."""
    engine = Engine.open(db, synchronous="NORMAL")
    out: dict = {"conversations": {}, "ingest": []}
    try:
        for conv in data:
            scope = ScopeSet((("user", conv["sample_id"]),))
            sessions = sessions_of(conv["conversation"])
            started, cpu = time.perf_counter(), time.process_time()
            result = engine.ingest_conversation(sessions, scope, source=conv["sample_id"])
            worlds = [engine.store.scope_anchor("user", conv["sample_id"])]
            consolidator = Consolidator(engine.db, min_age_secs=0)
            consolidator.topics(scopes=worlds)
            consolidator.summarize(types=["Topic"])
            out["ingest"].append({"conversation": conv["sample_id"], "turns": len(result.turns),
                                  "seconds": round(time.perf_counter() - started, 2),
                                  "cpu_seconds": round(time.process_time() - cpu, 2)})
            out["conversations"][conv["sample_id"]] = {
                "sessions": [[t.turn_id for t in s.turns] for s in sessions],
                "rowid": {turn_id: engine.store.rowid(anchor) for turn_id, anchor in result.turns.items()}}
    finally:
        engine.close()
    return out


def context_tables(conn, turn_map: dict) -> tuple[dict, dict]:
    """(name, conversation) -> in-memory FTS5 connection; name -> seconds to build all."""
    tables, cost = {}, {}
    for conv, info in turn_map["conversations"].items():
        rowid = info["rowid"]
        marks = ",".join("?" * len(rowid))
        text = dict(conn.execute(f"SELECT rowid, text FROM fts WHERE rowid IN ({marks})", list(rowid.values())))
        for name, offsets in NEIGHBOURS.items():
            for form in FORMS:
                key = f"{name} / {form}"
                started = time.perf_counter()
                db = sqlite3.connect(":memory:")
                two = form.endswith("x0.5")
                columns = "own, ctx" if two else "ctx"
                db.execute(f"CREATE VIRTUAL TABLE c USING fts5({columns}, "
                           "tokenize='porter unicode61 remove_diacritics 2')")
                rows = []
                for session in info["sessions"]:
                    for i, turn in enumerate(session):
                        near = " ".join(text[rowid[session[i + o]]] for o in offsets if 0 <= i + o < len(session))
                        own = text[rowid[turn]]
                        if two:
                            rows.append((rowid[turn], own, near))
                        elif form == "with turn":
                            rows.append((rowid[turn], f"{own} {near}"))
                        else:
                            rows.append((rowid[turn], near))
                marks = "?, ?, ?" if two else "?, ?"
                db.executemany(f"INSERT INTO c(rowid, {columns}) VALUES ({marks})", rows)
                cost[key] = cost.get(key, 0.0) + time.perf_counter() - started
                tables[(key, conv)] = (db, two)
    return tables, {k: round(v, 3) for k, v in cost.items()}


def context_lane(table, question: str) -> list[int]:
    db, two = table
    match = fts_query(question)
    if not match:
        return []
    rank = "bm25(c, 1.0, 0.5)" if two else "bm25(c)"
    return [r for (r,) in db.execute(f"SELECT rowid FROM c WHERE c MATCH ? ORDER BY {rank}, rowid LIMIT ?",
                                     (match, DEPTH))]


OBJECTIVE = ("turn_all@50", "turn_any@10")


def fold_choice(per_setting: dict[str, list[dict]], held_out: str, objective_keys=OBJECTIVE) -> str:
    def objective(name: str) -> float:
        rows = [r for r in per_setting[name] if r["conversation"] != held_out]
        return statistics.mean(sum(r["metrics"][k] for k in objective_keys) for r in rows)
    return max(sorted(per_setting), key=lambda n: (objective(n), n == "baseline"))


def headline(rows: list[dict]) -> dict:
    s = summarize(rows)
    return {k: s["overall"][k] for k in ("turn_any@10", "turn_all@10", "turn_all@50", "sess_any@10")} | {
        "category_1_turn_all@50": s["per_category"]["1"]["turn_all@50"],
        "per_category": {c: {k: v[k] for k in ("n", "turn_any@10", "turn_all@50")}
                         for c, v in s["per_category"].items()}}


def loo(per_setting: dict[str, list[dict]], conversations: list[str]) -> dict:
    return loo_by(per_setting, conversations, OBJECTIVE)


def loo_by(per_setting: dict[str, list[dict]], conversations: list[str], objective_keys) -> dict:
    choices, pooled = {}, []
    for conv in conversations:
        name = fold_choice(per_setting, conv, objective_keys)
        choices[conv] = name
        pooled += [r for r in per_setting[name] if r["conversation"] == conv]
    return {"choices": choices, "held_out": headline(pooled)}


def conversation_view(engine: Engine, sample: str, info: dict) -> tuple[dict, ScopeSet, list[str], dict]:
    """A dev conversation in the store, as a study reads it: its turns by rowid, its scope,
    that scope's world, and its turns by anchor (`info`: the conversation's turn map entry)."""
    by_rowid = {r: t for t, r in info["rowid"].items()}
    anchors = engine.store.anchors_for_rowids(list(by_rowid))
    return (by_rowid, ScopeSet((("user", sample),)), [engine.store.scope_anchor("user", sample)],
            {anchors[r]: t for r, t in by_rowid.items()})


def conversation_views(engine: Engine, data: list[dict], turn_map: dict):
    """Each dev conversation of `data` in file order, as a study reads it: (the conversation, its
    sample id, its turn map entry, then conversation_view's four)."""
    for conv in data:
        sample = conv["sample_id"]
        info = turn_map["conversations"][sample]
        yield (conv, sample, info, *conversation_view(engine, sample, info))


def study_args(description: str) -> argparse.Namespace:
    """The arguments every study over the dev store takes: --data, --db, --out."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo-dev.json"))
    parser.add_argument("--db", type=Path, required=True, help="the store (built here when absent)")
    parser.add_argument("--out", type=Path, default=None)
    return parser.parse_args()


def dev_store(data: list, db: Path, report: dict) -> dict:
    """The turn map of the dev store at `db`, building the store (and its map, beside it) when
    either is absent; notes the load average of a build in `report`."""
    map_path = db.with_suffix(".turns.json")
    if not (db.exists() and map_path.exists()):
        map_path.write_text(json.dumps(build(data, db)))
        report["build_loadavg_1min"] = round(os.getloadavg()[0], 2)
    return json.loads(map_path.read_text())


def main() -> None:
    args = study_args(__doc__.splitlines()[0])
    data = json.loads(args.data.read_text())
    report: dict = {"benchmark": "locomo context lane study", "data": str(args.data)}
    turn_map = dev_store(data, args.db, report)
    report["ingest"] = turn_map["ingest"]
    engine = Engine.open(args.db, synchronous="NORMAL")
    try:
        sources = engine.services.sources
        tables, report["table_build_seconds"] = context_tables(engine.store.conn, turn_map)
        settings = {"baseline": None}
        for key in sorted({k for k, _ in tables}):
            for scope in SCOPES_TRIED:
                for w in WEIGHTS_TRIED:
                    settings[f"{key} / w {w} / {scope}"] = (key, w, scope)
        per_setting: dict[str, list[dict]] = {name: [] for name in settings}
        diag: dict[str, list[float]] = {}
        diag_missing: dict[str, dict] = {}
        recall_rows: list[dict] = []
        started = time.perf_counter()
        views = conversation_views(engine, data, turn_map)
        for conv, sample, info, by_rowid, scope, worlds, anchor_turn in views:
            for item in questions_of(conv, set(info["rowid"])):
                question, evidence = item["question"], item["_evidence"]
                base = {"conversation": sample, "category": item["category"]}
                hits = engine.recall(question, scope, limit=LIMIT).results
                recall_rows.append({**base, "metrics": score([anchor_turn[h.id] for h in hits if h.id in anchor_turn],
                                                             evidence)})
                lanes = run_lanes(sources, question, worlds, DEPTH, open_only_at=now_us())
                contexts = {key: context_lane(tables[(key, sample)], question) for key, _ in tables if _ == sample}
                agg = aggregates(question)
                ev_rowids = {info["rowid"][e] for e in evidence}
                for key, ranked_ctx in contexts.items():
                    diag.setdefault(key, []).append(len(ev_rowids & set(ranked_ctx[:LIMIT])) / len(ev_rowids))
                for name, setting in settings.items():
                    weights, extra = dict(WEIGHTS), {}
                    if setting is not None:
                        key, w, which = setting
                        if which == "aggregation" and not agg:  # weight 0: the baseline's ranking
                            per_setting[name].append(per_setting["baseline"][-1])
                            continue
                        extra = {"context": contexts[key]}
                        weights["context"] = w
                    with mock.patch.object(recall, "run_lanes", lambda *a, _l={**lanes, **extra}, **k: _l):
                        chosen = recall.rank(sources, question, worlds, limit=LIMIT, weights=weights)
                    ranked = [by_rowid[r] for r in (engine.store.rowid(c.view.anchor) for c in chosen) if r in by_rowid]
                    per_setting[name].append({**base, "metrics": score(ranked, evidence)})
                    if name == "baseline":
                        missing = ev_rowids - {info["rowid"][t] for t in ranked[:LIMIT]}
                        if item["category"] == 1 and missing:
                            for key, ranked_ctx in contexts.items():
                                top = set(ranked_ctx[:LIMIT])
                                lost = diag_missing.setdefault(key, {"questions": 0, "all_missing_in_top50": 0,
                                                                     "missing_turns": 0, "in_top50": 0})
                                lost["questions"] += 1
                                lost["all_missing_in_top50"] += missing <= top
                                lost["missing_turns"] += len(missing)
                                lost["in_top50"] += len(missing & top)
        report["sweep_seconds"] = round(time.perf_counter() - started, 1)
    finally:
        engine.close()
    conversations = [c["sample_id"] for c in data]
    report["loadavg_1min"] = round(os.getloadavg()[0], 2)
    report["recall_itself"] = headline(recall_rows)
    report["settings"] = {name: headline(rows) for name, rows in per_setting.items()}
    report["per_conversation"] = {
        name: {c: {k: v for k, v in summarize([r for r in rows if r["conversation"] == c])["overall"].items()
                   if k in ("turn_any@10", "turn_all@50")} for c in [d["sample_id"] for d in data]}
        for name, rows in per_setting.items()}
    report["context_lane_evidence_in_top50"] = {k: round(100 * statistics.mean(v), 1) for k, v in diag.items()}
    report["category_1_missing_evidence_in_context_top50"] = diag_missing
    report["loo_by_turn_all50_only"] = loo_by(per_setting, [d["sample_id"] for d in data], ("turn_all@50",))
    report["loo_all_settings"] = loo(per_setting, conversations)
    families = {}
    for key in sorted({k for k, _ in tables}):
        for scope in SCOPES_TRIED:
            family = {n: r for n, r in per_setting.items()
                      if n == "baseline" or (settings[n][0] == key and settings[n][2] == scope)}
            families[f"{key} / {scope}"] = loo(family, conversations)
    report["loo_per_variant"] = families
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(json.dumps({"recall_itself": report["recall_itself"],
                      "baseline": report["settings"]["baseline"],
                      "loo_all_settings": report["loo_all_settings"],
                      "loo_per_variant": {k: {"choices": v["choices"],
                                              "held_out": {m: v["held_out"][m] for m in
                                                           ("turn_any@10", "turn_all@50", "category_1_turn_all@50")}}
                                          for k, v in families.items()}}, indent=2))


if __name__ == "__main__":
    main()
