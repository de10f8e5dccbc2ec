"""Helpers shared by the reliability tests."""

from __future__ import annotations

from pathlib import Path

from worlddb.core.store import Store
from worlddb.server import ServerConfig, build_server
from worlddb.vectors.embedder import HashEmbedder

#: tables every write path touches; a failed call must leave all of them as they were
FINGERPRINT_TABLES = ("tx", "nodes", "edges", "members", "closure", "scopes", "vectors", "vector_data", "fts",
                      "proposals", "validity_log", "resolver_names", "token_df")


def fingerprint(path: str | Path) -> dict[str, int]:
    """Row counts of every table a write touches, the last transaction, closed and erased
    nodes (a SQLite file or a PostgreSQL database, read through a connection of its own)."""
    store = Store.open(str(path))
    conn = store.conn
    try:
        out = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in FINGERPRINT_TABLES}
        out["max_seq"] = conn.execute("SELECT coalesce(max(seq), 0) FROM tx").fetchone()[0]
        out["closed"] = conn.execute("SELECT count(*) FROM nodes WHERE valid_to IS NOT NULL").fetchone()[0]
        out["erased"] = conn.execute("SELECT count(*) FROM nodes WHERE record IS NULL").fetchone()[0]
        return out
    finally:
        store.close()


def server_for(path: str | Path, default_user: str | None = "alice"):
    """The real server, background work off (so nothing writes between two looks), hash embedder."""
    return build_server(ServerConfig(db=str(path), default_user=default_user, background=False,
                                     engine_options={"embedder": HashEmbedder(), "query_model": True}))


#: Two Memory records whose ids share their first 8 hex characters (found by hashing
#: "collision %08d" for i = 0, 1, ... at this created_at until two prefixes met).
COLLIDING = ("collision 00038249", "collision 00108325")
COLLIDING_AT = 1_700_000_000_000_000


def plant_colliding_pair(path: str | Path, first_scope: tuple[str, str], second_scope: tuple[str, str]):
    """Write the two colliding memories, one into each scope; returns their ids."""
    from worlddb.core.records import Node
    from worlddb.graph.database import WorldDB

    nodes = [Node(type="Memory", content=text, created_at=COLLIDING_AT) for text in COLLIDING]
    assert nodes[0].id[:8] == nodes[1].id[:8] and nodes[0].id != nodes[1].id
    with WorldDB.open(path) as db, db.write() as w:
        for node, scope in zip(nodes, (first_scope, second_scope)):
            w.add(node, parents=[w.scope(*scope)])
    return nodes[0].id, nodes[1].id
