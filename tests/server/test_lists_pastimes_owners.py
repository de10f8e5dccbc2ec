"""Changes the slot reader once missed, as an agent meets them through the real MCP client with the
default embedding model: diets negated in a list ("not vegetarian or pescatarian"), another person's
diet ended in a contraction ("isn't vegan anymore"), a named owner's new carer ("Biscuit's new vet"),
a weekly pastime named by no event word moved to another day ("Climbing moved to Mondays"), and each of
them leaving what it does not name current (another person's diet, another pet's vet, another pastime)."""

from __future__ import annotations

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import ok


@pytest.fixture(scope="module")
def minilm_server(tmp_path_factory):
    return build_server(ServerConfig(db=str(tmp_path_factory.mktemp("lists") / "memory.db"), default_user="alice",
                                     background=False))


async def _pair(client, user: str, old: str, new: str) -> tuple[str, dict]:
    """The id of `old`, written first for `user`, and what writing `new` after it answered."""
    first = await ok(client, "memory_write", text=old, valid_from="2024-01-01", user_id=user)
    return first["id"], await ok(client, "memory_write", text=new, valid_from="2024-06-01", user_id=user)


async def _first_hit(client, user: str, query: str) -> dict:
    return (await ok(client, "memory_recall", query=query, limit=5, user_id=user))["results"][0]


@pytest.mark.parametrize(("user", "old", "new", "question"), [
    ("pair", "I'm pescatarian.", "I'm not vegetarian or pescatarian anymore.", "What is the user's diet?"),
    ("triple", "I'm vegetarian.", "I'm not vegan, vegetarian, or pescatarian anymore, I eat everything now.",
     "Is the user vegetarian?"),
    ("dad", "My dad is vegan.", "My dad isn't vegan anymore.", "Is the user's dad vegan?"),
    ("parents", "My parents are vegetarian.", "My parents aren't vegetarian anymore.",
     "Are the user's parents vegetarian?"),
])
async def test_a_diet_said_to_hold_no_longer_ends_the_memory_of_it(minilm_server, user, old, new, question):
    async with Client(minilm_server) as client:
        first, second = await _pair(client, f"diet-{user}", old, new)
        assert second["superseded"] == [first]
        assert (await ok(client, "memory_read", id=first, user_id=f"diet-{user}"))["superseded_by"] == [second["id"]]
        assert (await _first_hit(client, f"diet-{user}", question))["id"] == second["id"]


@pytest.mark.parametrize(("user", "old", "new"), [
    # the user's diet is not their father's, either way round
    ("mine-dad", "I'm vegan.", "My dad isn't vegan anymore."),
    ("dad-mine", "My dad is vegan.", "I'm not vegan anymore."),
    ("sister-mine", "My sister is vegetarian.", "I'm not vegetarian or pescatarian anymore."),
    # a diet the list does not name
    ("other-diet", "I'm vegetarian.", "I'm not vegan or pescatarian."),
])
async def test_a_diet_negated_leaves_another_persons_or_another_diet_current(minilm_server, user, old, new):
    async with Client(minilm_server) as client:
        first, second = await _pair(client, f"keep-{user}", old, new)
        assert first not in second["superseded"] + second["revised"] + second["conflicts"]
        assert (await ok(client, "memory_read", id=first, user_id=f"keep-{user}"))["valid_to"] is None


@pytest.mark.parametrize(("user", "old", "new", "question"), [
    ("pet", "Biscuit's vet is Dr. Lowe.", "Biscuit's new vet is Dr. Ortiz.", "Who is Biscuit's vet?"),
    ("person", "Tom's dentist is Dr. Lee.", "Dr. Park is Tom's new dentist.", "Who is Tom's dentist?"),
    ("kin", "My sister's dentist is Dr. Lee.", "My sister's new dentist is Dr. Park.", "Who is my sister's dentist?"),
])
async def test_a_named_owners_new_carer_supersedes_the_old_one(minilm_server, user, old, new, question):
    async with Client(minilm_server) as client:
        first, second = await _pair(client, f"carer-{user}", old, new)
        assert second["superseded"] == [first]
        assert (await _first_hit(client, f"carer-{user}", question))["id"] == second["id"]


@pytest.mark.parametrize(("user", "old", "new"), [
    # two pets' vets, a pet's and the user's own, a relative's dentist and the user's
    ("two-pets", "Biscuit's vet is Dr. Lowe.", "Rex's new vet is Dr. Ortiz."),
    ("pet-mine", "My vet is Dr. Lowe.", "Biscuit's new vet is Dr. Ortiz."),
    ("kin-mine", "My dentist is Dr. Lee.", "My sister's new dentist is Dr. Park."),
])
async def test_another_owners_new_carer_leaves_the_first_current(minilm_server, user, old, new):
    async with Client(minilm_server) as client:
        first, second = await _pair(client, f"carer-keep-{user}", old, new)
        assert first not in second["superseded"] + second["revised"] + second["conflicts"]
        assert (await ok(client, "memory_read", id=first, user_id=f"carer-keep-{user}"))["valid_to"] is None


@pytest.mark.parametrize(("user", "old", "new", "question"), [
    ("gerund", "I go climbing on Tuesdays.", "Climbing moved to Mondays.", "When does the user go climbing?"),
    ("go-to", "I go to climbing on Tuesdays and Thursdays after work.", "Climbing is on Mondays and Wednesdays now.",
     "When does the user go climbing?"),
    ("play", "I play football every Saturday.", "Football is on Sundays now.", "When does the user play football?"),
    ("do", "I do pottery on Thursdays.", "Update: pottery is now every Friday.", "When is the user's pottery?"),
])
async def test_a_weekly_pastime_moved_to_another_day_marks_the_old_day(minilm_server, user, old, new, question):
    async with Client(minilm_server) as client:
        first, second = await _pair(client, f"day-{user}", old, new)
        # the old memory also says the user keeps the pastime, which still holds: it may be revised
        assert first in second["superseded"] + second["revised"]
        assert (await _first_hit(client, f"day-{user}", question))["id"] == second["id"]
        read = await ok(client, "memory_read", id=first, user_id=f"day-{user}")
        assert [second["id"]] in (read["superseded_by"], read.get("annotations", {}).get("revised_by"))


@pytest.mark.parametrize(("user", "old", "new"), [
    # another pastime's day, another pastime on another day, the same one on a further day, someone else's
    ("other-moved", "I go climbing on Tuesdays.", "Pottery moved to Mondays."),
    ("other-kept", "I go climbing on Tuesdays.", "I play football on Mondays."),
    ("also", "I go climbing on Tuesdays.", "I also go climbing on Thursdays."),
    ("sister", "I go climbing on Tuesdays.", "My sister goes climbing on Mondays."),
    # words that name no pastime
    ("no-one-thing", "I go climbing on Tuesdays.", "Everything is on Mondays now."),
])
async def test_a_day_change_of_another_pastime_leaves_the_first_current(minilm_server, user, old, new):
    async with Client(minilm_server) as client:
        first, second = await _pair(client, f"day-keep-{user}", old, new)
        assert first not in second["superseded"] + second["revised"] + second["conflicts"]
        read = await ok(client, "memory_read", id=first, user_id=f"day-keep-{user}")
        assert read["valid_to"] is None and "revised_by" not in read.get("annotations", {})
