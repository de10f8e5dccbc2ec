"""Every bad argument gets a tool error saying what is wrong; nothing is written."""

from __future__ import annotations

import pytest
from mcp import Client

from bench.serverproc import call, call_error, stdio_params
from worlddb.core.records import Node
from worlddb.graph.database import WorldDB
from worlddb.server import build_server

from .helpers import dump, fails, make_config, ok

pytestmark = pytest.mark.both_backends

NESTED: dict = {}
_level = NESTED
for _ in range(40):
    _level["k"] = {}
    _level = _level["k"]

BAD = [
    ("memory_write", {"text": ""}, "text is empty"),
    ("memory_write", {"text": "   \n"}, "text is empty"),
    # invisible format characters (zero-width space and joiners, byte order mark, word joiner)
    # show nothing, as spaces do
    ("memory_write", {"text": "\u200b\u200b"}, "text is empty"),
    ("memory_write", {"text": "\ufeff"}, "text is empty"),
    ("memory_write", {"text": "\u2060"}, "text is empty"),
    ("memory_write", {"text": "\u200b \u200c\u200d\u00a0\n"}, "text is empty"),
    # and so do the other default-ignorables and the fillers: the grapheme joiner, Hangul fillers,
    # variation selectors, Khmer's inherent vowel, the Braille blank
    *[("memory_write", {"text": ch * 3}, "text is empty")
      for ch in ("\u034f", "\u115f", "\u3164", "\ufe0f", "\u2800", "\u17b4", "\uffa0", "\U000e0041")],
    ("memory_write", {"text": "x" * 32_001}, "limit is 32000"),
    ("memory_write", {"text": "ok", "valid_from": "yesterday-ish"}, "not an ISO-8601"),
    ("memory_write", {"text": "ok", "valid_from": "2024-13-45"}, "not an ISO-8601"),
    # a time its offset moves out of years 1-9999 in UTC
    ("memory_write", {"text": "ok", "valid_from": "0001-01-01T00:00:00+01:00"}, "outside years 1-9999 in UTC"),
    ("memory_write", {"text": "ok", "valid_from": "9999-12-31T23:59:59-01:00"}, "outside years 1-9999 in UTC"),
    ("memory_write", {"messages": [{"role": "user", "content": "hi", "time": "0001-01-01T00:30:00+01:00"}]},
     "outside years 1-9999 in UTC"),
    ("memory_recall", {"query": "x", "as_of": "9999-12-31T23:00:00-05:00"}, "as_of: '9999-12-31T23:00:00-05:00' is"),
    ("memory_write", {"text": "ok", "user_id": ""}, "user_id must be"),
    ("memory_write", {"text": "ok", "user_id": "a\x00b"}, "user_id must be"),
    # "$" also matches before a final newline: "alice\n" made a scope of its own, and a 256-character
    # id with one passed the limit
    ("memory_write", {"text": "ok", "user_id": "alice\n"}, "user_id must be"),
    # a scope id that shows nothing, or shows as another one, or turns the text around
    *[("memory_write", {"text": "ok", "user_id": sid}, "user_id holds an invisible or format character")
      for sid in ("\u200b", "alice\u200b", "\u202e", "\ufeff", "al\u2066ice", "alice\ufe0f", "\u3164")],
    ("memory_list", {"agent_id": "bot\u200d"}, "agent_id holds an invisible"),
    ("memory_purge_scope", {"run_id": "\u2800", "confirm": "run:\u2800"}, "run_id holds an invisible"),
    ("memory_write", {"text": "ok", "app_id": "a\x85b"}, "app_id must be 1-256 characters without control"),
    ("memory_write", {"text": "ok", "app_id": "a\u2028b"}, "app_id must be 1-256 characters without control"),
    ("memory_write", {"text": "ok", "agent_id": "a" * 256 + "\n"}, "agent_id must be"),
    ("memory_write", {"messages": [{"role": "user", "content": "hi"}], "session": "s1\n"}, "session must be"),
    ("memory_write", {"messages": [{"role": "user", "content": "hi", "ref": "r1\n"}]}, "messages[0].ref must be"),
    ("memory_write", {"text": "ok", "metadata": NESTED}, "nested more than 32 levels"),
    # who said a text is a name: anything else would break every later read of the memory
    ("memory_write", {"text": "ok", "metadata": {"speaker": {"name": "Tom"}}}, "metadata.speaker must be a string"),
    ("memory_write", {"text": "ok", "metadata": {"role": 42}}, "metadata.role must be a string"),
    ("memory_write", {"text": "ok", "metadata": {"speaker": ["Tom", "Anna"]}}, "metadata.speaker must be a string"),
    ("memory_write", {"text": "ok", "entities": [{"name": ""}]}, "entities"),
    ("memory_write", {"text": "ok", "entities": [{"name": "Ann", "aliases": [f"A{i}" for i in range(21)]}]},
     "at most 20 aliases"),
    ("memory_write", {"text": "ok", "entities": [{"name": "Ann", "aliases": ["A", " "]}]}, "alias must be"),
    # a name or a speaker that shows nothing names no one, as one of spaces does
    ("memory_write", {"text": "ok", "entities": [{"name": "\u200b"}]}, "entity name must be"),
    ("memory_write", {"text": "ok", "entities": [{"name": "Ann", "aliases": ["\ufeff"]}]}, "alias must be"),
    ("memory_write", {"messages": [{"role": "\u200b\u2060", "content": "hi"}]}, "role must name who said it"),
    # an empty speaker or role names no one either: refused, not read as the user's own words
    *[("memory_write", {"text": "I live in Austin.", "metadata": {key: blank}}, f"metadata.{key} is blank")
      for key in ("speaker", "role") for blank in ("", "   ", "\t\n", "\u200b", " \ufeff ")],
    ("memory_write", {"messages": [{"role": "", "content": "hi"}]}, "messages.0.role: String should have at least"),
    ("memory_write", {"messages": [{"role": " \n", "content": "hi"}]}, "messages[0].role must name who said it"),
    ("memory_write", {"messages": [{"role": "user", "content": "hi"}, {"role": "\t", "content": "yes"}]},
     "messages[1].role must name who said it"),
    # a name holds no control character (a NUL, an escape, a line break), as an id or a ref does
    ("memory_write", {"text": "ok", "entities": [{"name": "Ann\x00ie"}]}, "entity name holds a control character"),
    ("memory_write", {"text": "ok", "entities": [{"name": "Ann", "aliases": ["A\x1b[31m"]}]},
     "alias holds a control character"),
    ("memory_write", {"text": "ok", "metadata": {"speaker": "Ann\nie"}}, "metadata.speaker holds a control character"),
    ("memory_write", {"messages": [{"role": "a\x00b", "content": "hi"}]}, "messages[0].role holds a control"),
    ("memory_write", {"text": "ok", "entities": [{"name": "Bob\x85Evil"}]}, "entity name holds a control character"),
    ("memory_write", {"text": "ok", "metadata": {"speaker": "Bob\x9b31mEvil"}}, "metadata.speaker holds a control"),
    ("memory_write", {"messages": [{"role": "Bob\u2028Evil", "content": "hi"}]}, "messages[0].role holds a control"),
    # a ref names one message
    ("memory_write", {"messages": [{"role": "user", "content": "hi", "ref": "r"},
                                   {"role": "user", "content": "again", "ref": "r"}]},
     "messages[1].ref 'r' is also messages[0].ref"),
    ("memory_write", {"text": "ok", "facts": [{"subject": "a", "relation": "!!", "object": "b"}]}, "relation"),
    # an unknown key in an entity or a fact is refused, not dropped: "alias" for "aliases" would
    # write the entity without its alias, and the caller would never know
    ("memory_write", {"text": "Robert Smith is my manager.",
                      "entities": [{"name": "Robert Smith", "type": "person", "alias": ["Bob"]}]},
     "entities.0.alias: Extra inputs are not permitted"),
    ("memory_write", {"text": "Robert Smith is my manager.",
                      "facts": [{"subject": "me", "relation": "has_manager", "object": "Robert Smith",
                                 "confidence": 0.9}]},
     "facts.0.confidence: Extra inputs are not permitted"),
    ("memory_write", {"text": "ok", "usr_id": "alice"}, "unknown argument(s) usr_id"),
    ("memory_write", {}, "text"),
    ("memory_recall", {"query": ""}, "query must be non-empty"),
    ("memory_recall", {"query": "x", "limit": 101}, "less than or equal to 100"),
    # a flag is true or false and a count an integer: pydantic's lax mode read "on" as true,
    # and `"erase": "on"` erased the scope
    ("memory_purge_scope", {"user_id": "alice", "confirm": "user:alice", "erase": "on"},
     "erase: Input should be a valid boolean"),
    ("memory_purge_scope", {"user_id": "alice", "confirm": "user:alice", "erase": 1}, "erase: Input should be a valid"),
    ("memory_recall", {"query": "x", "include_retired": "yes"}, "include_retired: Input should be a valid boolean"),
    ("memory_recall", {"query": "x", "include_retired": "off"}, "include_retired: Input should be a valid boolean"),
    ("memory_list", {"include_retired": 1}, "include_retired: Input should be a valid boolean"),
    ("memory_recall", {"query": "x", "limit": True}, "limit: Input should be a valid integer"),
    ("memory_recall", {"query": "x", "limit": "3"}, "limit: Input should be a valid integer"),
    ("memory_list", {"limit": 2.0}, "limit: Input should be a valid integer"),
    ("memory_recall", {"query": "x", "as_of": "31/12/2024"}, "as_of"),
    ("memory_recall", {"query": "x", "known_at": "soon"}, "known_at"),
    ("memory_list", {"cursor": "not-a-cursor"}, "cursor"),
    ("memory_read", {"id": "zzzzzzzzzz"}, "not an id"),
    ("memory_read", {"id": "abc"}, "at least 8"),
    ("memory_read", {"id": "ab" * 40}, "longer than"),
    ("memory_amend", {"id": "0" * 64, "text": "new"}, "no memory with id"),
    ("memory_amend", {"id": "0" * 64, "text": ""}, "no memory with id"),
    ("memory_retire", {"id": "0" * 16}, "no memory with id"),
    ("memory_retire_all", {}, "never retired whole implicitly"),
    # as purge does: a scope that does not exist is no scope with nothing in it (nothing written, no tx)
    ("memory_retire_all", {"user_id": "nobody"}, "memory_retire_all: no scope user:nobody exists"),
    ("memory_retire_all", {"user_id": "alice", "agent_id": "nobody"}, "no scope agent:nobody exists"),
    ("memory_purge_scope", {"user_id": "alice", "confirm": "user:bob"}, "confirm must equal"),
    ("memory_purge_scope", {"user_id": "nobody", "confirm": "user:nobody"}, "no scope"),
    ("memory_list_scopes", {"kind": "planet"}, "kind must be one of"),
]


