"""The consolidator in the background (its own thread and connection) and `worlddb consolidate`."""

from __future__ import annotations

import json
import time

import pytest

from worlddb.cli import main
from worlddb.consolidator import ConsolidatorTask, current_summaries
from worlddb.core.errors import Conflict, InvalidInput, StorageError
from worlddb.core.records import Node
from worlddb.core.timeutil import now_us
from worlddb.extract.summarize import ExtractiveSummarizer
from worlddb.graph.database import WorldDB
from worlddb.graph.facts import fact_edges, fact_node


def seed(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
        topic = w.add(Node("Topic", name="garden"), parents=[scope])
        w.add(Node("Memory", content="Tomatoes need full sun."), parents=[topic])
        alice, austin, denver = (w.add(Node("Entity", name=n)) for n in ("Alice", "Austin", "Denver"))
        for i, place in enumerate((austin, denver)):
            node = fact_node(subject=alice, relation="lives_in", obj=place, object_is_entity=True, text=None,
                             subject_name="Alice", object_name="x", provenance={}, created_at=i)
            w.add(node, parents=[scope])
            for edge in fact_edges(node):
                w.link(edge)
    return topic


@pytest.fixture
def task(db_path):
    task = ConsolidatorTask(db_path, interval_secs=3600, summarizer=ExtractiveSummarizer(), min_age_secs=0)
    yield task
    if task.running:
        task.stop()


def test_run_now_runs_a_pass_on_the_tasks_own_connection_and_returns_its_report(db, task):
    topic = seed(db)
    task.start()
    report = task.run_now(timeout=30)
    assert len(report.summaries) == 1 and task.passes == 1 and task.last_error is None
    # the caller's connection sees the task's commits on its next read
    assert [s.anchor for s in current_summaries(db.store, topic, now_us())] == report.summaries
    assert task.run_now(timeout=30).transactions == 0
    task.stop()
    assert not task.running and task.passes == 2


def test_passes_also_run_on_the_schedule(db, db_path):
    topic = seed(db)
    task = ConsolidatorTask(db_path, interval_secs=0.05, summarizer=ExtractiveSummarizer(), min_age_secs=0)
    task.start()
    try:
        deadline = time.monotonic() + 30
        while task.passes < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert task.passes >= 2
    finally:
        task.stop()
    assert len(current_summaries(db.store, topic, now_us())) == 1


def test_a_task_that_is_not_running_refuses_run_now_and_a_second_start(db, task):
    with pytest.raises(Conflict, match="not running"):
        task.run_now()
    task.start()
    with pytest.raises(Conflict, match="already running"):
        task.start()


def test_bad_options_are_refused_by_start_itself(db, db_path):
    task = ConsolidatorTask(db_path, interval_secs=3600, min_age_secs=-1, summarizer=ExtractiveSummarizer())
    with pytest.raises(InvalidInput, match="min_age_secs"):
        task.start()
    assert not task.running
    with pytest.raises(InvalidInput):
        ConsolidatorTask(db_path, interval_secs=0)


class FailsOnce:
    """Fails the first pass with an engine error (as a locked file would), then works."""

    name = "fails-once"

    def __init__(self):
        self.calls = 0

    def summarize(self, texts, *, max_chars):
        self.calls += 1
        if self.calls == 1:
            raise StorageError("the database stayed locked by another writer")
        return ExtractiveSummarizer().summarize(texts, max_chars=max_chars)


def test_a_failed_pass_is_raised_to_run_now_and_the_schedule_goes_on(db, db_path):
    seed(db)
    task = ConsolidatorTask(db_path, interval_secs=3600, summarizer=FailsOnce(), min_age_secs=0)
    task.start()
    try:
        with pytest.raises(StorageError, match="locked"):
            task.run_now(timeout=30)
        assert isinstance(task.last_error, StorageError) and task.running
        assert len(task.run_now(timeout=30).summaries) == 1 and task.last_error is None
    finally:
        task.stop()


class Broken:
    name = "broken"

    def summarize(self, texts, *, max_chars):
        raise RuntimeError("a bug")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_bug_in_a_pass_ends_the_thread_and_wakes_the_caller(db, db_path):
    seed(db)
    task = ConsolidatorTask(db_path, interval_secs=3600, summarizer=Broken(), min_age_secs=0)
    task.start()
    with pytest.raises(Conflict, match="stopped before running the pass"):
        task.run_now(timeout=30)
    task.stop()  # joins the ended thread
    assert not task.running and isinstance(task.last_error, RuntimeError)


def test_the_cli_runs_one_pass_and_prints_its_report(db, db_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    seed(db)
    assert main(["consolidate", "--db", str(db_path), "--min-age-secs", "0", "--functional", "lives_in"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["summaries"], report["contradictions"], report["transactions"]) == (1, 1, 2)
    assert main(["consolidate", "--db", str(db_path), "--min-age-secs", "0", "--functional", "lives_in"]) == 0
    assert json.loads(capsys.readouterr().out)["transactions"] == 0
    with WorldDB.open(db_path) as again:
        (summary,) = [r[0] for r in again.store.conn.execute("SELECT anchor FROM nodes WHERE type='Summary'")]
        assert again.get(summary).meta["summarizer"] == "extractive"


def test_the_cli_leaves_young_worlds_alone_by_default_and_refuses_a_missing_file(db, db_path, capsys, tmp_path):
    seed(db)
    assert main(["consolidate", "--db", str(db_path)]) == 0
    assert json.loads(capsys.readouterr().out)["young"] == 1
    assert main(["consolidate", "--db", str(tmp_path / "none.db")]) == 2
    assert "no database" in capsys.readouterr().err
