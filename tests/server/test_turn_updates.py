"""A conversation written with memory_write(messages=...) whose later turns change what earlier
turns said, as an agent meets it through the real MCP client with the default embedding model:
the earlier turn stays current and is marked revised_by the later one (worlddb.memory.turn_updates)."""

from __future__ import annotations

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import ok


@pytest.fixture(scope="module")
def minilm_server(tmp_path_factory):
    return build_server(ServerConfig(db=str(tmp_path_factory.mktemp("turns") / "memory.db"), default_user="alice",
                                     background=False))


def said(*turns: tuple[str, str]) -> list[dict]:
    return [{"role": role, "content": content} for role, content in turns]


async def session(client, user: str, when: str, *turns: tuple[str, str], key: str | None = None) -> dict:
    extra = {"session": key} if key else {}
    return await ok(client, "memory_write", messages=said(*turns), valid_from=when, user_id=user, **extra)


def by_text(hits: list[dict]) -> dict[str, dict]:
    return {hit["text"]: hit for hit in hits}


async def test_a_later_session_marks_the_turns_it_changes(minilm_server):
    async with Client(minilm_server) as client:
        first = await session(client, "u1", "2024-01-10",
                              ("user", "I live in Austin and I work at Dell."), ("assistant", "Nice, Austin is great."),
                              ("user", "My dentist is Dr. Patel."), ("user", "My sister lives in Boston."))
        assert first["revised"] == []
        austin, _, patel, sister = (t["id"] for t in first["turns"])
        second = await session(client, "u1", "2024-06-02",
                               ("user", "Big news: I moved to Denver last month."),
                               ("assistant", "Congrats on the move!"),
                               ("user", "I found a new dentist, Dr. Kim."),
                               ("user", "My sister lives in Boston still."))
        denver, _, kim, _ = (t["id"] for t in second["turns"])
        assert sorted(second["revised"]) == sorted([austin, patel])  # the sister's home did not change

        hits = (await ok(client, "memory_recall", query="Where do I live?", user_id="u1", limit=4))["results"]
        assert [h["id"] for h in hits[:2]] == [denver, austin]
        assert hits[1]["annotations"]["revised_by"] == [denver] and hits[1]["valid_to"] is None
        assert hits[0]["annotations"]["revises"] == [austin]
        # found by other words, the changed turn still says it was changed
        hits = by_text((await ok(client, "memory_recall", query="Austin", user_id="u1", limit=5))["results"])
        assert hits["I live in Austin and I work at Dell."]["annotations"]["revised_by"] == [denver]
        assert "revised_by" not in hits.get("Nice, Austin is great.", {"annotations": {}})["annotations"]
        read = await ok(client, "memory_read", id=patel, user_id="u1")
        assert read["annotations"]["revised_by"] == [kim] and read["valid_to"] is None
        read = await ok(client, "memory_read", id=sister, user_id="u1")
        assert "revised_by" not in read["annotations"]


async def test_a_turn_marks_an_earlier_turn_of_the_same_call(minilm_server):
    async with Client(minilm_server) as client:
        written = await session(client, "u2", "2024-03-01",
                                ("user", "I drive a Honda Civic."), ("assistant", "A reliable car."),
                                ("user", "Oh wait, I sold the Civic and bought a Tesla Model 3."))
        civic, _, tesla = (t["id"] for t in written["turns"])
        assert written["revised"] == [civic]
        hits = (await ok(client, "memory_recall", query="What car do I drive?", user_id="u2", limit=3))["results"]
        assert [h["id"] for h in hits[:2]] == [tesla, civic]
        assert hits[1]["annotations"]["revised_by"] == [tesla]


async def test_each_turn_of_one_call_marks_the_turn_whose_other_slot_it_changes(minilm_server):
    # sent in one call, as in two: the job change marks the turn the move marked already
    async with Client(minilm_server) as client:
        first = await session(client, "u-both", "2024-01-10",
                              ("user", "I live in Portland and work as a nurse at Providence."))
        old = first["turns"][0]["id"]
        second = await session(client, "u-both", "2024-06-02", ("user", "We moved to Seattle last weekend!"),
                               ("user", "I work at Swedish Hospital now."))
        seattle, swedish = (t["id"] for t in second["turns"])
        assert second["revised"] == [old]
        read = await ok(client, "memory_read", id=old, user_id="u-both")
        assert sorted(read["annotations"]["revised_by"]) == sorted([seattle, swedish]) and read["valid_to"] is None
        # the same slot changed again in one call is changed from its newest statement, as in two calls
        third = await session(client, "u-both", "2024-09-01", ("user", "We moved to Tacoma."),
                              ("user", "Then we moved to Olympia."))
        tacoma, olympia = (t["id"] for t in third["turns"])
        assert third["revised"] == [seattle, tacoma]
        assert (await ok(client, "memory_read", id=tacoma, user_id="u-both"))["annotations"]["revised_by"] == [olympia]
        read = await ok(client, "memory_read", id=seattle, user_id="u-both")
        assert read["annotations"]["revised_by"] == [tacoma]


