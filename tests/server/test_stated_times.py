"""A memory written without valid_from whose text states when it became true ("I moved to Berlin last
month", "In 2019 I lived in Lisbon") begins then, as the facts drawn from it do: what it replaces
ends then, and recall as_of a time the text states finds it. A time in the text that is not when
its statement began (an appointment, a birthday, two times, a plan, a time in another clause)
leaves it beginning when it was written, and so does a caller's valid_from. Real MCP client, real
model, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import ok

pytestmark = pytest.mark.both_backends


def days(n: float) -> str:
    """A time `n` days from now (negative: ago)."""
    return (datetime.now(UTC) + timedelta(days=n)).isoformat()


def when(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def first_of_last_month(at: datetime | None = None) -> datetime:
    """The 1st of the month before `at`'s (default: now), as "last month" is read then."""
    first = (at or datetime.now(UTC)).replace(hour=0, minute=0, second=0, microsecond=0, day=1)
    return (first - timedelta(days=1)).replace(day=1)


@pytest.fixture
def stated(db_path):
    return build_server(ServerConfig(db=str(db_path), default_user="alice", background=False))


def _move_phrasings() -> list[tuple[str, datetime]]:
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    year = today.year - 1
    return [("I moved to Berlin last month.", first_of_last_month()),
            ("Two weeks ago I moved to Berlin.", today - timedelta(weeks=2)),
            (f"I moved to Berlin in {year}.", datetime(year, 1, 1, tzinfo=UTC)),
            (f"In {year}, I moved to Berlin.", datetime(year, 1, 1, tzinfo=UTC))]


@pytest.mark.parametrize("text, begins", _move_phrasings(), ids=["last-month", "weeks-ago", "in-year", "year-first"])
async def test_a_change_the_text_dates_begins_then_and_ends_what_it_replaces_then(stated, text, begins):
    async with Client(stated) as client:
        hamburg = await ok(client, "memory_write", text="I live in Hamburg.", valid_from=days(-1500))
        berlin = await ok(client, "memory_write", text=text)
        assert when(berlin["valid_from"]) == begins
        assert [when(f["valid_from"]) for f in berlin["facts"]] == [begins]
        assert berlin["superseded"] == [hamburg["id"]]
        read = await ok(client, "memory_read", id=hamburg["id"])
        assert when(read["valid_to"]) == begins and all(when(f["valid_to"]) == begins for f in read["facts"])
        hits = (await ok(client, "memory_recall", query="Where do I live?",
                         as_of=(begins + timedelta(days=1)).isoformat()))["results"]
        assert hits and hits[0]["id"] == berlin["id"] and hamburg["id"] not in [h["id"] for h in hits]


@pytest.mark.parametrize("text", ["In 2019 I lived in Lisbon.", "I lived in Lisbon in 2019.",
                                  "In 2019, I lived in Lisbon."])
async def test_a_past_state_is_history_written_late_and_found_as_of_then(stated, text):
    async with Client(stated) as client:
        hamburg = await ok(client, "memory_write", text="I live in Hamburg.", valid_from=days(-400))
        lisbon = await ok(client, "memory_write", text=text)
        assert when(lisbon["valid_from"]) == datetime(2019, 1, 1, tzinfo=UTC)
        then = (await ok(client, "memory_recall", query="Where did I live in 2019?", as_of="2019-06-01"))["results"]
        assert [h["id"] for h in then] == [lisbon["id"]]
        # the home of now is left as it was
        assert hamburg["id"] not in lisbon["superseded"] + lisbon.get("revised", [])
        assert (await ok(client, "memory_read", id=hamburg["id"]))["valid_to"] is None


@pytest.mark.parametrize("text", [
    "I have a dentist appointment on Friday.", "My birthday is March 3rd.",
    "I started at Acme in 2019 and left in 2022.", "We're moving in January.",
    "I'm moving to Denver next month.", "I live in Hamburg and my birthday was on March 3rd.",
    "I work at Google and have a meeting tomorrow.", "I moved to Berlin in 2019 and to Paris in 2022.",
    "Last year I visited Rome. I live in Berlin.", "I moved to Berlin last month. My dentist appointment is on Friday.",
])
async def test_a_time_that_is_not_when_the_statement_began_leaves_the_memory_beginning_now(stated, text):
    async with Client(stated) as client:
        before = datetime.now(UTC)
        written = await ok(client, "memory_write", text=text)
        assert before <= when(written["valid_from"]) <= datetime.now(UTC)


