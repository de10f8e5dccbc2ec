"""bench.fusion_study: its numpy emulation ranks as recall's graph step does, and its
hyperparameters are chosen on training conversations only, never on the one scored."""

from __future__ import annotations

import numpy as np

from bench import fusion_study as study


def question(conversation: str, scores: list[float], *, evidence: int, rng=None, extra_neighbour_of=None,
             damp=None, aggregates=False) -> study.Question:
    """A question over len(scores) candidates (rowids 10, 20, ...); with `extra_neighbour_of`,
    one more turn (rowid 5) that no lane found, two hops from that candidate; `evidence`:
    the node index of the one evidence turn."""
    n = len(scores)
    cand = np.arange(1, n + 1) * 10
    nodes = np.append(cand, 5) if extra_neighbour_of is not None else cand
    nbr = np.full((len(nodes), 1), n)  # n: no candidate neighbour
    if extra_neighbour_of is not None:
        nbr[-1, 0] = extra_neighbour_of
    X = (rng or np.random.default_rng(0)).random((n, len(study.FEATURES)))
    X[:, study.FEATURES.index("fused")] = scores
    y = np.zeros(n, dtype=np.int64)
    if evidence < n:
        y[evidence] = 1
    node_ev = np.zeros(len(nodes), dtype=bool)
    node_ev[evidence] = True
    return study.Question(conversation=conversation, category=1, question="q", evidence=["D1:1"],
                          aggregates=aggregates, cand=cand, ranks=np.ones((n, len(study.LANES)), dtype=np.int64),
                          X=X, y=y, damp=np.ones(n) if damp is None else np.asarray(damp), nodes=nodes, nbr=nbr,
                          result=np.ones(len(nodes), dtype=bool), node_ev=node_ev, n_ev=1)


def test_the_emulation_lifts_a_neighbour_by_the_spread_and_damps_short_turns():
    q = question("a", [1.0, 0.3], evidence=2, extra_neighbour_of=0)
    s = np.array([1.0, 0.3])
    # the turn no lane found enters at half its neighbour's score: above the weaker candidate
    *_, top = study.emulate(q, s, (0.5, 0.35, True))
    assert list(q.nodes[top]) == [10, 5, 20]
    # an aggregation question spreads by its own, smaller share: 0.35 * 1.0 > 0.3 still
    q_agg = question("a", [1.0, 0.3], evidence=2, extra_neighbour_of=0, aggregates=True)
    assert list(q_agg.nodes[study.emulate(q_agg, s, (0.5, 0.2, True))[2]]) == [10, 20, 5]
    # no spread: it stays last; the length prior's factor applies before the graph step
    assert list(q.nodes[study.emulate(q, s, (0.0, 0.0, True))[2]]) == [10, 20, 5]
    damped = question("a", [1.0, 0.3], evidence=1, damp=[0.1, 1.0])
    any10, all50, top = study.emulate(damped, s, (0.0, 0.0, True))
    assert list(damped.nodes[top]) == [20, 10] and (any10, all50) == (1.0, 1.0)
    assert list(damped.nodes[study.emulate(damped, s, (0.0, 0.0, False))[2]]) == [10, 20]


def test_settings_are_chosen_by_inner_folds_over_the_training_conversations_only():
    rng = np.random.default_rng(1)
    train = [question(c, list(rng.random(30)), evidence=int(rng.integers(30)), rng=rng)
             for c in ("a", "b", "c") for _ in range(6)]
    study._FITS.clear()
    setting, post, table = study.choose("lr", train, ["a", "b", "c"], [study.RECALL_POST])
    assert setting in study.SETTINGS["lr"] and post == study.RECALL_POST
    # every fit of the choice left one training conversation out, and "d" (held out) is in none
    fits = {key[2] for key in study._FITS}
    assert fits == {("b", "c"), ("a", "c"), ("a", "b")}
    assert len(table) == len(study.SETTINGS["lr"])
