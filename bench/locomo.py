"""Retrieval quality on LoCoMo conversations, next to flat baselines computed in the same run.

    python -m bench.locomo --data ../shared/data/locomo-dev.json --out results.json [--query-model]
                           [--via mcp mcp-turns] [--baseline-python PY]

Each conversation is ingested into its own scope (user:<sample_id>) of one database,
through Engine.ingest_conversation - Session worlds of Turn nodes, the session date as
valid-from - and the consolidator then builds its topic worlds and their summaries (what
the background task does once a scope has been written; `--no-topics` skips it). Each
question of categories 1-4 is then asked through Engine.recall, the code the
memory_recall tool runs, limited to 50 results. Metrics per question, over
the returned turns (evidence ids "D<session>:<turn>"; ids that name no turn are skipped):
  turn_any@k  an evidence turn is in the top k
  turn_all@k  every evidence turn is in the top k
  sess_any@k  a turn of an evidence session is in the top k
for k = 1, 5, 10, 50, overall and per category. Baselines, over the same turns:
  bm25_flat   rank-bm25 (Okapi) over raw turn text: lower-cased words, stopwords dropped,
              Porter-stemmed (nltk) - the setup of the published flat baseline
  fts5_flat   SQLite FTS5 bm25() over raw turn text (porter tokenizer), stopwords dropped
              from the query: the engine's own lexical machinery without its index text
  dense_flat  MiniLM cosine, query vs "Speaker: text [image: caption]"
  rrf_flat    reciprocal rank fusion (k=60) of bm25_flat and dense_flat
What each lane contributes, over the same questions ("lanes"):
  evidence_in_top50  the share of evidence turns each lane ranks in its top 50 on its own
  without            the metrics with that lane's fusion weight set to 0 (an ablation;
                     everything else, the graph step included, as in recall)
Also reported: ingest and topic time, and recall latency P50/P95 (wall clock, this machine).

--via writes and asks the same conversations through other paths as well, side by side
with the in-process run, each into a database of its own:
  mcp        a `worlddb serve` child over stdio, driven by the MCP SDK's client as an
             application would: one memory_write(messages=..., session=...) per session
  mcp-turns  the same server, one memory_write per turn (text, the speaker and session in
             metadata, the session date as valid_from): how a client had to write a
             conversation before memory_write took messages
  --baseline-python PY   each --via path (`mcp` if none is given) once more, the server
             run by the interpreter of another installation of worlddb (a checkout of an
             earlier commit with its own virtualenv): the code before a change, measured in
             the same run (reported as worlddb_mcp_baseline, worlddb_mcp_turns_baseline)
After each conversation the consolidator builds its topic worlds on that file, as the
server's background task does (and as the in-process run does), and every question is
asked through memory_recall over stdio. Each path reports ingest turns/s end to end (the
client's calls, transport and server included), turns per CPU-second of the process that
writes (this one, or the server), which a busy machine moves less, and its recall latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from worlddb.consolidator import Consolidator
from worlddb.core.backends import is_url
from worlddb.core.timeutil import now_us
from worlddb.graph.lexical import fts_query
from worlddb.graph.text_index import STOPWORDS
from worlddb.memory.engine import Engine
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.scopes import ScopeSet
from worlddb.retrieval.fusion import WEIGHTS
from worlddb.retrieval.lanes import run_lanes
from worlddb.retrieval.recall import rank as rank_nodes

KS = (1, 5, 10, 50)
_WORD = re.compile(r"\w+")


def sessions_of(conversation: dict) -> list[SessionIn]:
    out = []
    number = 1
    while f"session_{number}" in conversation:
        stamp = datetime.strptime(conversation[f"session_{number}_date_time"], "%I:%M %p on %d %B, %Y")
        turns = tuple(TurnIn(speaker=t["speaker"], text=t["text"], turn_id=t["dia_id"], caption=t.get("blip_caption"))
                      for t in conversation[f"session_{number}"])
        out.append(SessionIn(date=stamp.replace(tzinfo=UTC).isoformat(), turns=turns, name=f"session {number}"))
        number += 1
    return out


def evidence_of(item: dict, known: set[str]) -> list[str]:
    ids = []
    for entry in item.get("evidence", []):
        ids += [p for p in re.split(r"[;,\s]+", entry) if p]
    return [i for i in dict.fromkeys(ids) if i in known]


def session_of(turn_id: str) -> str:
    return turn_id.split(":")[0]


def score(ranked: list[str], evidence: list[str]) -> dict[str, float]:
    out = {}
    sessions = {session_of(e) for e in evidence}
    for k in KS:
        top = ranked[:k]
        out[f"turn_any@{k}"] = float(any(e in top for e in evidence))
        out[f"turn_all@{k}"] = float(all(e in top for e in evidence))
        out[f"sess_any@{k}"] = float(any(session_of(t) in sessions for t in top))
    return out


def summarize(rows: list[dict]) -> dict:
    if not rows:
        return {}
    keys = rows[0]["metrics"].keys()
    overall = {k: round(100 * statistics.mean(r["metrics"][k] for r in rows), 1) for k in keys}
    per_cat = {}
    for cat in sorted({r["category"] for r in rows}):
        sub = [r for r in rows if r["category"] == cat]
        per_cat[str(cat)] = {"n": len(sub), **{k: round(100 * statistics.mean(r["metrics"][k] for r in sub), 1)
                                                for k in keys}}
    return {"n": len(rows), "overall": overall, "per_category": per_cat}


class Flat:
    """The flat baselines over one conversation's turns."""

    def __init__(self, turns: list[tuple[str, str, str, str | None]], embedder):
        import sqlite3

        from nltk.stem import PorterStemmer
        from rank_bm25 import BM25Okapi

        self.stem = PorterStemmer().stem
        self.ids = [t[0] for t in turns]
        self.bm25 = BM25Okapi([self.terms(t[2]) or [""] for t in turns])
        self.fts = sqlite3.connect(":memory:")
        self.fts.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')")
        self.fts.executemany("INSERT INTO t(rowid, text) VALUES (?, ?)", [(i, t[2]) for i, t in enumerate(turns)])
        texts = [f"{t[1]}: {t[2]}" + (f" [image: {t[3]}]" if t[3] else "") for t in turns]
        self.vectors = embedder.embed(texts)
        self.embedder = embedder

    def terms(self, text: str) -> list[str]:
        return [self.stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS]

    def rank(self, question: str, query_vector: np.ndarray) -> dict[str, list[str]]:
        lexical = np.argsort(-self.bm25.get_scores(self.terms(question)), kind="stable")
        match = fts_query(question)
        fts = [r[0] for r in self.fts.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 50",
                                              (match,))] if match else []
        dense = np.argsort(-(self.vectors @ query_vector), kind="stable")
        fused: dict[int, float] = {}
        for ranked in (lexical[:50], dense[:50]):
            for rank, i in enumerate(ranked, start=1):
                fused[int(i)] = fused.get(int(i), 0.0) + 1.0 / (60 + rank)
        rrf = sorted(fused, key=lambda i: (-fused[i], i))
        return {"bm25_flat": [self.ids[i] for i in lexical[:50]], "fts5_flat": [self.ids[i] for i in fts],
                "dense_flat": [self.ids[i] for i in dense[:50]], "rrf_flat": [self.ids[i] for i in rrf[:50]]}


