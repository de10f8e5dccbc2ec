"""The fuzz harness's fast profile, run by the test suite: seeded, deterministic, bounded.

- the state machine over both engine layers, a fixed seed, a few hundred operations;
- every saved failing example (fuzz/regressions/*.json) replayed with all invariants;
- the MCP tool-argument fuzzer, a fixed seed, about a hundred calls;
- both fuzzers again, fewer examples, each store a fresh PostgreSQL database.
The long profile is `python -m fuzz` (see fuzz/README.md).
"""

from __future__ import annotations

import pytest

from fuzz import harness, machine, mcp_fuzz, regressions
from tests import pg

FAST_SEED = 20240501
FAST_EXAMPLES, FAST_STEPS = 30, 40
MCP_EXAMPLES, MCP_CALLS = 25, 8
#: on PostgreSQL (each example makes and drops a database)
PG_EXAMPLES, PG_MCP_EXAMPLES = 10, 10


@pytest.fixture
def on_postgresql(monkeypatch):
    """Every store the fuzzers open is a fresh database on the test PostgreSQL server."""
    def fresh() -> tuple[str, object]:
        url = pg.new_database()
        return url, lambda: pg.drop_database(url)

    monkeypatch.setattr(harness, "STORES", fresh)


def test_random_operation_sequences_keep_every_invariant():
    try:
        machine.run(examples=FAST_EXAMPLES, steps=FAST_STEPS, seed=FAST_SEED)
    except Exception as exc:
        failure = machine.LAST_FAILURE
        if failure.get("ops"):
            path = regressions.save(failure["ops"], failure["error"], found=f"fast profile, seed {FAST_SEED}")
            raise AssertionError(f"{exc}\nshrunk example saved to {path}") from exc
        raise


@pytest.mark.parametrize("path", regressions.saved(), ids=lambda p: p.stem)
def test_saved_failing_example_replays_without_violation(path):
    assert regressions.replay(path) > 0


def test_malformed_tool_arguments_get_tool_errors_and_write_nothing():
    try:
        assert mcp_fuzz.run(examples=MCP_EXAMPLES, calls=MCP_CALLS, seed=FAST_SEED) > 0
    except Exception as exc:
        failure = mcp_fuzz.LAST_FAILURE
        if failure.get("calls"):
            path = regressions.save(failure["calls"], failure["error"], kind="calls",
                                    found=f"fast profile, seed {FAST_SEED}")
            raise AssertionError(f"{exc}\nshrunk example saved to {path}") from exc
        raise


def test_random_operation_sequences_keep_every_invariant_on_postgresql(on_postgresql):
    machine.run(examples=PG_EXAMPLES, steps=FAST_STEPS, seed=FAST_SEED)
    assert machine.STATS["runs"] >= PG_EXAMPLES


def test_malformed_tool_arguments_write_nothing_on_postgresql(on_postgresql):
    assert mcp_fuzz.run(examples=PG_MCP_EXAMPLES, calls=MCP_CALLS, seed=FAST_SEED) > 0
