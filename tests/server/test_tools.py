"""Each of the nine tools, through the SDK's in-memory client, in both protocol eras."""

from __future__ import annotations

import json

import pytest

from .helpers import dump, fails, ok

pytestmark = pytest.mark.both_backends


async def test_the_nine_tools_are_listed_with_schemas_and_hints(connect):
    async with connect() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert sorted(tools) == sorted([
            "memory_write", "memory_recall", "memory_list", "memory_read", "memory_amend", "memory_retire",
            "memory_retire_all", "memory_purge_scope", "memory_list_scopes"])
        for tool in tools.values():
            assert len(tool.description) > 60 and tool.output_schema and tool.input_schema["properties"]
        read_only = {n for n, t in tools.items() if t.annotations.read_only_hint}
        assert read_only == {"memory_recall", "memory_list", "memory_read", "memory_list_scopes"}
        assert tools["memory_purge_scope"].annotations.destructive_hint
        assert tools["memory_recall"].input_schema["properties"]["limit"]["maximum"] == 100
        assert "never edited in place" in tools["memory_amend"].description


async def test_write_returns_the_id_scopes_and_resolved_entities(connect):
    async with connect() as client:
        res = await ok(client, "memory_write", text="Maria works at Acme Corp in Lisbon",
                       entities=[{"name": "Maria", "type": "person"}, {"name": "Acme Corp", "type": "organization"}],
                       facts=[{"subject": "Maria", "relation": "works_at", "object": "Acme Corp"}])
        assert len(res["id"]) == 64 and res["scopes"] == ["user:alice"]
        assert {(e["name"], e["resolution"]) for e in res["entities"]} == {("Maria", "new"), ("Acme Corp", "new")}
        facts = [(f["subject"], f["relation"], f["object"]) for f in res["facts"]]
        assert facts == [("Maria", "works_at", "Acme Corp")]
        again = await ok(client, "memory_write", text="Maria likes hiking", entities=[{"name": "maria"}])
        assert [(e["name"], e["resolution"]) for e in again["entities"]] == [("Maria", "exact")]


async def test_a_name_the_scope_knows_is_a_mention_even_at_the_start_of_a_sentence(connect):
    async with connect() as client:
        await ok(client, "memory_write", text="My sister Ana lives in Porto.")
        ana = next(e for e in (await ok(client, "memory_write", text="I called my sister Ana."))["entities"]
                   if e["name"] == "Ana")
        later = await ok(client, "memory_write", text="Ana at pottery class on Tuesdays.", user_id="alice")
        assert [(e["id"], e["resolution"]) for e in later["entities"] if e["name"] == "Ana"] == [(ana["id"], "exact")]
        # the same words in a scope that knows no Ana name nobody
        other = await ok(client, "memory_write", text="Ana at pottery class on Tuesdays.", user_id="bob")
        assert "Ana" not in {e["name"] for e in other["entities"]}
        mentions = (await ok(client, "memory_read", id=ana["id"]))["entity"]["mentions"]
        assert later["id"] in {m["id"] for m in mentions}


async def test_a_near_match_is_proposed_not_merged(connect):
    async with connect() as client:
        await ok(client, "memory_write", text="Sarah called", entities=[{"name": "Sarah", "type": "person"}])
        res = await ok(client, "memory_write", text="Sara called back", entities=[{"name": "Sara", "type": "person"}])
        entity = res["entities"][0]
        assert entity["resolution"] == "proposed_merge" and entity["proposals"] and entity["proposed_merge_with"]
        assert entity["name"] == "Sara"


async def test_a_memory_written_for_two_scopes_belongs_to_each(connect):
    async with connect() as client:
        res = await ok(client, "memory_write", text="The deploy key rotates monthly", user_id="alice", agent_id="ops")
        assert sorted(res["scopes"]) == ["agent:ops", "user:alice"]
        for scope in ({"user_id": "alice"}, {"agent_id": "ops"}):
            hits = (await ok(client, "memory_recall", query="deploy key rotation", **scope))["results"]
            assert [h["id"] for h in hits][:1] == [res["id"]]
            assert sorted(hits[0]["scopes"]) == ["agent:ops", "user:alice"]
        assert (await ok(client, "memory_recall", query="deploy key rotation", user_id="bob"))["results"] == []


