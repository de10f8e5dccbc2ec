"""Whose news a statement is: the speaker's own, or another person's (worlddb.extract.whose)."""

from __future__ import annotations

import pytest

from worlddb.extract.slots import ME
from worlddb.extract.whose import apart, names, whose


@pytest.mark.parametrize(("text", "keys"), [
    # the speaker, or a thing of theirs; "we" is the speaker's household
    ("I have a haircut on Friday at 4pm", {ME}),
    ("our wedding is on June 14, 2027", {ME}),
    ("we pushed the wedding back to September", {ME}),
    ("Update: I've switched teams.", {ME}),
    ("My therapist moved our sessions to Fridays.", {ME}),   # a therapist is no relative
    # another person by a given name, or their thing
    ("Kenji quit his job at Google", {"kenji"}),
    ("Kenji's haircut got moved to Saturday", {"kenji"}),
    ("So apparently Kenji moved to Denver", {"kenji"}),
    ("Mark's flight got moved", {"mark"}),                   # a given name that is a word, as a possessive
    # a relative or friend, by the kin word, with the name given beside it
    ("my sister's dentist appointment got moved to Monday", {"sister"}),
    ("My cousin Anouk works as a vet in Utrecht.", {"cousin", "anouk"}),
    ("Dad sold the Volvo", {"father"}),
    ("Mom's birthday dinner moved to Sunday", {"mother"}),
    ("our kids switched schools", {"child"}),
    ("my brother-in-law's flight got moved", {"brother"}),
    # heard news is the news of whom it is about
    ("I heard Kenji quit his job", {"kenji"}),
    ("I've heard that my sister moved", {"sister"}),
    # with the speaker and someone else, or opening otherwise: no one's alone
    ("Kenji and I moved lunch to Thursdays", set()),
    ("My boss moved our 1:1 to Monday", set()),
    ("I moved her lessons to Wednesdays", set()),
    ("The wedding got moved", set()),
    ("Moved to Denver", set()),
    ("Mark quit his job", set()),                            # "Mark" opening a sentence may be a word
    ("Monday's standup moved", set()),
    ("June is busy", set()),
    ("", set()),
])
def test_whose_news_a_text_is(text, keys):
    assert whose(text) == keys


def test_a_name_the_reader_read_as_a_person_is_one():
    assert whose("Priya quit her job at Google") == set()  # no given name of the table
    assert whose("Priya quit her job at Google", people=["priya"]) == {"priya"}


@pytest.mark.parametrize(("a", "b", "two"), [
    ("I work at Google", "Kenji quit his job at Google", True),
    ("I have a haircut on Friday at 4pm", "Kenji's haircut got moved to Saturday", True),
    ("our wedding is on June 14, 2027", "Kenji's wedding got moved to September", True),
    ("Kenji's haircut is on Friday", "my haircut got moved to Saturday", True),
    ("my dentist appointment is Friday", "my sister's dentist appointment got moved to Monday", True),
    # the speaker's memory names the other person: it may be theirs too
    ("I have a haircut with Kenji on Friday", "Kenji moved the haircut to Saturday", False),
    ("I have dinner with my sister on Fridays", "My sister moved dinner to Saturdays", False),
    ("I'm married to Chris.", "Chris's sister is getting divorced.", False),
    # both the speaker's, both another's, or one of no one's alone
    ("our wedding is on June 14, 2027", "we pushed the wedding back to September", False),
    ("Kenji's haircut is on Friday", "Kenji's haircut got moved to Saturday", False),
    ("Therapy is on Thursdays at 4pm.", "My therapist moved our sessions to Fridays.", False),
])
def test_news_of_two_people(a, b, two):
    assert apart(a, b) is two
    assert apart(b, a) is two


def test_a_kin_word_is_named_in_any_of_its_forms():
    assert names("Called Mom today", {"mother"}) and names("the kids' school", {"child"})
    assert not names("I work at Google", {"kenji"})


def test_only_text_is_read():
    with pytest.raises(TypeError):
        whose(None)  # type: ignore[arg-type]
