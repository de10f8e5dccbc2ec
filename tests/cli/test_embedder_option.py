"""`worlddb serve --embedder` / $WORLDDB_EMBEDDER as a user starts it: the hash embedder
serves end to end, and a wrong or mismatched embedder is one clear line, not a traceback."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from mcp import Client

from bench.serverproc import call, child_env, stdio_params
from worlddb.vectors.embedder import HashEmbedder


async def test_a_server_started_with_the_hash_embedder_writes_and_recalls_with_it(tmp_path):
    db = tmp_path / "hash.db"
    params = stdio_params(db)  # worlddb serve --embedder hash, over stdio
    assert params.args[params.args.index("--embedder") + 1] == "hash"
    async with Client(params) as client:
        written = await call(client, "memory_write", text="The lighthouse keeper paints the door yellow")
        hits = (await call(client, "memory_recall", query="lighthouse door paint"))["results"]
        assert hits[0]["id"] == written["id"] and "vector" in hits[0]["lanes"]
    conn = sqlite3.connect(str(db))
    assert conn.execute("SELECT value FROM meta WHERE key='embed_model'").fetchone() == ("hash-v1-256",)
    conn.close()


def test_an_unknown_embedder_or_a_mismatched_database_is_one_clear_line(tmp_path):
    bad = subprocess.run([sys.executable, "-m", "worlddb.cli", "serve", "--db", str(tmp_path / "x.db")],
                         env=child_env(WORLDDB_EMBEDDER="word2vec"), input="", capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "worlddb serve: unknown embedder 'word2vec' (minilm or hash)"

    from worlddb.memory.engine import Engine
    from worlddb.memory.scopes import ScopeSet

    db = tmp_path / "hash.db"
    with Engine.open(db, embedder=HashEmbedder(), query_model=True) as engine:
        engine.write_memory("written with the hash embedder", ScopeSet((("user", "u"),)))
    mismatch = subprocess.run([sys.executable, "-m", "worlddb.cli", "serve", "--db", str(db), "--embedder", "minilm"],
                              env=child_env(), input="", capture_output=True, text=True, timeout=60)
    assert mismatch.returncode == 2
    assert "Traceback" not in mismatch.stderr
    assert "embedded with hash-v1-256" in mismatch.stderr