async def test_recall_reports_lanes_validity_and_the_scopes_searched(connect):
    async with connect() as client:
        await ok(client, "memory_write", text="Bob prefers green tea in the morning", valid_from="2024-02-01")
        res = await ok(client, "memory_recall", query="green tea", limit=5)
        assert res["scopes_searched"] == ["user:alice"]
        hit = res["results"][0]
        assert hit["text"] == "Bob prefers green tea in the morning"
        assert hit["lanes"]["bm25"] == 1 and hit["valid_from"] == "2024-02-01T00:00:00Z" and hit["valid_to"] is None


async def test_a_results_text_is_its_record_as_compact_json(connect):
    # a client that gives the model the text (most do) pays for every character of it
    async with connect() as client:
        await ok(client, "memory_write", text="Maria works at Acme Corp in Lisbon")
        for tool, arguments in (("memory_recall", {"query": "Where does Maria work?"}), ("memory_list", {}),
                                ("memory_list_scopes", {})):
            result = await client.call_tool(tool, arguments)
            [text] = [block.text for block in result.content]
            assert json.loads(text) == result.structured_content
            assert "\n" not in text and '": ' not in text
        failed = await client.call_tool("memory_read", {"id": "0" * 64})
        assert failed.is_error and "no memory" in failed.content[0].text


async def test_list_pages_through_a_scope_with_a_cursor(connect):
    async with connect() as client:
        written = [(await ok(client, "memory_write", text=f"note number {i}"))["id"] for i in range(7)]
        seen, cursor = [], ""
        while True:
            page = await ok(client, "memory_list", limit=3, cursor=cursor)
            seen += [m["id"] for m in page["memories"]]
            if not page["next_cursor"]:
                break
            cursor = page["next_cursor"]
        assert seen == list(reversed(written))


async def test_an_optional_argument_sent_as_null_is_not_given(connect):
    # clients whose models fill every parameter send null for the optional ones they leave unset
    # ('{"a": 1}' as text stays text: null tolerance does not make the SDK parse it as JSON)
    async with connect() as client:
        unset = dict(user_id=None, agent_id=None, app_id=None, run_id=None)
        first = await ok(client, "memory_write", text='{"a": 1}', messages=None, session=None, metadata=None,
                         valid_from=None, entities=None, facts=None, **unset)
        assert (await ok(client, "memory_read", id=first["id"], cursor=None, **unset))["text"] == '{"a": 1}'
        second = await ok(client, "memory_write", text="The shed key is under the blue pot.", valid_from=None)
        hits = (await ok(client, "memory_recall", query="shed key", limit=None, as_of=None, known_at=None,
                         include_retired=None, **unset))["results"]
        assert hits[0]["id"] == second["id"]
        page = await ok(client, "memory_list", limit=None, cursor=None, include_retired=None, **unset)
        assert [m["id"] for m in page["memories"]][:2] == [second["id"], first["id"]] and page["next_cursor"] is None
        amended = await ok(client, "memory_amend", id=second["id"], text="The shed key is in the drawer.",
                           reason=None, valid_from=None, **unset)
        assert amended["supersedes"] == second["id"]
        retired = await ok(client, "memory_retire", id=first["id"], reason=None, valid_to=None, **unset)
        assert retired["retired"] is True
        assert (await ok(client, "memory_list_scopes", kind=None))["scopes"]
        assert "limit" in await fails(client, "memory_recall", query="shed key", limit="many")


async def test_the_string_null_is_a_string_not_a_missing_argument(connect, db_file):
    # the SDK parses a string argument as JSON unless its type is exactly str: "null" became
    # null, and so the default scope (user:alice here)
    async with connect() as client:
        written = await ok(client, "memory_write", text="The spare key is in the shed.", user_id="null")
        assert written["scopes"] == ["user:null"]
        assert (await ok(client, "memory_list", user_id="alice"))["memories"] == []
        before = dump(db_file)
        for tool, arguments in [("memory_recall", {"query": "key", "limit": "null"}),
                                ("memory_list", {"include_retired": "null"}),
                                ("memory_purge_scope", {"user_id": "null", "confirm": "user:null", "erase": "null"}),
                                ("memory_write", {"text": "x", "metadata": "null"})]:
            assert "Input should be a valid" in await fails(client, tool, **arguments)
        assert dump(db_file) == before
        # an array or an object sent as a string is still read as one
        entity = await ok(client, "memory_write", text="Ann called.", entities='[{"name": "Ann"}]')
        assert [e["name"] for e in entity["entities"]] == ["Ann"]


