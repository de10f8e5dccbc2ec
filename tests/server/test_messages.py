"""memory_write with messages through real MCP clients: in memory, over stdio, over HTTP."""

from __future__ import annotations

import re

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bench.serverproc import call, stdio_params

from .helpers import dump, fails, ok
from .test_http import TOKEN, running

pytestmark = pytest.mark.both_backends

MESSAGES = [
    {"role": "Caroline", "content": "I went to an LGBTQ support group yesterday.", "ref": "D1:1"},
    {"role": "Melanie", "content": "That sounds lovely! I painted a lake at sunrise.", "ref": "D1:2",
     "caption": "a painting of a lake at sunrise"},
]
MORE = [{"role": "Caroline", "content": "It is beautiful. Are you going camping this summer?", "ref": "D1:3"}]


async def write_and_continue(client) -> tuple[dict, dict]:
    first = await call(client, "memory_write", messages=MESSAGES, session="chat-1", valid_from="2023-05-08T13:56:00Z")
    second = await call(client, "memory_write", messages=MORE, session="chat-1")
    assert second["session"] == first["session"] == first["id"]
    assert [t["ref"] for t in first["turns"] + second["turns"]] == ["D1:1", "D1:2", "D1:3"]
    assert {e["name"] for e in first["entities"]} >= {"Caroline", "Melanie"}
    hits = (await call(client, "memory_recall", query="who painted a lake at sunrise?", limit=3))["results"]
    assert hits[0]["id"] == first["turns"][1]["id"]
    assert hits[0]["session"] == first["session"] and hits[0]["speaker"] == "Melanie"
    return first, second


async def test_messages_are_written_and_continued_in_memory(connect):
    async with connect() as client:
        first, second = await write_and_continue(client)
        session = await ok(client, "memory_read", id=first["session"])
        assert session["type"] == "Session" and "Caroline, Melanie" in session["text"]
        turn = await ok(client, "memory_read", id=second["turns"][0]["id"])
        assert turn["type"] == "Turn" and turn["metadata"]["turn_id"] == "D1:3"


async def test_the_session_id_a_write_returns_continues_the_session_as_the_callers_own_does(connect):
    async with connect() as client:
        first = await ok(client, "memory_write", messages=MESSAGES, session="chat-9",
                         valid_from="2023-05-08T13:56:00Z")
        # an agent that keeps the id it was given, not its own
        second = await ok(client, "memory_write", messages=MORE, session=first["session"])
        third = await ok(client, "memory_write", session="chat-9", messages=[
            {"role": "Melanie", "content": "Yes, we are going camping in July!", "ref": "D1:4"}])
        assert first["session"] == second["session"] == third["session"]
        session = await ok(client, "memory_read", id=first["session"])
        assert [t["ref"] for t in first["turns"] + second["turns"] + third["turns"]] == ["D1:1", "D1:2", "D1:3",
                                                                                          "D1:4"]
        assert len({t["id"] for t in first["turns"] + second["turns"] + third["turns"]}) == 4
        assert session["type"] == "Session"


async def test_a_conversation_given_no_session_id_is_continued_by_the_one_its_write_returned(connect):
    async with connect() as client:
        first = await ok(client, "memory_write", messages=MESSAGES, valid_from="2023-05-08T13:56:00Z")
        second = await ok(client, "memory_write", messages=MORE, session=first["session"])
        assert second["session"] == first["session"]  # one session, not a second one named by the first's id
        # with a scope it is not in, it is refused
        error = await fails(client, "memory_write", messages=MORE, session=first["session"], app_id="team",
                            user_id="alice")
        assert "not in exactly these scopes" in error


