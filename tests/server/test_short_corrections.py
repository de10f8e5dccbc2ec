"""Short corrections and cancellations written as memories of their own, one memory_write per message, as an
agent meets them through the real MCP client with the default embedding model: "actually, it's Tuesday"
revises the memory that just stated the time (worlddb.memory.turn_updates.memory_restated), and a thing
called off in any of the usual words ends or marks the memory of its time (the slot reader's status, and
worlddb.extract.unread_change where the thing is named otherwise)."""

from __future__ import annotations

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import ok

STATED = "dentist appointment is Monday Dec 14 at 2pm"
QUESTION = "When is my dentist appointment?"


@pytest.fixture(scope="module")
def minilm_server(tmp_path_factory):
    return build_server(ServerConfig(db=str(tmp_path_factory.mktemp("short") / "memory.db"), default_user="alice",
                                     background=False))


async def write(client, user: str, text: str, when: str, speaker: str | None = "user") -> dict:
    extra = {"metadata": {"speaker": speaker}} if speaker else {}
    return await ok(client, "memory_write", text=text, valid_from=when, user_id=user, **extra)


@pytest.mark.parametrize("speaker", ["user", None])
@pytest.mark.parametrize("fix", ["actually, it's Tuesday", "sorry, I meant Tuesday the 15th",
                                 "No wait, Tuesday at 3pm.", "oh wait sorry, it's Tuesday the 15th"])
async def test_a_memory_that_names_only_the_right_time_revises_the_time_just_said(minilm_server, fix, speaker):
    async with Client(minilm_server) as client:
        user = f"fix-{len(fix)}-{speaker}"
        said = await write(client, user, STATED, "2024-11-20", speaker)
        # written right after, dated by the client's day (the next one: said across midnight)
        fixed = await write(client, user, fix, "2024-11-21", speaker)
        assert fixed["revised"] == [said["id"]] and fixed["superseded"] == []
        read = await ok(client, "memory_read", id=said["id"], user_id=user)
        assert read["valid_to"] is None and read["annotations"]["revised_by"] == [fixed["id"]]
        hits = (await ok(client, "memory_recall", query=QUESTION, user_id=user, limit=3))["results"]
        assert [h["id"] for h in hits[:2]] == [fixed["id"], said["id"]]


FIXED = [(STATED, "user", "2024-11-20"), ("oh wait sorry, it's Tuesday the 15th", "user", "2024-11-20")]
NOT_RESTATED = [
    # no word owns a mistake; the time is said again; a statement of the same voice between; an assistant's
    # question between; another person's correction; dated long after, or before, the time said; a statement
    # of no time
    [(STATED, "user", "2024-11-20"), ("it's Tuesday the 15th", "user", "2024-11-20")],
    [(STATED, "user", "2024-11-20"), ("sorry, it's at 2pm", "user", "2024-11-20")],
    [(STATED, "user", "2024-11-20"), ("I need to buy milk", "user", "2024-11-20"),
     ("sorry, Tuesday", "user", "2024-11-20")],
    [(STATED, "user", "2024-11-20"), ("When should I remind you?", "assistant", "2024-11-20"),
     ("no wait, Sunday", "user", "2024-11-20")],
    [(STATED, "user", "2024-11-20"), ("oh wait sorry, it's Tuesday", "Jon", "2024-11-20")],
    [(STATED, "user", "2024-11-20"), ("oh wait sorry, it's Tuesday the 15th", "user", "2024-12-05")],
    [(STATED, "user", "2024-11-20"), ("oh wait sorry, it's Tuesday the 15th", "user", "2024-11-19")],
    [("I live in Austin", "user", "2024-11-20"), ("sorry, Tuesday", "user", "2024-11-20")],
]


async def test_a_time_named_alone_marks_nothing_but_a_correction_of_the_memory_just_written(minilm_server):
    async with Client(minilm_server) as client:
        for n, writes in enumerate([FIXED, *NOT_RESTATED]):
            written = [await write(client, f"not-restated-{n}", text, when, speaker) for text, speaker, when in writes]
            assert written[-1]["revised"] == ([written[0]["id"]] if writes is FIXED else []), writes
            assert written[-1]["superseded"] == [], writes


