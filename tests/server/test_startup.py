"""What a serving process does once it has started (ServerConfig.freeze_startup), and how it dies."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
from dataclasses import replace

import pytest
from mcp import Client
from mcp.client.stdio import stdio_client

from bench.serverproc import stdio_params, stdio_pid
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


async def test_servers_built_in_one_process_share_their_tools_but_each_serves_its_own_store(tmp_path):
    # the tools are made once per process (server/app.py _MADE); what they act on is each server's
    first = build_server(make_config(tmp_path / "a.db", default_user="alice"))
    second = build_server(make_config(tmp_path / "b.db", default_user="bob"))
    async with Client(first) as a, Client(second) as b:
        listed_a, listed_b = await a.list_tools(), await b.list_tools()
        assert [t.name for t in listed_a.tools] == [t.name for t in listed_b.tools]
        assert [t.input_schema for t in listed_a.tools] == [t.input_schema for t in listed_b.tools]
        await ok(a, "memory_write", text="Ana painted the fence green.")
        await ok(b, "memory_write", text="Bo fixed the gate.")
        assert [h["text"] for h in (await ok(a, "memory_recall", query="fence"))["results"]] == [
            "Ana painted the fence green."]
        assert [h["text"] for h in (await ok(b, "memory_recall", query="fence gate"))["results"]] == [
            "Bo fixed the gate."]
        assert [s["key"] for s in (await ok(b, "memory_list_scopes"))["scopes"]] == ["user:bob"]
        bad = await b.call_tool("memory_recall", {"query": "x", "limit": "3"})
        assert bad.is_error and "limit: Input should be a valid integer" in bad.content[0].text


async def test_a_server_killed_by_a_native_crash_leaves_every_threads_stack_on_stderr(tmp_path):
    # `worlddb serve` over stdio as a client starts it; a fault in a native library is stood
    # in for by the signal it raises
    db, errors = tmp_path / "crash.db", tmp_path / "stderr.txt"
    with errors.open("w") as errlog, pytest.raises(ExceptionGroup) as lost:
        async with Client(stdio_client(stdio_params(db), errlog=errlog), read_timeout_seconds=30) as client:
            await ok(client, "memory_write", text="Ana painted the fence.")
            os.kill(stdio_pid(db), signal.SIGSEGV)
            await ok(client, "memory_recall", query="fence")
    assert "Connection closed" in repr(lost.value)  # the client lost its server
    err = errors.read_text()
    assert "Fatal Python error: Segmentation fault" in err
    assert "in cmd_serve" in err  # the Python stack of the thread that crashed, down to the command
