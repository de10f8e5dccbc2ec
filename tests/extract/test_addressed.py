"""worlddb.extract.addressed: an assistant's plain statements about "you", in the user's voice."""

from __future__ import annotations

import pytest

from worlddb.extract.addressed import as_user


@pytest.mark.parametrize("text, expected", [
    ("Got it - you live in Austin and work at Dell. I'll remember that.",
     "Got it - I live in Austin and work at Dell."),
    ("Noted: ramen is your favourite food!", "Noted: ramen is my favourite food!"),
    ("So you're vegetarian now.", "So I'm vegetarian now."),
    ("Your dentist is Dr. Patel, and you've been seeing her for years.",
     "My dentist is Dr. Patel, and I've been seeing her for years."),
    ("You were a teacher before. You are allergic to penicillin.",
     "I was a teacher before. I am allergic to penicillin."),
    # what the speaker takes note of: its words of noting are dropped, the rest read as above
    ("Thanks for telling me. I'll remember you take sertraline 50mg.", "I take sertraline 50mg."),
    ("Got it, I've noted that your manager is Tom Becker.", "My manager is Tom Becker."),
    ("I will remember that you adopted a greyhound.", "I adopted a greyhound."),
])
def test_a_statement_about_you_is_turned_into_the_first_person(text, expected):
    assert as_user(text) == expected


@pytest.mark.parametrize("text", [
    "You moved to Chicago, right?",  # a question
    "Do you still live in Austin?",
    "If you move to Denver, tell me.",  # a condition, an offer, advice, a wish
    "Let me know when you start at Stripe.",
    "You should try the ramen place on Elm Street.",
    "You could ask Dr. Patel about it.",
    "Hope you enjoy Denver!",
    "I think you work at Dell.",  # the speaker speaks of itself: its "I" would read as the user's
    "I'll remind you to take sertraline.",  # no note taken of anything about "you"
    "I'll remember you and I talked about Denver.",  # what it notes speaks of the speaker too
    "I'll remember that.",
    "We talked about your move to Denver.",
    "Congrats on the move!",  # nothing about "you"
    "",
])
def test_questions_conditions_advice_and_the_speakers_own_words_say_nothing(text):
    assert as_user(text) == ""