@pytest.mark.parametrize(("user", "old", "new", "question"), [
    ("off-imperative", STATED, "cancel the dentist, I'll reschedule later", QUESTION),
    ("off-please", STATED, "Please cancel my dentist appointment.", QUESTION),
    ("off-had-to", STATED, "I had to cancel my dentist appointment", QUESTION),
    ("off-had-to-short", STATED, "I had to cancel the dentist", QUESTION),
    ("off-marathon", "The marathon is on Sunday.", "the marathon is off", "When is the marathon?"),
    ("off-called", "The wedding is on June 5.", "The wedding got called off.", "When is the wedding?"),
    ("off-decided", "Our team offsite is on Friday the 9th.", "We decided to call off the team offsite.",
     "When is our team offsite?"),
])
async def test_a_thing_called_off_in_other_words_marks_its_time_and_answers_first(minilm_server, user, old, new,
                                                                                 question):
    async with Client(minilm_server) as client:
        first = await write(client, user, old, "2024-11-20")
        second = await write(client, user, new, "2024-11-21")
        assert [*second["superseded"], *second["revised"]] == [first["id"]]
        hits = (await ok(client, "memory_recall", query=question, user_id=user, limit=3))["results"]
        assert hits[0]["id"] == second["id"]
        if second["revised"]:
            assert hits[1]["id"] == first["id"] and hits[1]["annotations"]["revised_by"] == [second["id"]]


@pytest.mark.parametrize(("user", "old", "new"), [
    ("keep-never", STATED, "I never cancel on friends"),
    ("keep-asked", STATED, "can you cancel my gym membership?"),
    ("keep-asked-stored", "My gym membership renews on the 1st.", "can you cancel my gym membership?"),
    ("keep-power", STATED, "the power is off"),
    ("keep-power-visit", "The power company visit is on Friday.", "the power is off"),
    ("keep-off-to", STATED, "off to the dentist"),
    ("keep-later", STATED, "I might have to cancel my dentist appointment"),
])
async def test_what_cancels_nothing_stored_marks_nothing(minilm_server, user, old, new):
    async with Client(minilm_server) as client:
        first = await write(client, user, old, "2024-11-20")
        second = await write(client, user, new, "2024-11-21")
        assert second["superseded"] == [] and second["revised"] == [] and second["conflicts"] == []
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["valid_to"] is None and "revised_by" not in read["annotations"]


@pytest.mark.parametrize(("old", "new"), [
    ("I have a dentist appointment on Friday.", "Cancel the dentist."),
    ("I have a dentist appointment on Friday.", "The dentist is off."),
    ("I have a dentist appointment on Friday.", "The dentist appointment is cancelled."),
    (STATED, "Cancel the dentist."),
    (STATED, "The dentist is off."),
    ("My dentist appointment is on Friday.", "Cancel the dentist, I'll rebook."),
    ("We have a team offsite next Friday.", "Our offsite got cancelled."),
    ("I have a piano lesson on Tuesday at 5pm.", "The piano lesson is off!"),
    # a trip named by where it goes, and given a month only
    ("I'm planning a trip to Tokyo in October.", "We called off the Tokyo trip."),
    ("User is planning a trip to Tokyo in October.", "User cancelled the Tokyo trip."),
    ("I booked a flight to Lisbon for March 3.", "I had to cancel the Lisbon flight."),
])
async def test_a_thing_called_off_by_a_word_of_its_name_ends_its_time(minilm_server, old, new):
    async with Client(minilm_server) as client:
        user = f"end-{abs(hash((old, new)))}"
        first = await write(client, user, old, "2024-11-20")
        second = await write(client, user, new, "2024-11-21")
        assert second["superseded"] == [first["id"]] and second["revised"] == []
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["valid_to"] is not None and read["superseded_by"] == [second["id"]]


@pytest.mark.parametrize(("olds", "new"), [
    # two things the name fits: which one is not said
    (["I have a vet appointment on Monday.", "I have a dentist appointment on Friday."], "Cancel the appointment."),
    (["I have a dentist appointment on Friday.", "My dentist appointment on the 3rd is at 4pm."],
     "The dentist is off."),
    # a word the thing's name shares, not its name
    (["The power company visit is on Friday."], "The power is off."),
    (["I have a team meeting on Friday."], "The team lunch is off."),
    (["I'm planning a trip to Tokyo in October."], "We called off the Kyoto trip."),
    (["I have a dentist appointment on Friday."], "Is the dentist off?"),
    # another's thing
    (["I have a dentist appointment on Friday."], "My sister's dentist is off."),
])
async def test_a_name_that_fits_no_one_thing_ends_none(minilm_server, olds, new):
    async with Client(minilm_server) as client:
        user = f"keep-{abs(hash((*olds, new)))}"
        firsts = [await write(client, user, old, "2024-11-20") for old in olds]
        second = await write(client, user, new, "2024-11-21")
        assert second["superseded"] == []
        for first in firsts:
            assert (await ok(client, "memory_read", id=first["id"], user_id=user))["valid_to"] is None