async def test_a_conversation_sent_again_with_more_writes_only_the_messages_it_adds(connect):
    async with connect() as client:
        first = await ok(client, "memory_write", messages=MESSAGES, session="chat-7",
                         valid_from="2023-05-08T13:56:00Z")
        # a client that sends the whole conversation each time, one message longer
        again = await ok(client, "memory_write", messages=MESSAGES + MORE, session="chat-7")
        assert [t["ref"] for t in again["turns"]] == ["D1:1", "D1:2", "D1:3"]
        assert [t["id"] for t in again["turns"][:2]] == [t["id"] for t in first["turns"]]
        assert again["session"] == first["session"]
        # nothing new: nothing written, the same turns
        same = await ok(client, "memory_write", messages=MESSAGES + MORE, session="chat-7")
        assert same["turns"] == again["turns"] and same["session"] == first["session"]
        listed = await ok(client, "memory_list", limit=50)
        turns = [m for m in listed["memories"] if m["type"] == "Turn"]
        assert len(turns) == 3
        # a message after the stored ones but dated before the session's last turn is named by its
        # own place in the call
        early = [*MESSAGES, {"role": "Caroline", "content": "Sorry, I meant to say that earlier.",
                             "time": "2023-05-08T13:57:00Z"}]
        refused = await fails(client, "memory_write", messages=early, session="chat-7",
                              valid_from="2023-05-08T13:56:00Z")
        assert "messages[2]" in refused and "before the last turn" in refused
        # a known ref with other words is no repeat: it is a message of its own
        changed = [{**MESSAGES[0], "content": "I went to a book club yesterday."}]
        other = await ok(client, "memory_write", messages=changed, session="chat-7")
        assert other["turns"][0]["id"] not in [t["id"] for t in again["turns"]]


async def test_a_conversation_sent_again_without_refs_writes_each_message_once(connect):
    chat = [{"role": "user", "content": "I'm allergic to shellfish."},
            {"role": "assistant", "content": "Noted, I'll keep that in mind."},
            {"role": "user", "content": "We moved from Austin to Denver last month."}]
    async with connect() as client:
        calls = [await ok(client, "memory_write", messages=chat[:n], session="chat-8") for n in (1, 2, 3, 3)]
        ids = [t["id"] for t in calls[-1]["turns"]]
        assert len(set(ids)) == 3 and all([t["id"] for t in c["turns"]] == ids[:len(c["turns"])] for c in calls)
        # the last part of the conversation, with what is new
        tail = await ok(client, "memory_write", messages=[*chat[1:], {"role": "user", "content": "Thanks!"}],
                        session="chat-8")
        assert [t["id"] for t in tail["turns"][:2]] == ids[1:] and tail["turns"][2]["id"] not in ids
        listed = await ok(client, "memory_list", limit=50)
        assert len([m for m in listed["memories"] if m["type"] == "Turn"]) == 4
        hits = (await ok(client, "memory_recall", query="What am I allergic to?", limit=5))["results"]
        assert [h["text"] for h in hits].count("I'm allergic to shellfish.") == 1
        # dated messages sent again are the same turns, not messages dated before the session's last
        dated = [{"role": "user", "content": "My cat is named Tofu.", "time": "2026-11-01T10:00:00Z"},
                 {"role": "assistant", "content": "Cute name!", "time": "2026-11-01T10:00:05Z"}]
        once = await ok(client, "memory_write", messages=dated, session="chat-9")
        again = await ok(client, "memory_write", messages=dated, session="chat-9")
        assert again["turns"] == once["turns"]


async def test_a_conversation_sent_again_with_other_spacing_is_the_same_turns_and_what_follows_is_new(connect):
    # a client that strips or re-renders what it sends again: a trailing space, a newline for a space
    first = [{"role": "user", "content": "I live in Austin", "time": "2026-11-20T10:00:00Z"},
             {"role": "assistant", "content": "Got it, Austin!\nAnything else?", "time": "2026-11-20T10:00:05Z"}]
    again = [{**first[0], "content": " I live in  Austin"}, {**first[1], "content": "Got it, Austin! Anything else? "},
             {"role": "user", "content": "and I work at Google", "time": "2026-11-20T10:01:00Z"}]
    untimed = [[{k: v for k, v in m.items() if k != "time"} for m in ms] for ms in (first, again)]
    async with connect() as client:
        for key, (one, two) in (("timed", (first, again)), ("untimed", untimed)):
            stored = await ok(client, "memory_write", messages=one, session=key, user_id=key)
            sent = await ok(client, "memory_write", messages=two, session=key, user_id=key)
            assert [t["id"] for t in sent["turns"][:2]] == [t["id"] for t in stored["turns"]]
            listed = await ok(client, "memory_list", user_id=key, limit=50)
            assert sorted(m["text"] for m in listed["memories"] if m["type"] == "Turn") == \
                sorted([first[0]["content"], first[1]["content"], again[2]["content"]])
        # other words are another message, as before
        other = await ok(client, "memory_write", messages=[*untimed[1][:2], {"role": "user", "content": "Thanks!"}],
                         session="untimed", user_id="untimed")
        assert len({t["id"] for t in other["turns"]}) == 3 and other["turns"][2]["id"] != sent["turns"][2]["id"]


