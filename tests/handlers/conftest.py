"""Helpers for the per-handler tests: small graphs written through the public write API."""

from __future__ import annotations

import itertools

import pytest

from worlddb.core.records import Node

T0 = 1_700_000_000_000_000
DAY = 86_400_000_000
_counter = itertools.count()


class Graph:
    """Writes nodes into one scope world and remembers them by label."""

    def __init__(self, db):
        self.db = db
        with db.write() as w:
            self.scope = w.scope("user", "alice")
        self.ids: dict[str, str] = {}

    def add(self, label: str, type: str = "Fact", valid_from: int = T0, parent: str | None = None) -> str:
        node = Node(type, content=label, name=label, created_at=next(_counter))
        with self.db.write() as w:
            self.ids[label] = w.add(node, valid_from=valid_from, parents=[parent or self.scope])
        return self.ids[label]

    def __getitem__(self, label: str) -> str:
        return self.ids[label]

    def label(self, anchor: str) -> str:
        return {v: k for k, v in self.ids.items()}[anchor]

    def labels(self, anchors) -> set[str]:
        return {self.label(a) for a in anchors if a in self.ids.values()}


@pytest.fixture
def graph(db):
    return Graph(db)
