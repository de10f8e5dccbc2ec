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
