"""A stdio server and other processes on one database file: the server keeps SQLite's locks
on the file for as long as it has it open, so another process opening it (a `worlddb`
command, a script, a second server) never takes itself for the only one and rebuilds the
wal-index under the server - which killed the server with a bus error at its next commit."""

from __future__ import annotations

from mcp import Client
from mcp.client.stdio import stdio_client

from bench.serverproc import stdio_params
from tests.support import dms_is_held_elsewhere
from worlddb.graph.database import WorldDB

from .helpers import ok


async def test_a_server_keeps_serving_while_other_processes_open_and_close_its_file(tmp_path):
    db, errors = tmp_path / "shared.db", tmp_path / "stderr.txt"
    written = []
    texts = ["Ana painted the garden fence green.", "Bo adopted a grey kitten named Pixel.",
             "Chen ran the Lisbon half marathon.", "Dara planted tomatoes on the balcony.",
             "Eli fixed the bicycle brakes.", "Farah baked sourdough with rye flour."]
    with errors.open("w") as errlog:
        async with Client(stdio_client(stdio_params(db, embedder="minilm"), errlog=errlog),
                          read_timeout_seconds=60) as client:
            for text in texts:
                written.append((await ok(client, "memory_write", text=text))["id"])
                assert dms_is_held_elsewhere(db)  # the server still holds the file as SQLite does
                # another process (here: this one) opens the file, reads and closes it
                with WorldDB.open(db) as other:
                    assert other.store.get(written[-1]) is not None
            hits = (await ok(client, "memory_recall", query="sourdough rye bread"))["results"]
            assert hits and hits[0]["id"] == written[-1]
            listed = (await ok(client, "memory_list", limit=50))["memories"]
            assert sorted(m["id"] for m in listed) == sorted(written)
    assert "Fatal Python error" not in errors.read_text()
