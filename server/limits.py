"""Per-principal limits on tool calls, so that one noisy client cannot starve the others.

    limits = Limits(rate=50, max_in_flight=8)
    with limits.hold("alice"):      # RateLimited (with .retry_after) when over either limit
        ...

Two limits per principal, both refusing at once rather than queueing:
- a request rate: a token bucket refilled at `rate` calls per second, holding at most
  `burst` (default: two seconds' worth), so short bursts pass and a sustained flood does not;
- an in-flight count: at most `max_in_flight` of its calls started and not yet answered.

The engine runs calls one at a time in arrival order (worlddb.memory.aio), so the in-flight
limit is what keeps the others' calls near the head of that queue: however many requests
one principal sends, at most `max_in_flight` of them wait ahead of anyone else's call.

A refusal says which limit and when to retry: for the rate, when the bucket will hold a
call again; for the in-flight count, the principal's recent call duration (a moving
average), since one of its calls should be answered by then. Zero turns a limit off.
State lives on the event loop thread and is touched only there, so it needs no lock;
principals idle long enough to have a full bucket are forgotten once there are many.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from worlddb.core.errors import RateLimited

#: forget idle principals once more than this many are tracked
MAX_TRACKED = 10_000
#: the retry hint for a full in-flight count before any call of the principal has finished
DEFAULT_CALL_SECS = 0.1


@dataclass
class _State:
    tokens: float
    updated: float
    in_flight: int = 0
    call_secs: float = DEFAULT_CALL_SECS


class Limits:
    """Per-principal rate and in-flight limits (see the module docstring).

    :param rate: calls per second per principal; 0 for no rate limit.
    :param max_in_flight: calls per principal running at once; 0 for no limit.
    :param burst: the most calls a principal can make at once after being idle
        (default ``2 * rate``, at least 1).
    """

    def __init__(self, rate: float = 0.0, max_in_flight: int = 0, *, burst: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        if rate < 0 or max_in_flight < 0:
            raise ValueError("limits are zero (off) or positive")
        self.rate = float(rate)
        self.max_in_flight = int(max_in_flight)
        self.burst = float(burst) if burst is not None else max(1.0, 2.0 * self.rate)
        self._clock = clock
        self._states: dict[str, _State] = {}

    @property
    def enabled(self) -> bool:
        return bool(self.rate or self.max_in_flight)

    @contextmanager
    def hold(self, principal: str) -> Iterator[None]:
        """Admit one call of `principal` for the duration of the block, or raise RateLimited."""
        if not self.enabled:
            yield
            return
        now = self._clock()
        state = self._state(principal, now)
        if self.max_in_flight and state.in_flight >= self.max_in_flight:
            wait = round(max(0.01, state.call_secs), 2)
            raise RateLimited(f"too many calls at once: {principal} already has {state.in_flight} in flight, "
                              f"the most allowed; retry in {wait:g} s, when one has been answered", wait)
        if self.rate:
            state.tokens = min(self.burst, state.tokens + (now - state.updated) * self.rate)
            state.updated = now
            if state.tokens < 1.0:
                wait = round(max(0.01, (1.0 - state.tokens) / self.rate), 2)
                raise RateLimited(f"rate limit: {principal} may make {self.rate:g} calls per second "
                                  f"(bursts of {self.burst:g}); retry in {wait:g} s", wait)
            state.tokens -= 1.0
        state.in_flight += 1
        started = self._clock()
        try:
            yield
        finally:
            state.in_flight -= 1
            state.call_secs = 0.8 * state.call_secs + 0.2 * (self._clock() - started)

    def _state(self, principal: str, now: float) -> _State:
        state = self._states.get(principal)
        if state is None:
            if len(self._states) >= MAX_TRACKED:
                self._forget_idle(now)
            state = self._states[principal] = _State(tokens=self.burst, updated=now)
        return state

    def _forget_idle(self, now: float) -> None:
        for name, state in list(self._states.items()):
            refilled = state.tokens + (now - state.updated) * self.rate if self.rate else self.burst
            if state.in_flight == 0 and refilled >= self.burst:
                del self._states[name]


__all__ = ["Limits"]
