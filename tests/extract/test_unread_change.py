"""A change said in words the slot reader cannot place: which texts say one."""

from __future__ import annotations

import pytest

from worlddb.extract.unread_change import (
    anchors,
    corrected,
    died,
    ends,
    names_thing,
    names_value,
    off,
    renamed,
    rescheduled,
    restated,
    says_change,
    scheduled,
    short,
    states_change,
)


@pytest.mark.parametrize("text", [
    "We moved release day to Tuesdays so nobody debugs prod over the weekend.",
    "Moved the whole suite to Vitest last sprint.",                  # the subject left out
    "Update: we switched the nightly job over to the new runner.",
    "I no longer do the Monday call; it's async now.",
    "Correction: our rota starts on Wednesdays.",
    "Quick note: we raised the minimum to Python 3.11.",
    "we pushed the wedding back to September",                      # a time moved, its thing named between
    "We pushed the launch party back a week.",
    "I pushed the deadline out to Friday.",
    "We brought the offsite forward to June.",
])
def test_a_first_person_change_is_one(text):
    assert says_change(text)


@pytest.mark.parametrize("text", [
    "Our school has a new principal.",                              # news, no verb of change
    "We might move release day to Tuesdays next year.",             # a plan
    "Just got back from four days in Krakow; I moved my flight twice.",  # a visit
    "I also switched my phone plan.",                                # an addition
    "My wife switched jobs in May.",                                 # someone else's
    "Did you move the standup?",                                     # a question
    "I used to commute by train before we moved.",                   # the past
    "The meeting moved to Friday.",                                  # not the speaker's
    "I pushed my car out of the snow.",                              # pushed, and no time after
    "",
])
def test_anything_else_is_none(text):
    assert not says_change(text)


@pytest.mark.parametrize("text", [
    "I never left Google, whatever the rumours say.", "We haven't switched to Linear.",
    "I didn't really move, I just sublet for a month.", "I never stopped climbing.",
    # no one and nothing as the subject of the change
    "I'm still at Edinburgh, nothing changed there.", "Nothing has really changed at work.", "Nobody's moved.",
    # a change still to come
    "We're moving the warehouse to Snowflake next quarter.", "I've accepted an offer, starting in January.",
])
def test_a_change_denied_or_still_to_come_is_none_of_any_kind(text):
    assert not says_change(text) and not states_change(text) and not ends(text)


@pytest.mark.parametrize("text", [
    "The meeting moved to Friday.",                                  # a thing's, not the speaker's
    "Grandpa finally sold the Saab and got himself a scooter.",      # a named person's
    "Nobody opens Trello anymore; the board lives in Notion.",       # "anymore"
    "Release notes go out on Mondays now.",                          # "now"
    "Swapped the old router for a mesh kit.",
    "The staging box was retired last week.",
    "Payroll moved to Deel, so update your bookmarks.",              # "you" in a later clause
    "The deadline got pushed to April 2.",                           # a time put later
    "The lease was extended to August.",
    "Cancel the dentist, I'll reschedule later.",                    # an instruction to call a thing off
    "ok so please cancel my dentist appointment",
    "I had to cancel the dentist.",                                  # done, in other words
    "The wedding got called off.",
])
def test_a_change_of_anyones_in_the_wider_words_is_one(text):
    assert states_change(text)


@pytest.mark.parametrize("text", [
    "My wife switched jobs in May.",                                 # news of the family stays out
    "We might move release day to Tuesdays next year.",              # a plan
    "Is the standup on Fridays now?",                                # a question
    "Grandpa still drives the Saab.",                                # no change
    "We also use Notion now.",                                       # an addition
    "Your team moved the retro to Thursdays.",                       # the listener's news
    "You switched to Linear now, right.",
    "Thanks, Priya! I won't quit - this class keeps me going.",      # a resolve, not a change
    "I pushed the fix to main.",                                     # pushed somewhere, not to a time
    "Ticket PROJ-12 is about upgrading React.",                      # a change named as a topic
    "The offsite agenda is mostly planning for moving offices.",
    "I never cancel on friends.",                                    # a habit, no thing called off
    "Can you cancel my gym membership?",                             # a request, asked
    "I might have to cancel the dentist.",                           # a plan
    "Don't cancel the dentist.",
    "The power is off.",                                             # off, of no event
    "Off to the dentist!",
    "",
])
def test_the_wider_words_keep_the_exclusions(text):
    assert not states_change(text)


LONG = " We talked about it for ages over dinner with friends and family last night."


