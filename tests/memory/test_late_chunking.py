"""A store of the late form (one model run per text, its sentences pooled from that run) with
the real model: a sentence of a multi-sentence memory is found by what it says, in process
and through a real MCP client, and the store keeps its form until it is re-embedded."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.server.helpers import make_config, ok
from tests.support import ALICE, open_engine
from worlddb.graph import text_index
from worlddb.graph.reembed import reembed
from worlddb.server import build_server
from worlddb.vectors.embedder import default_embedder

pytestmark = pytest.mark.both_backends

FORM = text_index.LATE_UNDATED
STORY = ("We spent the long weekend at my parents' farm near the coast. The tractor broke down twice "
         "on Saturday. My little sister finally learned to ride a horse, after years of being scared.")
OTHERS = ["I bought a new laptop for work; the battery lasts all day.",
          "Our book club read a mystery novel set in Venice this month.",
          "The dentist said my teeth are fine, no cavities this year."]
QUESTION = "Who learned horseback riding?"


def write_story(engine) -> str:
    for text in OTHERS:
        engine.write_memory(text, ALICE, metadata={"speaker": "Dana"}, valid_from="2023-05-01T10:00:00Z")
    return engine.write_memory(STORY, ALICE, metadata={"speaker": "Dana"}, valid_from="2023-05-08T13:56:00Z").id


def test_a_late_store_finds_a_memory_by_one_of_its_sentences(db_path):
    embedder = default_embedder()
    with open_engine(db_path, embedder=embedder, query_model=False) as engine:
        story = write_story(engine)
        reembed(engine.db, embedder, engine.services.encoder, form=FORM)
    with open_engine(db_path, embedder=embedder, query_model=False) as engine:
        assert engine.store.meta_get(text_index.VECTOR_TEXT_KEY) == FORM
        later = engine.write_memory("The horse is called Pepper. She is twelve years old.", ALICE,
                                    metadata={"speaker": "Dana"}, valid_from="2023-05-09T09:00:00Z")
        assert engine.store.meta_get(text_index.VECTOR_TEXT_KEY) == FORM
        hit = engine.recall(QUESTION, ALICE, limit=3).results[0]
        assert hit.id == story and "sentence" in hit.lanes
        assert engine.recall("What is the horse's name?", ALICE, limit=1).results[0].id == later.id
    # re-embedding on open moves it to the current form, and the sentence is still found
    with open_engine(db_path, embedder=embedder, query_model=False, reembed=True) as engine:
        assert engine.store.meta_get(text_index.VECTOR_TEXT_KEY) == text_index.CURRENT
        assert engine.recall(QUESTION, ALICE, limit=1).results[0].id == story


async def test_a_late_store_answers_through_mcp(db_path):
    embedder = default_embedder()
    with open_engine(db_path, embedder=embedder) as engine:
        story = write_story(engine)
        reembed(engine.db, embedder, engine.services.encoder, form=FORM)
    server = build_server(make_config(db_path, embedder=embedder, query_model=False))
    async with Client(server) as client:
        written = await ok(client, "memory_write", text="The horse is called Pepper. She is twelve years old.",
                           metadata={"speaker": "Dana"})
        hits = (await ok(client, "memory_recall", query=QUESTION, limit=3))["results"]
        assert hits[0]["id"] == story
        hits = (await ok(client, "memory_recall", query="What is the horse's name?", limit=1))["results"]
        assert hits[0]["id"] == written["id"]
    with open_engine(db_path, embedder=embedder) as engine:
        assert engine.store.meta_get(text_index.VECTOR_TEXT_KEY) == FORM  # the server kept its form
