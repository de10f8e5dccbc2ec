"""A store written before the claims index, served: the server indexes its memories' claims in
the background (worlddb.memory.claims_backfill), and a plain memory_write of a change then
supersedes an old memory that only the index finds in a crowded scope. The store is
`tests/fixtures/schema8.db`, written by the code of schema 8 with the default model
(tests/fixtures/make_schema8.py); the server opens it with that model, as `worlddb serve` does."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

from mcp import Client

from tests.fixtures.make_schema8 import AUSTIN
from worlddb.core.schema import CLAIMS_BACKFILL_KEY
from worlddb.core.store import Store
from worlddb.server import ServerConfig, build_server

from .helpers import ok

FIXTURE = Path(__file__).parent.parent / "fixtures" / "schema8.db"
MOVED = "I moved to Denver last month."


def old_store(tmp_path: Path, name: str) -> tuple[Path, str]:
    """A copy of the schema-8 store, upgraded, and the id of its AUSTIN memory - which the
    nearest neighbours of MOVED do not reach (the precondition of what follows)."""
    from worlddb.memory import update_candidates
    from worlddb.memory.engine import Engine
    from worlddb.memory.scopes import ScopeSet, scope_anchors

    path, scope = tmp_path / name, ScopeSet((("user", "crowd"),))
    shutil.copy(FIXTURE, path)
    with Engine.open(path) as engine:
        austin = next(m.id for m in engine.list_memories(scope, limit=100).memories if m.text == AUSTIN)
        prepared = engine.prepare_write(MOVED, scope)
        nearest = update_candidates.find(engine.services, scope_anchors(engine.store, scope), MOVED,
                                      prepared.index[0].vector, prepared.index[0].units)
        assert len(nearest) == update_candidates.CANDIDATES and austin not in nearest
    return path, austin


def pending(path: Path) -> str | None:
    store = Store.open(path)
    try:
        return store.meta_get(CLAIMS_BACKFILL_KEY)
    finally:
        store.close()


async def test_a_served_old_store_is_backfilled_and_a_change_then_supersedes_what_only_the_index_finds(tmp_path):
    # without the backfill, the write cannot find the old memory: nothing is superseded
    path, austin = old_store(tmp_path, "as-is.db")
    async with Client(build_server(ServerConfig(db=str(path), background=False))) as client:
        new = await ok(client, "memory_write", text=MOVED, user_id="crowd")
        assert new["superseded"] == [] and not new.get("revised")
        assert (await ok(client, "memory_read", id=austin, user_id="crowd"))["valid_to"] is None
    assert pending(path) is not None  # a server without background work leaves the pass due
    # the server's background work runs the pass; then the same write supersedes it
    path, austin = old_store(tmp_path, "served.db")
    async with Client(build_server(ServerConfig(db=str(path), background=True))) as client:
        deadline = time.monotonic() + 60
        while pending(path) is not None:
            assert time.monotonic() < deadline, "the background backfill did not finish within 60 s"
            await asyncio.sleep(0.05)
        new = await ok(client, "memory_write", text=MOVED, user_id="crowd")
        assert new["superseded"] == [austin] and not new["conflicts"]
        hits = (await ok(client, "memory_recall", query="Where do I live?", user_id="crowd"))["results"]
        assert austin not in [h["id"] for h in hits] and hits[0]["id"] == new["id"]
        assert (await ok(client, "memory_read", id=austin, user_id="crowd"))["superseded_by"] == [new["id"]]
