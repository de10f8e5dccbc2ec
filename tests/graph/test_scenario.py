"""A constructed project history across three eras, queried for exact sets.

    era 2022: D1 "Use PostgreSQL" (Maya), D2 "Deploy on AWS" (Omar)
    era 2023: D3 "Use SQLite" supersedes D1 (Maya); D4 "Deploy on-prem" contradicts D2 (Omar)
    era 2024: D5 "Deploy on GCP" supersedes D2 and contradicts D4 (Maya);
              D6 "DuckDB for analytics" derived_from D3
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from worlddb.core.records import Edge, Node
from worlddb.core.timeutil import from_datetime

pytestmark = pytest.mark.both_backends


def ts(year, month, day=1):
    return from_datetime(datetime(year, month, day, tzinfo=UTC))


@pytest.fixture
def history(db):
    h = {}
    with db.write() as w:
        scope = w.scope("user", "team")
        project = w.add(Node("Topic", name="project atlas"), parents=[scope], valid_from=0)
        eras = {y: w.add(Node("Session", name=f"era {y}"), parents=[project], valid_from=ts(y, 1))
                for y in (2022, 2023, 2024)}
        people = {n: w.add(Node("Entity", name=n), parents=[project], valid_from=0) for n in ("Maya", "Omar")}
        w.link(Edge("precedes", eras[2022], eras[2023]))
        w.link(Edge("precedes", eras[2023], eras[2024]))
    h.update(scope=scope, project=project, eras=eras, people=people)

    def decide(label, text, era, when, by):
        with db.write() as w:
            h[label] = w.add(Node("Decision", name=label, content=text), parents=[eras[era]], valid_from=when)
            w.link(Edge("refers_to", h[label], people[by]))
        return w.receipt

    decide("D1", "Use PostgreSQL", 2022, ts(2022, 1), "Maya")
    decide("D2", "Deploy on AWS", 2022, ts(2022, 2), "Omar")
    decide("D3", "Use SQLite", 2023, ts(2023, 3), "Maya")
    decide("D4", "Deploy on-prem", 2023, ts(2023, 4), "Omar")
    with db.write() as w:
        w.link(Edge("supersedes", h["D3"], h["D1"]))
        w.link(Edge("contradicts", h["D4"], h["D2"]))
    h["known_after_2023"] = w.receipt.at
    decide("D5", "Deploy on GCP", 2024, ts(2024, 1), "Maya")
    decide("D6", "DuckDB for analytics", 2024, ts(2024, 2), "Maya")
    with db.write() as w:
        w.link(Edge("supersedes", h["D5"], h["D2"]))
        w.link(Edge("contradicts", h["D5"], h["D4"]))
        w.link(Edge("derived_from", h["D6"], h["D3"]))
    return h


def labels(sub, h):
    back = {h[k]: k for k in ("D1", "D2", "D3", "D4", "D5", "D6")}
    return {back[a] for a in sub.nodes if a in back}


def decisions(db, h, **pins):
    return db.query(worlds=[h["project"]], **pins).seed(*(h[f"D{i}"] for i in range(1, 7)))


def test_decisions_valid_now(db, history):
    assert labels(decisions(db, history).run(), history) == {"D3", "D4", "D5", "D6"}


def test_decisions_valid_in_mid_2023(db, history):
    assert labels(decisions(db, history, as_of=ts(2023, 6)).run(), history) == {"D2", "D3", "D4"}


def test_decisions_contradicted_by_d4_with_and_without_closed_ones(db, history):
    d4 = history["D4"]
    assert labels(decisions(db, history).where_connected("contradicts", "both", d4).run(), history) == {"D5"}
    everything = decisions(db, history, include_closed=True).where_connected("contradicts", "both", d4).run()
    assert labels(everything, history) == {"D2", "D5"}


def test_what_replaced_d1(db, history):
    sub = (db.query(worlds=[history["project"]], include_closed=True).seed(history["D1"])
           .expand(["supersedes"], direction="in").run())
    assert labels(sub, history) - {"D1"} == {"D3"}
    # from inside D1's own era, the replacement lies in another world and is not reached
    era = db.query(worlds=[history["eras"][2022]], include_closed=True).seed(history["D1"])
    assert labels(era.expand(["supersedes"], direction="in").run(), history) == {"D1"}


def test_current_decisions_by_maya(db, history):
    sub = (db.query(worlds=[history["project"]]).seed(history["people"]["Maya"])
           .expand(["refers_to"], direction="in").filter(types=["Decision"]).run())
    assert labels(sub, history) == {"D3", "D5", "D6"}


def test_what_the_team_knew_before_2024_was_recorded(db, history):
    then = decisions(db, history, known_at=history["known_after_2023"]).run()
    assert labels(then, history) == {"D2", "D3", "D4"}


def test_conflicts_ride_along_with_current_decisions(db, history):
    sub = decisions(db, history).run()
    assert sub.conflicts[history["D4"]] == [history["D5"]]
    assert sub.conflicts[history["D5"]] == [history["D4"]]


def test_decisions_of_the_2023_era_only(db, history):
    era = db.query(worlds=[history["eras"][2023]]).seed(*(history[f"D{i}"] for i in range(1, 7)))
    assert labels(era.run(), history) == {"D3", "D4"}


def test_what_was_derived_from_d3(db, history):
    sub = db.query(worlds=[history["project"]]).seed(history["D3"]).expand(["derived_from"], direction="in").run()
    assert labels(sub, history) == {"D3", "D6"}
