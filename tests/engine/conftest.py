"""Engine fixtures: a real database file and the fast deterministic embedder."""

from __future__ import annotations

import pytest

from worlddb.vectors.embedder import HashEmbedder
from worlddb.memory.engine import Engine
from worlddb.memory.scopes import ScopeSet

ALICE = ScopeSet((("user", "alice"),))
BOB = ScopeSet((("user", "bob"),))


def open_engine(path, **options) -> Engine:
    options.setdefault("embedder", HashEmbedder())
    options.setdefault("query_model", True)
    return Engine.open(path, synchronous="NORMAL", **options)


@pytest.fixture
def engine(db_path):
    opened = open_engine(db_path)
    yield opened
    opened.close()
