"""memory_read on an entity id, through the real MCP client in both protocol eras: the entity
section, pending proposals apart from accepted members, paging its mentions, and an output
schema the client validates every answer against."""

from __future__ import annotations

import pytest

from tests.support import ALICE, open_engine

from .helpers import fails, ok

pytestmark = pytest.mark.both_backends

SARAH = {"name": "Sarah Connor", "type": "person", "aliases": ["S. Connor"]}


async def _pair(client):
    first = await ok(client, "memory_write", text="My manager Sarah Connor approved the Q3 budget.", entities=[SARAH])
    second = await ok(client, "memory_write", text="Sara Conner wants the quarterly report by Friday.",
                      entities=[{"name": "Sara Conner", "type": "person"}])
    return first, second


async def test_reading_an_entity_id_returns_the_entity_in_full(connect):
    async with connect() as client:
        first, second = await _pair(client)
        sarah, sara = first["entities"][0], second["entities"][0]
        read = await ok(client, "memory_read", id=sarah["id"][:12])
        assert (read["type"], read["text"]) == ("Entity", "Sarah Connor")
        entity = read["entity"]
        assert (entity["name"], entity["type"], entity["aliases"]) == ("Sarah Connor", "person", ["S. Connor"])
        assert entity["same_as"] == [] and entity["scopes"] == ["user:alice"]
        assert [(p["id"], p["other_id"], p["other_name"]) for p in entity["proposals"]] == [
            (sara["proposals"][0], sara["id"], "Sara Conner")]
        assert {"tier", "score"} <= set(entity["proposals"][0])
        assert [m["id"] for m in entity["mentions"]] == [first["id"]]
        # the client validates every answer against the tool's output schema, which names the section
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "entity" in tools["memory_read"].output_schema["properties"]
        assert "EntityDetail" in str(tools["memory_read"].output_schema)
        memory = await ok(client, "memory_read", id=first["id"])
        assert memory["entity"] is None


async def test_a_memorys_entities_separate_pending_proposals_from_accepted_members(connect, db_file):
    async with connect() as client:
        first, second = await _pair(client)
        sarah, sara = first["entities"][0], second["entities"][0]
        linked = (await ok(client, "memory_read", id=second["id"]))["entities"][0]
        assert linked["proposed_merge_with"] == [sarah["id"]] and linked["same_as"] == []
        assert linked["proposals"] == sara["proposals"]
    # accepting is the operator's act (the CLI or the inspector), not a tool the model calls
    with open_engine(db_file) as engine:
        engine.accept_merge(sara["proposals"][0], ALICE)
    async with connect() as client:
        linked = (await ok(client, "memory_read", id=second["id"]))["entities"][0]
        assert linked["proposed_merge_with"] == [] and linked["proposals"] == []
        assert linked["same_as"] == [sarah["id"]]
        entity = (await ok(client, "memory_read", id=sara["id"]))["entity"]
        assert [m["name"] for m in entity["same_as"]] == ["Sarah Connor"]
        assert [m["id"] for m in entity["mentions"]] == [second["id"], first["id"]]
        hits = (await ok(client, "memory_recall", query="What does Sarah Connor want?"))["results"]
        by_id = {h["id"]: h for h in hits}
        assert by_id[second["id"]]["lanes"].get("entity")


