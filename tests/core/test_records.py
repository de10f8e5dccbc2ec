"""worlddb.core.records: what a node's and an edge's type may be, and which texts are blank."""

from __future__ import annotations

import pytest

from worlddb.core.errors import InvalidInput
from worlddb.core.records import Edge, Node


@pytest.mark.parametrize("name", ["Topic\n", "Topic\r\n", "\nTopic", "T" * 64 + "\n"])
def test_a_type_name_with_a_line_break_is_refused(name):
    # "$" also matches before a final newline: "Topic\n" passed as a type of its own
    with pytest.raises(InvalidInput, match="must start with a letter"):
        Node(name, content="x")
    with pytest.raises(InvalidInput, match="must start with a letter"):
        Edge(name, "a" * 64, "b" * 64)
    assert Node("Topic", content="x").type == "Topic"
