"""Per-principal limits: a request rate and an in-flight count, refused with a retry hint,
and kept per principal - one noisy principal does not starve another."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace

import pytest

from bench.serverproc import call
from worlddb.core.errors import RateLimited
from worlddb.server.limits import Limits

from .helpers import add_tokens, client_with, make_config, serving


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_rate_allows_a_burst_then_refills_at_the_rate_with_a_hint_of_when():
    clock = Clock()
    limits = Limits(rate=2, burst=3, clock=clock)
    for _ in range(3):
        with limits.hold("a"):
            pass
    with pytest.raises(RateLimited) as refused, limits.hold("a"):
        pass
    assert refused.value.retry_after == 0.5 and "retry in 0.5 s" in str(refused.value)
    with limits.hold("b"):  # another principal has its own bucket
        pass
    clock.now += 0.5
    with limits.hold("a"):
        pass
    with pytest.raises(RateLimited), limits.hold("a"):
        pass


def test_the_in_flight_count_refuses_the_next_call_until_one_is_answered():
    clock = Clock()
    limits = Limits(max_in_flight=2, clock=clock)
    with limits.hold("a"), limits.hold("a"):
        with pytest.raises(RateLimited) as refused, limits.hold("a"):
            pass
        assert "2 in flight" in str(refused.value) and refused.value.retry_after > 0
        with limits.hold("b"):
            pass
    with limits.hold("a"):
        pass


def test_zero_turns_the_limits_off_and_idle_principals_are_forgotten():
    limits = Limits()
    assert not limits.enabled
    for _ in range(1000):
        with limits.hold("a"):
            pass
    clock = Clock()
    limits = Limits(rate=1, clock=clock)
    import worlddb.server.limits as module

    for n in range(module.MAX_TRACKED + 5):
        with limits.hold(f"p{n}"):
            pass
        clock.now += 10
    assert len(limits._states) < module.MAX_TRACKED


async def test_a_noisy_principal_is_refused_with_a_retry_hint_while_a_quiet_one_is_served(tmp_path):
    db = tmp_path / "memory.db"
    tokens = add_tokens(db, {"noisy": ["user:noisy"], "quiet": ["user:quiet"]})
    config = replace(make_config(db, default_user=None), rate_limit=20, max_in_flight=2)
    with serving(config) as url:
        async with client_with(url, tokens["noisy"]) as noisy, client_with(url, tokens["quiet"]) as quiet:
            async def flood(i: int):
                result = await noisy.call_tool("memory_write", {"text": f"noise {i}", "user_id": "noisy"})
                return result.content[0].text if result.is_error else None

            async def steady() -> list[str]:
                served = []
                for i in range(8):
                    served.append((await call(quiet, "memory_write", text=f"quiet note {i}", user_id="quiet"))["id"])
                    await asyncio.sleep(0.06)  # well under the quiet principal's own rate
                return served

            errors, served = await asyncio.gather(asyncio.gather(*(flood(i) for i in range(120))), steady())
            refused = [e for e in errors if e]
            # the noisy principal was held to its limits, each refusal saying when to retry...
            assert refused and len(refused) < 120
            assert all(re.search(r"retry in \d+(\.\d+)? s", e) for e in refused)
            assert any("in flight" in e for e in refused)
            # ...and the quiet principal was never refused: all eight of its writes landed
            assert len(served) == 8
            page = await call(quiet, "memory_list", user_id="quiet", limit=50)
            assert len(page["memories"]) == 8
            await asyncio.sleep(2.1)  # the noisy bucket refills
            listed = await call(noisy, "memory_list", user_id="noisy", limit=500)
            assert len(listed["memories"]) == 120 - len(refused)


async def _writes_ahead_of_the_quiet_principal(db, url: str, tokens: dict) -> list[int]:
    """While 30 workers of the noisy principal write as fast as they are let (retrying at
    once when refused), the quiet principal writes 6 times: for each write, how many of the
    noisy principal's writes committed between the moment it was sent and its own commit
    (transaction order, read from the file)."""
    import sqlite3

    conn = sqlite3.connect(db)
    done = asyncio.Event()
    ahead: list[int] = []
    async with client_with(url, tokens["noisy"]) as noisy, client_with(url, tokens["quiet"]) as quiet:

        async def worker(w: int) -> None:
            i = 0
            while not done.is_set():
                await noisy.call_tool("memory_write", {"text": f"noise {w}-{i}", "user_id": "noisy"})
                i += 1
                await asyncio.sleep(0)

        workers = [asyncio.create_task(worker(w)) for w in range(30)]
        await asyncio.sleep(0.5)  # the flood is under way
        try:
            for i in range(6):
                before = conn.execute("SELECT coalesce(max(seq), 0) FROM tx").fetchone()[0]
                written = await call(quiet, "memory_write", text=f"quiet note {i}", user_id="quiet")
                seq = conn.execute("SELECT seq FROM nodes WHERE anchor=?", (written["id"],)).fetchone()[0]
                ahead.append(seq - before - 1)
        finally:
            done.set()
            await asyncio.gather(*workers)
            conn.close()
    return ahead


async def test_the_in_flight_limit_keeps_a_flood_from_queueing_ahead_of_another_principal(tmp_path):
    """The engine answers calls one at a time in arrival order; what keeps a quiet
    principal's call near the head of that queue is the noisy one's in-flight limit. The
    same flood without limits is the baseline: there the quiet call waits behind it."""
    results = {}
    for name, in_flight in (("limited", 2), ("unlimited", 0)):
        db = tmp_path / f"{name}.db"
        tokens = add_tokens(db, {"noisy": ["user:noisy"], "quiet": ["user:quiet"]})
        config = replace(make_config(db, default_user=None), rate_limit=0, max_in_flight=in_flight)
        with serving(config) as url:
            results[name] = await _writes_ahead_of_the_quiet_principal(db, url, tokens)
    limited, unlimited = sorted(results["limited"]), sorted(results["unlimited"])
    # at most the noisy principal's two in flight, plus what committed while the request travelled
    assert limited[len(limited) // 2] <= 6, results
    assert unlimited[len(unlimited) // 2] > 2 * max(limited[len(limited) // 2], 6), results