async def test_a_session_written_after_a_later_one_is_marked_by_it_as_in_time_order(minilm_server):
    # the later session is written first; valid time, not the order of the writes, says which
    # turn changed which
    async with Client(minilm_server) as client:
        later = await session(client, "u-late", "2024-06-02", ("user", "Big news: I moved to Denver last month."),
                              ("user", "I work at Shopify these days."))
        denver, _ = (t["id"] for t in later["turns"])
        earlier = await session(client, "u-late", "2024-01-10", ("user", "I live in Austin."),
                                ("user", "My sister lives in Boston."))
        austin, sister = (t["id"] for t in earlier["turns"])
        assert earlier["revised_by"] == [denver] and earlier["revised"] == []
        read = await ok(client, "memory_read", id=austin, user_id="u-late")
        assert read["annotations"]["revised_by"] == [denver] and read["valid_to"] is None
        assert "revised_by" not in (await ok(client, "memory_read", id=sister, user_id="u-late"))["annotations"]
        hits = (await ok(client, "memory_recall", query="Where do I live?", user_id="u-late", limit=4))["results"]
        assert [h["id"] for h in hits[:2]] == [denver, austin]


async def test_a_correction_that_names_only_the_wrong_value_marks_the_turn_that_said_it(minilm_server):
    async with Client(minilm_server) as client:
        written = await session(client, "u-fix", "2024-03-01", ("user", "My dentist appointment is on Monday."),
                                ("assistant", "Got it, dentist on Monday."),
                                ("user", "Actually, it's Tuesday not Monday."))
        said, _, fixed = (t["id"] for t in written["turns"])
        assert written["revised"] == [said]
        hits = (await ok(client, "memory_recall", query="When is my dentist appointment?", user_id="u-fix"))["results"]
        first = next(h for h in hits if h["id"] == said)
        assert first["annotations"]["revised_by"] == [fixed] and first["valid_to"] is None
        # a plain negation corrects nothing
        other = await session(client, "u-fix-no", "2024-03-01", ("user", "My sister is coming on Monday."),
                              ("user", "Actually, she is not coming."))
        assert other["revised"] == []


def timed(*turns: tuple[str, str, str]) -> list[dict]:
    return [{"role": role, "content": content, "time": f"2026-11-20T{at}Z"} for role, content, at in turns]


STATED = ("user", "my dentist appointment is Monday Dec 14 at 2pm", "10:00:00")
NOTED = ("assistant", "Noted: dentist Monday Dec 14 at 2pm.", "10:00:05")


@pytest.mark.parametrize("fix", ["oh wait sorry, it's Tuesday the 15th", "No wait, Tuesday at 3pm.",
                                 "Sorry, I meant Dec 15"])
async def test_a_correction_that_names_only_the_right_time_marks_the_time_just_said(minilm_server, fix):
    async with Client(minilm_server) as client:
        # in one call, and one message a call in the same session
        user = f"restated-{len(fix)}"
        written = await ok(client, "memory_write", session="s1", user_id=user,
                           messages=timed(STATED, NOTED, ("user", fix, "10:01:00")))
        said, _, fixed = (t["id"] for t in written["turns"])
        assert written["revised"] == [said]
        for message in (STATED, NOTED):
            await ok(client, "memory_write", session="s2", user_id=f"{user}-2", messages=timed(message))
        later = await ok(client, "memory_write", session="s2", user_id=f"{user}-2",
                         messages=timed(("user", fix, "10:01:00")))
        hits = (await ok(client, "memory_recall", query="When is my dentist appointment?", user_id=f"{user}-2",
                         limit=3))["results"]
        assert len(later["revised"]) == 1 and hits[0]["id"] == later["turns"][0]["id"]
        assert hits[1]["id"] == later["revised"][0] and hits[1]["text"] == STATED[1]
        hits = (await ok(client, "memory_recall", query="When is my dentist appointment?", user_id=user,
                         limit=3))["results"]
        assert [h["id"] for h in hits[:2]] == [fixed, said]


