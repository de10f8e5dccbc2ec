"""worlddb.core.records: what a node's and an edge's type may be, and which texts are blank."""

from __future__ import annotations

import pytest

from worlddb.core.errors import InvalidInput
from worlddb.core.records import INVISIBLE, Edge, Node, is_blank


@pytest.mark.parametrize("name", ["Topic\n", "Topic\r\n", "\nTopic", "T" * 64 + "\n"])
def test_a_type_name_with_a_line_break_is_refused(name):
    # "$" also matches before a final newline: "Topic\n" passed as a type of its own
    with pytest.raises(InvalidInput, match="must start with a letter"):
        Node(name, content="x")
    with pytest.raises(InvalidInput, match="must start with a letter"):
        Edge(name, "a" * 64, "b" * 64)
    assert Node("Topic", content="x").type == "Topic"


def test_the_invisible_characters_are_unicodes_default_ignorables_and_the_braille_blank():
    # the table is written out (the standard library has no Default_Ignorable_Code_Point);
    # the regex package, which dateparser brings, reads it from the Unicode data
    import regex

    ignorable = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    expected = {chr(c) for c in range(0x110000) if ignorable.match(chr(c))} | {"\u2800"}
    assert INVISIBLE == expected


@pytest.mark.parametrize("text", ["\u200b", "\u034f\u034f", "\u115f", "\u1160", "\u3164 \u3164", "\ufe0f", "\u2800",
                                  "\u17b4", "\uffa0", "\u00ad", "\U000e0020", "\u2066\u2069", " \n\u200d\t"])
def test_a_text_of_invisible_characters_and_whitespace_alone_is_blank(text):
    assert is_blank(text)


@pytest.mark.parametrize("text", ["a", "\u200ba", "\u3131", "\u2801", "e\u0301", "\U0001f642\ufe0f", "\u0600\u0661"])
def test_a_text_showing_anything_is_not_blank(text):
    assert not is_blank(text)
