"""Learned fusion for recall (learning to rank over the lanes' evidence), studied on LoCoMo dev.

    python -m bench.fusion_study --data ../shared/data/locomo-dev.json --db /tmp/fusion/locomo.db
                                 --out bench/results/locomo-dev-fusion-study.json

Builds the dev store once as bench.context_study does (all conversations in one file, each in
its own scope, with their topic worlds; reused when it and its turn map exist). Per question
(categories 1-4) the lanes recall runs are computed once (depth 250) and kept, with per
candidate features recall could compute at query time without a model (`FEATURES`): per lane
the reciprocal rank 1/(10 + rank) and whether the lane found it, how many lanes found it, the
log of its best rank, the fused RRF score (raw, over the question's best, and its place), the
words the length prior counts (worlddb.retrieval.brevity), whether it replies to a question or
states a slot's value, whether it is said by a person the question names (the speaker lane's
set), how many of the fused top 50 share its session and the best fused score among them, the
best fused score within two precedes hops (what the graph step reads), whether it has an image
caption; and per question whether it is an aggregation question (global_lane.aggregates),
names what it asks for (the answer_type lane ran) or names a person who spoke. Nothing reads
a question's wording beyond what recall reads already.

Models, each trained leave-one-conversation-out (train on four conversations, label = the
candidate is an evidence turn of that question, each question weighted equally; score the
fifth), the model's score replacing the fused score before the length prior and the graph
step (recall.rank is run with `recall.fuse` patched to return it; the lanes' ranks, the
prior, the graph step, the pins and the slot step as recall has them):

  lr        logistic regression over all features (standardised, plus each lane's
            reciprocal rank times the aggregation flag); L2 strength C chosen inside the
            training folds
  hgb       scikit-learn's HistGradientBoostingClassifier over the same features; its
            size chosen inside the training folds
  pairwise  a linear model over the differences of an evidence turn's and another
            candidate's features (pairs within a question, the other candidate drawn from
            the fused top 100 and from the rest), scored as exp(w . x); C chosen inside
  wrrf_lr   a learned weighted RRF: logistic regression over 1/(k + rank) per lane for
            k in 1, 10, 60 (a per-lane weight and, through the mix, a per-lane k) only
  wrrf_cd   a learned weighted RRF fitted to the metric itself: per-lane weights and
            per-lane k by coordinate ascent on the training conversations' turn_all@50 +
            turn_any@10, from recall's weights
  lr_mix, hgb_mix  the model's score interpolated with recall's fused score, each over its
            question's best: (1 - alpha) * fused + alpha * model, alpha 0.25 or 0.5 chosen
            inside the training folds with the model's own settings
  hgb_cheap, hgb_cheap_mix  hgb and hgb_mix over `CHEAP_FEATURES` only: what recall has at no
            extra read (the lanes' ranks and presence, lane counts, log best rank, the fused
            score raw, over best and its place, the words and caption flag the length prior
            reads from the fts rows and the short flag, the question's flags). Left out: replies
            to a question and states a value for every candidate (the prior reads them for
            short turns only), said by a named person, the session counts and best, the best
            score within two precedes hops, and whether it is a turn

Hyperparameters are chosen by an inner leave-one-conversation-out over the four training
conversations only, on turn_all@50 + turn_any@10 (as the earlier studies chose). Inner folds
are scored with an emulation of recall.rank in numpy (fusion scores, the length prior, the
graph step over precedes neighbourhoods read once, top 50; no slot step), whose agreement
with recall.rank is reported; every held-out figure reported is recall.rank's own. Each model
runs in two forms: "graph as recall" (length prior on, the graph step's spread 0.5 / 0.35
unchanged), and "post chosen" (length prior on or off and the spread, 0 to 0.75, chosen inside
the training folds with the model's other settings). The models of `--fixed` (hgb, hgb_cheap)
run a third, "post fixed": the post-processing the "post chosen" folds chose most often, the
same for every fold (only the model's own settings chosen inside).

"baseline" is recall.rank over the stored lanes with unchanged code, checked against
Engine.recall on every question. The features, the lanes and the emulation's structures are
cached beside the store (`<db>.fusion.pkl`); delete it to recompute.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import numpy as np

from worlddb.core.timeutil import now_us
from worlddb.graph import identity
from worlddb.memory.engine import Engine
from worlddb.retrieval import brevity, propagation, recall
from worlddb.retrieval.fusion import RRF_K, WEIGHTS, fuse
from worlddb.retrieval.global_lane import aggregates, answer_head
from worlddb.retrieval.lanes import run_lanes

from .context_study import conversation_views, dev_store, headline
from .locomo import questions_of, score

DEPTH = 250
LIMIT = 50
LANES = ("bm25", "vector", "sentence", "entity", "entity_pending", "speaker", "answer_type", "global")
QUESTION_FEATURES = ("aggregates", "names_answer", "names_speaker")
CANDIDATE_FEATURES = ("n_lanes", "n_weighted_lanes", "log_best_rank", "fused", "fused_rel", "log_fused_place",
                      "log_words", "short", "replies_to_question", "states_value", "is_turn", "said_by_named",
                      "session_top50", "session_best_rel", "near_best_rel", "has_caption")
FEATURES = tuple(f"rr_{lane}" for lane in LANES) + tuple(f"in_{lane}" for lane in LANES) + CANDIDATE_FEATURES \
    + QUESTION_FEATURES
#: the features recall has at no extra read: the lanes' ranks, the fused scores, the words and
#: caption flag the length prior reads from the fts rows, and the question's flags
CHEAP_FEATURES = tuple(f"rr_{lane}" for lane in LANES) + tuple(f"in_{lane}" for lane in LANES) \
    + ("n_lanes", "n_weighted_lanes", "log_best_rank", "fused", "fused_rel", "log_fused_place", "log_words", "short",
       "has_caption") + QUESTION_FEATURES
OBJECTIVE = ("turn_all@50", "turn_any@10")
#: the graph step's spread (normal, aggregation) and the length prior, as recall has them
RECALL_POST = (propagation.PROPAGATION, propagation.AGGREGATE_PROPAGATION, True)
POSTS = tuple((s, a, d) for d in (True, False) for s, a in ((0.0, 0.0), (0.25, 0.175), (0.5, 0.35), (0.75, 0.5)))
SEED = 0


@dataclass
class Question:
    conversation: str
    category: int
    question: str
    evidence: list[str]
    aggregates: bool
    cand: np.ndarray            # candidate rowids (every node some lane found), ascending
    ranks: np.ndarray           # (n, lanes) 1-based rank per lane, 0 where absent
    X: np.ndarray               # (n, features)
    y: np.ndarray               # 1 for an evidence turn
    damp: np.ndarray            # the length prior's factor per candidate
    nodes: np.ndarray           # candidates, then the turns within two hops that no lane found
    nbr: np.ndarray             # (nodes, w) indices into cand of each node's candidate neighbours; n = none
    result: np.ndarray          # per node: a turn of the conversation (a result the metric counts)
    node_ev: np.ndarray         # per node: an evidence turn
    n_ev: int
    lanes: dict = field(default_factory=dict)      # the stored lanes (rowids, best first)
    base_top: set = field(default_factory=set)     # the baseline's top 50 turns
    metrics: dict = field(default_factory=dict)   # name -> metrics


# ---------------------------------------------------------------------------- collection

def _conversation_graph(store, rowids: list[int]) -> dict[int, list[int]]:
    """rowid -> the rowids within two precedes hops (either direction), as propagation reads them."""
    adj: dict[int, set[int]] = defaultdict(set)
    marks = ",".join("?" * len(rowids))
    for a, b in store.conn.execute(f"SELECT src, dst FROM edges WHERE src IN ({marks}) AND type='precedes' "
                                   "AND seq_removed IS NULL", rowids):
        adj[a].add(b)
        adj[b].add(a)
    out = {}
    for r in rowids:
        one = adj.get(r, set())
        two = {n for o in one for n in adj.get(o, ())}
        out[r] = sorted((one | two) - {r})
    return out


def _speakers_of(store, rowids: list[int]) -> dict[int, str]:
    """Turn rowid -> the anchor of the entity it refers to as its speaker."""
    role = store.backend.json_field("e.props", "role")
    marks = ",".join("?" * len(rowids))
    return dict(store.conn.execute(
        f"SELECT e.src, d.anchor FROM edges e JOIN nodes d ON d.rowid = e.dst WHERE e.src IN ({marks}) "
        f"AND e.type='refers_to' AND e.seq_removed IS NULL AND {role} = 'speaker'", rowids))


def _recall_rank(engine: Engine, question: str, worlds: list[str], lanes: dict, scores: dict | None = None,
                 post=RECALL_POST) -> list:
    """recall.rank over stored lanes; `scores` (rowid -> score) replaces the fused score."""
    spread, spread_agg, damp = post
    patches = [mock.patch.object(recall, "run_lanes", lambda *a, **k: lanes),
               mock.patch.object(propagation, "PROPAGATION", spread),
               mock.patch.object(propagation, "AGGREGATE_PROPAGATION", spread_agg)]
    if not damp:
        patches.append(mock.patch.object(brevity, "SHORT_TURN_WORDS", 0))
    if scores is not None:
        patches.append(mock.patch.object(recall, "fuse", lambda lanes_, weights=None: (dict(scores), fuse(lanes_)[1])))
    for p in patches:
        p.start()
    try:
        return recall.rank(engine.services.sources, question, worlds, limit=LIMIT)
    finally:
        for p in reversed(patches):
            p.stop()


def collect(engine: Engine, data: list, turn_map: dict, report: dict) -> list[Question]:
    store = engine.store
    sources = engine.services.sources
    out: list[Question] = []
    mismatches = 0
    rank_seconds = []
    views = conversation_views(engine, data, turn_map)
    for conv, sample, info, by_rowid, scope, worlds, anchor_turn in views:
        rowids = sorted(by_rowid)
        graph = _conversation_graph(store, rowids)
        session_of = {info["rowid"][t]: i for i, s in enumerate(info["sessions"]) for t in s if t in info["rowid"]}
        texts = brevity.turn_texts(store, rowids)
        words = {r: len(brevity.WORD.findall(t)) for r, t in texts.items()}
        states = {r: brevity.states_a_value(t) for r, t in texts.items()}
        replies = brevity.replies_to_questions(store, rowids)
        caption = {r: "[image:" in t for r, t in texts.items()}
        speaker_of = _speakers_of(store, rowids)
        for item in questions_of(conv, set(info["rowid"])):
            question, evidence = item["question"], item["_evidence"]
            hits = engine.recall(question, scope, limit=LIMIT).results
            recall_metrics = score([anchor_turn[h.id] for h in hits if h.id in anchor_turn], evidence)
            lanes = run_lanes(sources, question, worlds, DEPTH, open_only_at=now_us())
            started = time.perf_counter()
            chosen = _recall_rank(engine, question, worlds, lanes)
            rank_seconds.append(time.perf_counter() - started)
            ranked = [by_rowid[r] for r in (store.rowid(c.view.anchor) for c in chosen) if r in by_rowid]
            base_metrics = score(ranked, evidence)
            if base_metrics != recall_metrics:
                mismatches += 1
            fused, lane_ranks = fuse(lanes)
            damped, _ = brevity.damp_turns(store, fused)
            factor, _ = brevity.damp_turns(store, dict.fromkeys(fused, 1.0))
            cand = np.array(sorted(fused), dtype=np.int64)
            n = len(cand)
            ranks = np.zeros((n, len(LANES)), dtype=np.int32)
            for i, r in enumerate(cand):
                for j, lane in enumerate(LANES):
                    ranks[i, j] = lane_ranks[r].get(lane, 0)
            agg = aggregates(question)
            mentions = sources.resolver.find_mentions(worlds, question)
            named = frozenset().union(*identity.classes_of(store, sorted({m.anchor for m in mentions}))) \
                if mentions else frozenset()
            qf = {"aggregates": float(agg),
                  "names_answer": float(bool(answer_head(question)) and bool(lanes["answer_type"])),
                  "names_speaker": float(bool(lanes["speaker"]))}
            best_fused = max(damped.values()) if damped else 1.0
            fused_place = {r: i for i, r in enumerate(sorted(damped, key=lambda r: (-damped[r], r)), start=1)}
            top50 = [r for r in sorted(damped, key=lambda r: (-damped[r], r)) if r in by_rowid][:LIMIT]
            sess_count: dict[int, int] = defaultdict(int)
            sess_best: dict[int, list[float]] = defaultdict(list)
            for r in top50:
                sess_count[session_of.get(r, -1)] += 1
            for r in cand:
                sess_best[session_of.get(int(r), -1)].append(damped[int(r)])
            X = np.zeros((n, len(FEATURES)), dtype=np.float32)
            col = {name: j for j, name in enumerate(FEATURES)}
            weighted = np.array([WEIGHTS[lane] > 0 for lane in LANES])
            present = ranks > 0
            X[:, :len(LANES)] = np.where(present, 1.0 / (RRF_K + np.maximum(ranks, 1)), 0.0)
            X[:, len(LANES):2 * len(LANES)] = present
            X[:, col["n_lanes"]] = present.sum(axis=1)
            X[:, col["n_weighted_lanes"]] = present[:, weighted].sum(axis=1)
            X[:, col["log_best_rank"]] = np.log(np.where(present, ranks, 10 ** 6).min(axis=1))
            for i, r in enumerate(cand.tolist()):
                turn = r in by_rowid
                s = session_of.get(r, -1)
                X[i, col["fused"]] = fused[r]
                X[i, col["fused_rel"]] = damped[r] / best_fused
                X[i, col["log_fused_place"]] = math.log(fused_place[r])
                w = words.get(r, 12)
                X[i, col["log_words"]] = math.log1p(w)
                X[i, col["short"]] = float(turn and w < brevity.SHORT_TURN_WORDS)
                X[i, col["replies_to_question"]] = float(r in replies)
                X[i, col["states_value"]] = float(states.get(r, False))
                X[i, col["is_turn"]] = float(turn)
                X[i, col["said_by_named"]] = float(speaker_of.get(r) in named)
                if turn:
                    X[i, col["session_top50"]] = sess_count.get(s, 0) - (r in top50)
                    others = sorted(sess_best[s], reverse=True)
                    X[i, col["session_best_rel"]] = (others[1] if others[0] == damped[r] and len(others) > 1
                                                     else others[0]) / best_fused
                near_best = max((damped.get(o, 0.0) for o in graph.get(r, ())), default=0.0)
                X[i, col["near_best_rel"]] = near_best / best_fused
                X[i, col["has_caption"]] = float(caption.get(r, False))
            for name, v in qf.items():
                X[:, col[name]] = v
            ev_rowids = {info["rowid"][e] for e in evidence}
            index = {r: i for i, r in enumerate(cand.tolist())}
            extra = sorted({o for r in cand.tolist() for o in graph.get(r, ())} - set(index))
            nodes = np.concatenate([cand, np.array(extra, dtype=np.int64)])
            near = [[index[o] for o in graph.get(int(r), ()) if o in index] for r in nodes]
            width = max(1, max(len(x) for x in near))
            nbr = np.full((len(nodes), width), n, dtype=np.int32)
            for i, x in enumerate(near):
                nbr[i, :len(x)] = x
            out.append(Question(
                conversation=sample, category=item["category"], question=question, evidence=evidence, aggregates=agg,
                cand=cand, ranks=ranks, X=X, y=np.array([r in ev_rowids for r in cand.tolist()], dtype=np.int8),
                damp=np.array([factor[r] for r in cand.tolist()]), lanes=lanes, base_top=set(ranked[:LIMIT]),
                nodes=nodes, nbr=nbr, result=np.array([int(r) in by_rowid for r in nodes]),
                node_ev=np.array([int(r) in ev_rowids for r in nodes]), n_ev=len(set(evidence)),
                metrics={"recall_itself": recall_metrics, "baseline": base_metrics}))
    report["baseline_differs_from_recall"] = mismatches
    report["rank_ms_median"] = round(1e3 * statistics.median(rank_seconds), 2)
    return out


# ---------------------------------------------------------------------------- emulation

def emulate(q: Question, s: np.ndarray, post) -> tuple[float, float, np.ndarray]:
    """(turn_any@10, turn_all@50, node order) of recall.rank with candidate scores `s`
    (before the length prior), without the slot step."""
    spread, spread_agg, damp = post
    s = s * q.damp if damp else s
    ext = np.append(s, 0.0)
    final = np.concatenate([s, np.zeros(len(q.nodes) - len(s))])
    sp = spread_agg if q.aggregates else spread
    if sp:
        final = final + sp * ext[q.nbr].max(axis=1)
    order = np.lexsort((q.nodes, -final))
    top = order[q.result[order]][:LIMIT]
    ev = q.node_ev[top]
    return float(ev[:10].any()), float(ev.sum() == q.n_ev), top


def objective(qs: list[Question], scores: list[np.ndarray], post) -> float:
    total = 0.0
    for q, s in zip(qs, scores, strict=True):
        any10, all50, _ = emulate(q, s, post)
        total += any10 + all50
    return total / max(1, len(qs))


def rrf_scores(q: Question, weights: np.ndarray, ks: np.ndarray) -> np.ndarray:
    return np.where(q.ranks > 0, weights / (ks + np.maximum(q.ranks, 1)), 0.0).sum(axis=1)


# ---------------------------------------------------------------------------- models

def _design(qs: list[Question], form: str) -> np.ndarray:
    """Feature matrices stacked for a model form."""
    mats = []
    for q in qs:
        if form == "wrrf":
            r = np.maximum(q.ranks, 1).astype(np.float64)
            present = q.ranks > 0
            mats.append(np.concatenate([np.where(present, 1.0 / (k + r), 0.0) for k in (1, 10, 60)], axis=1))
        else:
            agg = q.X[:, FEATURES.index("aggregates")][:, None]
            X = q.X[:, [FEATURES.index(f) for f in CHEAP_FEATURES]] if form == "cheap" else q.X
            mats.append(np.concatenate([X, q.X[:, :len(LANES)] * agg], axis=1).astype(np.float64))
    return np.concatenate(mats) if mats else np.zeros((0, 1))


def _weights(qs: list[Question]) -> np.ndarray:
    """Each question weighs 1, split over its candidates, positives and negatives half each."""
    out = []
    for q in qs:
        pos = max(1, int(q.y.sum()))
        neg = max(1, len(q.y) - pos)
        out.append(np.where(q.y == 1, 0.5 / pos, 0.5 / neg))
    w = np.concatenate(out)
    return w / w.mean()


class Model:
    """fit(train questions) then score(question) -> positive scores per candidate."""

    def __init__(self, kind: str, setting):
        self.kind, self.setting = kind, setting

    def fit(self, qs: list[Question]) -> Model:
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler
        kind = self.kind
        if kind in ("lr", "wrrf_lr"):
            X = _design(qs, "wrrf" if kind == "wrrf_lr" else "all")
            y = np.concatenate([q.y for q in qs])
            self.scaler = StandardScaler().fit(X)
            self.model = LogisticRegression(C=self.setting, max_iter=2000).fit(
                self.scaler.transform(X), y, sample_weight=_weights(qs))
        elif kind in ("hgb", "hgb_cheap"):
            from sklearn.ensemble import HistGradientBoostingClassifier
            iters, leaves, rate = self.setting
            X = _design(qs, "cheap" if kind == "hgb_cheap" else "all")
            y = np.concatenate([q.y for q in qs])
            w = _weights(qs)
            # every evidence turn and every candidate of the fused top 100; one in four of the
            # rest, weighted four times (the fit's time is its rows')
            place = np.concatenate([q.X[:, FEATURES.index("log_fused_place")] for q in qs]).astype(np.float64)
            far = (place > math.log(100)) & (y == 0)
            keep = ~far | (np.random.default_rng(SEED).random(len(y)) < 0.25)
            w = np.where(far, 4.0 * w, w)
            self.model = HistGradientBoostingClassifier(
                max_iter=iters, max_leaf_nodes=leaves, learning_rate=rate, min_samples_leaf=50,
                l2_regularization=1.0, random_state=SEED).fit(X[keep], y[keep], sample_weight=w[keep])
        elif kind == "pairwise":
            rng = np.random.default_rng(SEED)
            diffs, sw = [], []
            X_all = _design(qs, "all")
            self.scaler = StandardScaler().fit(X_all)
            start = 0
            for q in qs:
                X = self.scaler.transform(X_all[start:start + len(q.y)])
                start += len(q.y)
                pos = np.flatnonzero(q.y == 1)
                if not len(pos):
                    continue
                fused = q.X[:, FEATURES.index("fused_rel")]
                order = np.argsort(-fused, kind="stable")
                hard = [i for i in order[:100] if q.y[i] == 0]
                rest = [i for i in order[100:] if q.y[i] == 0]
                negs = list(rng.choice(hard, min(20, len(hard)), replace=False)) if hard else []
                negs += list(rng.choice(rest, min(10, len(rest)), replace=False)) if rest else []
                for p in pos:
                    for m in negs:
                        diffs.append(X[p] - X[m])
                        sw.append(1.0 / (len(pos) * len(negs)))
            D = np.array(diffs)
            # symmetric pairs: the model has no intercept to learn
            Xp = np.concatenate([D, -D])
            yp = np.concatenate([np.ones(len(D)), np.zeros(len(D))])
            swp = np.concatenate([sw, sw])
            self.model = LogisticRegression(C=self.setting, fit_intercept=False, max_iter=2000).fit(
                Xp, yp, sample_weight=swp / swp.mean())
        elif kind == "wrrf_cd":
            self.weights, self.ks = coordinate_ascent(qs)
        elif kind.endswith("_mix"):
            self.base = fitted(kind[:-len("_mix")], self.setting[0], qs)
        return self

    def scores(self, qs: list[Question]) -> list[np.ndarray]:
        """Each question's candidate scores (positive: the graph step adds them)."""
        kind = self.kind
        if kind == "wrrf_cd":
            return [rrf_scores(q, self.weights, self.ks) for q in qs]
        if kind.endswith("_mix"):
            alpha, j = self.setting[1], FEATURES.index("fused")
            return [(1 - alpha) * q.X[:, j] / q.X[:, j].max() + alpha * p / p.max()
                    for q, p in zip(qs, self.base.scores(qs), strict=True)]
        if not qs:
            return []
        if kind in ("lr", "wrrf_lr"):
            X = self.scaler.transform(_design(qs, "wrrf" if kind == "wrrf_lr" else "all"))
            flat = self.model.predict_proba(X)[:, 1]
        elif kind in ("hgb", "hgb_cheap"):
            flat = self.model.predict_proba(_design(qs, "cheap" if kind == "hgb_cheap" else "all"))[:, 1]
        elif kind == "pairwise":
            flat = self.scaler.transform(_design(qs, "all")) @ self.model.coef_[0]
        else:
            raise ValueError(kind)
        out = np.split(flat, np.cumsum([len(q.y) for q in qs])[:-1])
        if kind == "pairwise":
            out = [np.exp(z - z.max()) for z in out]
        return out


