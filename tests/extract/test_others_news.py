"""others_news: the sentences of a text that tell news of someone close to the speaker, which the
slot reader reads nothing from (worlddb.extract.others_news)."""

from __future__ import annotations

import pytest

from worlddb.extract.others_news import others_news


@pytest.mark.parametrize(("text", "values", "subjects"), [
    ("I work at Google. My daughter just started kindergarten.", ["Google"], ("daughter",)),
    ("I work at Dell. Also, my sister just had a baby!", ["Dell"], ("sister",)),
    ("I live in Austin. Our kids love soccer.", ["Austin"], ("child",)),
    ("I work at Google. Sam got promoted last week.", ["Google"], ("sam",)),
    ("I work at Google. Chris finally bought a boat.", ["Google"], ("chris",)),
])
def test_news_of_someone_close_that_the_reader_reads_nothing_from_is_found(text, values, subjects):
    assert others_news(text, values) == subjects


@pytest.mark.parametrize(("text", "values"), [
    ("I live in Austin and love it here.", ["Austin"]),        # the speaker, and about the place
    ("I live in Austin. My kids love it there.", ["Austin"]),  # refers back to the home
    ("I live in Austin. My wife loves the neighbourhood.", ["Austin"]),
    ("I work at Google. My wife used to intern at Google.", ["Google"]),  # names what the change ends
    ("I live in Austin. My wife too.", ["Austin"]),            # no statement of its own
    ("I work at Google. My boss just bought a boat.", ["Google"]),  # known through the job
    ("I live in Denver. My neighbour just got a puppy.", ["Denver"]),  # known through the home
    ("I live in Denver. Austin traffic is awful.", ["Denver"]),  # a place that is also a given name
    ("My sister is a nurse.", []),                              # the reader reads it: a claim of its own
    ("Hi! I'm Tomás, I work as a sous chef at Bellwether.", ["Bellwether"]),
])
def test_what_is_no_news_of_another_or_goes_with_the_change_is_not(text, values):
    assert others_news(text, values) == ()


def test_a_text_that_is_no_str_is_refused():
    with pytest.raises(TypeError):
        others_news(None)  # type: ignore[arg-type]