NOT_RESTATED = [
    # no word owns a mistake; the time is said again; an answer to a question; something else said between;
    # another's turn; long after; a statement of no time
    [STATED, NOTED, ("user", "it's Tuesday the 15th", "10:01:00")],
    [STATED, NOTED, ("user", "sorry, it's at 2pm", "10:01:00")],
    [STATED, ("assistant", "When should I remind you?", "10:00:05"), ("user", "no wait, Sunday", "10:01:00")],
    [STATED, ("user", "and my sister visits on Friday", "10:00:30"), ("user", "sorry, Saturday", "10:01:00")],
    [STATED, ("Jon", "oh wait sorry, it's Tuesday", "10:01:00")],
    [STATED, NOTED, ("user", "oh wait sorry, it's Tuesday the 15th", "11:30:00")],
    [("user", "I live in Austin", "10:00:00"), ("user", "sorry, Tuesday", "10:01:00")],
]


async def test_a_time_named_alone_marks_nothing_but_a_correction_of_the_time_just_said(minilm_server):
    async with Client(minilm_server) as client:
        fixed = [STATED, NOTED, ("user", "oh wait sorry, it's Tuesday the 15th", "10:01:00")]
        for n, turns in enumerate([fixed, *NOT_RESTATED]):
            written = await ok(client, "memory_write", session="s1", user_id=f"not-restated-{n}",
                               messages=timed(*turns))
            assert written["revised"] == ([written["turns"][0]["id"]] if turns is fixed else []), turns


@pytest.mark.parametrize(("user", "before", "after", "question"), [
    ("fix-thu", "My dentist appointment is on Tuesday at 3pm.", "Sorry, I meant Thursday, not Tuesday.",
     "When is my dentist appointment?"),
    ("fix-wed", "My dentist appointment is on Tuesday at 3pm.", "The dentist rescheduled me to Wednesday.",
     "When is my dentist appointment?"),
    ("fix-nuts", "I'm allergic to peanuts.", "Actually it's tree nuts I'm allergic to, not peanuts.",
     "What am I allergic to?"),
    # a thing called off has no time any more: the turn that says so holds what is true now
    ("off-dentist", "My dentist appointment is Monday Dec 14 at 2pm.", "I cancelled the dentist appointment.",
     "When is my dentist appointment?"),
    ("off-offsite", "Our team offsite is on Friday the 9th.", "We called off the team offsite.",
     "When is our team offsite?"),
])
async def test_a_turn_that_corrected_a_turn_of_an_earlier_session_answers_before_it(minilm_server, user, before,
                                                                                    after, question):
    # as the same two texts written as memories do: the turn that marked the other holds what is true now
    async with Client(minilm_server) as client:
        said = (await session(client, user, "2024-03-01", ("user", before), key="mon"))["turns"][0]["id"]
        fixed = await session(client, user, "2024-03-08", ("user", after), key="fri")
        assert fixed["revised"] == [said]
        hits = (await ok(client, "memory_recall", query=question, user_id=user, limit=3))["results"]
        assert [h["id"] for h in hits[:2]] == [fixed["turns"][0]["id"], said]
        assert hits[1]["annotations"]["revised_by"] == [fixed["turns"][0]["id"]]


async def test_a_memory_that_corrects_a_value_marks_the_memory_that_said_it(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "u-fix-memory"}
        said = await ok(client, "memory_write", text="The team offsite is on Thursday.", valid_from="2024-05-01",
                        **scope)
        other = await ok(client, "memory_write", text="I like the new office on Thursday mornings.",
                         valid_from="2024-05-01", metadata={"speaker": "Priya"}, **scope)
        fixed = await ok(client, "memory_write", text="Sorry, I meant Friday, not Thursday.", valid_from="2024-05-02",
                         **scope)
        assert fixed["revised"] == [said["id"]] and fixed["superseded"] == []
        assert (await ok(client, "memory_read", id=said["id"], **scope))["valid_to"] is None
        assert "revised_by" not in (await ok(client, "memory_read", id=other["id"], **scope))["annotations"]


