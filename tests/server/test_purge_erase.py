"""Purge with erase: nothing of the erased text is left anywhere in the database file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from mcp import Client

from tests import pg
from worlddb.core.backends import is_url
from worlddb.graph.database import WorldDB

from .helpers import ok

SECRET = "Zanzibar-7731 quokka lullaby"
SHARED = "Shared-4410 pelican"

pytestmark = pytest.mark.both_backends


def file_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    for extra in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        if extra.exists():
            data += extra.read_bytes()
    return data


def stored_bytes(db_file) -> bytes:
    """Every byte the store keeps: on PostgreSQL every table, index and TOAST file of the
    database; on SQLite the file, checkpointed and vacuumed, with its log."""
    if is_url(str(db_file)):
        return pg.stored_bytes(str(db_file))
    conn = sqlite3.connect(db_file)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    conn.close()
    return file_bytes(db_file)


async def test_erase_removes_the_text_from_the_file_and_verify_still_passes(server, db_file):
    async with Client(server) as client:
        gone = await ok(client, "memory_write", text=f"{SECRET} is my wifi password", user_id="bob",
                        entities=[{"name": "Zanzibar-7731"}])
        await ok(client, "memory_amend", id=gone["id"], text=f"{SECRET} changed, see notes", user_id="bob")
        kept = await ok(client, "memory_write", text=f"{SHARED} visits the pond", user_id="bob", agent_id="zoo")
        await ok(client, "memory_write", text="unrelated note", user_id="alice")
        res = await ok(client, "memory_purge_scope", user_id="bob", confirm="user:bob", erase=True)
        assert res["erased"] >= 3 and res["kept_shared"] >= 1
        # the shared memory survives for the other scope
        hits = (await ok(client, "memory_recall", query="pelican pond", agent_id="zoo"))["results"]
        assert [h["id"] for h in hits][:1] == [kept["id"]]
    data = stored_bytes(db_file)
    for fragment in ("Zanzibar", "quokka", "lullaby", "wifi password"):
        assert fragment.encode() not in data, fragment
    assert SHARED.encode() in data
    with WorldDB.open(db_file) as db:
        report = db.verify()
        assert report.ok, report.mismatches
        assert report.erased >= 3


async def test_erase_removes_the_session_id_a_caller_gave(server, db_file):
    async with Client(server) as client:
        await ok(client, "memory_write", user_id="bob", session="tangerine-diary-5521",
                 messages=[{"role": "user", "content": "Dear diary, the blue door is unlocked."}])
        assert (await ok(client, "memory_purge_scope", user_id="bob", confirm="user:bob", erase=True))["erased"] >= 2
    data = stored_bytes(db_file)
    for fragment in ("tangerine-diary", "blue door"):
        assert fragment.encode() not in data, fragment


async def test_erase_removes_the_names_a_merge_proposal_quoted(server, db_file):
    """Two near names stage a merge proposal whose evidence (and the same_as edge's props)
    quote both names; erasing the scope removes them there too, and an erased entity reads
    with no text, as an erased memory does."""
    async with Client(server) as client:
        first = await ok(client, "memory_write", text="Quillondra met the team", user_id="bob",
                         entities=[{"name": "Quillondra"}])
        await ok(client, "memory_write", text="Quillondrra went home", user_id="bob",
                 entities=[{"name": "Quillondrra"}])
        entity = first["entities"][0]["id"]
        before = await ok(client, "memory_read", id=entity, user_id="bob")
        assert before["text"] == "Quillondra" and before["entity"]["proposals"]
        await ok(client, "memory_purge_scope", user_id="bob", confirm="user:bob", erase=True)
        after = await ok(client, "memory_read", id=entity, user_id="bob")
        assert after["text"] is None and after["entity"]["name"] == ""
    data = stored_bytes(db_file)
    assert b"uillondr" not in data
    with WorldDB.open(db_file) as db:
        report = db.verify()
        assert report.ok, report.mismatches


async def test_erased_counts_what_each_call_erased(server, db_file):
    """A purge run again (a deletion request confirmed twice) erases nothing more and says so;
    the first erase counts every tombstone it left, even after a purge without erase."""
    async with Client(server) as client:
        for i in range(3):
            await ok(client, "memory_write", text=f"Private note {i}: my therapist is Dr. Varga number {i}.",
                     user_id="bob")
        await ok(client, "memory_write", text="unrelated note", user_id="alice")
        retired = await ok(client, "memory_purge_scope", user_id="bob", confirm="user:bob")
        assert (retired["retired"], retired["erased"]) == (3, 0)
        first = await ok(client, "memory_purge_scope", user_id="bob", confirm="user:bob", erase=True)
        assert first["retired"] == 0 and first["erased"] >= 3
        for _ in range(2):
            again = await ok(client, "memory_purge_scope", user_id="bob", confirm="user:bob", erase=True)
            assert (again["retired"], again["erased"], again["kept_shared"]) == (0, 0, first["kept_shared"])
    with WorldDB.open(db_file) as db:
        report = db.verify()
        assert report.ok, report.mismatches
        assert report.erased == first["erased"]  # every tombstone in the store, and nothing else