async def test_once_two_names_are_accepted_as_one_person_a_change_under_either_replaces_the_other(connect, db_file):
    async with connect() as client:
        home = await ok(client, "memory_write", text="Bob Smith lives in Austin.", valid_from="2023-01-01")
        job = await ok(client, "memory_write", text="Robert Smith is a plumber.", valid_from="2023-01-02")
        robert = next(e for e in job["entities"] if e["name"] == "Robert Smith")
        assert robert["resolution"] == "proposed_merge"
        # while nobody has accepted them as one, a move of Robert Smith is not Bob Smith's
        other = await ok(client, "memory_write", text="Bob Smith lives in Austin.", valid_from="2023-01-01",
                         user_id="apart")
        await ok(client, "memory_write", text="Robert Smith is a plumber.", valid_from="2023-01-02", user_id="apart")
        apart = await ok(client, "memory_write", text="Robert Smith moved to Denver.", valid_from="2024-01-01",
                         user_id="apart")
        assert other["id"] not in apart["superseded"]
    with open_engine(db_file) as engine:
        engine.accept_merge(robert["proposals"][0], ALICE)
    async with connect() as client:
        moved = await ok(client, "memory_write", text="Robert Smith moved to Denver.", valid_from="2024-01-01")
        assert moved["superseded"] == [home["id"]] and moved["revised"] == []
        read = await ok(client, "memory_read", id=home["id"])
        assert read["superseded_by"] == [moved["id"]] and read["valid_to"] is not None
        hits = (await ok(client, "memory_recall", query="Where does Bob Smith live?"))["results"]
        assert home["id"] not in [h["id"] for h in hits]


async def test_an_entitys_mentions_page_through_the_cursor(connect):
    async with connect() as client:
        written = [await ok(client, "memory_write", text=f"Garden note {i}", entities=[SARAH]) for i in range(25)]
        sarah = written[0]["entities"][0]["id"]
        first = (await ok(client, "memory_read", id=sarah))["entity"]
        assert len(first["mentions"]) == 20 and first["next_cursor"]
        rest = (await ok(client, "memory_read", id=sarah, cursor=first["next_cursor"]))["entity"]
        seen = [m["id"] for m in first["mentions"] + rest["mentions"]]
        assert seen == [w["id"] for w in reversed(written)] and rest["next_cursor"] is None
        error = await fails(client, "memory_read", id=written[0]["id"], cursor=first["next_cursor"])
        assert "cursor" in error and "entity" in error
        assert "cursor" in await fails(client, "memory_read", id=sarah, cursor="bogus")


async def test_another_scopes_entity_reads_as_unknown(connect):
    async with connect() as client:
        first, _ = await _pair(client)
        sarah = first["entities"][0]["id"]
        assert "no memory with id" in await fails(client, "memory_read", id=sarah, user_id="bob")


async def test_a_full_name_of_any_language_and_its_given_name_become_a_proposal(connect):
    # the given-name table is English; "is my accountant" says the full name is a person's
    async with connect() as client:
        full = await ok(client, "memory_write", text="Gustavo Pereira is my accountant.", user_id="taxes")
        short = await ok(client, "memory_write", text="Gustavo filed an extension for my taxes.", user_id="taxes")
        gustavo = next(e for e in full["entities"] if e["name"] == "Gustavo Pereira")
        given = next(e for e in short["entities"] if e["name"] == "Gustavo")
        assert gustavo["type"] == "person"
        assert given["resolution"] == "proposed_merge" and given["proposed_merge_with"] == [gustavo["id"]]


@pytest.mark.parametrize(("full", "short"), [("John Smith", "John is a doctor."),
                                             ("Maria Lopez", "Maria loves hiking."),
                                             ("Mark Chen", "Mark plays golf.")])
async def test_a_given_name_that_is_also_a_common_word_is_proposed_as_the_person_the_scope_knows(connect, full,
                                                                                              short):
    # "john", "maria", "mark" are words of the word list too: alone at the start of a sentence
    # they are a name only where the scope knows a person of that first name
    async with connect() as client:
        scope = {"user_id": f"first-{full.split()[0].lower()}"}
        known = await ok(client, "memory_write", text=f"My friend {full} lives in Boston.", **scope)
        person = next(e for e in known["entities"] if e["name"] == full)
        said = await ok(client, "memory_write", text=short, **scope)
        given = next(e for e in said["entities"] if e["name"] == short.split()[0])
        assert given["type"] == "person" and given["resolution"] == "proposed_merge"
        assert given["proposed_merge_with"] == [person["id"]]
        # with no such person known, the word is no mention
        alone = await ok(client, "memory_write", text=short, user_id=f"alone-{full.split()[0].lower()}")
        assert [e["name"] for e in alone["entities"] if e["type"] == "person"] == []