async def test_a_memory_stated_for_a_time_before_a_turn_that_changes_it_is_marked_by_the_turn(minilm_server):
    async with Client(minilm_server) as client:
        moved = await session(client, "u-backfill", "2024-06-02", ("user", "I moved to Denver last month."))
        turn = moved["turns"][0]
        home = await ok(client, "memory_write", text="I live in Austin.", valid_from="2023-01-01",
                        user_id="u-backfill")
        job = await ok(client, "memory_write", text="I work at Dell.", valid_from="2023-01-01", user_id="u-backfill")
        assert home["revised_by"] == [turn["id"]] and home["superseded_by"] == []
        assert job["revised_by"] == [] and job["superseded_by"] == []
        read = await ok(client, "memory_read", id=home["id"], user_id="u-backfill")
        # a turn never closes a memory: marked, current, its home fact ended where the turn begins
        assert read["annotations"]["revised_by"] == [turn["id"]] and read["valid_to"] is None
        assert [f["valid_to"][:10] for f in read["facts"] if f["relation"] == "lives_in"] == ["2024-06-02"]


async def test_a_project_fact_said_after_a_label_or_before_a_detail_is_marked_by_a_later_session(minilm_server):
    async with Client(minilm_server) as client:
        first = await session(client, "u-api", "2026-06-01",
                              ("user", "Quick context: the API is hosted on Heroku, two standard dynos."),
                              ("assistant", "Noted."), ("user", "And we use Yarn 1 for the monorepo, with workspaces."))
        heroku, _, yarn = (t["id"] for t in first["turns"])
        second = await session(client, "u-api", "2026-10-01",
                               ("user", "Update: we moved the API from our old host onto Fly.io this weekend."),
                               ("user", "Also switched the monorepo over to pnpm."))
        fly, pnpm = (t["id"] for t in second["turns"])
        assert sorted(second["revised"]) == sorted([heroku, yarn])
        hits = (await ok(client, "memory_recall", query="Where is the API hosted?", user_id="u-api",
                         limit=3))["results"]
        assert [h["id"] for h in hits[:2]] == [fly, heroku]
        assert hits[1]["annotations"]["revised_by"] == [fly]
        read = await ok(client, "memory_read", id=yarn, user_id="u-api")
        assert read["annotations"]["revised_by"] == [pnpm] and read["valid_to"] is None


async def test_each_speaker_changes_only_what_they_said(minilm_server):
    async with Client(minilm_server) as client:
        first = await session(client, "u3", "2024-01-05", ("Caroline", "I live in Boston."),
                              ("Melanie", "I live in Denver."), key="chat")
        boston, _ = (t["id"] for t in first["turns"])
        # the assistant's words and another speaker's home change nothing of Caroline's
        second = await session(client, "u3", "2024-02-05", ("assistant", "You moved to Chicago, right?"),
                               ("Melanie", "I moved to Seattle in January."), key="chat")
        seattle = second["turns"][1]["id"]
        assert second["revised"] == [first["turns"][1]["id"]]
        third = await session(client, "u3", "2024-04-05", ("Caroline", "I moved to Chicago last month."), key="chat")
        assert third["revised"] == [boston]
        read = await ok(client, "memory_read", id=seattle, user_id="u3")
        assert "revised_by" not in read["annotations"]


async def test_turns_and_memories_mark_each_other(minilm_server):
    async with Client(minilm_server) as client:
        memory = await ok(client, "memory_write", text="I live in Austin.", user_id="u5", valid_from="2024-01-01")
        written = await session(client, "u5", "2024-05-01", ("user", "I moved to Denver."))
        denver = written["turns"][0]["id"]
        # a turn marks the memory it changes; neither is closed
        assert written["revised"] == [memory["id"]] and written["superseded"] == []
        read = await ok(client, "memory_read", id=memory["id"], user_id="u5")
        assert read["valid_to"] is None and read["annotations"]["revised_by"] == [denver]
        # a memory marks the turn it changes, and the turn stays what was said
        job = await session(client, "u5", "2024-06-01", ("user", "I work at Dell as a sales engineer."))
        stripe = await ok(client, "memory_write", text="I'm now at Stripe.", user_id="u5", valid_from="2024-09-01")
        assert stripe["revised"] == [job["turns"][0]["id"]] and stripe["superseded"] == []
        hits = (await ok(client, "memory_recall", query="Where do I work?", user_id="u5", limit=2))["results"]
        assert [h["id"] for h in hits] == [stripe["id"], job["turns"][0]["id"]]
        assert hits[1]["annotations"]["revised_by"] == [stripe["id"]] and hits[1]["valid_to"] is None