async def test_a_callers_valid_from_wins_and_the_fact_keeps_the_texts_time(stated):
    # the text's time is read as of the caller's valid_from, and dates the fact alone
    async with Client(stated) as client:
        given = days(-40)
        berlin = await ok(client, "memory_write", text="I moved to Berlin last month.", valid_from=given)
        assert when(berlin["valid_from"]) == when(given)
        assert [when(f["valid_from"]) for f in berlin["facts"]] == [first_of_last_month(when(given))]


async def test_a_memory_begun_within_the_period_the_text_names_is_followed_in_the_order_written(stated):
    # "last month" does not say whether the move came before or after a memory of the 15th of
    # last month; the order of writing does: the move, written later, ends it, beginning now
    async with Client(stated) as client:
        mid = (first_of_last_month() + timedelta(days=14)).isoformat()
        hamburg = await ok(client, "memory_write", text="I live in Hamburg.", valid_from=mid)
        before = datetime.now(UTC)
        berlin = await ok(client, "memory_write", text="I moved to Berlin last month.")
        assert before <= when(berlin["valid_from"]) <= datetime.now(UTC)
        assert berlin["superseded"] == [hamburg["id"]] and not berlin.get("superseded_by")
        hits = (await ok(client, "memory_recall", query="Where do I live?"))["results"]
        assert hits[0]["id"] == berlin["id"]


async def test_a_memory_begun_when_it_was_written_is_followed_in_the_order_written(stated):
    # "I live in Lisbon", written without a time, says only that it held when written: the move
    # "last week", written after it, ends it, beginning now
    async with Client(stated) as client:
        lisbon = await ok(client, "memory_write", text="I live in Lisbon.")
        before = datetime.now(UTC)
        porto = await ok(client, "memory_write", text="I moved to Porto last week.")
        assert before <= when(porto["valid_from"]) <= datetime.now(UTC)
        assert porto["superseded"] == [lisbon["id"]] and not porto.get("superseded_by")
        hits = (await ok(client, "memory_recall", query="Where do I live?"))["results"]
        assert hits[0]["id"] == porto["id"]


@pytest.mark.parametrize("text, begins", [
    ("I moved to Berlin last month. I love it here.", first_of_last_month()),
    ("I moved to Berlin last month. It is great so far!", first_of_last_month()),
    ("Two weeks ago I moved to Berlin. We love it.",
     datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(weeks=2)),
], ids=["love-it", "great-so-far", "weeks-ago-we"])
async def test_a_dated_change_with_an_undated_aside_begins_when_the_change_says(stated, text, begins):
    # the other sentence states nothing needing a time of its own (no time, no claim, no change):
    # the memory begins when the sentence that states the change says, and a later move follows it
    async with Client(stated) as client:
        hamburg = await ok(client, "memory_write", text="I live in Hamburg.", valid_from=days(-1500))
        berlin = await ok(client, "memory_write", text=text)
        assert when(berlin["valid_from"]) == begins
        assert berlin["superseded"] == [hamburg["id"]]
        assert when((await ok(client, "memory_read", id=hamburg["id"]))["valid_to"]) == begins
        paris = await ok(client, "memory_write", text="I moved to Paris.")
        assert paris["superseded"] == [berlin["id"]] and not paris.get("superseded_by")
        read = await ok(client, "memory_read", id=berlin["id"])
        assert read["superseded_by"] == [paris["id"]] and when(read["valid_to"]) == when(paris["valid_from"])
        hits = (await ok(client, "memory_recall", query="Where do I live?"))["results"]
        assert hits[0]["id"] == paris["id"]


@pytest.mark.parametrize("text", [
    "I moved to Berlin last month. Not at Siemens anymore.", "I moved to Berlin last month. My rent is 900 euros.",
    "I moved to Berlin last month. I work at Google now.", "I moved to Berlin last month. I start at Google next week.",
])
async def test_a_dated_change_beside_a_sentence_that_needs_its_own_time_begins_now(stated, text):
    async with Client(stated) as client:
        before = datetime.now(UTC)
        written = await ok(client, "memory_write", text=text)
        assert before <= when(written["valid_from"]) <= datetime.now(UTC)