async def test_a_home_held_once_or_a_pet_that_died_is_no_current_fact(connect):
    # "I lived in Boston" and "My dog Rex passed away" say nothing of now: the facts the agent
    # reads on the memories hold no current home in Boston and no dog
    async with connect() as client:
        scope = {"user_id": "past-facts"}
        past = await ok(client, "memory_write", text="I lived in Boston from 2015 to 2019.", **scope)
        home = await ok(client, "memory_write", text="I live in Austin.", **scope)
        rex = await ok(client, "memory_write", text="My dog Rex passed away last week.", **scope)
        facts = [(f["relation"], f["object"]) for m in (past, home, rex)
                 for f in (await ok(client, "memory_read", id=m["id"], **scope))["facts"]]
        assert ("lived_in", "Boston") in facts and ("lives_in", "Austin") in facts
        assert ("lives_in", "Boston") not in facts and not [f for f in facts if f[0] == "has_dog"]


async def test_two_people_of_one_name_that_the_texts_tell_apart_are_two_entities(connect):
    # a sister is no coworker: "my coworker Maria" is someone else than "my sister Maria", though
    # the names match exactly; a friend may be a coworker, and a name alone may be either
    async with connect() as client:
        scope = {"user_id": "kin-apart"}

        def maria(written):
            return next(e for e in written["entities"] if e["name"] == "Maria")

        sister = maria(await ok(client, "memory_write", text="My sister Maria lives in Seattle.", **scope))
        coworker = maria(await ok(client, "memory_write", text="My coworker Maria lives in Chicago.", **scope))
        assert coworker["id"] != sister["id"] and coworker["resolution"] == "new"
        again = maria(await ok(client, "memory_write", text="My coworker Maria loves tacos.", **scope))
        assert again["id"] == coworker["id"] and again["resolution"] == "exact"
        alone = maria(await ok(client, "memory_write", text="Maria called me yesterday.", **scope))
        assert alone["resolution"] == "proposed_merge"
        assert sorted(alone["proposed_merge_with"]) == sorted([sister["id"], coworker["id"]])
        facts = (await ok(client, "memory_read", id=sister["id"], **scope))["entity"]["facts"]
        assert [f["object"] for f in facts if f["relation"] == "lives_in"] == ["Seattle"]
        friends = {"user_id": "kin-one"}
        friend = maria(await ok(client, "memory_write", text="My friend Maria lives in Lisbon.", **friends))
        colleague = maria(await ok(client, "memory_write", text="My coworker Maria is on leave.", **friends))
        assert colleague["id"] == friend["id"]


async def test_a_given_name_and_a_full_name_of_one_person_become_a_proposal(connect):
    # the extractor finds both names itself; nothing is merged until someone accepts
    async with connect() as client:
        first = await ok(client, "memory_write", text="My sister Ana lives in Lisbon.")
        second = await ok(client, "memory_write", text="Ana Souza called me about the reunion.")
        ana = next(e for e in first["entities"] if e["name"] == "Ana")
        full = next(e for e in second["entities"] if e["name"] == "Ana Souza")
        assert full["resolution"] == "proposed_merge" and full["proposed_merge_with"] == [ana["id"]]
        entity = (await ok(client, "memory_read", id=ana["id"]))["entity"]
        assert [(p["other_id"], p["tier"]) for p in entity["proposals"]] == [(full["id"], "name_part")]
        assert entity["same_as"] == []