async def test_a_memory_changed_in_one_slot_is_still_marked_by_a_turn_that_changes_another(minilm_server):
    async with Client(minilm_server) as client:
        both = await ok(client, "memory_write", text="I live in Austin and work at Dell.", user_id="u9",
                        valid_from="2024-01-01")
        moved = await ok(client, "memory_write", text="I moved to Denver.", user_id="u9", valid_from="2024-03-01")
        assert moved["revised"] == [both["id"]]
        # the Austin memory still says where its writer works: a new job marks it too
        job = await session(client, "u9", "2024-05-01", ("user", "I just started a new job at Google!"))
        google = job["turns"][0]["id"]
        assert job["revised"] == [both["id"]]
        read = await ok(client, "memory_read", id=both["id"], user_id="u9")
        assert sorted(read["annotations"]["revised_by"]) == sorted([moved["id"], google]) and read["valid_to"] is None
        hits = (await ok(client, "memory_recall", query="Where do I work?", user_id="u9", limit=2))["results"]
        assert [h["id"] for h in hits] == [google, both["id"]]
        # a slot already changed is changed again from its newest statement, not the old one
        again = await session(client, "u9", "2024-07-01", ("user", "Now I live in Boston."))
        assert again["revised"] == [moved["id"]]


async def test_a_turn_that_ends_a_slot_answers_the_slots_question_first(minilm_server):
    async with Client(minilm_server) as client:
        dell = (await session(client, "u10", "2024-01-10", ("user", "I work at Dell.")))["turns"][0]["id"]
        quit_ = await session(client, "u10", "2024-06-01", ("user", "I quit my job yesterday."),
                              ("assistant", "That's a big step. What's next?"))
        ended = quit_["turns"][0]["id"]
        assert quit_["revised"] == [dell]
        # where the user works is now nowhere: the turn that says so comes before the one it changed
        hits = (await ok(client, "memory_recall", query="Where do I work?", user_id="u10", limit=3))["results"]
        assert [h["id"] for h in hits[:2]] == [ended, dell]
        assert hits[0]["lanes"]["slot"] == 1 and hits[1]["annotations"]["revised_by"] == [ended]


async def test_what_the_assistant_restated_is_marked_with_what_the_user_said(minilm_server):
    async with Client(minilm_server) as client:
        first = await session(client, "u6", "2024-01-10",
                              ("user", "I live in Austin and I work at Dell."),
                              ("assistant", "Got it - you live in Austin and work at Dell. I'll remember that."),
                              ("assistant", "Do you like Austin?"), ("user", "My favourite food is ramen."))
        austin, echo, question, _ = (t["id"] for t in first["turns"])
        # an echo repeats what was said in the same call: it changes nothing
        assert first["revised"] == []
        second = await session(client, "u6", "2024-06-02", ("user", "Big news: I moved to Denver last month."),
                               ("assistant", "So you live in Denver now - congratulations!"))
        denver, denver_echo = (t["id"] for t in second["turns"])
        # the user's words and the assistant's restatement of them are both marked; the question is not,
        # and the new echo, which agrees with the change, marks nothing itself
        assert sorted(second["revised"]) == sorted([austin, echo])
        hits = by_text((await ok(client, "memory_recall", query="Austin", user_id="u6", limit=10))["results"])
        assert hits["Got it - you live in Austin and work at Dell. I'll remember that."]["annotations"]["revised_by"] \
            == [denver]
        read = await ok(client, "memory_read", id=question, user_id="u6")
        assert "revised_by" not in read["annotations"]
        read = await ok(client, "memory_read", id=denver_echo, user_id="u6")
        assert "revises" not in read["annotations"] and read["valid_to"] is None
        # a memory written later marks what the assistant restated as it marks the user's turn
        job = await session(client, "u6", "2024-07-01", ("user", "I work at Dell as a sales engineer."),
                            ("assistant", "Noted - you work at Dell."))
        stripe = await ok(client, "memory_write", text="I'm now at Stripe.", user_id="u6", valid_from="2024-09-01")
        assert sorted(stripe["revised"]) == sorted(t["id"] for t in job["turns"])