async def test_the_same_words_said_again_with_a_later_time_or_another_ref_are_a_new_turn(connect):
    async with connect() as client:
        asked = [{"role": "assistant", "content": "Shall I book it?", "time": "2026-11-20T10:00:00Z"},
                 {"role": "user", "content": "yes", "time": "2026-11-20T10:00:05Z"}]
        first = await ok(client, "memory_write", messages=asked, session="yes")
        # one message a call, only the user's: "yes" after "yes" is said again when it is dated later
        again = await ok(client, "memory_write", session="yes", messages=[
            {"role": "user", "content": "yes", "time": "2026-11-20T10:00:15Z"}])
        repeat = await ok(client, "memory_write", session="yes", messages=[
            {"role": "user", "content": "yes", "time": "2026-11-20T10:00:15Z"}])
        ids = [t["id"] for t in first["turns"] + again["turns"]]
        assert len(set(ids)) == 3 and repeat["turns"] == again["turns"]
        # a ref tells them apart too
        refs = [await ok(client, "memory_write", session="ref", messages=[{"role": "user", "content": "yes", "ref": r}])
                for r in ("m1", "m2", "m2")]
        assert refs[0]["turns"][0]["id"] != refs[1]["turns"][0]["id"] and refs[2]["turns"] == refs[1]["turns"]
        listed = await ok(client, "memory_list", limit=50)
        assert [m["text"] for m in listed["memories"] if m["type"] == "Turn"].count("yes") == 4


async def test_the_schema_says_text_or_messages(connect):
    async with connect() as client:
        tool = {t.name: t for t in (await client.list_tools()).tools}["memory_write"]
        schema = tool.input_schema
        assert not {"text", "messages"} & set(schema.get("required", []))
        assert "not both" in schema["properties"]["text"]["description"]
        assert "Instead of text" in schema["properties"]["messages"]["description"]
        assert "`text`" in tool.description and "`messages`" in tool.description
        assert schema["properties"]["messages"]["anyOf"][0]["maxItems"] == 500
        message = schema["$defs"]["MessageIn"]
        assert message["required"] == ["role", "content"] and message["additionalProperties"] is False
        assert {"session", "turns"} <= set(tool.output_schema["properties"])


@pytest.mark.parametrize(("arguments", "error"), [
    ({"text": "hello", "messages": MESSAGES}, "not both"),
    ({}, "needs text"),
    ({"text": "hello", "session": "chat-1"}, "session goes with messages"),
    ({"messages": MESSAGES, "metadata": {"a": 1}}, "go with text"),
    ({"messages": MESSAGES, "entities": [{"name": "Caroline"}]}, "go with text"),
    ({"messages": [{"role": "user", "content": "hi"}] * 501}, "messages"),
    ({"messages": [*MESSAGES, {"role": "user", "content": "hi", "speaker": "x"}]}, "messages.2.speaker"),
    ({"messages": [*MESSAGES, {"role": "user", "content": "hi", "time": "soon"}]}, r"messages\[2\].time"),
    ({"messages": [*MESSAGES, {"role": "user", "content": "   "}]}, "text is empty"),
    ({"messages": MESSAGES, "session": "a\tb"}, "session must be"),
    # found only inside the transaction, after the turns were embedded: rolled back whole
    ({"messages": MESSAGES, "session": "chat-1", "user_id": "alice", "agent_id": "helper"},
     "was started in user:alice"),
    # times that run backwards: within the call, before the session began, before where it stopped
    ({"messages": [{"role": "user", "content": "hi", "time": "2023-05-08T14:00:00Z"},
                   {"role": "assistant", "content": "hello", "time": "2023-05-08T13:59:00Z"}]},
     r"messages\[1\] \(2023-05-08T13:59:00Z\) is before messages\[0\]"),
    ({"messages": [{"role": "user", "content": "hi", "time": "2023-05-08T13:00:00Z"}],
      "valid_from": "2023-05-08T13:56:00Z"},
     r"messages\[0\] \(2023-05-08T13:00:00Z\) is before the session's valid_from"),
    ({"messages": [{"role": "user", "content": "hi", "time": "2023-05-08T14:00:00Z"},
                   {"role": "assistant", "content": "hello"},  # said when the one before it was
                   {"role": "user", "content": "bye", "time": "2023-05-08T13:59:00Z"}]},
     r"messages\[2\] \(2023-05-08T13:59:00Z\) is before messages\[1\] \(2023-05-08T14:00:00Z\)"),
    ({"messages": MORE, "session": "chat-1", "valid_from": "2020-01-01T00:00:00Z"},
     r"\(2020-01-01T00:00:00Z\) is before the last turn of session 'chat-1'"),
], ids=["both", "neither", "session with text", "metadata", "entities", "too many", "unknown key", "bad time",
        "blank content", "bad session", "session of other scopes", "times backwards", "before valid_from",
        "after an untimed message", "continued before its end"])
