"""Which questions ask about what held before (worlddb.retrieval.past); recall's use of it is
tested through MCP in tests/server/test_updates.py."""

from __future__ import annotations

import pytest

from worlddb.retrieval.past import asks_before


@pytest.mark.parametrize("question", [
    "Where did I live before?", "What was my old job?", "What was my previous job?", "What was my former job?",
    "What was my last job?", "What was my last phone number?", "Which editor did I use to use?",
    "Who was her former manager?",
])
def test_a_question_about_what_was_replaced_asks_before(question):
    assert asks_before(question)


@pytest.mark.parametrize("question", [
    "What is my job?", "How old is my dog?", "Where did I go on my last trip?", "What did I do on my last day?",
    "What should I check before merging?", "Am I old enough to rent a car?",
])
def test_a_question_about_now_an_age_or_a_time_does_not(question):
    assert not asks_before(question)