async def test_what_the_assistant_takes_note_of_is_marked_with_what_the_user_said(minilm_server):
    async with Client(minilm_server) as client:
        first = await session(client, "u10", "2024-03-01",
                              ("user", "My doctor started me on sertraline, 50mg daily."),
                              ("assistant", "Thanks for telling me. I'll remember you take sertraline 50mg."),
                              ("assistant", "I've also noted that your sister takes sertraline."),
                              ("assistant", "I remember reading about sertraline."), key="a")
        started, echo, sister, own = (t["id"] for t in first["turns"])
        second = await session(client, "u10", "2024-12-01", ("user", "I stopped taking sertraline this week."),
                               ("assistant", "Noted."), key="b")
        # what the assistant noted of the user is marked with the user's words; what it noted of
        # someone else, and its own words, are not
        assert sorted(second["revised"]) == sorted([started, echo])
        stopped = second["turns"][0]["id"]
        hits = by_text((await ok(client, "memory_recall", query="What medications is the user taking?",
                                 user_id="u10", limit=5))["results"])
        assert hits["Thanks for telling me. I'll remember you take sertraline 50mg."]["annotations"]["revised_by"] \
            == [stopped]
        for turn in (sister, own):
            read = await ok(client, "memory_read", id=turn, user_id="u10")
            assert "revised_by" not in read["annotations"]


async def test_an_assistant_never_marks_what_the_user_said(minilm_server):
    async with Client(minilm_server) as client:
        first = await session(client, "u7", "2024-01-10", ("user", "I live in Austin."))
        # the assistant getting it wrong later is no change of the user's home
        later = await session(client, "u7", "2024-03-01", ("assistant", "You live in Denver, as you told me."),
                              ("assistant", "Noted: you live in Denver."))
        assert later["revised"] == []
        read = await ok(client, "memory_read", id=first["turns"][0]["id"], user_id="u7")
        assert "revised_by" not in read["annotations"]
        # nor is its restatement, newer though it is, what answers where the user lives
        hits = (await ok(client, "memory_recall", query="Where do I live?", user_id="u7", limit=3))["results"]
        assert hits[0]["id"] == first["turns"][0]["id"] and "slot" in hits[0]["lanes"]
        assert all("slot" not in hit["lanes"] for hit in hits[1:])


