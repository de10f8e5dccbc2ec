"""A long write's model work does not hold up the server: through a real MCP client and the
real embedding model, a recall issued while a 120-message memory_write is inside the model is
answered first; a small write issued then runs its own model steps meanwhile but commits after
the long one (writes commit in arrival order); and every result is what the steps run back to
back give. Each write is found by meaning in the recall that follows it, though the HNSW
indexes take it after its reply."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
from mcp import Client

from bench.serverproc import call
from tests.support import open_engine
from worlddb.memory.scopes import ScopeSet
from worlddb.server import build_server
from worlddb.vectors.embedder import default_embedder

from .helpers import make_config

SPEAKERS = ("Caroline", "Melanie")
TOPICS = ("the pottery class", "a camping trip", "the charity run", "her painting of a lake", "the adoption agency",
          "a concert in the park")
MESSAGES = [{"role": SPEAKERS[i % 2], "content": f"Message {i}: I keep thinking about {TOPICS[i % len(TOPICS)]}, "
             f"and what we said about it on day {i}.", "ref": f"D1:{i}"} for i in range(120)]
LONG = 100


class Held:
    """The real model, held at the door of a long call (one of more than LONG texts) until
    released: while held, that write is inside its model step."""

    def __init__(self) -> None:
        self.inner = default_embedder()
        self.model_id, self.dim = self.inner.model_id, self.inner.dim
        self.inside, self.release = threading.Event(), threading.Event()

    def embed(self, texts) -> np.ndarray:
        if len(texts) > LONG:
            self.inside.set()
            assert self.release.wait(60), "never released"
        return self.inner.embed(texts)


async def test_a_recall_goes_ahead_of_a_long_write_inside_the_model_and_a_later_write_commits_after_it(tmp_path):
    held = Held()
    server = build_server(make_config(tmp_path / "steps.db", embedder=held, query_model=False))
    async with Client(server) as client:
        bees = await call(client, "memory_write", text="Alice keeps bees in her garden in Leeds.")
        long = asyncio.ensure_future(call(client, "memory_write", messages=MESSAGES, session="chat-1",
                                          valid_from="2023-05-08T13:56:00Z"))
        try:
            assert await asyncio.to_thread(held.inside.wait, 60)
            hits = await asyncio.wait_for(call(client, "memory_recall", query="who keeps bees?", limit=3), 30)
            later = asyncio.ensure_future(call(client, "memory_write", text="Bob sold honey at the market."))
            done, _ = await asyncio.wait({later}, timeout=2)
            assert not done and not long.done()
        finally:
            held.release.set()
        written = await asyncio.wait_for(long, 120)
        small = await asyncio.wait_for(later, 60)
        assert hits["results"][0]["id"] == bees["id"]
        assert [t["ref"] for t in written["turns"]] == [m["ref"] for m in MESSAGES]
        assert {e["name"] for e in written["entities"]} >= set(SPEAKERS)
        found = await call(client, "memory_recall", query="Message 37 the pottery class", limit=5)
        assert written["turns"][37]["id"] in [r["id"] for r in found["results"]]
        honey = await call(client, "memory_recall", query="who sold honey?", limit=3)
        assert honey["results"][0]["id"] == small["id"]
    # the same calls made in process, one after the other, give the same session, turns and entity resolutions
    engine = open_engine(tmp_path / "in-process.db", embedder=held.inner)
    try:
        alice = ScopeSet((("user", "alice"),))
        engine.write_memory("Alice keeps bees in her garden in Leeds.", alice)
        again = engine.write_messages(MESSAGES, alice, session="chat-1", valid_from="2023-05-08T13:56:00Z")
        assert again.session == written["session"]
        assert [t.id for t in again.turns] == [t["id"] for t in written["turns"]]
        assert sorted((e.name, e.resolution) for e in again.entities) == sorted(
            (e["name"], e["resolution"]) for e in written["entities"])
    finally:
        engine.close()


async def test_each_write_is_in_the_vector_lanes_of_the_very_next_recall(tmp_path):
    # the HNSW indexes take a write's commit after its reply, on the engine thread: the next
    # call, queued behind that, finds it by meaning alone
    server = build_server(make_config(tmp_path / "upkeep.db", embedder=default_embedder(), query_model=False))
    pairs = [("Priya adopted a rescue greyhound last spring.", "which dog did she take in from a shelter?"),
             ("The boiler in the basement was serviced on Tuesday.", "when was the heating checked?"),
             ("Marco started learning the cello in September.", "what instrument is he studying?")]
    async with Client(server) as client:
        await call(client, "memory_recall", query="warm up")  # the indexes are built from here on
        for text, question in pairs:
            written = await call(client, "memory_write", text=text)
            hits = (await call(client, "memory_recall", query=question, limit=3))["results"]
            hit = next(h for h in hits if h["id"] == written["id"])
            assert {"vector", "sentence"} & set(hit["lanes"]), hit["lanes"]