@pytest.mark.parametrize(("olds", "fix", "question"), [
    (["I live in Austin."], "Nope, Denver now.", "Where do I live?"),
    (["I live in Austin."], "Actually Denver.", "Where do I live?"),
    (["I live in Austin."], "Sorry, I meant Salt Lake City.", "Where do I live?"),
    (["I live in Austin.", "I work at Google."], "No wait, Denver.", "Where do I live?"),
    (["I work at Google."], "Actually Microsoft.", "Where do I work?"),
    (["I work at Google."], "Oops, it's Goldman Sachs.", "Where do I work?"),
])
async def test_a_correction_naming_only_a_name_supersedes_the_one_recent_slot_of_its_kind(minilm_server, olds, fix,
                                                                                        question):
    # as "Actually I live in Denver" does: the slot's old value ends, its fact with it
    async with Client(minilm_server) as client:
        user = f"renamed-{abs(hash((*olds, fix)))}"
        firsts = [await write(client, user, old, "2024-11-20") for old in olds]
        fixed = await write(client, user, fix, "2024-11-21")
        assert fixed["superseded"] == [firsts[0]["id"]] and fixed["revised"] == []
        read = await ok(client, "memory_read", id=firsts[0]["id"], user_id=user)
        assert read["valid_to"] is not None and read["superseded_by"] == [fixed["id"]]
        assert all(f["valid_to"] is not None for f in read["facts"])
        for other in firsts[1:]:
            assert (await ok(client, "memory_read", id=other["id"], user_id=user))["valid_to"] is None
        hits = (await ok(client, "memory_recall", query=question, user_id=user, limit=3))["results"]
        assert firsts[0]["id"] not in [h["id"] for h in hits]


async def test_a_name_correcting_one_slot_of_a_memory_that_says_more_revises_it(minilm_server):
    async with Client(minilm_server) as client:
        said = await write(client, "renamed-part", "I live in Austin and work at Google.", "2024-11-20")
        fixed = await write(client, "renamed-part", "Actually Denver.", "2024-11-21")
        assert fixed["superseded"] == [] and fixed["revised"] == [said["id"]]
        read = await ok(client, "memory_read", id=said["id"], user_id="renamed-part")
        assert read["valid_to"] is None and read["annotations"]["revised_by"] == [fixed["id"]]


RENAMED_NOTHING = [
    # no correction; no name; the name of no recent slot's kind; two recent slots of its kind; the old
    # value again; a correction long after; another person's; an assistant's question between
    [("I live in Austin.", "user", "2024-11-20"), ("Denver is nice.", "user", "2024-11-21")],
    [("I live in Austin.", "user", "2024-11-20"), ("Nope.", "user", "2024-11-21")],
    [("I live in Austin.", "user", "2024-11-20"), ("Actually Microsoft.", "user", "2024-11-21")],
    [("I live in Austin.", "user", "2024-11-20"), ("No, Sarah.", "user", "2024-11-21")],
    [("I work at Google.", "user", "2024-11-20"), ("Actually Denver.", "user", "2024-11-21")],
    [("My sister lives in Chicago.", "user", "2024-11-20"), ("I live in Austin.", "user", "2024-11-20"),
     ("Actually Denver.", "user", "2024-11-21")],
    [("I live in Austin.", "user", "2024-11-20"), ("Actually, Austin.", "user", "2024-11-21")],
    [("I live in Austin.", "user", "2024-11-20"), ("Actually Denver.", "user", "2024-12-20")],
    [("I live in Austin.", "user", "2024-11-20"), ("Nope, Denver now.", "Jon", "2024-11-21")],
    [("I live in Austin.", "user", "2024-11-20"), ("Where would you rather live?", "assistant", "2024-11-20"),
     ("Actually Denver.", "user", "2024-11-21")],
]


@pytest.mark.parametrize("writes", RENAMED_NOTHING)
async def test_a_name_alone_that_fits_no_one_recent_slot_marks_nothing(minilm_server, writes):
    async with Client(minilm_server) as client:
        user = f"renamed-not-{abs(hash(tuple(writes)))}"
        written = [await write(client, user, text, when, speaker) for text, speaker, when in writes]
        assert written[-1]["superseded"] == [] and written[-1]["revised"] == [] and written[-1]["conflicts"] == []
        for first in written[:-1]:
            assert (await ok(client, "memory_read", id=first["id"], user_id=user))["valid_to"] is None


async def test_two_things_each_called_off_are_two_changes_neither_of_the_other(minilm_server):
    # the last resort's guess (worlddb.extract.unread_change) read "I cancelled Spotify" as a change of
    # "I cancelled Netflix", which is still true
    async with Client(minilm_server) as client:
        user = "two-ends"
        netflix = await write(client, user, "I cancelled Netflix.", "2024-11-01")
        spotify = await write(client, user, "I cancelled Spotify.", "2025-05-01")
        assert spotify["superseded"] == [] and spotify["revised"] == []
        read = await ok(client, "memory_read", id=netflix["id"], user_id=user)
        assert read["valid_to"] is None and "revised_by" not in read["annotations"]
        # a thing the new one ends, named in the old one, is still what it changes
        subscribed = await write(client, "one-end", "I subscribe to Netflix and Spotify.", "2024-11-01")
        ended = await write(client, "one-end", "I cancelled Spotify.", "2025-05-01")
        assert ended["revised"] == [subscribed["id"]]
