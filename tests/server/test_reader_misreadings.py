"""What a client sees of texts the slot reader once misread, through the real MCP client: a month
whose name ends like a medicine's ("April"), an event one has on a day and at an hour, a question
that asks whether to call a thing off, a full name that ends in "s", a move to a tool ("We moved to
Buildkite") read as a move to a new home, a role said after the employer ("I work at Acme as a product
manager"), and a thing given up "in favour of" another."""

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


@pytest.mark.parametrize(("old", "new"), [
    ("I have a dentist appointment on Monday at 2pm.", "The dentist appointment moved to Tuesday at 3pm."),
    ("I've got a vet appointment on Friday at 10am.", "The vet appointment got moved to Monday at 9am."),
    ("We have a parent-teacher meeting on March 3 at 4pm.", "The parent-teacher meeting moved to March 5 at 5pm."),
])
async def test_an_appointment_one_has_on_a_day_is_moved_by_its_new_time(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert second["superseded"] == [first]
        thing = new.split(" moved")[0].split(" got")[0].removeprefix("The ")
        hits = (await ok(client, "memory_recall", query=f"when is my {thing}?", limit=5))["results"]
        assert hits[0]["id"] == second["id"]
        assert (await ok(client, "memory_read", id=first))["superseded_by"] == [second["id"]]


@pytest.mark.parametrize(("old", "new"), [
    # another appointment, a bare meeting (none in particular) and another person's appointment
    ("I have a dentist appointment on Monday at 2pm.", "I have a haircut appointment on Tuesday at 3pm."),
    ("I have a meeting on Monday at 2pm.", "I have a meeting on Tuesday at 3pm."),
    ("I have a dentist appointment on Monday at 2pm.", "My sister's dentist appointment moved to Tuesday at 3pm."),
])
async def test_another_event_on_another_day_leaves_the_first_current(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert first not in second["superseded"] + second["revised"] + second["conflicts"]


@pytest.mark.parametrize(("old", "new"), [
    ("My gym membership is paused.", "Cancel my gym membership?"),
    ("The Japan trip is on track.", "Cancel the Japan trip?"),
    ("The Japan trip is booked for May 3.", "Ok, so call off the Japan trip?"),
    ("My dentist appointment is on Monday at 2pm.", "Cancel my dentist appointment?"),
    ("The Japan trip is on track.", "Should I cancel the Japan trip?"),
])
async def test_a_question_whether_to_call_a_thing_off_leaves_it_as_it_was(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert second["superseded"] == [] and second["revised"] == [] and second["conflicts"] == []
        assert (await ok(client, "memory_read", id=first))["valid_to"] is None


@pytest.mark.parametrize("new", ["Cancel the Japan trip.", "Please cancel the Japan trip, we can't go."])
async def test_an_instruction_to_call_a_thing_off_still_ends_it(connect, new):
    async with connect() as client:
        first, second = await _marks(client, "The Japan trip is on track.", new)
        assert second["superseded"] == [first]


@pytest.mark.parametrize(("old", "new"), [
    # a full name that ends in "s" was made plural-free ("dana reye"), so it was no name and its first
    # name alone did not reach it, as "Ana" reaches "Ana Souza"
    ("Dana Reyes lives in Austin.", "Dana moved to Denver."),
    ("Carlos Torres lives in Austin.", "Carlos moved to Denver."),
    ("Chris Evans works at Google.", "Chris works at Meta now."),
    ("Ana Souza lives in Austin.", "Ana moved to Denver."),
])
async def test_a_first_name_alone_changes_the_slot_of_its_full_name_ending_in_s(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert second["superseded"] == [first]


async def test_a_full_name_ending_in_s_and_another_surname_are_two_people(connect):
    async with connect() as client:
        first, second = await _marks(client, "Dana Rey lives in Austin.", "Dana Reyes moved to Denver.")
        assert first not in second["superseded"] + second["revised"]


@pytest.mark.parametrize(("old", "new"), [
    # "New" was cut off as a filler: both texts read "York", so the move changed nothing
    ("I live in York.", "I moved to New York."),
    ("I live in New York.", "I moved to York."),
    ("I live in Mexico.", "We moved to New Mexico."),
    ("I live in Carolina.", "I moved to North Carolina."),
])
async def test_a_move_to_a_place_named_with_new_or_north_supersedes_the_place_without_it(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert second["superseded"] == [first]
        assert (await ok(client, "memory_read", id=first))["superseded_by"] == [second["id"]]
        hits = (await ok(client, "memory_recall", query="Where do I live?", limit=5))["results"]
        assert hits[0]["id"] == second["id"]


@pytest.mark.parametrize(("old", "new"), [
    ("I live in New York.", "I still live in New York."),
    ("I live in New York.", "I have a new job at Acme."),
])
async def test_the_same_place_or_a_new_job_leaves_a_home_named_with_new_current(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert first not in second["superseded"] + second["revised"] + second["conflicts"]


@pytest.mark.parametrize(("old", "new"), [
    # a statement that ends in a tag question was read as a question, and stated nothing
    ("I live in Denver.", "Living in Austin now, remember?"),
    ("I live in Denver.", "Living in Austin these days, you know?"),
    ("I work at Google.", "Working at Stripe these days, you know?"),
    ("I live in Denver.", "Moved to Austin last month, right?"),
])
async def test_a_statement_ending_in_a_tag_question_supersedes_the_old_value(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert second["superseded"] == [first]
        assert (await ok(client, "memory_read", id=first))["valid_to"] is not None


@pytest.mark.parametrize("new", ["Living in Austin now?", "Moving to Austin?", "Did I move to Austin, remember?"])
async def test_a_real_question_about_a_move_leaves_the_home_current(connect, new):
    async with connect() as client:
        first, second = await _marks(client, "I live in Denver.", new)
        assert second["superseded"] == [] and second["revised"] == [] and second["conflicts"] == []
        assert (await ok(client, "memory_read", id=first))["valid_to"] is None


@pytest.mark.parametrize("new", [
    # a move between two tools was read as the user's move between two homes
    "I moved from Vim to Neovim.",
    "We moved from Jenkins to GitHub Actions.",
    "We moved from Trello to Asana last month.",
    # and so was a move to a tool
    "We moved to Buildkite for CI.",
    "I moved to Cursor last month.",
    "We moved to Postgres.",
    # a name the word list knows as a person's, moved to for a part of a software system
    "We moved to Vue for the frontend.",
    "We moved to Jenkins for our builds last year.",
])
async def test_a_move_between_two_tools_or_to_one_leaves_the_home_current(connect, new):
    async with connect() as client:
        first, second = await _marks(client, "I live in Austin.", new)
        assert first not in second["superseded"] + second["revised"] + second["conflicts"]
        assert (await ok(client, "memory_read", id=first))["valid_to"] is None
        hits = (await ok(client, "memory_recall", query="Where do I live?", limit=5))["results"]
        assert hits[0]["id"] == first


@pytest.mark.parametrize(("old", "new"), [
    ("I live in Austin.", "I moved from Chicago to Denver."),
    ("I live in Chicago.", "I moved from Chicago to Denver."),
    ("I use Vim as my editor.", "I moved from Vim to Neovim."),
])
async def test_a_move_between_places_or_from_the_editor_used_still_supersedes(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert second["superseded"] == [first]


@pytest.mark.parametrize("new", [
    # the relative was read as the one who moved, so the user's home stayed as it was
    "User and his wife moved to Portland.",
    "I and my wife moved to Portland.",
    "Me and my husband moved to Portland last month.",
    "My wife and I moved to Portland.",
    # a place the gazetteer holds, where the word list knows no such name, or any name said to be a home
    "I moved to Lagos.",
    "We moved to Bushwick.",
    "I moved to Marfa, into a little house.",
    # a move for a reason that is no part of a software system
    "We moved to Denver for the schools.",
    "We moved to Boston for the new app job.",
])
async def test_the_user_moving_alone_or_with_a_relative_supersedes_the_users_home(connect, new):
    async with connect() as client:
        first, second = await _marks(client, "I live in Austin.", new)
        assert second["superseded"] == [first]
        hits = (await ok(client, "memory_recall", query="Where do I live?", limit=5))["results"]
        assert hits[0]["id"] == second["id"]


@pytest.mark.parametrize(("old", "new", "changed"), [
    ("I live in Austin.", "My wife moved to Portland for work.", False),
    ("I live in Austin.", "Tom and his wife moved to Portland.", False),
    ("Tom lives in Austin.", "Tom and his wife moved to Portland.", True),
])
async def test_a_relative_or_another_person_moving_changes_their_home_not_the_users(connect, old, new, changed):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert (second["superseded"] == [first]) is changed
        assert first not in second["revised"] + second["conflicts"]


@pytest.mark.parametrize(("old", "new"), [
    # the role said after the employer ("at Acme as a product manager") was not read, so a new one changed nothing
    ("I work at Acme as a product manager.", "I'm a design director now."),
    ("I started at Stripe as a support engineer.", "I'm a staff engineer now."),
    ("User works at Helio Health as a nurse.", "User is now a pharmacist."),
    # a title that gains a rank or another head noun is another role, where its words within the old one's were one
    ("I work at Acme as a product manager.", "I got promoted to senior product manager."),
    ("User works at Helio Health as a nurse.", "User is now a nurse practitioner."),
])
async def test_a_role_said_with_the_employer_is_changed_by_a_new_role(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert second["revised"] == [first], second  # the employer it also names still holds
        hits = (await ok(client, "memory_recall", query="What is my job title?", limit=3))["results"]
        assert hits[0]["id"] == second["id"]


@pytest.mark.parametrize(("old", "new"), [
    ("I'm an engineer at Dell.", "I'm a software engineer at Dell."),
    ("I'm a senior engineer at Dell.", "I'm a senior software engineer at Dell."),
])
async def test_a_title_said_again_in_more_words_changes_nothing(connect, old, new):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert first not in second["superseded"] + second["revised"] + second["conflicts"], second


@pytest.mark.parametrize(("old", "new", "question"), [
    # the change was read by the last resort only, as a revision, and the old host stayed first
    ("The API is hosted on Heroku.", "We moved off Heroku in favour of Fly.io.", "Where is the API hosted?"),
    ("We use npm for packages.", "We ditched npm in favour of pnpm.", "What package manager do we use?"),
    ("I take notes in Notion.", "I swapped Notion for Obsidian.", "What do I take notes in?"),
])
async def test_a_thing_given_up_in_favour_of_another_marks_the_memory_of_it(connect, old, new, question):
    async with connect() as client:
        first, second = await _marks(client, old, new)
        assert first in second["superseded"] + second["revised"], second
        hits = (await ok(client, "memory_recall", query=question, limit=3))["results"]
        assert hits[0]["id"] == second["id"]
