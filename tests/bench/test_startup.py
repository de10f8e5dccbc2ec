"""bench.startup: a server started as a desktop client starts it answers, writes and recalls,
each point timed after the one before it."""

from __future__ import annotations

from bench.startup import POINTS, run


async def test_a_server_is_timed_at_each_point_in_order():
    found = await run(1, "hash", None)
    assert set(found) == {"this"}
    (timed,) = found["this"]["rounds"]
    assert [timed[p] for p in POINTS] == sorted(timed[p] for p in POINTS) and timed["initialized"] > 0
    assert timed["first_recall_cpu"] >= timed["first_write_cpu"] >= timed["initialized_cpu"] > 0
    assert found["this"]["median"] == timed
