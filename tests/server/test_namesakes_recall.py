"""Two people of one first name, as an agent meets them through the real MCP client with the
default embedding model: the sister "Ana" and the coworker "Ana Kovac", linked by a pending merge
proposal. A question naming the coworker by her full name answers with her memories before the
sister's (worlddb.retrieval.named); one naming only "Ana" leaves the proposal its lead."""

from __future__ import annotations

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import ok

MEMORIES = [
    ("2025-01-10", "My sister Ana lives in Porto, Portugal, and teaches chemistry at a secondary school."),
    ("2025-01-22", "My coworker Ana Kovac owns the billing service at Brightline and reviews my Go code."),
    ("2025-02-25", "I'm learning Portuguese on Duolingo to talk with Ana's friends."),
    ("2025-04-01", "My sister Ana moved from Porto to Lisbon for a job at a biotech startup called Nuvia."),
    ("2025-09-10", "My sister Ana got engaged to Tiago, a sailor from Cascais."),
    ("2025-02-01", "I work at Brightline as a backend engineer."),
    ("2025-03-01", "My landlord Tom Becker raised the rent on the flat."),
    ("2025-03-02", "My brother Tom plays bass in a jazz band and teaches guitar."),
]


@pytest.fixture(scope="module")
def minilm_server(tmp_path_factory):
    return build_server(ServerConfig(db=str(tmp_path_factory.mktemp("namesakes") / "memory.db"), default_user="me",
                                     background=False))


async def _written(client, user: str) -> None:
    for when, text in MEMORIES:
        await ok(client, "memory_write", text=text, valid_from=when, user_id=user)
    await ok(client, "memory_write", valid_from="2025-04-02", user_id=user, messages=[
        {"role": "Ana", "content": "No, I quit teaching. I'm a research chemist now, working on enzyme stabilisation."},
        {"role": "user", "content": "Within 0.5 percent. Ana Kovac found a rounding bug in the fuel surcharge."}])


async def _recall(client, user: str, query: str) -> list[dict]:
    return (await ok(client, "memory_recall", query=query, user_id=user, limit=5))["results"]


async def test_a_full_name_puts_its_entitys_memories_before_a_namesakes(minilm_server):
    async with Client(minilm_server) as client:
        await _written(client, "full")
        for query in ("What does my coworker Ana Kovac do?", "What does Ana Kovac do?",
                      "What do I know about Ana Kovac?"):
            hits = await _recall(client, "full", query)
            kovac = [i for i, h in enumerate(hits) if "Kovac" in h["text"]]
            partners = [i for i, h in enumerate(hits) if "entity_pending" in h["lanes"] and "entity" not in h["lanes"]]
            assert kovac == [0, 1] and all(i > 1 for i in partners), (query, [h["text"] for h in hits])


async def test_a_first_name_alone_keeps_the_lanes_order_and_another_full_name_its_own(minilm_server):
    async with Client(minilm_server) as client:
        await _written(client, "first")
        # "my sister Ana": nothing is moved, and the coworker answers for no sister
        hits = await _recall(client, "first", "What does my sister Ana do?")
        assert not any("named" in h["lanes"] for h in hits) and "Kovac" not in hits[0]["text"]
        # the landlord named in full: his memory first, before the brother's
        hits = await _recall(client, "first", "What did Tom Becker do?")
        assert "Tom Becker" in hits[0]["text"]