@pytest.mark.parametrize(("text", "expected"), [
    ("Finally sold the Saab and got a scooter." + LONG, {"saab"}),  # a name inside a sentence
    ("Nobody opens Trello anymore." + LONG, {"trello"}),              # a word no dictionary holds
    ("The cetirizine made me drowsy." + LONG, {"cetirizine"}),
    ("Thanks, Mel! The class starts on Thursdays." + LONG, {"thursday"}),  # a name spoken to is none
    ("Nice one, Gina! Great idea." + LONG, set()),
    ("Hey Jon, the plan is fine." + LONG, set()),
    ("I live in Austin, Texas." + LONG, {"austin", "texas"}),
    ("Oof, that's tough, Jon. The Lakers lost again." + LONG, {"laker"}),  # a given name spoken to
    ("Ines starts at Whitmore in Texas." + LONG, {"ines", "whitmore", "texas"}),  # no "ine", no "texa"
    ("Pottery is my thing." + LONG, set()),                         # a capital only for the sentence's start
    ("It was fun. Pottery is my thing." + LONG, set()),
    # a short statement is about what its nouns name, but the most general
    ("My rent went up again this month.", {"rent"}),
    ("Our dashboards are built with Grafana.", {"dashboard", "grafana"}),
    ("Pottery is my thing.", {"pottery"}),
    # two letters name a thing only as an acronym
    ("Every MR gets a QA pass." + LONG, {"mr", "qa"}),
    ("OK, so we go at 9 PM." + LONG, set()),
    # a name ending in a number names its series as well, unless the series is a common word
    ("Staging moved to db-staging-02." + LONG, {"db-staging-02", "db-staging"}),
    ("We run web01 and web02 behind it." + LONG, {"web01", "web02"}),
])
def test_anchors_are_names_and_rare_words(text, expected):
    assert anchors(text) == expected


def test_a_short_statement_is_at_most_fourteen_words():
    assert short("Heads up, staging DB moved to db-staging-02.")
    assert not short("Woodhaven has had an interesting past with lots of cool people, and seeing how much it changed "
                     "made me think.")


def test_a_non_string_is_a_type_error():
    for test in (says_change, states_change, anchors, short, restated):
        with pytest.raises(TypeError):
            test(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "wrong"), [
    ("Actually, it's Tuesday not Monday.", {"monday"}),
    ("Sorry, not 3pm but 4pm.", {"3pm"}),
    ("Oops, I meant Denver, not Austin!", {"austin"}),
    ("Correction: the meeting is at 10, not at 9.", {"9"}),
    ("My bad, it was the blue one, not the red one.", {"red one"}),
    # a plain statement or a plain negation corrects nothing
    ("It's Tuesday, not Monday.", set()),
    ("No, it is not that bad.", set()),
    ("Actually, she is not coming.", set()),
    ("Actually I'm not sure, but ok.", set()),
    ("Wait, I do not know.", set()),
])
def test_a_correction_names_the_value_it_says_was_wrong(text, wrong):
    assert corrected(text) == wrong


@pytest.mark.parametrize(("text", "right"), [
    ("oh wait sorry, it's Tuesday the 15th", "tuesday the 15th"),
    ("Actually, it's Tuesday.", "tuesday"),
    ("No wait, 3pm", "3pm"),
    ("Sorry, I meant Thursday", "thursday"),
    ("Oops, make that Dec 15 at 4pm.", "dec 15 at 4pm"),
    ("Hold on, it's on December 15th", "december 15th"),
    ("my bad - at 3:30 then", "3:30"),
    ("No, Tuesday.", "tuesday"),
    # a statement, a question, a reply, or a correction that says more than the time
    ("It's Tuesday", None),
    ("Yes, Tuesday.", None),
    ("Ok so Tuesday", None),
    ("Wait, Tuesday?", None),
    ("Sorry, it's Tuesday, I'll be late", None),
    ("Actually Friday works better", None),
    ("No worries, Monday is fine", None),
    ("Sorry, I'm late", None),
    ("Actually, it's Tuesday not Monday.", None),
    ("Sorry, weekends are busy", None),
])
def test_a_correction_names_the_time_that_is_right_only_when_it_says_nothing_else(text, right):
    assert restated(text) == right


def test_a_value_is_named_as_a_word_of_its_own():
    assert names_value("My dentist appointment is on Monday.", "monday")
    assert names_value("See you at 9.", "9") and not names_value("See you at 19:00.", "9")
    assert not names_value("Mondays are slow.", "monday")