async def test_amending_a_turn_supersedes_it_as_the_tool_text_says(minilm_server):
    async with Client(minilm_server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "conversation turn" in tools["memory_amend"].description
        turn = (await session(client, "u8", "2024-01-10", ("user", "I work at Dell as a tester.")))["turns"][0]["id"]
        amended = await ok(client, "memory_amend", id=turn, text="I work at Dell as a test lead.", user_id="u8")
        assert amended["supersedes"] == turn
        read = await ok(client, "memory_read", id=turn, user_id="u8")
        assert read["valid_to"] is not None and read["superseded_by"] == [amended["id"]]


async def test_a_turn_about_one_person_ends_no_fact_of_another_in_the_memory_it_marks(minilm_server):
    async with Client(minilm_server) as client:
        both = await ok(client, "memory_write", text="I work at Dell and my sister Ana works at Canon.",
                        user_id="amt-3", valid_from="2024-01-01")
        said = await session(client, "amt-3", "2024-06-01", ("user", "Ana started at Nikon last week."))
        assert said["revised"] == [both["id"]]
        facts = (await ok(client, "memory_read", id=both["id"], user_id="amt-3"))["facts"]
        assert [(f["object"], f["valid_to"]) for f in facts if f["relation"] == "works_at"] == [("Dell", None)]


async def test_an_amended_turn_leaves_its_caption_and_ref_with_the_message(minilm_server):
    async with Client(minilm_server) as client:
        said = await ok(client, "memory_write", user_id="amt-cap", messages=[
            {"role": "Carol", "content": "We live in Oslo now.", "ref": "m7", "caption": "a photo of a fjord"}])
        turn = said["turns"][0]["id"]
        amended = await ok(client, "memory_amend", id=turn, text="Carol lives in Bergen.", user_id="amt-cap")
        read = await ok(client, "memory_read", id=amended["id"], user_id="amt-cap")
        assert read["metadata"] == {"speaker": "Carol"}  # who said it stays; the photo was of the message
        said = await ok(client, "memory_read", id=turn, user_id="amt-cap")
        assert said["metadata"]["caption"] == "a photo of a fjord"


async def test_an_amend_marks_the_turns_its_change_reaches_as_a_write_does(minilm_server):
    async with Client(minilm_server) as client:
        austin = (await session(client, "amt-1", "2024-01-01", ("user", "I live in Austin.")))["turns"][0]["id"]
        colour = await ok(client, "memory_write", text="My favourite colour is blue.", user_id="amt-1",
                          valid_from="2024-04-01")
        moved = await ok(client, "memory_amend", id=colour["id"], text="I moved to Boulder.", user_id="amt-1",
                         valid_from="2024-05-01")
        assert moved["revised"] == [austin]
        hits = by_text((await ok(client, "memory_recall", query="Where do I live?", user_id="amt-1"))["results"])
        assert hits["I live in Austin."]["annotations"] == {"revised_by": [moved["id"]]}
        # a turn amended to the change marks the turn it changes, which stays what was said
        first = await session(client, "amt-2", "2024-01-01", ("user", "I live in Austin."), ("user", "I like tea."))
        austin, tea = (t["id"] for t in first["turns"])
        moved = await ok(client, "memory_amend", id=tea, text="I moved to Boulder.", user_id="amt-2")
        assert moved["revised"] == [austin]
        read = await ok(client, "memory_read", id=austin, user_id="amt-2")
        assert read["valid_to"] is None and read["annotations"]["revised_by"] == [moved["id"]]


@pytest.mark.parametrize(("user", "before", "after", "question"), [
    # a sum that opens the sentence, with no "my"
    ("rent", "My rent is $2,100 a month.", "Rent went up to $2,350 this month.", "How much is my rent?"),
    # a medicine of one's raised by a doctor, and a question of its dose
    ("dose", "I'm on 20mg of Lexapro.", "My doctor bumped my Lexapro to 30mg.", "What is my Lexapro dose?"),
    # what one now earns; a car named by its model alone
    ("salary", "My salary is $95k.", "Got a raise - I make $110k now!", "How much do I make?"),
    ("car", "I drive a Civic.", "Sold the Civic and bought a Model 3.", "What car do I drive?"),
])
async def test_a_sum_or_a_dose_changed_in_a_later_session_is_marked_and_answers_first(minilm_server, user, before,
                                                                                      after, question):
    async with Client(minilm_server) as client:
        first = await session(client, user, "2025-01-01", ("user", before), ("assistant", "Good to know."))
        second = await session(client, user, "2025-06-01", ("user", after), ("assistant", "Thanks for telling me!"))
        old, new = first["turns"][0]["id"], second["turns"][0]["id"]
        assert second["revised"] == [old]
        hits = (await ok(client, "memory_recall", query=question, user_id=user, limit=3))["results"]
        assert hits[0]["id"] == new and by_text(hits)[before]["annotations"] == {"revised_by": [new]}


@pytest.mark.parametrize(("user", "before", "after", "question"), [
    # a numbered name's next one, in other words than the first turn's ("DB", "database")
    ("staging", "Our staging database is on db-staging-01.", "Heads up, staging DB moved to db-staging-02.",
     "Where is the staging database?"),
    # a change of one's own that no rule reads, of the turn nearest to it
    ("deploys", "We deploy with Heroku.", "We moved deploys over to Fly.io last week.", "How do we deploy?"),
    ("wedding", "Our wedding is on June 14, 2027.", "We pushed the wedding back to September.", "When is our wedding?"),
])
async def test_a_short_turn_that_says_a_change_no_rule_reads_marks_the_turn_it_is_about(minilm_server, user, before,
                                                                                         after, question):
    async with Client(minilm_server) as client:
        first = await session(client, user, "2025-01-01", ("user", "Morning!"), ("assistant", "Hi!"), ("user", before),
                              ("assistant", "Got it."))
        second = await session(client, user, "2025-06-01", ("user", "Hey again."), ("user", after),
                               ("assistant", "Noted, thanks!"))
        old, new = first["turns"][2]["id"], second["turns"][1]["id"]
        assert second["revised"] == [old]
        hits = (await ok(client, "memory_recall", query=question, user_id=user, limit=3))["results"]
        assert hits[0]["id"] == new
        read = await ok(client, "memory_read", id=old, user_id=user)
        assert read["annotations"] == {"revised_by": [new]} and read["valid_to"] is None


@pytest.mark.parametrize(("user", "before", "after"), [
    ("trip", "We're going to Tokyo and Kyoto.", "Actually we dropped Kyoto, we'll do Osaka instead."),
    ("vendor", "The meeting with the vendor is on Tuesday.", "Update: the vendor meeting moved to Thursday."),
])
async def test_the_first_call_of_a_new_scope_marks_its_own_turns_a_change_no_rule_reads_is_about(minilm_server, user,
                                                                                                  before, after):
    async with Client(minilm_server) as client:
        written = await ok(client, "memory_write", messages=[{"role": "user", "content": before},
                                                             {"role": "user", "content": after}], user_id=user)
        old, new = (t["id"] for t in written["turns"])
        assert written["revised"] == [old]
        read = await ok(client, "memory_read", id=old, user_id=user)
        assert read["annotations"]["revised_by"] == [new]


async def test_a_long_turn_another_speakers_turn_or_the_assistants_marks_nothing_unread(minilm_server):
    async with Client(minilm_server) as client:
        first = await session(client, "unread-controls", "2025-01-01",
                              ("Nate", "I went to Woodhaven, a small town in the Midwest, for the weekend."),
                              ("Jon", "We deploy the shop with Heroku."))
        second = await session(client, "unread-controls", "2025-06-01",
                               # long: a turn of a conversation touches many things
                               ("Nate", "Woodhaven has such an interesting past, and seeing how much it changed over "
                                        "the years made me think about my own town and the people in it."),
                               # the same words of change, from the one who did not say the first
                               ("Nate", "We moved the shop's deploys over to Fly.io."),
                               ("assistant", "You switched the deploys to Fly.io, got it."))
        assert first["revised"] == [] and second["revised"] == []


@pytest.mark.parametrize(("user", "before", "after"), [
    ("friend-job", "I work at Google.", "Kenji quit his job at Google."),
    ("friend-haircut", "I have a haircut on Friday at 4pm.", "Kenji's haircut got moved to Saturday."),
    ("friend-wedding", "Our wedding is on June 14, 2027.", "Kenji's wedding got moved to September."),
])
async def test_a_short_turn_of_news_of_someone_else_marks_nothing_the_speaker_said_of_their_own(minilm_server, user,
                                                                                                 before, after):
    async with Client(minilm_server) as client:
        await session(client, user, "2025-01-01", ("user", before), ("assistant", "Got it."))
        second = await session(client, user, "2025-06-01", ("user", after), ("assistant", "Oh, noted."))
        assert second["revised"] == [] and second["revised_by"] == []


@pytest.mark.parametrize(("user", "before", "after", "question"), [
    ("mem-salary", "My salary is 168k.", "My salary was raised to 180k.", "What is my salary?"),
    ("mem-rent", "My rent is 1800 a month.", "My rent went up to 2000 a month.", "How much is my rent?"),
    ("mem-staging", "Our staging database is on db-staging-01.", "Heads up, staging DB moved to db-staging-02.",
     "Where is the staging database?"),
])
async def test_a_memory_that_says_a_change_no_rule_reads_marks_the_turn_it_is_about(minilm_server, user, before,
                                                                                     after, question):
    # as it marks the same words written as a memory: the turn stays what was said, marked
    async with Client(minilm_server) as client:
        first = await session(client, user, "2025-12-01", ("user", "Morning!"), ("user", before),
                              ("assistant", "Got it."))
        old = first["turns"][1]["id"]
        new = await ok(client, "memory_write", text=after, user_id=user, valid_from="2026-11-10")
        assert new["revised"] == [old] and new["superseded"] == []
        read = await ok(client, "memory_read", id=old, user_id=user)
        assert read["annotations"] == {"revised_by": [new["id"]]} and read["valid_to"] is None
        hits = (await ok(client, "memory_recall", query=question, user_id=user, limit=3))["results"]
        assert hits[0]["id"] == new["id"]


async def test_a_memory_that_says_a_change_no_rule_reads_marks_no_turn_of_another_voice_or_time(minilm_server):
    async with Client(minilm_server) as client:
        first = await session(client, "mem-controls", "2025-12-01",
                              ("Tom", "My salary is 168k."), ("user", "I had pasta for lunch."))
        new = await ok(client, "memory_write", text="My salary was raised to 180k.", user_id="mem-controls",
                       valid_from="2026-11-10")
        # Tom's salary is his; lunch is about nothing the change is
        assert new["revised"] == [] and new["superseded"] == []
        # a turn said after the memory begins is not what it changed
        later = await session(client, "mem-later", "2026-12-01", ("user", "My salary is 168k."))
        new = await ok(client, "memory_write", text="My salary was raised to 180k.", user_id="mem-later",
                       valid_from="2026-11-10")
        assert new["revised"] == []
        read = await ok(client, "memory_read", id=later["turns"][0]["id"], user_id="mem-later")
        assert "revised_by" not in read["annotations"]
        assert first["revised"] == []
