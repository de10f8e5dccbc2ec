"""Through the real MCP client: what a kin or role word and the verb after it make of a memory
(the kin word alone is the concept it names, never "sister lives"; the slot the sentence states
is found by a question about it, though no fact is drawn for a relative the text does not name),
and what a pronoun in a query names when the user's id is spelt as one (no one)."""

from __future__ import annotations

import pytest
from mcp import Client

from worlddb.server import build_server

from .helpers import make_config, ok

KIN = [("My sister lives in Boston.", "sister"), ("My mom lives in Porto.", "mom"),
       ("My brother works at Google.", "brother"), ("My manager lives in Austin.", "manager")]


async def test_a_kin_word_and_its_verb_make_no_entity_of_their_own(connect):
    async with connect() as client:
        written = {}
        for text, kin in KIN:
            memory = await ok(client, "memory_write", text=text)
            read = await ok(client, "memory_read", id=memory["id"])
            concepts = [e["name"] for e in read["entities"] if e["type"] == "concept"]
            assert concepts == [kin], (text, read["entities"])
            # a relative named by the kin word alone is no entity a fact can be about
            assert read["facts"] == []
            written[kin] = (memory["id"], next(e["id"] for e in read["entities"] if e["name"] == kin))
        sister_memory, sister = written["sister"]
        page = (await ok(client, "memory_read", id=sister))["entity"]
        assert (page["name"], page["type"]) == ("sister", "concept")
        assert [m["id"] for m in page["mentions"]] == [sister_memory]
        # what the sentence says of the sister is still read: a question about the slot finds it first
        hits = (await ok(client, "memory_recall", query="Where does my sister live?"))["results"]
        assert hits[0]["id"] == sister_memory and "slot" in hits[0]["lanes"]


MINE = ["I live in Austin.", "I love hiking on weekends.", "I work at Dell as an engineer.",
        "My favourite food is ramen.", "I started learning Spanish.", "I have a dentist appointment on Friday.",
        "I adopted a cat last year.", "I run every morning before work."]
BOBS = ["Bob is my neighbor and plays the cello.", "Sam said Bob is moving to Denver."]


@pytest.mark.parametrize(("user", "queries"), [
    ("me", ["Tell me about Bob", "remind me what Sam said about Bob"]),
    ("I", ["What do I know about Bob?"]),
    ("you", ["Can you tell me about Bob?"]),
    ("user", ["What does the user know about Bob?"]),
])
async def test_a_pronoun_in_a_query_names_no_entity_when_the_user_id_is_spelt_as_one(db_file, user, queries):
    """The README's configuration names the user "me": the "me" of "Tell me about Bob" is not the
    user's entity, so the entity lane holds Bob's memories and not every one that mentions the
    user. The same for the other ids a query's words refer to someone by: "I", "you", "user"."""
    async with Client(build_server(make_config(db_file, default_user=user))) as client:
        for text in MINE:
            await ok(client, "memory_write", text=text)
        bobs = {(await ok(client, "memory_write", text=text))["id"] for text in BOBS}
        for query in queries:
            hits = (await ok(client, "memory_recall", query=query, limit=5))["results"]
            assert {h["id"] for h in hits[:2]} == bobs, query
            assert [h["text"] for h in hits if "entity" in h["lanes"] and h["id"] not in bobs] == [], query
