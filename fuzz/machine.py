"""The Hypothesis state machine: random operation sequences over both layers of the engine.

Each rule draws one operation (a JSON-ready dict, see fuzz.harness) and hands it to
`Harness.run`, which executes it, predicts or learns its effect on the reference model,
and checks every invariant. Rules are thin on purpose: a saved failing example is just
the list of operations, replayed by `replay()` with no Hypothesis involved.

`run(examples, steps, seed)` runs the machine with a fixed seed; the test suite's fast
profile and `python -m fuzz` (the long profile) both call it. When a run fails, the
example Hypothesis shrank to is the last one that failed; `LAST_FAILURE` holds its
operations so the caller can save them (fuzz.regressions).
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings
from hypothesis import seed as hyp_seed
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, get_state_machine_test, rule

from fuzz.grants import PRINCIPALS
from fuzz.harness import Harness
from fuzz.vocabulary import EDGE_TYPES, GRAPH_TYPES, NAMES, RELATIONS, SCOPES, WORDS

#: the operations of the most recent failing run (after shrinking, the minimal one)
LAST_FAILURE: dict = {}
#: operations executed and machine runs started since import (for the long profile's report)
STATS = {"ops": 0, "runs": 0}

idx = st.integers(0, 40)
g_ref = st.tuples(st.just("g"), idx)
a_ref = st.tuples(st.just("a"), idx)
m_ref = st.tuples(st.just("m"), idx)
x_ref = st.tuples(st.just("x"), idx)
e_ref = st.tuples(st.just("e"), idx)
s_ref = st.tuples(st.just("s"), st.integers(0, len(SCOPES) - 1))
node_ref = st.one_of(g_ref, a_ref)
home = st.one_of(st.none(), st.none(), st.none(), st.integers(0, len(SCOPES) - 1))
vf_code = st.sampled_from([None, None, None, "p1", "p2", "f1", "zero", "at"])
vt_code = st.sampled_from([None, None, None, None, "p1", "p2", "f1", "at"])
to_code = st.sampled_from(["p1", "p2", "f1", "zero", "at", "vf", "vf-1"])
scope_list = st.lists(st.integers(0, len(SCOPES) - 1), min_size=1, max_size=2)
words = st.lists(st.integers(0, len(WORDS) - 1), max_size=6)
#: who runs a memory operation: mostly the file's owner, else a principal of fuzz.grants
as_who = st.sampled_from([None] * 3 + list(range(len(PRINCIPALS))))
triple = st.tuples(st.integers(0, len(NAMES) - 1), st.integers(0, len(RELATIONS) - 1),
                   st.integers(0, len(NAMES) - 1))


def _op(name: str, **fields) -> st.SearchStrategy:
    return st.fixed_dictionaries({"op": st.just(name), **fields})


GRAPH_ADD = _op("g_add", type=st.sampled_from(GRAPH_TYPES), content=st.integers(0, len(WORDS) - 1),
                created=st.integers(0, 2), parents=st.lists(st.one_of(g_ref, s_ref, a_ref), max_size=2),
                vf=vf_code, vt=vt_code)
GRAPH_LINK = _op("g_link", type=st.sampled_from(EDGE_TYPES), src=node_ref, dst=node_ref,
                 self=st.sampled_from([False] * 9 + [True]),
                 world=st.one_of(st.none(), st.none(), st.none(), g_ref, s_ref), props=st.integers(0, 2),
                 vf=st.sampled_from([None, None, None, "p1", "p2", "f1"]),
                 vt=st.sampled_from([None, None, None, None, "p2", "f1"]))
M_WRITE = _op("m_write", scopes=scope_list, words=words,
              template=st.one_of(st.none(), st.none(), triple),
              entities=st.one_of(st.none(), st.lists(st.sampled_from([*range(len(NAMES))] * 3 + [-1]), max_size=3)),
              facts=st.one_of(st.none(), st.lists(triple, max_size=2)),
              vf=st.sampled_from([None] * 12 + ["p1", "p2", "f1", "bad"]),
              bad=st.sampled_from([None] * 30 + ["blank", "long"]), **{"as": as_who})
# few dates, speakers and words: the same turn record recurs, so ingest meets turns it
# already holds (live, retired or erased)
M_INGEST = _op("m_ingest", scopes=scope_list, sessions=st.lists(st.fixed_dictionaries({
    "date": st.sampled_from([0, 1] * 8 + [2, 3, "bad"]),
    "turns": st.lists(st.tuples(st.sampled_from([0, 1, 2] * 6 + [-1]), st.lists(st.integers(0, 2), max_size=2)),
                      min_size=1, max_size=3)}), max_size=2))


class WorldDBMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.h = Harness()
        STATS["runs"] += 1

    def _run(self, op: dict) -> None:
        STATS["ops"] += 1
        try:
            self.h.run(op)
        except BaseException as exc:
            LAST_FAILURE.clear()
            LAST_FAILURE.update(ops=list(self.h.ops), error=f"{type(exc).__name__}: {exc}")
            raise

    def teardown(self) -> None:
        self.h.close()

    # -------------------------------------------------------------- graph layer
    @rule(op=GRAPH_ADD)
    def graph_add(self, op):
        self._run(op)

    @rule(op=GRAPH_LINK)
    def graph_link(self, op):
        self._run(op)

    @rule(op=GRAPH_LINK)
    def graph_link_more(self, op):
        self._run(op)

    @rule(op=_op("g_unlink", edge=st.integers(0, 200)))
    def graph_unlink(self, op):
        self._run(op)

    @rule(op=_op("g_close", node=node_ref, to=to_code))
    def graph_close(self, op):
        self._run(op)

    @rule(op=_op("g_retire", node=node_ref))
    def graph_retire(self, op):
        self._run(op)

    @rule(op=_op("g_erase", node=node_ref))
    def graph_erase(self, op):
        self._run(op)

    @rule(op=_op("g_link", type=st.just("same_as"), src=e_ref, dst=e_ref, self=st.just(False), world=st.none(),
                 props=st.integers(0, 2), vf=st.none(), vt=st.none()))
    def graph_same_as(self, op):
        self._run(op)

    @rule(op=_op("decide", proposal=st.integers(0, 40), accept=st.booleans(),
                 bogus=st.sampled_from([False] * 9 + [True])))
    def decide(self, op):
        self._run(op)

    # -------------------------------------------------------------- memory layer
    @rule(op=M_WRITE)
    def memory_write(self, op):
        self._run(op)

    @rule(op=M_WRITE)
    def memory_write_more(self, op):
        self._run(op)

    @rule(op=_op("m_amend", memory=st.one_of(m_ref, m_ref, a_ref), scope=home,
                 words=words, bad=st.sampled_from([None] * 8 + ["blank"]),
                 prefix=st.one_of(st.none(), st.integers(8, 20)), **{"as": as_who}))
    def memory_amend(self, op):
        self._run(op)

    @rule(op=_op("m_amend", memory=x_ref, scope=st.none(), words=words, bad=st.none(),
                 prefix=st.none(),
                 **{"as": st.integers(0, len(PRINCIPALS) - 1)}))
    def memory_amend_as_a_principal(self, op):
        self._run(op)

    @rule(op=_op("m_retire", memory=st.one_of(m_ref, a_ref), scope=home, wrong=st.booleans(), **{"as": as_who}))
    def memory_retire(self, op):
        self._run(op)

    @rule(op=_op("m_retire_all", scopes=scope_list))
    def memory_retire_all(self, op):
        self._run(op)

    @rule(op=_op("m_purge", scope=st.integers(0, len(SCOPES) - 1), erase=st.booleans(),
                 confirm=st.sampled_from(["ok"] * 5 + ["wrong"]), multi=st.sampled_from([False] * 7 + [True])))
    def memory_purge(self, op):
        self._run(op)

    @rule(op=M_INGEST)
    def memory_ingest(self, op):
        self._run(op)

    @rule(op=_op("m_read", memory=st.one_of(m_ref, a_ref), scope=home, **{"as": as_who}))
    def memory_read(self, op):
        self._run(op)

    @rule(op=_op("reopen"))
    def reopen(self, op):
        self._run(op)


def run(*, examples: int, steps: int, seed: int, derandomize: bool = False) -> None:
    """Run the machine: `examples` sequences of up to `steps` operations, from `seed`."""
    config = settings(max_examples=examples, stateful_step_count=steps, deadline=None, database=None,
                      derandomize=derandomize, suppress_health_check=list(HealthCheck),
                      phases=[Phase.explicit, Phase.generate, Phase.shrink], report_multiple_bugs=False)
    test = get_state_machine_test(WorldDBMachine, settings=config)
    hyp_seed(seed)(test)()


def replay(ops: list[dict]) -> int:
    """Run saved operations on a fresh database, checking every invariant; returns how many ran."""
    h = Harness()
    try:
        for op in ops:
            h.run(op)
    finally:
        h.close()
    return len(ops)
