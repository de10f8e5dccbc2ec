"""The identifier step: what a code in a query is, and the order it gives (the step in recall is
tested through MCP in tests/server/test_updates.py)."""

from __future__ import annotations

import pytest

from worlddb.retrieval.identifiers import asks_now, first, identifiers


@pytest.mark.parametrize(("text", "codes"), [
    ("What is OPS-2 about?", {"ops-2"}),
    ("Is db-staging-02 still up, or web01?", {"db-staging-02", "web01"}),
    ("Which repos are on Node22 or v1.4.2.", {"node22", "v1.4.2"}),
    ("Did we try gpt-4o for this?", {"gpt-4o"}),
    # times, ordinals, plain numbers and words are no codes
    ("Meet at 3pm on the 2nd, room 12, about the launch.", set()),
    ("", set()),
])
def test_a_code_opens_with_a_letter_and_holds_a_digit(text, codes):
    assert identifiers(text) == codes


TEXTS = ["Ticket OPS-3 is about upgrading React.", "Ticket OPS-20 is about flaky tests.",
         "Ticket ops-2 is about the login bug.", "The docs moved to Vercel.", "OPS-2/OPS-3 are linked."]


def test_texts_naming_every_code_move_ahead_each_side_keeping_its_order():
    order = first(identifiers("What is OPS-2 about?"), TEXTS, str)
    assert order == [(TEXTS[2], 1), (TEXTS[4], 2), (TEXTS[0], None), (TEXTS[1], None), (TEXTS[3], None)]
    both = first(identifiers("OPS-2 and OPS-3?"), TEXTS, str)
    assert both[0] == (TEXTS[4], 1) and [t for t, _ in both[1:]] == TEXTS[:4]


@pytest.mark.parametrize("query", ["What is the launch about?", "What is OPS-7 about?"])
def test_no_code_or_no_text_holding_it_leaves_the_order(query):
    assert first(identifiers(query), TEXTS, str) == [(t, None) for t in TEXTS]


@pytest.mark.parametrize(("question", "now"), [
    ("What's the status of BL-204?", True), ("What is the latest on BL-204?", True), ("Is BL-204 done yet?", True),
    ("Where does BL-204 stand?", True), ("Is db-staging-02 still up?", True),
    ("What is OPS-2 about?", False), ("Who filed BL-204?", False),
])
def test_a_question_about_where_a_thing_stands_now(question, now):
    assert asks_now(question) is now


def test_asked_where_it_stands_the_texts_naming_the_code_come_newest_first():
    dated = [("OPS-2 is about the flaky payment tests.", 1), ("Ticket OPS-3 is about React.", 9),
             ("OPS-2 shipped.", 5), ("OPS-2 is in review.", 3)]
    order = first(identifiers("Status of OPS-2?"), dated, lambda t: t[0], lambda t: (t[1],))
    assert [(t[0], place) for t, place in order] == [
        ("OPS-2 shipped.", 1), ("OPS-2 is in review.", 2), ("OPS-2 is about the flaky payment tests.", 3),
        ("Ticket OPS-3 is about React.", None)]
