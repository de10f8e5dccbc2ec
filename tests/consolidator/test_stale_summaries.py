"""Summaries end with the texts they quote: the write that retires, supersedes or ends a
detail ends every current summary quoting it, in its own transaction, and the next pass
summarizes again from what is current (worlddb.graph.stale_summaries)."""

from __future__ import annotations

import pytest

from worlddb.consolidator import current_summaries
from worlddb.core.records import Edge, Node
from worlddb.core.timeutil import US, now_us
from worlddb.extract.summarize import ExtractiveSummarizer
from worlddb.graph.stale_summaries import REASON

from .test_summaries import GARDEN, alice, consolidator, summary_of, topic  # noqa: F401 - alice is a fixture

pytestmark = pytest.mark.both_backends

TURNS = ["Omar asked for the budget figures.", "The budget figures are in the shared drive."]


@pytest.fixture
def session(db, alice):  # noqa: F811 - the fixture imported above
    with db.write() as w:
        anchor = w.add(Node("Session", name="s1"), parents=[alice["work"]])
        turns = [w.add(Node("Turn", content=t, created_at=i), parents=[anchor]) for i, t in enumerate(TURNS)]
    consolidator(db).run()
    return anchor, turns


def quoted(db, world) -> list[str]:
    return [s.content for s in current_summaries(db.store, world, now_us())]


def test_a_retired_detail_ends_every_summary_quoting_it_in_its_own_write(db, alice, session):  # noqa: F811
    anchor, turns = session
    inner, outer = summary_of(db, anchor), summary_of(db, alice["work"])
    garden = summary_of(db, alice["garden"])
    assert TURNS[0] in inner.content and TURNS[0] in outer.content
    with db.write() as w:
        w.retire(turns[0], "forget that")
    for summary in (inner, outer):
        assert db.get(summary.anchor).retired and db.get(summary.anchor).retire_reason == REASON
    assert quoted(db, anchor) == [] and quoted(db, alice["work"]) == []
    assert summary_of(db, alice["garden"]).anchor == garden.anchor  # it quotes nothing retired
    report = consolidator(db).run()
    assert len(report.summaries) == 2 and report.superseded == []
    for world in (anchor, alice["work"]):
        (text,) = quoted(db, world)
        assert TURNS[1] in text and TURNS[0] not in text


def test_a_superseded_detail_ends_the_summaries_quoting_it(db, alice, session):  # noqa: F811
    anchor, turns = session
    inner = summary_of(db, anchor)
    with db.write() as w:
        newer = w.add(Node("Turn", content="The budget figures moved to the wiki."), parents=[anchor])
        w.link(Edge("supersedes", newer, turns[1]))
    assert db.get(inner.anchor).retired and quoted(db, anchor) == []
    consolidator(db).run()
    (text,) = quoted(db, anchor)
    assert "moved to the wiki" in text and TURNS[1] not in text


def test_a_planned_end_ends_the_summary_at_that_time_and_a_new_one_with_it(db, alice):  # noqa: F811
    consolidator(db).run()
    old = summary_of(db, alice["garden"])
    later = now_us() + 3600 * US
    with db.write() as w:
        plan = w.add(Node("Memory", content="The tomatoes move to the greenhouse."), valid_from=later,
                     parents=[alice["garden"]])
        w.link(Edge("supersedes", plan, alice["notes"][0]))
    view = db.get(old.anchor)
    assert not view.retired and view.valid_to == later  # the text it quotes holds until then
    report = consolidator(db).run()
    new = summary_of(db, alice["garden"])
    assert report.summaries == [new.anchor] and GARDEN[0] in new.content and new.valid_to == later
    assert current_summaries(db.store, alice["garden"], later) == []


def test_closing_a_world_with_no_text_of_its_own_ends_only_its_own_summaries(db, alice):  # noqa: F811
    inner, _ = topic(db, alice["garden"], "herbs", ["Mint spreads everywhere.", "Chives flower in May."])
    consolidator(db).run()
    herbs, garden = summary_of(db, inner), summary_of(db, alice["garden"])
    with db.write() as w:
        w.retire(inner, "merged")
    assert db.get(herbs.anchor).retired
    assert not db.get(garden.anchor).retired  # the herbs' texts are still current: nothing quoted ended


class RetiringSummarizer:
    """Retires a detail of the world while its summary is being written, as another writer could."""

    name = "extractive"

    def __init__(self, db, anchor: str):
        self.db, self.anchor, self.done = db, anchor, False

    def summarize(self, texts, *, max_chars):
        if not self.done and self.db.get(self.anchor).content in texts:
            self.done = True
            with self.db.write() as w:
                w.retire(self.anchor, "forget that")
        return ExtractiveSummarizer().summarize(texts, max_chars=max_chars)


def test_a_detail_retired_while_its_summary_is_written_is_never_quoted(db, alice):  # noqa: F811
    summarizer = RetiringSummarizer(db, alice["notes"][0])
    consolidator(db, summarizer=summarizer).run()
    assert summarizer.done and all(GARDEN[0] not in text for text in quoted(db, alice["garden"]))
    consolidator(db).run()
    (text,) = quoted(db, alice["garden"])
    assert GARDEN[0] not in text and GARDEN[1] in text
