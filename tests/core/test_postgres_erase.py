"""Erasure on PostgreSQL: after memory_purge_scope with erase, no table or index file of the
database holds the erased text (docs/postgresql.md says what else may: the WAL, archives,
replicas). The files are read directly from the server's data directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import pg
from tests.support import ALICE, BOB, open_engine

SECRET = b"qzxwkplmtrv"


@pytest.fixture
def url():
    target = pg.new_database()
    yield target
    pg.drop_database(target)


def _holding(url: str, needle: bytes) -> list[Path]:
    return [f for f in pg.relation_files(url) if needle in f.read_bytes()]


def test_no_relation_file_holds_erased_text(url):
    with open_engine(url) as engine:
        engine.write_memory(f"The vault code word is {SECRET.decode()} and it opens the blue door.", ALICE)
        engine.write_memory(f"Alice told me {SECRET.decode()} twice.", ALICE)
        engine.write_memory("Bob's own note about the blue door.", BOB)
        assert _holding(url, SECRET), "the text should be in the files before the erase (else this proves nothing)"
        result = engine.purge_scope(ALICE, "user:alice", erase=True)
        assert result.erased >= 2
        assert _holding(url, SECRET) == []
        assert _holding(url, b"Bob's own note"), "content of other scopes stays"
        assert engine.services.db.verify().ok
        assert engine.recall("blue door", BOB).results


def test_no_relation_file_holds_an_erased_value_the_rules_read(url):
    """A value read from a text is kept in the readings and claims tables too ("My wifi
    password is ...": the reading holds the password); those files are rewritten as well."""
    with open_engine(url) as engine:
        engine.write_memory(f"My wifi password is {SECRET.decode()}.", ALICE)
        engine.write_memory("Bob's wifi password is hunter2.", BOB)
        held = engine.store.conn.execute("SELECT body FROM readings").fetchall()
        assert any(SECRET.decode() in body for (body,) in held), "the reading should hold the value"
        engine.purge_scope(ALICE, "user:alice", erase=True)
        assert _holding(url, SECRET) == []
        assert engine.services.db.verify().ok
