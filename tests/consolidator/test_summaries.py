"""Consolidator summaries: which worlds, when, where they live, fingerprints, the summary-first read."""

from __future__ import annotations

import pytest

from worlddb.consolidator import (
    Consolidator,
    content_time,
    current_summaries,
    fingerprint,
    summaries_covering,
    summary_first,
)
from worlddb.core.records import Edge, Node
from worlddb.core.timeutil import US, now_us
from worlddb.extract import ExtractionError
from worlddb.extract.summarize import ExtractiveSummarizer
from worlddb.graph import lexical, stale_summaries

GARDEN = ["Tomatoes need full sun.", "Basil grows well beside tomatoes.", "Water the tomatoes every morning."]
WORK = ["The quarterly report is due Friday.", "Omar reviews the report draft."]
TABLES = ("tx", "nodes", "edges", "versions", "members", "member_log", "validity_log", "closure", "fts")


def counts(db):
    return {t: db.store.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def consolidator(db, **options):
    options.setdefault("summarizer", ExtractiveSummarizer())
    options.setdefault("min_age_secs", 0)
    return Consolidator(db, **options)


def topic(db, scope, name, texts):
    with db.write() as w:
        anchor = w.add(Node("Topic", name=name), parents=[scope])
        notes = [w.add(Node("Memory", content=t, created_at=i), parents=[anchor]) for i, t in enumerate(texts)]
    return anchor, notes


@pytest.fixture
def alice(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
    garden, notes = topic(db, scope, "garden", GARDEN)
    work, _ = topic(db, scope, "work", WORK)
    return {"scope": scope, "garden": garden, "work": work, "notes": notes}


def summary_of(db, world):
    (summary,) = current_summaries(db.store, world, now_us())
    return summary


def test_an_old_world_gets_a_summary_beside_it_that_summarizes_it(db, alice):
    report = consolidator(db).run()
    assert len(report.summaries) == 2 and report.transactions == 2
    garden = summary_of(db, alice["garden"])
    assert garden.type == "Summary" and garden.name == "Summary of garden"
    assert garden.content == ExtractiveSummarizer().summarize(GARDEN, max_chars=1200)
    assert dict(garden.meta) == {"fingerprint": fingerprint(db.get(alice["garden"]).version, alice["notes"]),
                                 "of": alice["garden"], "summarizer": "extractive"}
    assert db.store.parents(garden.anchor) == [alice["scope"]]
    assert [(e.src, e.dst) for e in db.store.edges(type="summarizes", dst=alice["garden"])] == [
        (garden.anchor, alice["garden"])]
    assert summary_of(db, alice["work"]).content == " ".join(WORK)
    assert db.verify().ok


def test_rerunning_on_an_unchanged_store_writes_nothing(db, alice):
    consolidator(db).run()
    before = counts(db)
    report = consolidator(db).run()
    assert report.summary()["transactions"] == 0 and report.summaries == []
    assert counts(db) == before


def test_a_world_whose_content_is_younger_than_min_age_is_left_alone(db, alice):
    quiet_since = content_time(db.store, alice["garden"])
    hour = 3600 * US
    early = consolidator(db, min_age_secs=3600, clock=lambda: quiet_since + hour - 1).run()
    assert early.young == 2 and early.summaries == [] and early.transactions == 0
    later = consolidator(db, min_age_secs=3600, clock=lambda: content_time(db.store, alice["work"]) + hour).run()
    assert len(later.summaries) == 2


def test_summaries_the_consolidator_writes_do_not_make_a_world_look_young(db, alice):
    with db.write() as w:
        session = w.add(Node("Session", name="s1"), parents=[alice["garden"]])
        w.add(Node("Turn", content="Pick the basil before it flowers."), parents=[session])
    before = content_time(db.store, alice["garden"])
    consolidator(db).run()
    assert current_summaries(db.store, session, now_us()) != []
    assert content_time(db.store, alice["garden"]) == before


def test_a_changed_world_gets_a_new_summary_that_supersedes_the_old_one(db, alice):
    consolidator(db).run()
    old = summary_of(db, alice["garden"])
    with db.write() as w:
        w.add(Node("Memory", content="Slugs ate the lettuce."), parents=[alice["garden"]])
    report = consolidator(db).run()
    new = summary_of(db, alice["garden"])
    assert report.summaries == [new.anchor] and report.superseded == [old.anchor]
    assert db.get(old.anchor).valid_to == new.valid_from
    assert [e.dst for e in db.store.edges(src=new.anchor, type="supersedes")] == [old.anchor]
    assert "Slugs ate the lettuce." in new.content
    now = summary_first(db, [alice["garden"]], within=[alice["scope"]])
    assert set(now.nodes) == {alice["garden"], new.anchor}
    then = summary_first(db, [alice["garden"]], within=[alice["scope"]], as_of=new.valid_from - 1)
    assert set(then.nodes) == {alice["garden"], old.anchor}


def test_retiring_a_detail_changes_the_fingerprint_though_not_the_version(db, alice):
    consolidator(db).run()
    version = db.get(alice["garden"]).version
    with db.write() as w:
        w.retire(alice["notes"][0], "wrong")
    assert db.get(alice["garden"]).version == version
    consolidator(db).run()
    assert summary_of(db, alice["garden"]).content == " ".join(GARDEN[1:])


def test_a_world_left_with_nothing_to_summarize_has_its_summary_retired(db, alice):
    consolidator(db).run()
    old = summary_of(db, alice["work"])
    with db.write() as w:  # its details leave it, still current elsewhere
        for note in db.store.children(alice["work"]):
            w.unlink(Edge("contains", alice["work"], note))
    assert not db.get(old.anchor).retired
    report = consolidator(db).run()
    assert report.retired == [old.anchor] and db.get(old.anchor).retired
    assert consolidator(db).run().transactions == 0


def test_retiring_every_detail_retires_the_summary_in_that_write(db, alice):
    consolidator(db).run()
    old = summary_of(db, alice["work"])
    with db.write() as w:
        for note in db.store.children(alice["work"]):
            w.retire(note, "done")
    assert db.get(old.anchor).retire_reason == stale_summaries.REASON
    assert current_summaries(db.store, alice["work"], now_us()) == []
    report = consolidator(db).run()
    assert report.retired == [] and report.summaries == []
    assert consolidator(db).run().transactions == 0


def test_retiring_a_world_retires_its_summary(db, alice):
    consolidator(db).run()
    old = summary_of(db, alice["garden"])
    work = summary_of(db, alice["work"])
    with db.write() as w:
        w.retire(alice["garden"], "moved away")
    assert db.get(old.anchor).retire_reason == stale_summaries.REASON
    assert consolidator(db).run().transactions == 0
    assert summary_of(db, alice["work"]).anchor == work.anchor
    assert set(summary_first(db, [alice["garden"], alice["work"]], within=[alice["scope"]]).nodes) == {
        alice["work"], summary_of(db, alice["work"]).anchor}


def test_summaries_covering_names_every_summary_derived_from_a_detail(db, alice):
    with db.write() as w:
        session = w.add(Node("Session", name="s1"), parents=[alice["garden"]])
        turn = w.add(Node("Turn", content="Pick the basil before it flowers."), parents=[session])
    consolidator(db).run()
    first = {summary_of(db, session).anchor, summary_of(db, alice["garden"]).anchor}
    with db.write() as w:
        w.add(Node("Turn", content="The basil flowered anyway."), parents=[session])
    consolidator(db).run()
    now = {summary_of(db, session).anchor, summary_of(db, alice["garden"]).anchor}
    assert len(first | now) == 4
    assert summaries_covering(db.store, turn) == sorted(first | now)
    assert summaries_covering(db.store, alice["notes"][0]) == sorted(
        a for a in first | now if db.get(a).meta["of"] == alice["garden"])


def test_a_summary_of_alices_world_never_appears_in_bobs_scope(db, alice):
    with db.write() as w:
        bob = w.scope("user", "bob")
    bobs_topic, _ = topic(db, bob, "chess", ["Bob plays the Sicilian defence."])
    consolidator(db).run()
    garden = summary_of(db, alice["garden"]).anchor
    assert db.store.ancestors(garden) == [alice["scope"]]
    everything = [row[0] for row in db.store.conn.execute("SELECT anchor FROM nodes")]
    seen_by_bob = db.query(worlds=[bob]).seed(*everything).run()
    assert {v.type for v in seen_by_bob.nodes.values()} == {"Topic", "Memory", "Summary"}
    assert garden not in seen_by_bob.nodes and alice["garden"] not in seen_by_bob.nodes
    assert summary_first(db, [alice["garden"]], within=[bob]).nodes == {}
    assert set(summary_first(db, [bobs_topic], within=[bob]).nodes) == {
        bobs_topic, summary_of(db, bobs_topic).anchor}


def test_a_current_summary_follows_its_world_into_and_out_of_scopes(db, alice):
    consolidator(db).run()
    garden = summary_of(db, alice["garden"]).anchor
    with db.write() as w:
        team = w.scope("app", "team")
        w.link(Edge("contains", team, alice["garden"]))
    report = consolidator(db).run()
    assert report.placed == 1 and report.summaries == []
    assert sorted(db.store.parents(garden)) == sorted([alice["scope"], team])
    with db.write() as w:
        w.unlink(Edge("contains", team, alice["garden"]))
    assert consolidator(db).run().placed == 1
    assert db.store.parents(garden) == [alice["scope"]]


def test_nested_worlds_are_summarized_deepest_first_and_a_parent_reads_its_childs_summary(db, alice):
    with db.write() as w:
        session = w.add(Node("Session", name="s1"), parents=[alice["work"]])
        w.add(Node("Turn", content="Omar asked for the budget figures."), parents=[session])
        w.add(Node("Turn", content="The budget figures are in the shared drive."), parents=[session])
    report = consolidator(db).run()
    inner = summary_of(db, session)
    assert report.summaries[0] == inner.anchor and db.store.parents(inner.anchor) == [alice["work"]]
    outer = summary_of(db, alice["work"])
    assert outer.meta["fingerprint"] == fingerprint(
        db.get(alice["work"]).version,
        [inner.anchor] + [n for n in db.store.children(alice["work"]) if db.get(n).type == "Memory"])
    assert consolidator(db).run().transactions == 0


def test_scopes_and_other_root_worlds_are_not_summarized(db):
    with db.write() as w:
        scope = w.scope("user", "carol")
        w.add(Node("Memory", content="Carol likes jazz."), parents=[scope])
        root = w.add(Node("Topic", name="loose"))
        w.add(Node("Memory", content="An unscoped note."), parents=[root])
    report = consolidator(db).run()
    assert report.summaries == [] and report.transactions == 0


def test_summary_first_reads_the_summary_at_depth_zero_and_descends_on_demand(db, alice):
    consolidator(db).run()
    garden, work = summary_of(db, alice["garden"]).anchor, summary_of(db, alice["work"]).anchor
    top = summary_first(db, [alice["garden"], alice["work"]], within=[alice["scope"]])
    assert set(top.nodes) == {alice["garden"], alice["work"], garden, work}
    assert {(e.type, e.src, e.dst) for e in top.edges} == {
        ("summarizes", garden, alice["garden"]), ("summarizes", work, alice["work"])}
    deep = summary_first(db, [alice["garden"]], within=[alice["scope"]], depth=1)
    assert set(deep.nodes) == {alice["garden"], garden, *alice["notes"]}


def test_summary_first_falls_back_to_the_details_of_a_world_with_no_summary(db, alice):
    sub = summary_first(db, [alice["garden"]], within=[alice["scope"]])
    assert set(sub.nodes) == {alice["garden"], *alice["notes"]}


def test_summaries_are_found_by_full_text_search(db, alice):
    consolidator(db).run()
    garden = summary_of(db, alice["garden"]).anchor
    found = lexical.lexical_anywhere(db.store, "morning", 1000)
    assert db.store.rowid(garden) in {rowid for rowid, _ in found}


class VectorIndexer:
    """Embeds outside the transaction and writes a vector inside it, as the memory layer does."""

    def __init__(self, db):
        self.db, self.calls = db, []

    def prepare(self, text):
        self.calls.append(("prepare", self.db.store.conn.in_transaction))
        return bytes(16)

    def write(self, w, anchor, text, prepared):
        self.calls.append(("write", self.db.store.conn.in_transaction))
        w.put_vector(anchor, 0, "toy", prepared, 4)


def test_a_custom_indexer_prepares_outside_the_transaction_and_writes_inside_it(db, alice):
    indexer = VectorIndexer(db)
    report = consolidator(db, indexer=indexer).run()
    assert indexer.calls == [("prepare", False), ("write", True)] * 2
    rowids = [db.store.rowid(a) for a in report.summaries]
    marks = ','.join('?' * len(rowids))
    stored = db.store.conn.execute(
        f"SELECT kind, count(*) FROM vectors WHERE data IS NOT NULL AND node IN ({marks}) GROUP BY kind", rowids)
    # the indexer's content vectors, and the effective vectors the composer derives from them
    assert dict(stored.fetchall()) == {0: 2, 1: 2}
    assert db.store.conn.execute("SELECT count(*) FROM fts").fetchone()[0] == 0


class Failing:
    name = "flaky"

    def summarize(self, texts, *, max_chars):
        raise ExtractionError("no reply")


def test_a_failing_summarizer_falls_back_to_the_extractive_one(db, alice):
    consolidator(db, summarizer=Failing()).run()
    assert summary_of(db, alice["work"]).meta["summarizer"] == "extractive"


def test_without_an_api_key_the_default_summarizer_is_the_extractive_one(db, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert isinstance(Consolidator(db).summarizer, ExtractiveSummarizer)