async def test_bad_calls_are_refused_and_write_nothing(connect, db_file, arguments, error):
    async with connect() as client:
        await ok(client, "memory_write", messages=MESSAGES[:1], session="chat-1")
        before = dump(db_file)
        message = await fails(client, "memory_write", **arguments)
        assert message.startswith("memory_write:")
        assert re.search(error, message), message
        assert dump(db_file) == before


async def test_messages_over_stdio(db_path):
    async with Client(stdio_params(db_path)) as client:  # worlddb serve, as a desktop app starts it
        await write_and_continue(client)


async def test_messages_over_http(db_file):
    with running(db_file) as url:
        async with httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                await write_and_continue(client)


async def test_a_session_id_that_reads_as_json_is_kept_as_text(connect):
    async with connect() as client:
        first = await ok(client, "memory_write", messages=MESSAGES, session='{"chat": [1, 2]}')
        second = await ok(client, "memory_write", messages=MORE, session='{"chat": [1, 2]}', text="")
        assert second["session"] == first["session"]


async def test_a_turn_written_as_plain_text_is_found_by_its_speaker(connect):
    """One memory_write per turn, the speaker in metadata: the speaker is the memory's
    speaker entity (not the scope's user), and the speaker lane finds what they said."""
    async with connect() as client:
        said = {}
        for speaker, text in (("Ann", "I signed up for a pottery class yesterday"),
                              ("Ben", "I saw the pottery bowls Ann made at the fair")):
            said[speaker] = await ok(client, "memory_write", text=text, metadata={"speaker": speaker},
                                     valid_from="2023-05-08T13:56:00Z")
        assert {e["name"] for e in said["Ann"]["entities"]} == {"Ann"}  # "I" is Ann, not the user alice
        hits = {h["id"]: h for h in (await ok(client, "memory_recall", query="What pottery has Ann made?"))["results"]}
        assert hits[said["Ann"]["id"]]["lanes"].get("speaker") == 1
        assert "speaker" not in hits[said["Ben"]["id"]]["lanes"]  # Ben only names her


async def test_generic_roles_name_no_person_and_the_user_role_is_the_scopes_user(connect):
    """role "user" is the scope's user (alice, as a plain write's "I" is); assistant, system
    and tool are no one: no entity is named after a role, and the speaker lane still finds
    what a named speaker, and the user, said."""
    chat = [{"role": "user", "content": "I adopted a greyhound called Biscuit last week."},
            {"role": "assistant", "content": "I will remember that you adopted a greyhound."},
            {"role": "system", "content": "The user prefers short answers."},
            {"role": "Caroline", "content": "I signed up for a pottery class on Tuesdays."}]
    async with connect() as client:
        written = await ok(client, "memory_write", messages=chat, session="roles", valid_from="2023-05-08T13:56:00Z")
        names = {e["name"].casefold() for e in written["entities"]}
        assert not names & {"user", "assistant", "system", "tool"}, names
        assert {"alice", "caroline"} <= names
        turns = [t["id"] for t in written["turns"]]
        found = await ok(client, "memory_recall", query="What did Caroline sign up for?")
        hits = {h["id"]: h for h in found["results"]}
        assert hits[turns[3]]["lanes"].get("speaker") == 1
        hits = {h["id"]: h for h in (await ok(client, "memory_recall", query="What dog did Alice adopt?"))["results"]}
        assert hits[turns[0]]["lanes"].get("speaker") == 1
        assert "speaker" not in hits.get(turns[1], {"lanes": {}})["lanes"]  # the assistant only repeats it
        # in a scope without a user, the user's turn is said by no one named
        agent = await ok(client, "memory_write", messages=chat[:2], agent_id="helper")
        assert agent["scopes"] == ["agent:helper"]
        named = {e["name"].casefold() for e in agent["entities"]}
        assert "biscuit" in named and not named & {"user", "assistant", "alice"}, named


