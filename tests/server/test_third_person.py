"""The user named in the third person, as an agent's note names them ("User lives in Chicago",
"User's manager is Lena Park", "The user moved from Chicago to Denver"), through the real MCP
client with the default embedding model: such a note changes what the user's own words would
change, a note about someone of the user's changes nothing of another person's, "user" inside
another phrase names no one, and the assistant's notes of the user are the user's."""

from __future__ import annotations

import itertools

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import ok

_SCOPES = itertools.count()


@pytest.fixture(scope="module")
def minilm_server(tmp_path_factory):
    return build_server(ServerConfig(db=str(tmp_path_factory.mktemp("third") / "memory.db"), default_user=None,
                                     background=False))


@pytest.fixture
def connect(minilm_server):
    """A client of the module's server whose calls name a scope of their own (`user_id`)."""
    class Scoped:
        def __init__(self, client, user):
            self.client, self.user = client, user

        async def call_tool(self, tool, arguments):
            return await self.client.call_tool(tool, {"user_id": self.user, **arguments})

    class Connect:
        async def __aenter__(self):
            self.inner = Client(minilm_server)
            return Scoped(await self.inner.__aenter__(), f"third-{next(_SCOPES)}")

        async def __aexit__(self, *exc):
            return await self.inner.__aexit__(*exc)

    return Connect


async def _marks(client, memory: str) -> tuple[str | None, list[str], list[str]]:
    """A memory's valid_to, superseded_by and revised_by, as memory_read gives them."""
    read = await ok(client, "memory_read", id=memory)
    return read["valid_to"], read["superseded_by"], read["annotations"].get("revised_by", [])


@pytest.mark.parametrize(("old", "new"), [
    ("User's manager is Lena Park.", "User's new manager is Omar Haddad."),
    ("The user's manager is Lena Park.", "The user's new manager is Omar Haddad."),
    ("Lena Park is the user's manager.", "User's manager is Omar Haddad now."),
    ("User's manager at Helio Health is Lena Park.", "User's new manager is Omar Haddad."),
    ("User works at Dell.", "The user now works at Stripe."),
    ("User's email is ana@old.example.", "User's new email is ana@new.example."),
])
async def test_a_note_of_the_user_changes_what_the_user_said(connect, old, new):
    async with connect() as client:
        first = await ok(client, "memory_write", text=old, valid_from="2026-01-13")
        second = await ok(client, "memory_write", text=new, valid_from="2026-09-22")
        assert second["superseded"] == [first["id"]]
        valid_to, superseded_by, _ = await _marks(client, first["id"])
        assert superseded_by == [second["id"]] and valid_to.startswith("2026-09-22")


@pytest.mark.parametrize("texts", [
    ("User lives in Chicago.", "User moved from Chicago to Denver.", "User moved to Seattle."),
    ("I live in Chicago.", "I moved from Chicago to Denver.", "I moved to Seattle."),
    ("The user lives in Chicago.", "The user relocated from Chicago to Denver.", "The user moved to Seattle."),
])
async def test_a_move_from_one_place_to_another_ends_the_old_home(connect, texts):
    async with connect() as client:
        ids = []
        for text, day in zip(texts, ("2025-01-06", "2025-06-15", "2026-04-10"), strict=True):
            ids.append((await ok(client, "memory_write", text=text, valid_from=day))["id"])
        chicago, denver, seattle = [await _marks(client, i) for i in ids]
        assert chicago[0].startswith("2025-06-15") and chicago[1] == [ids[1]]
        assert denver[0].startswith("2026-04-10") and denver[1] == [ids[2]]
        assert seattle == (None, [], [])


@pytest.mark.parametrize(("old", "new"), [
    ("User's brother Tom lives in Austin.", "User's friend Mike moved to Denver."),
    ("User lives in Lisbon and works as a barista at Fabrica.", "User's sister Ana lives in Tokyo and works at Sony."),
    ("User lives in Chicago.", "The user's sister Ana moved from Oslo to Bergen."),
])
async def test_a_note_of_someone_of_the_users_marks_no_one_else(connect, old, new):
    async with connect() as client:
        first = await ok(client, "memory_write", text=old, valid_from="2025-01-10")
        second = await ok(client, "memory_write", text=new, valid_from="2025-08-30")
        assert second["superseded"] == [] and second["revised"] == []
        assert await _marks(client, first["id"]) == (None, [], [])


@pytest.mark.parametrize("new", [
    "The user interface moved to React.",
    "User stories moved to the new board.",
    "We moved the meeting from Monday to Tuesday.",
    "I went from manager to director.",
])
async def test_user_in_another_phrase_and_other_moves_leave_the_home(connect, new):
    async with connect() as client:
        first = await ok(client, "memory_write", text="User lives in Chicago.", valid_from="2025-01-10")
        second = await ok(client, "memory_write", text=new, valid_from="2025-08-30")
        assert second["superseded"] == [] and second["revised"] == []
        assert await _marks(client, first["id"]) == (None, [], [])


async def test_an_assistants_note_of_the_user_is_the_users(connect):
    async with connect() as client:
        # a memory said by the assistant: its sentences about the user are the user's, its "I" its own
        home = await ok(client, "memory_write", text="I live in Chicago.", valid_from="2025-01-10")
        said = await ok(client, "memory_write", text="User said they moved to Austin. I am glad to help.",
                        metadata={"speaker": "assistant"}, valid_from="2025-08-30")
        assert said["superseded"] == [home["id"]]
        # an assistant's turn restating the user in the third person is marked as the user's turn is
        chat = await ok(client, "memory_write", valid_from="2025-02-01", messages=[
            {"role": "user", "content": "I work at Dell."},
            {"role": "assistant", "content": "Noted: the user works at Dell."}])
        stripe = await ok(client, "memory_write", text="I'm now at Stripe.", valid_from="2025-09-01")
        assert sorted(stripe["revised"]) == sorted(t["id"] for t in chat["turns"])
