"""Things stopped, left or called off, written as memories of their own through the real MCP client with the
default embedding model: a device or medicine taken or used for a condition ends when the speaker stops using
it, a job said with how one works ("works remotely for Brightline") ends when the speaker leaves it or has a
last day there, an event named with its time and called off in the passive ("The dentist appointment on
Friday is cancelled") ends the memory of that time, and a group's book restated ("The book club is now
reading ...") replaces the one it read. What is someone else's, another thing, or a thing two memories fit
marks nothing."""

from __future__ import annotations

import itertools
from datetime import date, timedelta

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import ok

_SCOPES = itertools.count()


@pytest.fixture(scope="module")
def minilm_server(tmp_path_factory):
    return build_server(ServerConfig(db=str(tmp_path_factory.mktemp("ended") / "memory.db"), default_user="alice",
                                     background=False))


async def _write_all(client, texts: list[str], gap_days: int = 12) -> tuple[str, list[dict]]:
    """Each text written in turn, `gap_days` apart, in a scope of its own, as the user's."""
    user = f"ended-{next(_SCOPES)}"
    written = []
    for n, text in enumerate(texts):
        when = (date(2024, 3, 1) + timedelta(days=n * gap_days)).isoformat()
        written.append(await ok(client, "memory_write", text=text, valid_from=when, user_id=user,
                                metadata={"speaker": "user"}))
    return user, written


@pytest.mark.parametrize(("old", "new", "question"), [
    ("I take an albuterol inhaler.", "I stopped using the albuterol inhaler.", "What medications do I take?"),
    ("User uses an inhaler for asthma.", "User no longer uses the inhaler.", "What medications does the user take?"),
    ("I take Symbicort for my asthma.", "I stopped taking Symbicort.", "What medications do I take?"),
    ("User works remotely for Brightline.", "User's last day at Brightline was Friday.", "Where does the user work?"),
    ("User now works remotely for Brightline as a designer.", "User left Brightline.", "Where does the user work?"),
    ("I have a dentist appointment on Friday at 3pm.", "The dentist appointment on Friday is cancelled.",
     "When is my dentist appointment?"),
    ("I have a dentist appointment on Friday at 3pm.", "The dentist on Friday is off.",
     "When is my dentist appointment?"),
    ("User's book club is reading Piranesi this month.", "The book club is now reading Klara and the Sun.",
     "What is the book club reading?"),
])
async def test_a_thing_stopped_left_or_called_off_ends_the_memory_of_it(minilm_server, old, new, question):
    async with Client(minilm_server) as client:
        user, (first, second) = await _write_all(client, [old, new])
        assert second["superseded"] == [first["id"]] and second["revised"] == [], (old, new)
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["valid_to"] is not None
        hits = (await ok(client, "memory_recall", query=question, user_id=user, limit=3))["results"]
        assert hits[0]["id"] == second["id"] and first["id"] not in [h["id"] for h in hits]


async def test_a_device_stopped_leaves_the_other_medications_current(minilm_server):
    async with Client(minilm_server) as client:
        user, (inhaler, metformin, stopped) = await _write_all(
            client, ["I take an albuterol inhaler.", "I take metformin.", "I stopped using the albuterol inhaler."])
        assert stopped["superseded"] == [inhaler["id"]]
        hits = (await ok(client, "memory_recall", query="What medications do I take?", user_id=user, limit=3))
        assert metformin["id"] in [h["id"] for h in hits["results"]]
        assert (await ok(client, "memory_read", id=metformin["id"], user_id=user))["valid_to"] is None


@pytest.mark.parametrize("writes", [
    # another person's inhaler, or the speaker's stop of what another uses; a tool and a bus are no medicine
    ["My sister uses an inhaler for asthma.", "I stopped using the inhaler."],
    ["I take an albuterol inhaler.", "My sister stopped using her inhaler."],
    ["I use VS Code.", "I stopped using the albuterol inhaler."],
    ["I take the bus to work.", "I stopped using the albuterol inhaler."],
    # another employer left, or the same one by someone else
    ["User works remotely for Brightline.", "User left Acme."],
    ["User works remotely for Brightline.", "User's sister left Brightline."],
    # another thing called off, someone else's, or a name two scheduled things fit
    ["I have a dentist appointment on Friday at 3pm.", "The vet appointment on Friday is cancelled."],
    ["I have a dentist appointment on Friday at 3pm.", "The vet appointment is cancelled."],
    ["I have a dentist appointment on Friday at 3pm.", "My sister's dentist appointment on Friday is cancelled."],
    ["I have a dentist appointment on Friday at 3pm.", "I have a vet appointment on Monday at 10am.",
     "The appointment on Friday is cancelled."],
    # what the speaker reads, or another's group, is not the club's book
    ["User's book club is reading Piranesi this month.", "User is reading Dune."],
    ["User's book club is reading Piranesi this month.", "User's sister's book club is now reading Dune."],
])
async def test_what_is_not_the_thing_stopped_marks_nothing(minilm_server, writes):
    async with Client(minilm_server) as client:
        user, written = await _write_all(client, writes)
        last = written[-1]
        assert last["superseded"] == [] and last["revised"] == [] and last["conflicts"] == [], writes
        for memory in written[:-1]:
            read = await ok(client, "memory_read", id=memory["id"], user_id=user)
            assert read["valid_to"] is None and "revised_by" not in read["annotations"], writes