def lane_rows(engine: Engine, question: str, worlds: list[str], by_rowid: dict[int, str], evidence: list[str]
              ) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """The share of `evidence` in each lane's top 50, and the metrics without each lane."""
    sources = engine.services.sources
    lanes = run_lanes(sources, question, worlds, 250, open_only_at=now_us())
    found = {name: sum(e in {by_rowid.get(r) for r in ranked[:50]} for e in evidence) / len(evidence)
             for name, ranked in lanes.items()}
    without = {}
    for lane in WEIGHTS:
        chosen = rank_nodes(sources, question, worlds, limit=50, as_of=None, known_at=None, include_retired=False,
                      weights={**WEIGHTS, lane: 0.0})
        without[lane] = score([by_rowid[r] for r in (engine.store.rowid(c.view.anchor) for c in chosen)
                               if r in by_rowid], evidence)
    return found, without


VIA = ("mcp", "mcp-turns")


def run(data_path: Path, db_path: Path | str, query_model: bool, limit: int | None, topics: bool = True,
        via: tuple[str, ...] = (), baseline_python: str | None = None) -> dict:
    data = json.loads(data_path.read_text())
    engine = Engine.open(db_path, synchronous="NORMAL", query_model=query_model)
    rows: dict[str, list[dict]] = {"worlddb": [], "bm25_flat": [], "fts5_flat": [], "dense_flat": [], "rrf_flat": []}
    in_lane: list[dict[str, float]] = []
    without: dict[str, list[dict]] = {lane: [] for lane in WEIGHTS}
    latencies, ingest = [], []
    try:
        for conv in data[:limit]:
            scope = ScopeSet((("user", conv["sample_id"]),))
            sessions = sessions_of(conv["conversation"])
            started, cpu = time.perf_counter(), time.process_time()
            result = engine.ingest_conversation(sessions, scope, source=conv["sample_id"])
            entry = {"conversation": conv["sample_id"], "turns": len(result.turns),
                     "seconds": round(time.perf_counter() - started, 2),
                     "cpu_seconds": round(time.process_time() - cpu, 2)}
            worlds = [engine.store.scope_anchor("user", conv["sample_id"])]
            if topics:
                started = time.perf_counter()
                consolidator = Consolidator(engine.db, min_age_secs=0)
                made = consolidator.topics(scopes=worlds)
                consolidator.summarize(types=["Topic"])
                entry |= {"topics": len(made.topics), "topic_seconds": round(time.perf_counter() - started, 2)}
            ingest.append(entry)
            by_anchor = {anchor: turn_id for turn_id, anchor in result.turns.items()}
            by_rowid = {engine.store.rowid(anchor): turn_id for anchor, turn_id in by_anchor.items()}
            flat = Flat([(t.turn_id, t.speaker, t.text, t.caption) for s in sessions for t in s.turns],
                        engine.embedder)
            known = set(result.turns)
            for item in conv["qa"]:
                if item.get("category") not in (1, 2, 3, 4):
                    continue
                evidence = evidence_of(item, known)
                if not evidence:
                    continue
                started = time.perf_counter()
                hits = engine.recall(item["question"], scope, limit=50).results
                latencies.append(time.perf_counter() - started)
                ranked = [by_anchor[h.id] for h in hits if h.id in by_anchor]
                base = dict(conversation=conv["sample_id"], category=item["category"], question=item["question"])
                rows["worlddb"].append({**base, "metrics": score(ranked, evidence)})
                found, ablated = lane_rows(engine, item["question"], worlds, by_rowid, evidence)
                in_lane.append(found)
                for lane, metrics in ablated.items():
                    without[lane].append({**base, "metrics": metrics})
                for name, order in flat.rank(item["question"], engine.embedder.embed([item["question"]])[0]).items():
                    rows[name].append({**base, "metrics": score(order, evidence)})
    finally:
        engine.close()
    paths = {"worlddb": _ingest_report(ingest, latencies)}
    # the code before, through the same MCP paths: each --via path (the messages path if none)
    baselines = tuple(f"{path}-baseline" for path in via or ("mcp",)) if baseline_python else ()
    for path in via + baselines:
        name = "worlddb_" + path.replace("-", "_")
        ranked, paths[name] = asyncio.run(ask_mcp(data[:limit], db_path.with_name(f"locomo-{path}.db"), query_model,
                                                  per_turn=path.startswith("mcp-turns"), topics=topics,
                                                  python=baseline_python if path in baselines else None))
        rows[name] = [{**_base(conv, item), "metrics": score(order, item["_evidence"])}
                      for conv, answers in zip(data[:limit], ranked) for item, order in answers]
    latencies.sort()
    return {
        "benchmark": "locomo",
        "data": str(data_path),
        "query_vectors": "model embedding + static table" if query_model else "static table (no model at query time)",
        "results": {name: summarize(r) for name, r in rows.items()},
        "per_conversation": {
            conv: summarize([r for r in rows["worlddb"] if r["conversation"] == conv])["overall"]
            for conv in dict.fromkeys(r["conversation"] for r in rows["worlddb"])},
        "lanes": {
            "evidence_in_top50": {lane: round(100 * statistics.mean(f.get(lane, 0.0) for f in in_lane), 1)
                                  for lane in WEIGHTS},
            "without": {lane: summarize(r)["overall"] | {"category_1_turn_all@50":
                                                         summarize(r)["per_category"]["1"]["turn_all@50"]}
                        for lane, r in without.items()}},
        "store": "postgresql" if is_url(str(db_path)) else "sqlite",
        "loadavg_1min": round(os.getloadavg()[0], 2),
        "paths": {name: {k: v for k, v in p.items() if k != "ingest"} for name, p in paths.items()},
        "per_conversation_by_path": {
            name: {conv: summarize([r for r in rows[name] if r["conversation"] == conv])["overall"]
                   for conv in dict.fromkeys(r["conversation"] for r in rows[name])}
            for name in paths},
        "ingest": ingest,
        "recall_latency_ms": {"p50": round(1e3 * latencies[len(latencies) // 2], 2),
                              "p95": round(1e3 * latencies[int(0.95 * (len(latencies) - 1))], 2),
                              "n": len(latencies)},
    }


def _base(conv: dict, item: dict) -> dict:
    return dict(conversation=conv["sample_id"], category=item["category"], question=item["question"])


def questions_of(conv: dict, known: set[str]) -> list[dict]:
    out = []
    for item in conv["qa"]:
        if item.get("category") not in (1, 2, 3, 4):
            continue
        evidence = evidence_of(item, known)
        if evidence:
            out.append({**item, "_evidence": evidence})
    return out


def _ingest_report(ingest: list[dict], latencies: list[float]) -> dict:
    turns, seconds = sum(i["turns"] for i in ingest), sum(i["seconds"] for i in ingest)
    # CPU of the process that writes: this one in process, the server over MCP
    cpu = sum(i.get("cpu_seconds", i.get("server_cpu_seconds", 0.0)) for i in ingest)
    ordered = sorted(latencies)
    return {"ingest": ingest, "ingest_turns": turns, "ingest_seconds": round(seconds, 2),
            "ingest_turns_per_s": round(turns / seconds, 1),
            "ingest_turns_per_cpu_s": round(turns / cpu, 1) if cpu else None,
            "recall_latency_ms": {"p50": round(1e3 * ordered[len(ordered) // 2], 2),
                                  "p95": round(1e3 * ordered[int(0.95 * (len(ordered) - 1))], 2),
                                  "n": len(ordered)}}


def build_topics(db_path: Path, sample_id: str) -> dict:
    """What the server's background consolidator does once a scope has been written, run on
    the file from this process (the server catches up on it at its next read)."""
    from worlddb.graph.database import WorldDB

    started = time.perf_counter()
    with WorldDB.open(db_path) as db:
        consolidator = Consolidator(db, min_age_secs=0)
        made = consolidator.topics(scopes=[db.store.scope_anchor("user", sample_id)])
        consolidator.summarize(types=["Topic"])
    return {"topics": len(made.topics), "topic_seconds": round(time.perf_counter() - started, 2)}


async def ask_mcp(data: list[dict], db: Path, query_model: bool, *, per_turn: bool, topics: bool,
                  python: str | None = None) -> tuple[list, dict]:
    import psutil
    from mcp import Client

    from bench.serverproc import call, stdio_params, stdio_pid

    extra = ("--consolidate-every", "0") + (("--query-model",) if query_model else ())
    ranked, latencies, ingest = [], [], []
    async with Client(stdio_params(db, embedder="minilm", default_user=None, extra=extra, python=python)) as client:
        server = psutil.Process(stdio_pid(db))
        for conv in data:
            user = conv["sample_id"]
            by_anchor: dict[str, str] = {}
            turns = 0
            cpu = sum(server.cpu_times()[:2])
            started = time.perf_counter()
            for number, session in enumerate(sessions_of(conv["conversation"]), start=1):
                if per_turn:
                    for t in session.turns:
                        meta = {"speaker": t.speaker, "session": number}
                        if t.caption:
                            meta["caption"] = t.caption  # indexed as "[image: ...]", as a turn's is
                        written = await call(client, "memory_write", text=t.text, metadata=meta,
                                             valid_from=session.date, user_id=user)
                        by_anchor[written["id"]] = t.turn_id
                        turns += 1
                    continue
                messages = [{"role": t.speaker, "content": t.text, "ref": t.turn_id,
                             **({"caption": t.caption} if t.caption else {})} for t in session.turns]
                written = await call(client, "memory_write", messages=messages, session=f"{user}:{number}",
                                     valid_from=session.date, user_id=user)
                by_anchor.update({t["id"]: t["ref"] for t in written["turns"]})
                turns += len(written["turns"])
            entry = {"conversation": user, "turns": turns, "seconds": round(time.perf_counter() - started, 2),
                     "server_cpu_seconds": round(sum(server.cpu_times()[:2]) - cpu, 2)}
            if topics:
                entry |= build_topics(db, user)
            ingest.append(entry)
            answers = []
            for item in questions_of(conv, set(by_anchor.values())):
                started = time.perf_counter()
                hits = (await call(client, "memory_recall", query=item["question"], user_id=user, limit=50))["results"]
                latencies.append(time.perf_counter() - started)
                answers.append((item, [by_anchor[h["id"]] for h in hits if h["id"] in by_anchor]))
            ranked.append(answers)
    return ranked, _ingest_report(ingest, latencies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo-dev.json"))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--db", default=None,
                        help="keep the database here (default: a temp dir); a postgresql:// URL runs the "
                             "in-process path on PostgreSQL (an empty database)")
    parser.add_argument("--query-model", action="store_true", help="add the model's query embedding")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--no-topics", action="store_true", help="do not build topic worlds (no global lane)")
    parser.add_argument("--via", nargs="+", choices=VIA, default=[],
                        help="also write and ask through these paths, side by side with the in-process run")
    parser.add_argument("--baseline-python", default=None,
                        help="also each --via path (mcp if none) with a server run by this interpreter "
                             "(another installation: the code before)")
    args = parser.parse_args()
    if args.db and is_url(args.db) and (args.via or args.baseline_python):
        parser.error("--via writes each path into a file beside --db: give --db a file path")
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db if args.db and is_url(args.db) else Path(args.db or Path(tmp) / "locomo.db")
        report = run(args.data, db, args.query_model, args.conversations, topics=not args.no_topics,
                     via=tuple(args.via), baseline_python=args.baseline_python)
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    headline = {name: {k: r["overall"][k] for k in ("turn_any@10", "turn_all@10", "turn_all@50", "sess_any@10")}
                for name, r in report["results"].items()}
    headline["worlddb"]["category_1_turn_all@50"] = report["results"]["worlddb"]["per_category"]["1"]["turn_all@50"]
    lanes = {"evidence_in_top50": report["lanes"]["evidence_in_top50"],
             "without": {lane: {k: m[k] for k in ("turn_any@10", "turn_all@50", "category_1_turn_all@50")}
                         for lane, m in report["lanes"]["without"].items()}}
    print(json.dumps({"headline": headline, "lanes": lanes, "per_conversation": report["per_conversation"],
                      "recall_latency_ms": report["recall_latency_ms"], "ingest": report["ingest"],
                      "paths": report["paths"]}, indent=2))


if __name__ == "__main__":
    main()
