"""The fuzz harness's fast profile, run by the test suite: seeded, deterministic, bounded,
on each backend ([sqlite]: stores are files in a temporary directory; [postgresql]: each
store is a fresh database on the test PostgreSQL server, tests/pg.py).

- the state machine over both engine layers, a fixed seed, a few hundred operations;
- every saved failing example (fuzz/regressions/*.json) replayed with all invariants;
- the MCP tool-argument fuzzer, a fixed seed, about a hundred calls;
- the grant check (fuzz.grants) catching a result that names what a principal was not granted.
PostgreSQL runs fewer examples (each makes and drops a database). The long profile is
`python -m fuzz` (see fuzz/README.md).
"""

from __future__ import annotations

import pytest

from fuzz import grants, harness, machine, mcp_fuzz, regressions
from fuzz.vocabulary import Violation
from tests import pg

FAST_SEED = 20240501
FAST_STEPS, MCP_CALLS = 40, 8
#: (state-machine examples, MCP examples) per backend
EXAMPLES = {"sqlite": (20, 25), "postgresql": (5, 10)}


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, monkeypatch) -> str:
    """Where every store the fuzzers open lives: the harness's default (a SQLite file), or a
    fresh database on the test PostgreSQL server, dropped afterwards."""
    if request.param == "postgresql":
        def fresh() -> tuple[str, object]:
            url = pg.new_database()
            return url, lambda: pg.drop_database(url)

        monkeypatch.setattr(harness, "STORES", fresh)
    return request.param


def test_random_operation_sequences_keep_every_invariant(backend):
    examples, runs = EXAMPLES[backend][0], machine.STATS["runs"]
    try:
        machine.run(examples=examples, steps=FAST_STEPS, seed=FAST_SEED)
    except Exception as exc:
        failure = machine.LAST_FAILURE
        if failure.get("ops"):
            path = regressions.save(failure["ops"], failure["error"],
                                    found=f"fast profile on {backend}, seed {FAST_SEED}")
            raise AssertionError(f"{exc}\nshrunk example saved to {path}") from exc
        raise
    assert machine.STATS["runs"] - runs >= examples


@pytest.mark.parametrize("path", regressions.saved(), ids=lambda p: p.stem)
def test_saved_failing_example_replays_without_violation(backend, path):
    assert regressions.replay(path) > 0


def test_malformed_tool_arguments_get_tool_errors_and_write_nothing(backend):
    try:
        assert mcp_fuzz.run(examples=EXAMPLES[backend][1], calls=MCP_CALLS, seed=FAST_SEED) > 0
    except Exception as exc:
        failure = mcp_fuzz.LAST_FAILURE
        if failure.get("calls"):
            path = regressions.save(failure["calls"], failure["error"], kind="calls",
                                    found=f"fast profile on {backend}, seed {FAST_SEED}")
            raise AssertionError(f"{exc}\nshrunk example saved to {path}") from exc
        raise


def test_the_grant_check_catches_a_result_naming_what_a_principal_was_not_granted(backend):
    h = harness.Harness()
    try:
        h.run({"op": "m_write", "scopes": [1], "words": [0], "template": None, "entities": None, "facts": None,
               "vf": None, "bad": None, "as": None})  # a memory of user:bob, written by the owner
        bob_memory = h.memories[-1]
        alice = grants.PRINCIPALS[0]
        grants.scan(h, alice, "a result naming nothing of bob's", {"scopes": ["user:alice"], "id": None})
        for leak in ({"id": bob_memory}, {"scopes": ["user:bob"]}, [{"nested": {bob_memory: 1}}]):
            with pytest.raises(Violation):
                grants.scan(h, alice, "a result naming bob's memory or scope", leak)
        grants.scan(h, grants.PRINCIPALS[2], "the same result, for a principal granted user:bob", {"id": bob_memory})
    finally:
        h.close()


#: a call to each tool that succeeds on a file holding one memory of the default user (alice)
WELL_TYPED = {"memory_write": {"text": "Sarah lives in Austin."}, "memory_recall": {"query": "Sarah"},
              "memory_list": {}, "memory_read": {"id": None}, "memory_amend": {"id": None, "text": "Sarah moved."},
              "memory_retire": {"id": None}, "memory_retire_all": {"user_id": "alice"},
              "memory_purge_scope": {"user_id": "alice", "confirm": "user:alice"}, "memory_list_scopes": {}}


def test_every_flag_count_and_string_argument_of_every_tool_refuses_every_other_json_type():
    """Each boolean, integer and string parameter a tool lists, given each value of another JSON
    type (mcp_fuzz.WRONG_TYPED) in an otherwise good call: a tool error naming the argument, the file
    unchanged (Session.call checks it). Nothing is coerced: `"erase": "on"` once erased a scope."""
    with mcp_fuzz.session() as s:
        assert s.call("memory_write", {"text": "Sarah lives in Austin."}) is None
        assert set(WELL_TYPED) == set(s.tools)  # a new tool needs a good call here
        tried = 0
        for tool, schema in s.tools.items():
            good = {k: (s.known[0] if v is None else v) for k, v in WELL_TYPED[tool].items()}
            for name, prop in schema["properties"].items():
                kind = mcp_fuzz.scalar_type(prop)
                for value in mcp_fuzz.WRONG_TYPED.get(kind, []):
                    error = s.call(tool, good | {name: value})
                    assert error is not None and f"{name}: Input should be a valid" in error, (tool, name, value, error)
                    tried += 1
        assert tried > 100
        for tool, good in WELL_TYPED.items():  # the good calls do succeed (the last ones change the most)
            assert s.call(tool, {k: (s.known[0] if v is None else v) for k, v in good.items()}) is None, tool
