"""Weighted reciprocal rank fusion of recall's lanes.

    S(d) = sum over lanes of  w_lane / (RRF_K + rank_lane(d))

RRF_K = 10: with k = 60 (the usual constant) the fused order barely separates a lane's
top results from its tail, which measured 2.6 points worse (turn_any@10) on the dev
conversations; k = 10 keeps ranks meaningful while no lane dominates. Weights
(bm25 1, vector 0.5, sentence 1, entity 0.25) are round values; the vector lane is
half-weighted because the sentence lane already carries most of its signal. The
entity_pending lane (memories naming an entity that a pending merge proposal links to one
the query names) gets 0.1, less than half the entity lane: the proposal may be wrong. The
speaker lane's weight (0.5) and the global lane's (0) were chosen by
leave-one-conversation-out on the dev conversations (docs/retrieval.md): next to the
speaker lane, the global lane's members added nothing any fold could measure. The
answer_type lane's (0.75: the named person's words nearest the rest of the question plus
the word naming what it asks for) was chosen the same way, in a later study, and so was the
typed lane's (1: texts naming a thing of the kind the question asks for; every fold chose
1 of 0, 0.5, 0.75, 1 and 1.5, docs/retrieval.md). A lane
weighted 0 still runs and still reports its ranks on each result.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

RRF_K = 10
WEIGHTS = {"bm25": 1.0, "vector": 0.5, "sentence": 1.0, "entity": 0.25, "entity_pending": 0.1, "speaker": 0.5,
           "answer_type": 0.75, "typed": 1.0, "global": 0.0}


def fuse(lanes: dict[str, list[int]], weights: Mapping[str, float] | None = None
         ) -> tuple[dict[int, float], dict[int, dict[str, int]]]:
    """Fused score per node rowid, and each node's 1-based rank in every lane that found it.
    `weights` replaces WEIGHTS (a lane weighted 0 still reports its ranks: ablations)."""
    scores: dict[int, float] = defaultdict(float)
    ranks: dict[int, dict[str, int]] = defaultdict(dict)
    for lane, ranked in lanes.items():
        weight = (WEIGHTS if weights is None else weights).get(lane, 0.0)
        for rank, rowid in enumerate(ranked, start=1):
            scores[rowid] += weight / (RRF_K + rank)
            ranks[rowid][lane] = rank
    return dict(scores), dict(ranks)
