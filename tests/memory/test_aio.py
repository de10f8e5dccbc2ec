"""AsyncEngine's hand-offs (worlddb.memory.aio): a write whose turn has come when its model step
ends, and whose names all have vectors, looks up its names and commits in one hop onto the
engine thread; one with a new name still has that name embedded before it commits; one whose
caller goes while its model step runs is not written; a write is answered before the
in-memory HNSW indexes take it; and the turn is only taken as come when
every write that arrived before it has ended."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from contextlib import ExitStack

from tests.support import ALICE
from worlddb.memory.aio import Arrivals, AsyncEngine
from worlddb.vectors.embedder import HashEmbedder


def count_hops(memory: AsyncEngine) -> Counter:
    """Jobs the event loop hands to the engine thread and to the model threads, counted as they
    are submitted; jobs a commit queues behind itself on the engine thread (the HNSW indexes'
    upkeep, run after the reply) count as "upkeep"."""
    hops: Counter = Counter()
    loop_thread = threading.get_ident()
    for name, executor in (("engine", memory._executor), ("model", memory._model)):
        def submit(fn, *args, _submit=executor.submit, _name=name, **kwargs):
            hops[_name if threading.get_ident() == loop_thread else "upkeep"] += 1
            return _submit(fn, *args, **kwargs)
        executor.submit = submit
    return hops


async def test_a_write_in_its_turn_with_known_names_commits_in_one_engine_hop(tmp_path):
    memory = await AsyncEngine.open(tmp_path / "hops.db", embedder=HashEmbedder(), query_model=True)
    try:
        hops = count_hops(memory)
        first = await memory.write_memory("Ana painted the fence in Leeds.", ALICE)
        # new names: looked up with the commit's hop, embedded on a model thread, then committed
        assert hops == {"engine": 2, "model": 2, "upkeep": 1}
        assert {e.name for e in first.entities} >= {"Ana", "Leeds"}
        hops.clear()
        second = await memory.write_memory("Ana moved to Leeds.", ALICE)
        assert hops == {"engine": 1, "model": 1, "upkeep": 1}
        # committed before the reply: the next read sees both
        listed = await memory.list_memories(ALICE)
        assert {m.id for m in listed.memories} == {first.id, second.id}
        assert {e.id for e in second.entities} == {e.id for e in first.entities if e.name in ("Ana", "Leeds")}
    finally:
        await memory.close()


async def test_a_write_is_answered_before_the_hnsw_indexes_take_it(tmp_path):
    memory = await AsyncEngine.open(tmp_path / "upkeep.db", embedder=HashEmbedder(), query_model=True)
    engine = memory.engine
    try:
        await memory.warm()  # the indexes are built, so each commit leaves them something to take
        inside, release = threading.Event(), threading.Event()
        advance = engine.index.advance

        def held() -> int:
            inside.set()
            assert release.wait(60), "never released"
            return advance()

        engine.index.advance = held
        written = await asyncio.wait_for(memory.write_memory("The boiler was serviced on Tuesday.", ALICE), 30)
        # the reply came while the index was still to take the commit, on the engine thread
        assert await asyncio.to_thread(inside.wait, 30)
        assert engine.store.rowid(written.id) not in engine.index.nodes()
        release.set()
        found = (await memory.recall("when was the boiler serviced", ALICE, limit=1)).results
        assert found[0].id == written.id and "vector" in found[0].lanes
        assert engine.store.rowid(written.id) in engine.index.nodes() and engine.index.sync() == 0
    finally:
        release.set()
        await memory.close()


class HeldText(HashEmbedder):
    """The hash embedder, holding the call that embeds a text containing `marker` (a write's
    model step) until released; `left` is set once that call has returned."""

    def __init__(self, marker: str) -> None:
        super().__init__()
        self.marker = marker
        self.inside, self.release, self.left = threading.Event(), threading.Event(), threading.Event()

    def embed(self, texts):
        if not any(self.marker in text for text in texts):
            return super().embed(texts)
        self.inside.set()
        assert self.release.wait(60), "never released"
        try:
            return super().embed(texts)
        finally:
            self.left.set()


async def test_a_write_whose_caller_goes_during_its_model_step_is_not_written(tmp_path):
    held = HeldText("quietly")
    memory = await AsyncEngine.open(tmp_path / "gone.db", embedder=held, query_model=True)
    try:
        await memory.write_memory("Ana painted the fence in Leeds.", ALICE)
        # only known names: nothing would stop its commit but the caller having gone
        gone = asyncio.ensure_future(memory.write_memory("Ana moved to Leeds quietly.", ALICE))
        assert await asyncio.to_thread(held.inside.wait, 60)
        gone.cancel()
        await asyncio.sleep(0)
        held.release.set()
        assert await asyncio.to_thread(held.left.wait, 60)
        await asyncio.sleep(0.2)  # the model step's end, and anything it handed to the engine thread
        await memory.run(lambda engine: None)
        assert [m.text for m in (await memory.list_memories(ALICE)).memories] == ["Ana painted the fence in Leeds."]
    finally:
        held.release.set()
        await memory.close()


def test_a_turn_comes_once_every_earlier_write_has_ended():
    arrivals = Arrivals()
    with ExitStack() as a_open:
        a = a_open.enter_context(arrivals.ticket())
        with arrivals.ticket() as b:
            assert arrivals.first(a) and not arrivals.first(b)
            with arrivals.ticket() as c:
                assert not arrivals.first(c)
            a_open.close()  # a ends (committed, failed or cancelled) while b is still open
            assert arrivals.first(b)
    with arrivals.ticket() as d:
        assert arrivals.first(d)
