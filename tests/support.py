"""Helpers shared across the test tree: scopes, and an engine on a real file with the fast
deterministic embedder."""

from __future__ import annotations

from worlddb.memory.engine import Engine
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import HashEmbedder

ALICE = ScopeSet((("user", "alice"),))
BOB = ScopeSet((("user", "bob"),))


def open_engine(path, **options) -> Engine:
    options.setdefault("embedder", HashEmbedder())
    options.setdefault("query_model", True)
    return Engine.open(path, synchronous="NORMAL", **options)