CD_WEIGHTS = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
CD_KS = (3.0, 10.0, 30.0, 60.0)


def coordinate_ascent(qs: list[Question], passes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Per-lane weights and k maximising turn_all@50 + turn_any@10 (emulated, recall's
    post-processing) on `qs`, from recall's weights and k; ties keep the current value."""
    weights = np.array([WEIGHTS[lane] for lane in LANES], dtype=np.float64)
    ks = np.full(len(LANES), float(RRF_K))

    def value(w, k):
        return objective(qs, [rrf_scores(q, w, k) for q in qs], RECALL_POST)

    best = value(weights, ks)
    for _ in range(passes):
        improved = False
        for j in range(len(LANES)):
            for grid, arr in ((CD_WEIGHTS, "w"), (CD_KS, "k")):
                for v in grid:
                    w, k = weights.copy(), ks.copy()
                    (w if arr == "w" else k)[j] = v
                    if arr == "k" and w[j] == 0:
                        continue
                    got = value(w, k)
                    if got > best + 1e-12:
                        best, weights, ks, improved = got, w, k, True
        if not improved:
            break
    return weights, ks


SETTINGS = {
    "lr": (0.01, 0.1, 1.0),
    "wrrf_lr": (0.01, 0.1, 1.0),
    "pairwise": (0.01, 0.1, 1.0),
    "hgb": ((100, 15, 0.1),),
    "wrrf_cd": (None,),
    "lr_mix": tuple((c, a) for c in (0.01, 0.1, 1.0) for a in (0.25, 0.5)),
    "hgb_mix": tuple(((100, 15, 0.1), a) for a in (0.25, 0.5)),
    "hgb_cheap": ((100, 15, 0.1),),
    "hgb_cheap_mix": tuple(((100, 15, 0.1), a) for a in (0.25, 0.5)),
}


_FITS: dict = {}


def fitted(kind: str, setting, train: list[Question]) -> Model:
    """A model fitted on `train`, fitted once per (kind, setting, training conversations)."""
    key = (kind, setting, tuple(sorted({q.conversation for q in train})))
    if key not in _FITS:
        _FITS[key] = Model(kind, setting).fit(train)
    return _FITS[key]


def choose(kind: str, train: list[Question], conversations: list[str], posts) -> tuple:
    """The (setting, post) with the best inner leave-one-conversation-out objective on `train`."""
    if len(SETTINGS[kind]) == 1 and len(posts) == 1:
        return SETTINGS[kind][0], posts[0], {}
    table: dict = defaultdict(float)
    for inner in conversations:
        fit_on = [q for q in train if q.conversation != inner]
        held = [q for q in train if q.conversation == inner]
        for setting in SETTINGS[kind]:
            scores = fitted(kind, setting, fit_on).scores(held)
            for post in posts:
                table[(setting, post)] += objective(held, scores, post) * len(held)
    best = max(table, key=lambda key: (table[key], key[1] == RECALL_POST))
    return best[0], best[1], {f"{k[0]} / {k[1]}": round(v / len(train), 4) for k, v in table.items()}


# ---------------------------------------------------------------------------- main

def _pooled(qs: list[Question], name: str) -> dict:
    return headline([{"conversation": q.conversation, "category": q.category, "metrics": q.metrics[name]} for q in qs])


def _per_conversation(qs: list[Question], name: str, conversations: list[str]) -> dict:
    keys = ("turn_any@10", "turn_all@10", "turn_all@50", "category_1_turn_all@50")
    return {c: {k: v for k, v in _pooled([q for q in qs if q.conversation == c], name).items() if k in keys}
            for c in conversations}


def _gains(qs: list[Question], name: str, metric: str, category: int | None = None) -> dict:
    sub = [q for q in qs if category is None or q.category == category]
    gained = sum(q.metrics[name][metric] > q.metrics["baseline"][metric] for q in sub)
    lost = sum(q.metrics[name][metric] < q.metrics["baseline"][metric] for q in sub)
    return {"gained": gained, "lost": lost}


def main() -> None:
    # recall as it ranked when this study was made, before the prior on what a turn asks
    # (worlddb.retrieval.brevity.QUESTION_DAMPING; bench.question_study), which it does not
    # model: its re-rankings must reproduce Engine.recall
    with mock.patch.object(brevity, "QUESTION_DAMPING", 0.0):
        _study()


def _study() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo-dev.json"))
    parser.add_argument("--db", type=Path, required=True, help="the store (built here when absent)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--models", default="wrrf_cd,wrrf_lr,lr,lr_mix,pairwise,hgb,hgb_mix,hgb_cheap,hgb_cheap_mix")
    parser.add_argument("--fixed", default="hgb,hgb_cheap",
                        help="models also run with the post-processing fixed to the folds' most common choice")
    args = parser.parse_args()
    data = json.loads(args.data.read_text())
    report: dict = {"benchmark": "locomo learned fusion study", "data": str(args.data)}
    turn_map = dev_store(data, args.db, report)
    cache = args.db.with_suffix(".fusion.pkl")
    engine = Engine.open(args.db, synchronous="NORMAL")
    started = time.perf_counter()
    try:
        if cache.exists():
            qs, collected = pickle.loads(cache.read_bytes())
            report["collection"] = collected | {"from_cache": str(cache)}
        else:
            collected: dict = {}
            qs = collect(engine, data, turn_map, collected)
            collected["seconds"] = round(time.perf_counter() - started, 1)
            collected["loadavg_1min"] = round(os.getloadavg()[0], 2)
            cache.write_bytes(pickle.dumps((qs, collected)))
            report["collection"] = collected
        if report["collection"]["baseline_differs_from_recall"]:
            raise SystemExit(f"the re-ranking does not reproduce Engine.recall on "
                             f"{report['collection']['baseline_differs_from_recall']} questions")
        conversations = [c["sample_id"] for c in data]
        worlds_of = {c: [engine.store.scope_anchor("user", c)] for c in conversations}
        by_conv = {c: dict(turn_map["conversations"][c]["rowid"]) for c in conversations}
        turn_of = {c: {r: t for t, r in m.items()} for c, m in by_conv.items()}
        def real(i: int, q: Question, s: np.ndarray | None, post) -> dict:
            scores = None if s is None else {int(r): float(v) for r, v in zip(q.cand, s, strict=True)}
            chosen = _recall_rank(engine, q.question, worlds_of[q.conversation], q.lanes, scores, post)
            ranked = [turn_of[q.conversation][r] for r in (engine.store.rowid(c.view.anchor) for c in chosen)
                      if r in turn_of[q.conversation]]
            return score(ranked, q.evidence)

        # the stored lanes rebuilt from ranks reproduce the baseline, and the emulation's agreement
        emu_agree = {"turn_any@10": 0, "turn_all@50": 0}
        for i, q in enumerate(qs):
            if real(i, q, None, RECALL_POST) != q.metrics["baseline"]:
                raise SystemExit(f"rebuilt lanes do not reproduce the baseline: {q.question!r}")
            any10, all50, _ = emulate(q, rrf_scores(q, np.array([WEIGHTS[lane] for lane in LANES]),
                                                    np.full(len(LANES), float(RRF_K))), RECALL_POST)
            emu_agree["turn_any@10"] += any10 == q.metrics["baseline"]["turn_any@10"]
            emu_agree["turn_all@50"] += all50 == q.metrics["baseline"]["turn_all@50"]
        report["emulation_agrees_with_recall_rank_on_baseline"] = {k: f"{v}/{len(qs)}" for k, v in emu_agree.items()}
        report["questions"] = len(qs)
        report["candidates_per_question_median"] = int(statistics.median(len(q.cand) for q in qs))
        report["features"] = list(FEATURES)

        variants = []
        for kind in args.models.split(","):
            for form, posts in (("graph as recall", (RECALL_POST,)), ("post chosen", POSTS)):
                if kind == "wrrf_cd" and form == "post chosen":
                    continue
                variants.append((f"{kind} / {form}", kind, form, posts))
        fixed = set(args.fixed.split(",")) if args.fixed else set()
        report["variants"] = {}
        for name, kind, form, posts in variants:   # "post fixed" variants are appended as they come
            t0 = time.perf_counter()
            choices, emulated = {}, {"turn_any@10": [], "turn_all@50": []}
            for held in conversations:
                train = [q for q in qs if q.conversation != held]
                inner = [c for c in conversations if c != held]
                setting, post, table = choose(kind, train, inner, posts)
                model = fitted(kind, setting, train)
                choices[held] = {"setting": setting, "post": post}
                if kind == "wrrf_cd":
                    choices[held]["weights"] = dict(zip(LANES, model.weights.round(3).tolist(), strict=True))
                    choices[held]["k"] = dict(zip(LANES, model.ks.tolist(), strict=True))
                if kind in ("lr", "wrrf_lr", "pairwise") and held == conversations[0]:
                    names = [f"rr{k}_{lane}" for k in (1, 10, 60) for lane in LANES] if kind == "wrrf_lr" else \
                        list(FEATURES) + [f"agg_x_rr_{lane}" for lane in LANES]
                    coef = model.model.coef_[0]
                    ordered = sorted(zip(names, coef, strict=True), key=lambda x: -abs(x[1]))
                    report.setdefault("coefficients_fold_1", {})[kind] = {n: round(float(c), 3) for n, c in ordered}
                mine = [(i, q) for i, q in enumerate(qs) if q.conversation == held]
                for (i, q), s in zip(mine, model.scores([q for _, q in mine]), strict=True):
                    q.metrics[name] = real(i, q, s, post)
                    any10, all50, _ = emulate(q, s, post)
                    emulated["turn_any@10"].append(any10)
                    emulated["turn_all@50"].append(all50)
            held_out = _pooled(qs, name)
            report["variants"][name] = {
                "features": "cheap" if "cheap" in kind else "wrrf" if kind.startswith("wrrf") else "all",
                "post": {"graph as recall": "recall's (length prior on, spread 0.5 / 0.35), every fold",
                         "post chosen": "chosen per fold inside its training conversations",
                         "post fixed": f"{list(posts[0])} (spread, aggregation spread, length prior) every fold: "
                                       "the most common choice of the post chosen folds"}[form],
                "held_out": held_out,
                "held_out_emulated": {k: round(100 * statistics.mean(v), 1) for k, v in emulated.items()},
                "per_conversation": _per_conversation(qs, name, conversations),
                "choices": {c: {k: (list(v) if isinstance(v, tuple) else v) for k, v in ch.items()}
                            for c, ch in choices.items()},
                "vs_baseline_questions": {m: _gains(qs, name, m) for m in ("turn_any@10", "turn_all@10", "turn_all@50")}
                | {"category_1_turn_all@50": _gains(qs, name, "turn_all@50", 1)},
                "seconds": round(time.perf_counter() - t0, 1)}
            keys = ("turn_any@10", "turn_all@10", "turn_all@50", "category_1_turn_all@50")
            print(name, {k: held_out[k] for k in keys}, report["variants"][name]["vs_baseline_questions"],
                  f"{report['variants'][name]['seconds']} s", flush=True)
            if form == "post chosen" and kind in fixed:
                counts: dict = defaultdict(int)
                for ch in choices.values():
                    counts[ch["post"]] += 1
                mode = max(counts, key=lambda p: (counts[p], p == RECALL_POST, -POSTS.index(p)))
                variants.append((f"{kind} / post fixed", kind, "post fixed", (mode,)))
        report["recall_itself"] = _pooled(qs, "recall_itself")
        report["baseline"] = _pooled(qs, "baseline")
        report["baseline_per_conversation"] = _per_conversation(qs, "baseline", conversations)
        report["missing_evidence"] = _missing(qs, turn_of)
    finally:
        engine.close()
    report["seconds"] = round(time.perf_counter() - started, 1)
    report["loadavg_1min"] = round(os.getloadavg()[0], 2)
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    keys = ("turn_any@10", "turn_all@10", "turn_all@50", "category_1_turn_all@50")
    print(json.dumps({"recall_itself": {k: report["recall_itself"][k] for k in keys},
                      "baseline": {k: report["baseline"][k] for k in keys},
                      "variants": {n: {k: v["held_out"][k] for k in keys} for n, v in report["variants"].items()},
                      "emulation": report["emulation_agrees_with_recall_rank_on_baseline"]}, indent=2))


def _missing(qs: list[Question], turn_of: dict) -> dict:
    """Where the evidence the baseline leaves out of its top 50 ranks: in the lanes (best
    lane rank), and for category 1 questions, how many each variant completes."""
    buckets = {"top20": 0, "21-50": 0, "51-100": 0, "101-250": 0, "no lane": 0}
    questions = 0
    for q in qs:
        if q.metrics["baseline"]["turn_all@50"] == 1.0:
            continue
        questions += 1
        for i in np.flatnonzero(q.y == 1):
            if turn_of[q.conversation][int(q.cand[i])] in q.base_top:
                continue
            present = q.ranks[i][q.ranks[i] > 0]
            best = int(present.min()) if len(present) else 0
            key = ("no lane" if not best else "top20" if best <= 20 else "21-50" if best <= 50
                   else "51-100" if best <= 100 else "101-250")
            buckets[key] += 1
        buckets["no lane"] += len({e for e in q.evidence if e not in q.base_top}) - int(
            sum(turn_of[q.conversation][int(r)] not in q.base_top for r in q.cand[q.y == 1]))
    return {"questions_incomplete_at_50": questions, "missing_evidence_best_lane_rank": buckets}


if __name__ == "__main__":
    main()
