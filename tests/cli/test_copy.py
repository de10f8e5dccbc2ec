"""`worlddb copy` as an operator runs it, in a subprocess: a store written through the MCP
tools with the real model is copied into PostgreSQL and into a new SQLite file, and a client
of each copy reads what a client of the source reads, and goes on writing where it left off."""

from __future__ import annotations

import json
import subprocess
import sys

from mcp import Client

from bench.serverproc import call, child_env, stdio_params
from tests import pg
from worlddb.core.store import Store
from worlddb.memory import principals


def worlddb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "worlddb.cli", *args], env=child_env(), capture_output=True,
                          text=True, timeout=300)


SESSION = [{"role": "Caroline", "content": "I went to a pottery class on Saturday."},
           {"role": "Melanie", "content": "Nice! I took my kids camping at the lake."}]
LATER = [{"role": "Caroline", "content": "The pottery class starts a new term next week."}]


async def _written(db) -> dict:
    async with Client(stdio_params(db, embedder="minilm", default_user="u")) as client:
        old = await call(client, "memory_write", text="I live in Austin and work at Dell.", valid_from="2025-01-01")
        new = await call(client, "memory_write", text="We moved to Denver.", valid_from="2025-06-01")
        assert new["revised"] == [old["id"]]
        tea = await call(client, "memory_write", text="I drink green tea every morning.")
        await call(client, "memory_retire", id=tea["id"], reason="switched to coffee")
        session = await call(client, "memory_write", messages=SESSION, session="s1", valid_from="2025-07-01")
        return {"session": session["session"], "ids": [old["id"], new["id"], tea["id"]]
                + [t["id"] for t in session["turns"]]}


async def _seen(db, ids: list[str], *, then_continue: bool = False) -> dict:
    """What a client reads: scopes, the list with history, each memory, and two recalls; with
    `then_continue`, what the same client's next write to the session returns ("continued")."""
    async with Client(stdio_params(db, embedder="minilm", default_user="u")) as client:
        seen = {
            "scopes": await call(client, "memory_list_scopes"),
            "list": await call(client, "memory_list", include_retired=True, limit=50),
            "reads": [await call(client, "memory_read", id=i) for i in ids],
            "home": await call(client, "memory_recall", query="Where do I live?", limit=5),
            "hobby": await call(client, "memory_recall", query="What class did Caroline take?", limit=5),
        }
        if then_continue:
            seen["continued"] = await call(client, "memory_write", messages=LATER, session="s1",
                                           valid_from="2025-07-08")
        return seen


async def test_a_store_copied_to_postgresql_and_to_a_file_reads_and_continues_as_the_source(tmp_path):
    source = tmp_path / "memory.db"
    written = await _written(source)
    store = Store.open(source)
    try:
        token = principals.add_token(store, "reader", ["user:u"])
    finally:
        store.close()
    before = await _seen(source, written["ids"])
    assert before["home"]["results"][0]["text"] == "We moved to Denver."
    url = pg.new_database()
    try:
        for destination in (url, str(tmp_path / "copy.db")):
            done = worlddb("copy", destination, "--db", str(source))
            assert done.returncode == 0, done.stderr
            report = json.loads(done.stdout)
            assert report["verify"]["ok"] and report["verify"]["mismatches"] == 0
            assert report["rows"]["principals"] == 1 and report["rows"]["sessions"] == 1
            assert f"{report['total_rows']}/{report['total_rows']}" in done.stderr  # the progress bar
            after = await _seen(destination, written["ids"], then_continue=True)
            assert after["scopes"] == before["scopes"]
            assert after["list"] == before["list"]
            assert after["reads"] == before["reads"]
            for question in ("home", "hobby"):
                if destination.endswith(".db"):  # the same backend ranks alike
                    assert after[question] == before[question]
                else:
                    assert after[question]["results"][0]["id"] == before[question]["results"][0]["id"]
            # the copy's session goes on: the same Session world, its chain continued
            assert after["continued"]["session"] == written["session"]
            copied = Store.open(destination)
            try:
                assert principals.authenticate(copied, token).grants == ("user:u",)
            finally:
                copied.close()
        again = worlddb("copy", url, "--db", str(source))
        assert again.returncode == 2 and again.stderr.strip().endswith("a copy goes only into a new file or an "
                                                                       "empty database")
        assert "Traceback" not in again.stderr
    finally:
        pg.drop_database(url)
