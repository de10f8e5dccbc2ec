"""What a kin or role word and the verb after it make of a memory, through the real MCP client:
the kin word alone is the concept the memory names (never "sister lives"), and the slot the
sentence states is found by a question about it, though no fact is drawn for a relative the text
does not name."""

from __future__ import annotations

from .helpers import ok

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