async def test_read_accepts_a_unique_prefix_and_checks_the_hash(connect):
    async with connect() as client:
        mid = (await ok(client, "memory_write", text="Passport expires in 2031", metadata={"source": "chat"}))["id"]
        full = await ok(client, "memory_read", id=mid[:12])
        assert full["id"] == mid and full["text"] == "Passport expires in 2031"
        assert full["metadata"] == {"source": "chat"} and full["scopes"] == ["user:alice"]
        assert full["hash_check"]["ok"] and full["provenance"]["tool"] == "memory_write"
        assert "no memory with id" in await fails(client, "memory_read", id="0123456789abcdef")
        assert "at least 8" in await fails(client, "memory_read", id=mid[:5])


async def test_amend_writes_a_new_memory_and_supersedes_the_old_one(connect):
    async with connect() as client:
        old = (await ok(client, "memory_write", text="The office is on floor 3", valid_from="2024-01-01"))["id"]
        new = await ok(client, "memory_amend", id=old, text="The office moved to floor 5", reason="moved")
        assert new["supersedes"] == old and new["id"] != old
        before = await ok(client, "memory_read", id=old)
        assert before["text"] == "The office is on floor 3"  # content is immutable
        assert before["valid_to"] == new["valid_from"] and before["superseded_by"] == [new["id"]]
        refused = await fails(client, "memory_amend", id=old, text="again")
        # the refusal names the memory to amend instead
        assert "no longer current" in refused and new["id"] in refused


async def test_retire_hides_a_memory_and_include_retired_returns_it_closed(connect):
    async with connect() as client:
        mid = (await ok(client, "memory_write", text="Allergic to penicillin"))["id"]
        res = await ok(client, "memory_retire", id=mid, reason="test result was wrong")
        assert res["retired"] and res["valid_to"] is not None and not res["already_retired"]
        assert (await ok(client, "memory_recall", query="penicillin allergy"))["results"] == []
        hits = (await ok(client, "memory_recall", query="penicillin allergy", include_retired=True))["results"]
        assert hits[0]["id"] == mid and hits[0]["retired"] and hits[0]["valid_to"] == res["valid_to"]
        assert (await ok(client, "memory_retire", id=mid))["already_retired"]
        assert "retired" in await fails(client, "memory_amend", id=mid, text="Allergic to amoxicillin")


async def test_as_of_with_include_retired_gives_what_had_begun_by_then_closed_or_not(connect):
    async with connect() as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from="2020-01-01")
        denver = await ok(client, "memory_amend", id=austin["id"], text="I live in Denver.", valid_from="2021-06-01")

        async def history(as_of: str) -> list[str]:
            hits = (await ok(client, "memory_recall", query="Where do I live?", as_of=as_of,
                             include_retired=True))["results"]
            return sorted(h["id"] for h in hits)

        assert await history("2019-06-01") == []  # nothing had begun
        assert await history("2020-06-01") == [austin["id"]]
        assert await history("2022-01-01") == sorted([austin["id"], denver["id"]])  # Austin closed, still shown
        current = (await ok(client, "memory_recall", query="Where do I live?", as_of="2022-01-01"))["results"]
        assert [h["id"] for h in current] == [denver["id"]]


async def test_retire_all_retires_every_current_memory_of_the_scope(connect):
    async with connect() as client:
        for i in range(3):
            await ok(client, "memory_write", text=f"temporary note {i}", run_id="session-9")
        await ok(client, "memory_write", text="keep me", user_id="alice")
        res = await ok(client, "memory_retire_all", run_id="session-9")
        assert res["scopes"] == ["run:session-9"] and res["retired"] == 3
        assert (await ok(client, "memory_list", run_id="session-9"))["memories"] == []
        assert len((await ok(client, "memory_list"))["memories"]) == 1


async def test_retire_all_retires_a_memory_of_two_scopes_in_both_as_its_description_says(connect):
    async with connect() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "retired in all of them" in " ".join(tools["memory_retire_all"].description.split())
        shared = await ok(client, "memory_write", text="The quarterly plan is due Friday.", user_id="alice",
                          agent_id="ops")
        await ok(client, "memory_retire_all", user_id="alice")
        assert (await ok(client, "memory_list", agent_id="ops"))["memories"] == []
        read = await ok(client, "memory_read", id=shared["id"], agent_id="ops")
        assert read["retired"] and read["valid_to"] is not None


