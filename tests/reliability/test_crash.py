"""Crash safety: SIGKILL the server at random moments while clients write, over stdio and
HTTP, 6 times on the same two files; after every kill the file is whole and every
acknowledged write is there (bench.crash has the details and the long-running variant:
`python -m bench.crash --kills 200`)."""

from __future__ import annotations

import random

from bench import crash

KILLS = 6


async def test_sigkill_at_random_moments_loses_no_acknowledged_write_and_leaves_nothing_half_written(tmp_path):
    seed = random.randrange(1 << 30)
    try:
        results = await crash.run(KILLS, transports=("stdio", "http"), directory=tmp_path, seed=seed)
    except crash.Failure as exc:
        raise AssertionError(f"seed {seed}: {exc}") from None
    assert sorted(r.transport for r in results) == ["http", "stdio"]
    assert sum(r.kills for r in results) == KILLS
    for r in results:
        # writes were acknowledged, and every kill landed with requests in flight
        assert r.acked["write"] >= r.kills
        assert len(r.in_flight_at_kill) == r.kills and min(r.in_flight_at_kill) >= 1
        # every acknowledged write was read back through a restarted server
        assert r.confirmed_reads >= r.acked["write"]
