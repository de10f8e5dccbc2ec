"""One batch ahead (worlddb.memory.ahead): the next batch's step runs while this one is
handled, results come in order, a failing step raises at its own turn, and stopping early
waits for the step running ahead."""

from __future__ import annotations

import threading
from contextlib import closing

import pytest

from worlddb.memory.ahead import one_ahead

WAIT = 10.0


def test_the_next_batchs_step_runs_while_the_caller_handles_this_one():
    started = {k: threading.Event() for k in range(3)}
    threads: dict[int, str] = {}

    def step(k: int) -> int:
        threads[k] = threading.current_thread().name
        started[k].set()
        return k * 10

    handled = []
    for k, result in one_ahead(step, range(3)):
        assert result() == k * 10
        if k < 2:
            # while batch k is being handled here, batch k + 1's step has already begun
            assert started[k + 1].wait(WAIT), f"step {k + 1} did not start while batch {k} was handled"
        handled.append(k)
    assert handled == [0, 1, 2]
    assert all(name.startswith("worlddb-ahead") for name in threads.values())
    assert threading.current_thread().name not in threads.values()


def test_no_more_than_one_step_runs_ahead():
    begun: list[int] = []
    second = threading.Event()

    def step(k: int) -> int:
        begun.append(k)
        if k == 1:
            second.set()
        return k

    ready = one_ahead(step, range(5))
    _, result = next(ready)
    assert result() == 0
    # batch 0 is with the caller: batch 1 is prepared meanwhile, batch 2 is not begun
    assert second.wait(WAIT)
    threading.Event().wait(0.05)
    assert begun == [0, 1]
    assert [k for k, _ in ready] == [1, 2, 3, 4]


def test_a_failing_step_raises_at_its_own_turn_after_the_batches_before_it():
    def step(k: int) -> int:
        if k == 2:
            raise ValueError("batch 2 is bad")
        return k

    handled = []
    with pytest.raises(ValueError, match="batch 2 is bad"), closing(one_ahead(step, range(5))) as ready:
        for _, result in ready:
            handled.append(result())
    assert handled == [0, 1]


def test_stopping_early_waits_for_the_step_running_ahead():
    finished = threading.Event()

    def step(k: int) -> int:
        if k == 1:
            threading.Event().wait(0.2)
            finished.set()
        return k

    with closing(one_ahead(step, range(3))) as ready:
        for _, result in ready:
            result()
            break
    assert finished.is_set()


def test_no_batches_no_steps():
    assert list(one_ahead(lambda k: pytest.fail("no step for no batch"), [])) == []
