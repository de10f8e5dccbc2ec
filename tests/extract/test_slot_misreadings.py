"""Texts the slot reader once misread, read here rule by rule: a place's name that begins with a
word the value cutter took for a filler ("New York"), a statement followed by a tag question,
a move between two things that are no places, and a move the speaker and a relative made
together."""

from __future__ import annotations

import pytest

from worlddb.extract.slots import ME, read, same_value


def claims(text: str) -> list[tuple[str, str, str, bool, bool]]:
    return [(c.subject, c.attribute, c.value, c.positive, c.ended) for c in read(text).claims]


@pytest.mark.parametrize(("text", "value"), [
    ("I moved to New York.", "New York"),
    ("We live in New Orleans now.", "New Orleans"),
    ("I live in Old Town.", "Old Town"),
    ("I moved to a new place in New Haven.", "New Haven"),
    ("We relocated to the New Forest.", "New Forest"),
    ("I live in North Carolina.", "North Carolina"),
    ("I moved to San Diego.", "San Diego"),
])
def test_a_word_that_begins_a_places_name_is_part_of_it(text, value):
    assert [c.value for c in read(text).claims if c.attribute == "home"] == [value]


@pytest.mark.parametrize(("text", "attribute", "value"), [
    ("I have a new job at Acme.", "employer", "Acme"),
    ("I started a new job at Acme.", "employer", "Acme"),
    ("My new address is 5 Elm Street.", "address", "5 Elm Street"),
])
def test_a_lower_case_new_is_still_no_part_of_a_value(text, attribute, value):
    assert [c.value for c in read(text).claims if c.attribute == attribute] == [value]


def test_a_places_name_behind_a_word_that_begins_another_is_another_value():
    assert not same_value("York", "New York") and not same_value("New York", "York")
    assert not same_value("Carolina", "North Carolina") and not same_value("the New Forest", "Forest")
    assert same_value("New York", "New York") and same_value("the New Forest", "New Forest")
    assert same_value("New York", "New York City")  # more words after the name: as "Kaiser Permanente clinic"
    assert same_value("Kaiser Permanente", "a Kaiser Permanente clinic")
    assert read("I moved to New York.").claims[0].subject == ME


@pytest.mark.parametrize(("text", "attribute", "value"), [
    ("Living in Austin now, remember?", "home", "Austin"),
    ("Working at Stripe these days, you know?", "employer", "Stripe"),
    ("Moved to Austin last year, right?", "home", "Austin"),
    ("Living in Austin now, as I said?", "home", "Austin"),
])
def test_a_tag_question_after_a_statement_keeps_the_statement(text, attribute, value):
    assert [(c.subject, c.value, c.positive) for c in read(text).claims if c.attribute == attribute] == \
        [(ME, value, True)]


@pytest.mark.parametrize("text", [
    "Living in Austin now?", "Moving to Austin?", "Working at Stripe these days?", "Cancel my gym membership?",
    # a question that opens with an auxiliary asks, whatever tag ends it
    "Do I live in Austin now, right?", "Did I move to Austin, remember?",
])
def test_a_real_question_still_states_nothing(text):
    assert read(text).claims == ()


@pytest.mark.parametrize("text", [
    "I moved from Vim to Neovim.",
    "We moved from Jenkins to GitHub Actions.",
    "We moved from Trello to Asana last month.",
    "I moved from Emacs to Vim.",
])
def test_a_move_between_two_things_that_are_no_places_reads_no_home(text):
    reading = read(text)
    assert [c for c in reading.claims if c.attribute == "home"] == []
    assert any(c.attribute == "replaces" and not c.ended for c in reading.claims)  # the tool's change is kept


@pytest.mark.parametrize(("text", "new", "old"), [
    ("I moved from Chicago to Denver.", "Denver", "Chicago"),
    ("We moved from Bozeman to Missoula in May.", "Missoula", "Bozeman"),
    ("We moved from New York to Salt Lake City.", "Salt Lake City", "New York"),
])
def test_a_move_between_places_is_still_a_home_taken_and_one_left(text, new, old):
    homes = [(c.value, c.positive, c.ended) for c in read(text).claims if c.attribute == "home"]
    assert homes == [(new, True, False), (old, False, True)]


@pytest.mark.parametrize(("text", "subject"), [
    ("User and his wife moved to Portland.", ME),
    ("The user and her husband live in Portland now.", ME),
    ("I and my wife moved to Portland.", ME),
    ("Me and my wife moved to Portland.", ME),
    ("My wife and I moved to Portland.", ME),
    ("Tom and his wife moved to Portland.", "tom"),
    ("My brother and his wife moved to Portland.", "brother"),
    # the relative alone, or with others, moved: not the speaker
    ("My wife moved to Portland for work.", "wife"),
    ("My wife and kids moved to Portland.", "wife"),
])
def test_who_moved_when_the_speaker_or_a_person_moved_with_a_relative(text, subject):
    assert [(c.subject, c.value) for c in read(text).claims if c.attribute == "home"] == [(subject, "Portland")]