async def test_list_scopes_counts_current_and_retired_memories(connect):
    async with connect() as client:
        await ok(client, "memory_write", text="a", user_id="alice")
        mid = (await ok(client, "memory_write", text="b", user_id="alice"))["id"]
        await ok(client, "memory_write", text="c", agent_id="ops")
        await ok(client, "memory_retire", id=mid)
        scopes = {s["key"]: s for s in (await ok(client, "memory_list_scopes"))["scopes"]}
        assert (scopes["user:alice"]["memories"], scopes["user:alice"]["retired"]) == (1, 1)
        assert scopes["agent:ops"]["memories"] == 1
        assert [s["key"] for s in (await ok(client, "memory_list_scopes", kind="agent"))["scopes"]] == ["agent:ops"]


async def test_retire_all_and_purge_count_the_current_memories_as_list_scopes_does(connect):
    async with connect() as client:
        # facts drawn from a memory, and a memory already superseded, go uncounted
        austin = await ok(client, "memory_write", text="I live in Austin.", user_id="counted",
                          valid_from="2025-01-01T00:00:00Z")
        moved = await ok(client, "memory_write", text="I moved to Denver.", user_id="counted")
        assert moved["superseded"] == [austin["id"]]
        await ok(client, "memory_write", text="My sister Ana is a nurse.", user_id="counted")
        await ok(client, "memory_write", text="Buy oat milk.", user_id="purged")
        await ok(client, "memory_write", text="Ana's birthday is March 3.", user_id="purged")
        scopes = {s["key"]: s for s in (await ok(client, "memory_list_scopes"))["scopes"]}
        assert (scopes["user:counted"]["memories"], scopes["user:counted"]["retired"]) == (2, 1)
        assert (await ok(client, "memory_retire_all", user_id="counted"))["retired"] == 2
        assert (await ok(client, "memory_retire_all", user_id="counted"))["retired"] == 0
        purged = await ok(client, "memory_purge_scope", user_id="purged", confirm="user:purged")
        assert purged["retired"] == scopes["user:purged"]["memories"] == 2


async def test_purge_needs_the_scope_key_as_confirmation(connect):
    async with connect() as client:
        await ok(client, "memory_write", text="bob's secret", user_id="bob")
        assert "confirm must equal" in await fails(client, "memory_purge_scope", user_id="bob", confirm="bob")
        assert "explicitly" in await fails(client, "memory_purge_scope", confirm="user:alice")
        assert "exactly one" in await fails(client, "memory_purge_scope", user_id="bob", agent_id="x",
                                            confirm="user:bob")
        res = await ok(client, "memory_purge_scope", user_id="bob", confirm="user:bob")
        assert res["scope"] == "user:bob" and res["retired"] == 1 and res["erased"] == 0
        assert (await ok(client, "memory_recall", query="secret", user_id="bob"))["results"] == []


async def test_a_hit_carries_the_metadata_its_memory_was_written_with(connect):
    async with connect() as client:
        mid = (await ok(client, "memory_write", text="Alex Morgan is on the Pro plan.",
                        metadata={"customer_id": "C-102", "tags": ["billing"]}))["id"]
        bare = (await ok(client, "memory_write", text="Alex Morgan asked about invoices."))["id"]
        hits = {h["id"]: h for h in (await ok(client, "memory_recall", query="Alex Morgan plan"))["results"]}
        assert hits[mid]["metadata"] == {"customer_id": "C-102", "tags": ["billing"]}
        assert hits[bare]["metadata"] == {}


async def test_an_amend_dated_before_the_memory_began_is_refused_with_the_way_to_say_so(connect):
    async with connect() as client:
        mid = (await ok(client, "memory_write", text="I started metformin 500mg.", valid_from="2024-03-12"))["id"]
        refused = await fails(client, "memory_amend", id=mid, text="I started metformin in January.",
                              valid_from="2024-01-10")
        assert "before the memory it amends began" in refused and "retire it and write" in refused
        assert (await ok(client, "memory_read", id=mid))["valid_to"] is None
