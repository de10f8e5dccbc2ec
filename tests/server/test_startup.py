"""What a serving process does once it has started (ServerConfig.freeze_startup)."""

from __future__ import annotations

import asyncio
import gc
from dataclasses import replace

from mcp import Client

from worlddb.server import build_server

from .helpers import make_config, ok


async def test_a_serving_process_freezes_what_it_made_at_start_once_warm(tmp_path):
    gc.unfreeze()
    try:
        async with Client(build_server(make_config(tmp_path / "plain.db"))) as client:
            await ok(client, "memory_write", text="Ana painted the fence.")
            assert gc.get_freeze_count() == 0  # a server inside another program leaves its collector alone
        config = replace(make_config(tmp_path / "served.db"), background=True, consolidate_every=None)
        async with Client(build_server(replace(config, freeze_startup=True))) as client:
            for _ in range(100):  # the warm-up runs beside the first calls
                if gc.get_freeze_count():
                    break
                await asyncio.sleep(0.05)
            frozen = gc.get_freeze_count()
            assert frozen > 1000  # the modules, schemas and indexes made at start
            await ok(client, "memory_recall", query="fence")
    finally:
        gc.unfreeze()