@pytest.mark.parametrize("tool, arguments, message", BAD, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD)])
async def test_bad_input_is_a_tool_error_and_writes_nothing(server, db_file, tool, arguments, message):
    async with Client(server) as client:
        await ok(client, "memory_write", text="an existing memory")
        before = dump(db_file)
        text = await fails(client, tool, **arguments)
        assert message in text, text
        assert tool in text  # errors name the tool, and nothing of the SDK's machinery
        assert dump(db_file) == before  # (compared while open: closing refreshes planner statistics)


async def test_without_a_default_scope_every_call_must_name_one(db_file):
    async with Client(build_server(make_config(db_file, default_user=None))) as client:
        assert "no scope given" in await fails(client, "memory_write", text="hello")
        assert "(this server has no default scope)" in await fails(client, "memory_list")
        assert "no scope given" in await fails(client, "memory_recall", query="hello")
        assert (await ok(client, "memory_write", text="hello", app_id="notes"))["scopes"] == ["app:notes"]


async def test_an_ambiguous_prefix_lists_the_candidates(server, db_file):
    # two memories whose ids share 8 hex characters (found by trying created_at values)
    seen: dict[str, Node] = {}
    pair = None
    for stamp in range(400_000):
        node = Node("Memory", content="twin", created_at=stamp)
        if node.id[:8] in seen:
            pair = (seen[node.id[:8]], node)
            break
        seen[node.id[:8]] = node
    assert pair is not None
    async with Client(server) as client:
        await ok(client, "memory_write", text="create the scope")
        with WorldDB.open(db_file) as db, db.write() as w:
            scope = w.scope("user", "alice")
            for node in pair:
                w.add(node, parents=[scope])
        text = await fails(client, "memory_read", id=pair[0].id[:8])
        assert "ambiguous" in text and pair[0].id in text and pair[1].id in text
        assert (await ok(client, "memory_read", id=pair[1].id[:16]))["id"] == pair[1].id


