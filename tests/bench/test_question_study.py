"""bench.question_study re-ranks lanes computed once exactly as Engine.recall ranks, with the
prior off and with it on, and the prior moves a turn that asks below the turns around it."""

from __future__ import annotations

from bench import question_study as study
from tests.support import ALICE
from worlddb.core.timeutil import now_us
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.retrieval import brevity
from worlddb.retrieval.lanes import run_lanes

TURNS = (("Ben", "What activities do you and the kids enjoy? Any fun activities lately?"),
         ("Ann", "We went camping by the lake and tried a pottery class together."),
         ("Ben", "Sounds lovely, I should take my kids camping some day."))


def test_the_reranking_is_recall_and_the_prior_lowers_the_question(engine, monkeypatch):
    session = SessionIn(date="2024-05-01T10:00:00Z", turns=tuple(
        TurnIn(speaker=s, text=t, turn_id=f"D1:{i}") for i, (s, t) in enumerate(TURNS, start=1)))
    turns = engine.ingest_conversation([session], ALICE).turns
    by_anchor = {anchor: turn for turn, anchor in turns.items()}
    worlds = [engine.store.scope_anchor("user", "alice")]
    question = "Which fun activities are good with kids?"
    lanes = run_lanes(engine.services.sources, question, worlds, study.DEPTH, open_only_at=now_us())
    orders = {}
    for damping in (0.0, 1.0):
        monkeypatch.setattr(brevity, "QUESTION_DAMPING", damping)
        recalled = [by_anchor[h.id] for h in engine.recall(question, ALICE, limit=study.LIMIT).results]
        monkeypatch.undo()
        chosen = study.rank(engine, question, worlds, damping, lanes, user="alice")
        reranked = [by_anchor[c.view.anchor] for c in chosen]
        assert reranked == recalled
        orders[damping] = reranked
    # Ben's question holds "activities" twice and ranks first; all asking, it keeps nothing of
    # its own score and falls behind the turns it lifted
    assert orders[0.0][0] == "D1:1"
    assert orders[1.0][-1] == "D1:1"
    assert study.setting_name(0.25) == "b 0.25 / own" and study.setting_name(0.0, "own and lift") == "b 0"