async def test_a_turn_that_opens_with_a_name_the_conversation_knows_mentions_it(connect):
    """A capital at the start of a turn is a name once the scope has that entity: an earlier
    turn of the same call named it."""
    chat = [{"role": "Caroline", "content": "My dog Oscar loves the beach."},
            {"role": "Melanie", "content": "Oscar chased the waves all afternoon."},
            {"role": "Caroline", "content": "Crabs scare him a little."}]
    async with connect() as client:
        written = await ok(client, "memory_write", messages=chat, session="dogs", valid_from="2023-05-08T13:56:00Z")
        oscar = next(e["id"] for e in written["entities"] if e["name"] == "Oscar")
        mentions = (await ok(client, "memory_read", id=oscar))["entity"]["mentions"]
        turns = [t["id"] for t in written["turns"]]
        assert {m["id"] for m in mentions} == set(turns[:2])
        assert "crabs" not in {e["name"].casefold() for e in written["entities"]}


async def test_a_question_turn_gives_its_place_to_the_turn_that_answers_it(connect):
    """A turn that only asks names what it asks about, word for word, and states none of it:
    recall ranks the answer after it first, and the question by its neighbours alone (without
    the prior on questions, the question's own words put it first)."""
    chat = [{"role": "Ben", "content": "What activities and hobbies do you enjoy on weekends?", "ref": "D1:1"},
            {"role": "Ann", "content": "Mostly swimming at the lake, and a pottery class on Saturdays.", "ref": "D1:2"},
            {"role": "Ben", "content": "That sounds like a great way to spend the time off.", "ref": "D1:3"}]
    async with connect() as client:
        written = await ok(client, "memory_write", messages=chat, session="chat-9", valid_from="2023-05-08T13:56:00Z")
        question, answer, _ = (t["id"] for t in written["turns"])
        found = await ok(client, "memory_recall", query="Which activities and hobbies are enjoyed on weekends?")
        hits = [h["id"] for h in found["results"]]
        assert hits.index(answer) < hits.index(question)
        assert hits[0] == answer


TRAVEL = [
    {"role": "Jon", "content": "Jon here: I visited the new climbing gym twice this week.", "ref": "D2:1"},
    {"role": "Gina", "content": "Jon, you visited the gym again? I visited my aunt on Sunday.", "ref": "D2:2"},
    {"role": "Jon", "content": "Took a short trip last week to Rome to clear my mind.", "ref": "D2:3"},
    {"role": "Gina", "content": "Jon, have you visited the studio space yet?", "ref": "D2:4"},
    {"role": "Jon", "content": "I visited it on Friday, Gina, the floor needs work.", "ref": "D2:5"},
    {"role": "Gina", "content": "Jon, my cousin visited the store and loved the new jackets.", "ref": "D2:6"},
    {"role": "Jon", "content": "Jon visited the bank about the loan, it went fine.", "ref": "D2:7"},
    {"role": "Gina", "content": "Have you visited the landlord about the heating, Jon?", "ref": "D2:8"},
]


async def test_a_question_asking_for_places_finds_the_turn_that_names_one(connect):
    async with connect() as client:
        written = await ok(client, "memory_write", messages=TRAVEL, session="chat-travel",
                           valid_from="2023-06-01T10:00:00Z")
        rome = written["turns"][2]["id"]
        hits = (await ok(client, "memory_recall", query="Which cities has Jon visited?", limit=3))["results"]
        # no word of the question is in it ("visited" is in every other turn): it names a place
        assert rome in [hit["id"] for hit in hits]
        assert "typed" in next(hit for hit in hits if hit["id"] == rome)["lanes"]