@pytest.mark.parametrize("tool, target, message", [
    ("memory_amend", "entity", "is an Entity, not a memory; only a Memory or Turn can be amended"),
    ("memory_amend", "fact", "is a Fact, not a memory"),
    ("memory_retire", "entity", "is an Entity, not a memory; only a Memory, Turn or Fact can be retired"),
    ("memory_amend", "session", "is a Session, not a memory"),
    ("memory_retire", "session", "is a Session, not a memory"),
    # a summary is the consolidator's, derived from memories and rewritten by its next pass
    ("memory_amend", "summary", "is a Summary, not a memory"),
    ("memory_retire", "summary", "is a Summary, not a memory"),
])
async def test_amend_and_retire_refuse_ids_that_are_not_memories(server, db_file, tool, target, message):
    # memory_write and memory_read hand out entity and fact ids; passing one of them on must
    # not close the entity (hiding it from every memory that names it) or supersede a fact
    async with Client(server) as client:
        written = await ok(client, "memory_write", text="Sarah moved to Austin in May 2023.",
                           entities=[{"name": "Sarah"}, {"name": "Austin"}],
                           facts=[{"subject": "Sarah", "relation": "lives_in", "object": "Austin"}])
        with WorldDB.open(db_file) as db, db.write() as w:
            session = w.add(Node("Session", name="chat 1", created_at=1), parents=[w.scope("user", "alice")])
            summary = w.add(Node("Summary", content="Sarah moved to Austin.", created_at=1),
                            parents=[w.scope("user", "alice")])
        ids = {"entity": written["entities"][0]["id"], "fact": written["facts"][0]["id"], "session": session,
               "summary": summary}
        before = dump(db_file)
        arguments = {"id": ids[target][:12]} | ({"text": "Sarah lives in Denver"} if tool == "memory_amend" else {})
        text = await fails(client, tool, **arguments)
        assert message in text and ids[target] in text, text
        assert dump(db_file) == before
        read = await ok(client, "memory_read", id=ids[target])
        assert read["valid_to"] is None and read["superseded_by"] == []