async def test_a_nickname_of_a_known_person_becomes_a_proposal_the_agent_can_read(connect):
    # the extractor types each of them a person from the words around it; nothing is merged
    async with connect() as client:
        first = await ok(client, "memory_write", text="Bob Smith is my manager at Dell.")
        second = await ok(client, "memory_write", text="Had lunch with Robert Smith today, he approved my leave.")
        third = await ok(client, "memory_write", text="Bob's daughter Emma started college.")
        bob_smith = next(e for e in first["entities"] if e["name"] == "Bob Smith")
        robert = next(e for e in second["entities"] if e["name"] == "Robert Smith")
        bob = next(e for e in third["entities"] if e["name"] == "Bob")
        assert (bob_smith["type"], robert["type"], bob["type"]) == ("person", "person", "person")
        assert robert["resolution"] == "proposed_merge" and robert["proposed_merge_with"] == [bob_smith["id"]]
        assert bob["resolution"] == "proposed_merge" and bob["proposed_merge_with"] == [bob_smith["id"]]
        entity = (await ok(client, "memory_read", id=bob_smith["id"]))["entity"]
        assert sorted((p["other_id"], p["tier"]) for p in entity["proposals"]) == sorted(
            [(robert["id"], "nickname"), (bob["id"], "name_part")])
        assert {p["id"] for p in entity["proposals"]} == {*robert["proposals"], *bob["proposals"]}
        assert entity["same_as"] == []
        robert_read = (await ok(client, "memory_read", id=robert["id"]))["entity"]
        assert [p["other_id"] for p in robert_read["proposals"]] == [bob_smith["id"]]
        # another person, each in a scope of its own (Roberta Smith is one letter from Robert Smith,
        # for the fuzzy tier; Bob Jones has Bob's given name, for name_part): a given name that is
        # no nickname of Bob's, or another surname, proposes nothing
        for user, known, text, name in [
            ("carol", "Bob Smith is my manager at Dell.", "Roberta Smith is my boss now.", "Roberta Smith"),
            ("dave", "Had lunch with Robert Smith today.", "Bob Jones is my neighbour.", "Bob Jones"),
        ]:
            await ok(client, "memory_write", text=known, user_id=user)
            written = await ok(client, "memory_write", text=text, user_id=user)
            other = next(e for e in written["entities"] if e["name"] == name)
            assert other["type"] == "person" and other["resolution"] == "new", other
            assert other["proposed_merge_with"] == [] and other["proposals"] == []


async def test_the_person_a_plain_memory_is_about_is_found_and_recalled_by_name(connect):
    async with connect() as client:
        written = await ok(client, "memory_write", text="Sarah prefers tea over coffee.")
        await ok(client, "memory_write", text="The boiler service is booked for March.")
        sarah = next(e for e in written["entities"] if e["name"] == "Sarah")
        entity = (await ok(client, "memory_read", id=sarah["id"]))["entity"]
        assert entity["name"] == "Sarah" and [m["id"] for m in entity["mentions"]] == [written["id"]]
        hits = (await ok(client, "memory_recall", query="What does Sarah drink?"))["results"]
        assert hits[0]["id"] == written["id"] and hits[0]["lanes"].get("entity")


async def test_the_people_one_works_with_are_facts_the_agent_reads_on_the_entity(connect):
    async with connect() as client:
        written = await ok(client, "memory_write", text="Bob Smith is my manager at Dell.")
        assert {(f["subject"], f["relation"], f["object"]) for f in written["facts"]} >= {
            ("alice", "has_manager", "Bob Smith")}
        bob = next(e for e in written["entities"] if e["name"] == "Bob Smith")
        entity = (await ok(client, "memory_read", id=bob["id"]))["entity"]
        assert any(f["relation"] == "has_manager" for f in entity["facts"]), entity["facts"]
        # a manager is one at a time: a new one supersedes the old memory
        later = await ok(client, "memory_write", text="Priya Nair is my manager now.")
        assert later["superseded"] == [written["id"]]


