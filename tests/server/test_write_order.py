"""Writes a client pipelines commit in the order they arrived: through a real MCP client and
the real embedding model, a write held inside its model step (the vectors of its entity
names) still commits before the write sent after it, so the update judge sees the move after
the old home; a read waits for neither, and a write that fails or is cancelled ahead in the
queue holds up nothing."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
from mcp import Client

from worlddb.core.errors import EmbedderError
from worlddb.memory.aio import AsyncEngine
from worlddb.memory.scopes import ScopeSet
from worlddb.server import build_server
from worlddb.vectors.embedder import default_embedder

from .helpers import make_config


class HeldName:
    """The real model, held when asked for the vector of the entity name `name` (a write's
    name step) until released."""

    def __init__(self, name: str, *, fail: bool = False) -> None:
        self.inner = default_embedder()
        self.model_id, self.dim = self.inner.model_id, self.inner.dim
        self.name, self.fail = name, fail
        self.inside, self.release = threading.Event(), threading.Event()

    def embed(self, texts) -> np.ndarray:
        if self.name in texts:
            self.inside.set()
            assert self.release.wait(60), "never released"
            if self.fail:
                raise EmbedderError("the model went away")
        return self.inner.embed(texts)


async def test_a_write_held_in_its_model_step_commits_before_the_write_sent_after_it(tmp_path):
    held = HeldName("austin")
    server = build_server(make_config(tmp_path / "order.db", embedder=held, query_model=False))
    async with Client(server) as client:
        first = asyncio.ensure_future(client.call_tool("memory_write", {"text": "I live in Austin, Texas."}))
        try:
            assert await asyncio.to_thread(held.inside.wait, 60)
            second = asyncio.ensure_future(client.call_tool("memory_write", {"text": "I moved to Denver last month."}))
            # the second write is through its model steps; it waits for the first to commit,
            # and a read does not wait for either
            done, _ = await asyncio.wait({second}, timeout=2)
            assert not done
            listed = (await asyncio.wait_for(client.call_tool("memory_list", {}), 30)).structured_content
            assert listed["memories"] == []
        finally:
            held.release.set()
        old, new = [(await asyncio.wait_for(call, 120)).structured_content for call in (first, second)]
        assert old["valid_from"] < new["valid_from"]
        assert new["superseded"] == [old["id"]] and new["conflicts"] == []
        listed = (await client.call_tool("memory_list", {"include_retired": True})).structured_content
        by_id = {m["id"]: m for m in listed["memories"]}
        assert by_id[old["id"]]["superseded_by"] == [new["id"]]


async def test_a_write_that_fails_ahead_in_the_queue_holds_up_nothing(tmp_path):
    held = HeldName("austin", fail=True)
    server = build_server(make_config(tmp_path / "fails.db", embedder=held, query_model=False))
    async with Client(server) as client:
        first = asyncio.ensure_future(client.call_tool("memory_write", {"text": "I live in Austin, Texas."}))
        try:
            assert await asyncio.to_thread(held.inside.wait, 60)
            second = asyncio.ensure_future(client.call_tool("memory_write", {"text": "My cat is called Tom."}))
            done, _ = await asyncio.wait({second}, timeout=2)
            assert not done
        finally:
            held.release.set()
        failed, written = [await asyncio.wait_for(call, 120) for call in (first, second)]
        assert failed.is_error and "the model went away" in failed.content[0].text
        assert not written.is_error
        listed = (await client.call_tool("memory_list", {})).structured_content
        assert [m["id"] for m in listed["memories"]] == [written.structured_content["id"]]


async def test_a_write_cancelled_ahead_in_the_queue_holds_up_nothing(tmp_path):
    held = HeldName("austin")
    memory = await AsyncEngine.open(tmp_path / "cancelled.db", embedder=held, default_user="alice")
    alice = ScopeSet.of(user="alice")
    try:
        first = asyncio.ensure_future(memory.write_memory("I live in Austin, Texas.", alice))
        assert await asyncio.to_thread(held.inside.wait, 60)
        second = asyncio.ensure_future(memory.write_memory("My cat is called Tom.", alice))
        done, _ = await asyncio.wait({second}, timeout=2)
        assert not done
        first.cancel()
        written = await asyncio.wait_for(second, 60)
        assert not held.release.is_set()
        assert [m.id for m in (await memory.list_memories(alice)).memories] == [written.id]
    finally:
        held.release.set()
        await memory.close()


class HeldNames(HeldName):
    """The real model, holding every call that asks for the vector of one of `names` until
    released; `both_inside` is set once two such calls are held (the two model threads)."""

    def __init__(self, *names: str) -> None:
        super().__init__(names[0])
        self.names, self.held = set(names), 0
        self.lock, self.both_inside = threading.Lock(), threading.Event()

    def embed(self, texts) -> np.ndarray:
        if self.names & set(texts):
            with self.lock:
                self.held += 1
                if self.held == 2:
                    self.both_inside.set()
            assert self.release.wait(60), "never released"
        return self.inner.embed(texts)


async def test_a_message_without_a_time_is_stamped_when_it_arrives(tmp_path):
    """A memory_write of messages waiting for a model thread (both busy with earlier writes)
    still records the time it arrived, so a plain write sent after it - stamped on arrival -
    is later, in the order the two commit."""
    held = HeldNames("austin", "boston")
    server = build_server(make_config(tmp_path / "stamps.db", embedder=held, query_model=False))
    async with Client(server) as client:
        busy = [asyncio.ensure_future(client.call_tool("memory_write", {"text": text}))
                for text in ("I live in Austin, Texas.", "My brother lives in Boston, Massachusetts.")]
        try:
            assert await asyncio.to_thread(held.both_inside.wait, 60)
            said = asyncio.ensure_future(client.call_tool("memory_write", {
                "messages": [{"role": "user", "content": "My sister visits next week."}]}))
            await asyncio.sleep(0.2)
            after = asyncio.ensure_future(client.call_tool("memory_write", {"text": "The cat is called Tom."}))
            await asyncio.sleep(0.3)  # the messages' model step can start only after this
        finally:
            held.release.set()
        results = [(await asyncio.wait_for(call, 120)) for call in (*busy, said, after)]
        assert not any(r.is_error for r in results), [r.content[0].text for r in results if r.is_error]
        first, second, session, cat = [r.structured_content for r in results]
        assert first["valid_from"] < second["valid_from"] < session["valid_from"] < cat["valid_from"]
        turn = (await client.call_tool("memory_read", {"id": session["turns"][0]["id"]})).structured_content
        assert turn["valid_from"] == session["valid_from"]
        listed = (await client.call_tool("memory_list", {})).structured_content["memories"]
        # newest first: committed in the order they arrived
        assert [m["id"] for m in listed][:2] == [cat["id"], session["turns"][0]["id"]]


async def test_a_batch_waiting_for_the_model_is_stamped_when_it_arrives(tmp_path):
    """write_memories waiting for a model thread (both busy with earlier writes) records the
    time it arrived, one microsecond apart per item, so a write sent after it is later."""
    held = HeldNames("austin", "boston")
    memory = await AsyncEngine.open(tmp_path / "batch.db", embedder=held, default_user="alice")
    alice = ScopeSet.of(user="alice")
    try:
        busy = [asyncio.ensure_future(memory.write_memory(text, alice))
                for text in ("I live in Austin, Texas.", "My brother lives in Boston, Massachusetts.")]
        try:
            assert await asyncio.to_thread(held.both_inside.wait, 60)
            batch = asyncio.ensure_future(memory.write_memories(
                [{"text": "My sister visits next week."}, {"text": "The dog is called Rex."},
                 {"text": "Lunch was at noon.", "valid_from": "2020-01-01T00:00:00Z"}], alice))
            await asyncio.sleep(0.2)
            after = asyncio.ensure_future(memory.write_memory("The cat is called Tom.", alice))
            await asyncio.sleep(0.3)  # the batch's model step can start only after this
        finally:
            held.release.set()
        first, second = [await asyncio.wait_for(call, 120) for call in busy]
        sister, dog, lunch = await asyncio.wait_for(batch, 120)
        cat = await asyncio.wait_for(after, 120)
        assert first.valid_from < second.valid_from < sister.valid_from < dog.valid_from < cat.valid_from
        assert lunch.valid_from == "2020-01-01T00:00:00Z"
    finally:
        held.release.set()
        await memory.close()


async def test_an_amend_waiting_for_the_engine_thread_is_stamped_when_it_arrives(tmp_path):
    """An amend without valid_from is valid from when it arrived, not from when the engine's
    thread got to it: a write sent after it, while that thread was busy, is later."""
    memory = await AsyncEngine.open(tmp_path / "amend.db", default_user="alice")
    alice = ScopeSet.of(user="alice")
    busy, release = threading.Event(), threading.Event()

    def hold(engine) -> None:
        busy.set()
        assert release.wait(60), "never released"

    try:
        old = await memory.write_memory("I live in Austin, Texas.", alice)
        holding = asyncio.ensure_future(memory.run(hold))
        try:
            assert await asyncio.to_thread(busy.wait, 60)
            amended = asyncio.ensure_future(memory.amend(old.id, "I live in Dallas, Texas.", alice))
            await asyncio.sleep(0.2)
            after = asyncio.ensure_future(memory.write_memory("The cat is called Tom.", alice))
            await asyncio.sleep(0.3)
        finally:
            release.set()
        await asyncio.wait_for(holding, 60)
        new = await asyncio.wait_for(amended, 120)
        cat = await asyncio.wait_for(after, 120)
        assert old.valid_from < new.valid_from < cat.valid_from
        assert new.supersedes == old.id
    finally:
        release.set()
        await memory.close()
