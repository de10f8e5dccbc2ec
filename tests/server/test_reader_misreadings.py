"""What a client sees of texts the slot reader once misread, through the real MCP client: a month
whose name ends like a medicine's ("April"), an event one has on a day and at an hour, a question
that asks whether to call a thing off, and a full name that ends in "s"."""

from __future__ import annotations

import pytest

from .helpers import ok


async def _marks(client, old: str, new: str) -> tuple[str, dict]:
    """The id of `old` written first and what writing `new` after it answered."""
    first = await ok(client, "memory_write", text=old, valid_from="2025-01-01")
    return first["id"], await ok(client, "memory_write", text=new, valid_from="2025-02-01")


@pytest.mark.parametrize(("old", "new"), [
    # April's name ends as lisinopril's does: the old text held a medication besides the time, so the
    # new time only revised it
    ("My marathon is on April 20.", "My marathon moved to April 27."),
    ("The wedding is on April 12.", "The wedding moved to April 19."),
    # the control: a month no medicine's name ends like
    ("My marathon is on May 20.", "My marathon moved to May 27."),
])
async def test_a_new_date_of_an_event_in_april_supersedes_the_old_one(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert second["superseded"] == [first] and second["revised"] == []
