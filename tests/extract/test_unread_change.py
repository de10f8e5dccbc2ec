"""A change said in words the slot reader cannot place: which texts say one."""

from __future__ import annotations

import pytest

from worlddb.extract.unread_change import says_change


@pytest.mark.parametrize("text", [
    "We moved release day to Tuesdays so nobody debugs prod over the weekend.",
    "Moved the whole suite to Vitest last sprint.",                  # the subject left out
    "Update: we switched the nightly job over to the new runner.",
    "I no longer do the Monday call; it's async now.",
    "Correction: our rota starts on Wednesdays.",
    "Quick note: we raised the minimum to Python 3.11.",
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
    "",
])
def test_anything_else_is_none(text):
    assert not says_change(text)


def test_a_non_string_is_a_type_error():
    with pytest.raises(TypeError):
        says_change(None)  # type: ignore[arg-type]