async def test_retiring_a_fact_closes_the_fact_and_keeps_its_memory(server):
    async with Client(server) as client:
        written = await ok(client, "memory_write", text="Sarah moved to Austin in May 2023.",
                           entities=[{"name": "Sarah"}, {"name": "Austin"}],
                           facts=[{"subject": "Sarah", "relation": "lives_in", "object": "Austin"}])
        fact = written["facts"][0]["id"]
        assert (await ok(client, "memory_retire", id=fact, reason="extracted wrongly"))["retired"]
        assert (await ok(client, "memory_read", id=fact))["valid_to"] is not None
        memory = await ok(client, "memory_read", id=written["id"])
        assert memory["valid_to"] is None


async def test_text_of_invisible_characters_alone_is_empty_wherever_text_is_checked(server, db_file):
    """memory_amend's text and a message's content are memory text too; a text that shows
    something keeps its invisible characters, stored as it was given."""
    async with Client(server) as client:
        given = "\ufeffThe gate code is 4471,\u200b then press\u2060 the bell."
        mid = (await ok(client, "memory_write", text=given))["id"]
        assert (await ok(client, "memory_read", id=mid))["text"] == given
        before = dump(db_file)
        amend = await fails(client, "memory_amend", id=mid, text="\u200b\ufeff\u2060")
        assert "memory_amend: text is empty" in amend, amend
        said = await fails(client, "memory_write", messages=[{"role": "user", "content": "hello"},
                                                              {"role": "assistant", "content": "\u200b \u200d"}])
        assert "messages[1].content: text is empty" in said, said
        assert dump(db_file) == before
        assert (await ok(client, "memory_read", id=mid))["text"] == given


async def test_unknown_keys_in_entities_and_facts_are_refused_over_stdio(db_path):
    """Through `worlddb serve`, as a desktop app starts it: the schema a client lists says an
    entity and a fact take no other keys, a call with one is refused naming each key and where
    it is, and nothing is written; with the keys spelt right the same call writes them."""
    async with Client(stdio_params(db_path)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        items = tools["memory_write"].input_schema["$defs"]
        assert items["EntityIn"]["additionalProperties"] is False and items["FactIn"]["additionalProperties"] is False
        await call(client, "memory_write", text="an existing memory")
        before = dump(db_path)
        error = await call_error(
            client, "memory_write", text="Robert Smith is my manager.",
            entities=[{"name": "Robert Smith", "kind": "person", "alias": ["Bob"]}],
            facts=[{"subject": "me", "relation": "has_manager", "object": "Robert Smith", "confidence": 0.9}])
        assert error.startswith("memory_write: invalid arguments:"), error
        for where in ("entities.0.kind", "entities.0.alias", "facts.0.confidence"):
            assert f"{where}: Extra inputs are not permitted" in error, error
        assert dump(db_path) == before
        written = await call(client, "memory_write", text="Robert Smith is my manager.",
                             entities=[{"name": "Robert Smith", "type": "person", "aliases": ["Bob"]}])
        entity = await call(client, "memory_read", id=written["entities"][0]["id"])
        assert entity["entity"]["aliases"] == ["Bob"]


async def test_a_blank_speaker_is_refused_over_stdio_as_in_memory(server, db_file):
    """An empty speaker or role is refused alike whichever transport carries it, and nothing is written."""
    bad = {"text": "I live in Austin.", "metadata": {"speaker": " "}}
    async with Client(server) as client:
        await ok(client, "memory_write", text="an existing memory")
        before = dump(db_file)
        here = await fails(client, "memory_write", **bad)
        assert dump(db_file) == before
    async with Client(stdio_params(db_file)) as client:
        await call(client, "memory_write", text="an existing memory")
        before = dump(db_file)
        there = await call_error(client, "memory_write", **bad)
        assert there == here and "metadata.speaker is blank" in there, (here, there)
        assert dump(db_file) == before
        assert (await call(client, "memory_list"))["memories"][0]["text"] == "an existing memory"
