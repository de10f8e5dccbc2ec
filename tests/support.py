"""Helpers shared across the test tree: scopes, an engine on a real store with the fast
deterministic embedder, and a dump of a store on either backend."""

from __future__ import annotations

import sqlite3

from tests import pg
from worlddb.core.backends import is_url
from worlddb.memory.engine import Engine
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import HashEmbedder

ALICE = ScopeSet((("user", "alice"),))
BOB = ScopeSet((("user", "bob"),))


def open_engine(path, **options) -> Engine:
    options.setdefault("embedder", HashEmbedder())
    options.setdefault("query_model", True)
    return Engine.open(path, synchronous="NORMAL", **options)


def dump(target) -> list[str]:
    """Every row of every table of the store at `target` (a SQLite file or a PostgreSQL
    URL), as text in a stable order: for 'nothing was written' checks."""
    if is_url(str(target)):
        return pg.dump(str(target))
    conn = sqlite3.connect(target)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()