async def test_a_memorys_entities_name_the_scope_they_live_in_as_the_write_did(connect):
    async with connect() as client:
        written = await ok(client, "memory_write", text="Priya from Kestrel Systems visits Lisbon in May.",
                           user_id="alice", agent_id="planner")
        by_scope = {(e["id"], e["scope"]) for e in written["entities"]}
        assert {scope for _, scope in by_scope} == {"user:alice", "agent:planner"}
        # read in one scope: that scope's entities, each with the scope the write gave it
        read = await ok(client, "memory_read", id=written["id"], agent_id="planner")
        assert read["entities"] and {e["scope"] for e in read["entities"]} == {"agent:planner"}
        assert {(e["id"], e["scope"]) for e in read["entities"]} <= by_scope
        read = await ok(client, "memory_read", id=written["id"], user_id="alice", agent_id="planner")
        assert {(e["id"], e["scope"]) for e in read["entities"]} == by_scope


async def test_an_entitys_page_lists_a_fact_two_memories_state_once_with_both_sources(connect):
    async with connect() as client:
        first = await ok(client, "memory_write", text="My sister Ana lives in Boston.", valid_from="2024-01-01")
        second = await ok(client, "memory_write", text="Ana lives in Boston and loves it.", valid_from="2024-03-01")
        other = await ok(client, "memory_write", text="Ana works at Acme Corp.", valid_from="2024-02-01")
        ana = next(e for e in second["entities"] if e["name"] == "Ana")
        page = (await ok(client, "memory_read", id=ana["id"]))["entity"]
        facts = [(f["subject"], f["relation"], f["object"]) for f in page["facts"]]
        assert sorted(facts) == [("Ana", "lives_in", "Boston"), ("Ana", "works_at", "Acme Corp"),
                                 ("alice", "has_sister", "Ana")]
        home = next(f for f in page["facts"] if f["relation"] == "lives_in")
        # the memories that state it, newest first; held since the first said so
        assert home["sources"] == [second["id"], first["id"]]
        assert home["valid_from"].startswith("2024-01-01")
        assert next(f for f in page["facts"] if f["relation"] == "works_at")["sources"] == [other["id"]]
        # a memory's own facts name it as their source
        read = await ok(client, "memory_read", id=first["id"])
        assert {tuple(f["sources"]) for f in read["facts"]} == {(first["id"],)}


async def test_with_include_retired_an_entitys_page_lists_what_used_to_be_true_of_it(connect):
    async with connect() as client:
        boston = await ok(client, "memory_write", text="My sister Ana lives in Boston.", valid_from="2022-01-01")
        denver = await ok(client, "memory_write", text="Ana moved to Denver.", valid_from="2023-06-01")
        acme = await ok(client, "memory_write", text="Ana works at Acme Corp.", valid_from="2022-03-01")
        initech = await ok(client, "memory_write", text="Ana works at Initech.", valid_from="2022-04-01")
        await ok(client, "memory_retire", id=initech["id"], wrong=True)  # never true: nothing that used to be
        retired = await ok(client, "memory_retire", id=acme["id"], reason="she left")
        ana = next(e for e in boston["entities"] if e["name"] == "Ana")["id"]
        default = (await ok(client, "memory_read", id=ana))["entity"]
        assert default["past_facts"] == []
        assert {(f["relation"], f["object"]) for f in default["facts"]} == {("lives_in", "Denver"),
                                                                           ("has_sister", "Ana")}
        page = (await ok(client, "memory_read", id=ana, include_retired=True))["entity"]
        assert page["facts"] == default["facts"]
        # the most recently ended first, each with when it held and the memories that said so
        assert [(f["relation"], f["object"], f["valid_from"][:10], f["valid_to"], f["sources"])
                for f in page["past_facts"]] == [
            ("works_at", "Acme Corp", "2022-03-01", retired["valid_to"], [acme["id"]]),
            ("lives_in", "Boston", "2022-01-01", denver["valid_from"], [boston["id"]])]
        assert {m["id"] for m in page["mentions"]} >= {boston["id"], acme["id"], initech["id"]}
        # a memory's read shows its validity and every fact of it already: the flag changes nothing
        for memory in (boston, acme):
            plain = await ok(client, "memory_read", id=memory["id"])
            assert await ok(client, "memory_read", id=memory["id"], include_retired=True) == plain
        refused = await fails(client, "memory_read", id=ana, include_retired="yes")
        assert "include_retired" in refused
