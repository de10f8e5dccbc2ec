"""The same memory sent twice, as agents send it (a retry after a timeout; a loop that saves what it
heard each turn, with valid_from now on each call), through the real MCP client and the default
model: the second answers `duplicate_of` and writes nothing, not even a transaction's row; while
the same words that state no slot, said on two different days, are two memories, and the words of a
memory a later change revised, said again after it, are written and mark that change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client

from tests.support import dump, locks_after
from worlddb.memory.engine import Engine
from worlddb.memory.scopes import ScopeSet
from worlddb.server import ServerConfig, build_server

from .helpers import ok


def at(**delta) -> str:
    return (datetime.now(UTC) + timedelta(**delta)).isoformat()


@pytest.fixture(scope="module")
def store_file(tmp_path_factory):
    return tmp_path_factory.mktemp("resends") / "memory.db"


@pytest.fixture(scope="module")
def minilm_server(store_file):
    return build_server(ServerConfig(db=str(store_file), default_user="alice", background=False))


async def _listed(client, user: str) -> list[str]:
    return [m["text"] for m in (await ok(client, "memory_list", user_id=user))["memories"]]


@pytest.mark.parametrize("first_from", ["now", None])
@pytest.mark.parametrize("text", ["I went running.", "I live in Austin.", "Remember to buy oat milk."])
async def test_a_resend_with_valid_from_now_is_a_duplicate_and_writes_nothing(minilm_server, store_file, text,
                                                                              first_from):
    async with Client(minilm_server) as client:
        user = f"resend-{len(text)}-{first_from}"
        said = {"metadata": {"speaker": "user"}, "user_id": user}
        first = await ok(client, "memory_write", text=text, **({"valid_from": at()} if first_from else {}), **said)
        before = dump(store_file)
        for later in (timedelta(seconds=2), timedelta(minutes=10)):
            again = await ok(client, "memory_write", text=text, valid_from=at(seconds=later.total_seconds()), **said)
            assert again["duplicate_of"] == first["id"] and again["id"] == first["id"], again
        assert dump(store_file) == before  # no memory, no empty transaction
        assert await _listed(client, user) == [text]


async def test_the_same_event_on_two_days_is_two_memories(minilm_server):
    async with Client(minilm_server) as client:
        user = "runner"
        monday = await ok(client, "memory_write", text="I went running.", valid_from=at(days=-2), user_id=user)
        today = await ok(client, "memory_write", text="I went running.", valid_from=at(), user_id=user)
        assert today["duplicate_of"] is None and today["id"] != monday["id"]
        assert monday["id"] in today["related"]
        assert await _listed(client, user) == ["I went running.", "I went running."]
        # what holds on is said again, not done again: still one memory
        home = await ok(client, "memory_write", text="I live in Austin.", valid_from=at(days=-2), user_id=user)
        again = await ok(client, "memory_write", text="I live in Austin.", valid_from=at(), user_id=user)
        assert again["duplicate_of"] == home["id"]


async def test_a_resend_found_under_the_write_lock_writes_no_empty_transaction(minilm_server, store_file,
                                                                              monkeypatch):
    other = Engine.open(store_file, default_user="alice")
    try:
        async with Client(minilm_server) as client:
            user = "retry"
            scopes = {"user_id": user}
            await ok(client, "memory_write", text="I like hiking in the mountains.", **scopes)
            landed, rows = [], []
            text = "Booked the car service for the airport pickup."

            def first_copy_lands() -> None:
                """The resend's first copy, from another server, commits between this write's
                judging and its lock; `rows` is the store as it is then."""
                landed.append(other.write_memory(text, ScopeSet.of(user=user), valid_from=at()))
                rows.extend(dump(store_file))

            locks_after(monkeypatch, minilm_server.engine.engine, first_copy_lands)
            again = await ok(client, "memory_write", text=text, valid_from=at(), **scopes)
            assert again["duplicate_of"] == landed[0].id and again["id"] == landed[0].id
            assert dump(store_file) == rows  # the write found its copy under the lock and recorded nothing
            assert (await _listed(client, user)).count(text) == 1
    finally:
        other.close()


@pytest.mark.parametrize("text", ["User prefers dark mode in the editor.", "We use pnpm, not npm.",
                                  "Priya will review the pull requests."])
async def test_words_that_say_nothing_happened_repeat_a_memory_at_any_time(minilm_server, text):
    async with Client(minilm_server) as client:
        user = f"holds-{len(text)}"
        first = await ok(client, "memory_write", text=text, valid_from=at(days=-9), user_id=user)
        again = await ok(client, "memory_write", text=text, valid_from=at(), user_id=user)
        assert again["duplicate_of"] == first["id"], again
        assert await _listed(client, user) == [text]


@pytest.mark.parametrize(("first", "change"), [
    ("We use pnpm for package management.", "We switched from pnpm to bun."),
    ("I live in Austin and work at Dell.", "I moved to Denver."),
])
async def test_words_a_later_change_ended_said_again_are_written_and_mark_that_change(minilm_server, first, change):
    async with Client(minilm_server) as client:
        user = f"back-{len(first)}"
        said = {"metadata": {"speaker": "user"}, "user_id": user}
        old = await ok(client, "memory_write", text=first, valid_from=at(days=-30), **said)
        switch = await ok(client, "memory_write", text=change, valid_from=at(days=-10), **said)
        assert switch["revised"] == [old["id"]], switch
        # a replay with the first memory's own time, before the change, is still that memory
        replay = await ok(client, "memory_write", text=first, valid_from=at(days=-30), **said)
        assert replay["duplicate_of"] == old["id"], replay
        back = await ok(client, "memory_write", text=first, valid_from=at(), **said)
        assert back["duplicate_of"] is None and back["id"] != old["id"], back
        assert switch["id"] in back["revised"] + back["superseded"], back
        assert (await _listed(client, user)).count(first) == 2
        read = await ok(client, "memory_read", id=switch["id"], user_id=user)
        marks = read["annotations"].get("revised_by", []) + read["superseded_by"]
        assert back["id"] in marks, read["annotations"]
        ids = [h["id"] for h in (await ok(client, "memory_recall", query=first, user_id=user, limit=3))["results"]]
        assert back["id"] in ids[:2] and (switch["id"] not in ids or ids.index(back["id"]) < ids.index(switch["id"]))


async def test_an_imported_item_in_the_words_of_a_memory_changed_since_is_written(minilm_server, store_file):
    async with Client(minilm_server) as client:
        user = "batch-back"
        said = {"metadata": {"speaker": "user"}, "user_id": user}
        text = "We use pnpm for package management."
        old = await ok(client, "memory_write", text=text, valid_from=at(days=-30), **said)
        await ok(client, "memory_write", text="We switched from pnpm to bun.", valid_from=at(days=-10), **said)
        other = Engine.open(store_file, default_user="alice")
        try:  # an import's batch, which nothing judges, dedupes only what still says it
            items = [{"text": text, "valid_from": at(days=-30), "metadata": {"speaker": "user"}},
                     {"text": text, "metadata": {"speaker": "user"}}]
            replay, back = other.write_memories(items, ScopeSet.of(user=user))
        finally:
            other.close()
        assert replay.duplicate_of == old["id"] and back.duplicate_of is None, (replay, back)
        assert (await _listed(client, user)).count(text) == 2


async def test_history_sent_again_with_its_own_time_is_a_duplicate_of_it(minilm_server, store_file):
    other = Engine.open(store_file, default_user="alice")  # opened first: opening records statistics
    try:
        async with Client(minilm_server) as client:
            user = "replayed"
            said = {"metadata": {"speaker": "user"}, "user_id": user}
            austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=at(days=-60), **said)
            denver = await ok(client, "memory_write", text="I moved to Denver.", valid_from=at(days=-20), **said)
            assert denver["superseded"] == [austin["id"]]
            before = dump(store_file)
            again = await ok(client, "memory_write", text="I live in Austin.", valid_from=at(days=-60), **said)
            assert again["duplicate_of"] == austin["id"] and again["id"] == austin["id"], again
            # an import run twice: each item is what it was
            items = [{"text": "I live in Austin.", "valid_from": at(days=-60), "metadata": {"speaker": "user"}},
                     {"text": "I moved to Denver.", "valid_from": at(days=-20), "metadata": {"speaker": "user"}}]
            results = other.write_memories(items, ScopeSet.of(user=user))
            assert [r.duplicate_of for r in results] == [austin["id"], denver["id"]]
            assert dump(store_file) == before
            # said again now, after the move, it is a move back, not a repeat
            back = await ok(client, "memory_write", text="I live in Austin.", valid_from=at(), **said)
            assert back["duplicate_of"] is None and back["superseded"] == [denver["id"]], back
    finally:
        other.close()


async def test_words_said_again_mark_no_change_outside_the_writes_scopes(minilm_server):
    async with Client(minilm_server) as client:
        text = "We use pnpm for package management."
        speaker = {"metadata": {"speaker": "user"}}
        old = await ok(client, "memory_write", text=text, valid_from=at(days=-30), user_id="quill", app_id="cli",
                       **speaker)
        # the switch is said in the app's scope alone, which holds the first memory too
        switch = await ok(client, "memory_write", text="We switched from pnpm to bun.", valid_from=at(days=-10),
                          app_id="cli", **speaker)
        assert switch["revised"] == [old["id"]], switch
        back = await ok(client, "memory_write", text=text, valid_from=at(), user_id="quill", **speaker)
        assert back["duplicate_of"] is None and back["revised"] == [] and back["superseded"] == [], back
        read = await ok(client, "memory_read", id=switch["id"], app_id="cli")
        assert back["id"] not in read["annotations"].get("revised_by", [])