@pytest.mark.parametrize(("text", "names"), [
    ("Rex passed away.", ("Rex",)),
    ("Sadly, Rex died yesterday.", ("Rex",)),
    ("We had to put Rex down last week.", ("Rex",)),
    ("We lost Rex on Sunday.", ("Rex",)),
    # a pet named by a common word: the judge reads it only as the end of a pet so named
    ("sadly Biscuit passed away last week", ("Biscuit",)),
    ("Biscuit died last week.", ("Biscuit",)),
    ("we had to put Pepper to sleep", ("Pepper",)),
    ("Business died down after lunch.", ()),   # faded, not a death
    ("Grandma passed away.", ()),              # a kin word
    ("It died.", ()),
    ("I lost Tom in the crowd.", ()),          # lost sight of, not a death
    ("I put Sam on the list.", ()),
])
def test_a_name_said_to_have_died_is_found_whatever_it_names(text, names):
    assert died(text) == names


@pytest.mark.parametrize(("text", "name"), [
    ("Nope, Denver now.", "Denver"), ("Actually Denver.", "Denver"), ("No wait, New York.", "New York"),
    ("Sorry, I meant Deutsche Bank", "Deutsche Bank"), ("Oops, it's Microsoft.", "Microsoft"),
    ("Nope, Salt Lake City now!", "Salt Lake City"), ("No, Denver then", "Denver"),
    # no word owns a mistake; no name; a time; an adjective or a common word alone; a kin word; more said
    ("Denver is nice.", None), ("Nope.", None), ("Actually, Tuesday", None), ("Sorry, Spanish", None),
    ("Actually Great.", None), ("Oops, Mom.", None), ("Actually Denver is nice.", None),
    ("Sorry, it's Denver, not Austin", None), ("actually I live in Denver", None),
])
def test_a_correction_naming_only_a_name_gives_it(text, name):
    assert renamed(text) == name


@pytest.mark.parametrize(("text", "things"), [
    ("The dentist is off.", {"dentist"}), ("Our team offsite got cancelled.", {"team offsite"}),
    ("the marathon is off, sadly", {"marathon"}), ("Is the dentist off?", set()), ("off to the dentist", set()),
])
def test_a_thing_said_to_be_off_is_named(text, things):
    assert off(text) == things


@pytest.mark.parametrize(("text", "things"), [
    ("I have a dentist appointment on Friday.", {"dentist appointment"}),
    ("I have a piano lesson on Tuesday at 5pm.", {"piano lesson"}),
    ("I have a dentist appointment.", set()),  # no time given
    ("I'm planning a trip to Tokyo in October.", {"trip", "tokyo trip"}),
    ("I booked a flight to New York for March 3.", {"flight", "new york flight"}),
    ("I'm planning a trip to Tokyo.", set()),  # no time given
    ("I have a trip to plan in October.", {"trip"}),  # "to" a verb, not a place
    # a trip by the place one is going to, and a month a thing is moved to (not a place it is bound for)
    ("I'm going to Tokyo in April.", {"trip", "tokyo trip"}),
    ("We're flying to New York on May 3.", {"trip", "new york trip"}),
    ("I'm going to Sam's on Friday.", set()),
    ("We moved the Lisbon trip to November.", {"lisbon trip"}),
    ("We moved the Lisbon trip to may be later.", set()),
])
def test_a_thing_given_a_time_is_named(text, things):
    assert scheduled(text) == things


@pytest.mark.parametrize(("name", "thing", "named"), [
    ("dentist", "dentist appointment", True), ("appointment", "dentist appointment", True),
    ("dentist appointment", "dentist appointment", True), ("power", "power company visit", False),
    ("team lunch", "team meeting", False), ("vet", "dentist appointment", False),
])
def test_a_name_names_a_thing_by_its_words_before_the_event_or_the_event(name, thing, named):
    assert names_thing(name, thing) is named


@pytest.mark.parametrize(("text", "moved"), [
    ("We moved the Tokyo trip to May.", {("tokyo trip", "may")}),
    ("We moved the trip to Tokyo to May 2026.", {("tokyo trip", "may 2026")}),
    ("we pushed the wedding back to September", {("wedding", "september")}),
    ("The vet appointment got pushed back to Monday at 9am.", {("vet appointment", "monday at 9am")}),
    ("I rescheduled my dentist appointment for March 3.", {("dentist appointment", "march 3")}),
    ("I pushed the fix to main.", set()),  # somewhere, not to a time
    ("We pushed the launch party back a week.", set()),  # by a while, no time named
    ("Should we move the Tokyo trip to May?", set()),
])
def test_a_thing_given_another_time_is_named_with_it(text, moved):
    assert rescheduled(text) == moved


@pytest.mark.parametrize(("text", "ending"), [
    ("I cancelled Netflix.", True), ("We dropped Jira last sprint.", True), ("I quit the gym.", True),
    ("I moved to Denver.", False), ("We switched to Linear.", False),
    ("a ticket about cancelled orders", False),  # a topic, no change
])
def test_a_change_that_ends_a_thing_is_told(text, ending):
    assert ends(text) is ending
