"""verify(): every id re-derives from its bytes; tampering is found and reported."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import ALICE, open_engine
from worlddb.cli import main
from worlddb.core.records import ERASED_PROPS, Edge, Node
from worlddb.core.store import Store
from worlddb.graph.database import WorldDB

pytestmark = pytest.mark.both_backends

T0 = 1_700_000_000_000_000


def populate(db) -> dict:
    with db.write() as w:
        scope = w.scope("user", "alice")
        session = w.add(Node("Session", name="s", created_at=T0), parents=[scope])
        turns = [w.add(Node("Turn", content=f"turn {i}", created_at=T0 + i), parents=[session]) for i in range(30)]
        for a, b in zip(turns, turns[1:]):
            w.link(Edge("precedes", a, b, world=session))
    return {"scope": scope, "session": session, "turns": turns}


def test_a_clean_store_verifies(db):
    populate(db)
    report = db.verify()
    assert report.ok, report.mismatches
    assert report.blobs == 32 and report.worlds == 2 and report.edges == 31 + 29


def test_a_flipped_byte_in_a_blob_is_found(db):
    made = populate(db)
    target = made["turns"][3]
    body = bytearray(db.store.conn.execute("SELECT record FROM nodes WHERE anchor=?", (target,)).fetchone()[0])
    at = body.index(b"turn 3")
    body[at] ^= 0x01
    db.store.conn.execute("UPDATE nodes SET record=? WHERE anchor=?", (bytes(body), target))
    report = db.verify()
    assert not report.ok
    assert [(m.kind, m.id) for m in report.mismatches] == [("blob", target)]


def test_a_tampered_interior_is_found(db):
    made = populate(db)
    session = made["session"]
    db.store.conn.execute("DELETE FROM members WHERE world=? AND kind=0 AND key=?",
                          (db.store.rowid(session), bytes.fromhex(made["turns"][0])))
    report = db.verify()
    assert any(m.kind == "interior" and m.id == session for m in report.mismatches)


def test_a_forged_version_id_is_found(db):
    made = populate(db)
    db.store.conn.execute("UPDATE versions SET id=? WHERE anchor=? AND seq=1", ("0" * 64, made["session"]))
    report = db.verify()
    assert any(m.kind == "version" for m in report.mismatches)


def test_a_same_as_edge_loses_its_evidence_only_with_an_erased_end(db):
    """Erasing an entity blanks the props of the same_as edges at it (the names they quote):
    verify counts such an edge as a tombstone, but blanked props on an edge whose ends both
    keep their content are tampering."""
    with db.write() as w:
        scope = w.scope("user", "alice")
        a, b, c = (w.add(Node("Entity", name=n, created_at=T0), parents=[scope]) for n in ("Ann", "Anne", "Anna"))
        w.link(Edge("same_as", a, b, props={"evidence": {"mention": "Anne", "matched_name": "Ann"}}))
        w.link(Edge("same_as", b, c, props={"evidence": {"mention": "Anna", "matched_name": "Anne"}}))
    with db.write() as w:
        w.erase(a)
    props = dict(db.store.conn.execute("SELECT dst, props FROM edges WHERE type='same_as'").fetchall())
    assert props[db.store.rowid(b)] == ERASED_PROPS and "Anna" in props[db.store.rowid(c)]
    assert db.verify().ok
    db.store.conn.execute("UPDATE edges SET props=? WHERE type='same_as' AND dst=?", (ERASED_PROPS, db.store.rowid(c)))
    report = db.verify()
    assert [m.kind for m in report.mismatches] == ["edge"]


def test_verify_command_exits_non_zero_on_mismatch(db_path, capsys):
    with WorldDB.open(db_path) as db:
        made = populate(db)
    assert main(["verify", "--db", str(db_path)]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["ok"] is True
    store = Store.open(db_path)  # either backend: the connection commits each statement
    changed = store.conn.execute(
        "UPDATE edges SET type='causes' WHERE rowid = (SELECT min(rowid) FROM edges WHERE type='precedes')")
    assert changed.rowcount == 1
    store.close()
    assert main(["verify", "--db", str(db_path)]) == 1
    assert "edge" in capsys.readouterr().out
    assert made


def test_verify_runs_as_an_installed_command(db_path):
    with WorldDB.open(db_path) as db:
        populate(db)
    done = subprocess.run([sys.executable, "-m", "worlddb.cli", "verify", "--db", str(db_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["versions"] > 0


VECTOR_DAMAGE = {
    "the vector row names bytes that are not stored":
        "DELETE FROM vector_data WHERE id = (SELECT data FROM vectors WHERE data IS NOT NULL LIMIT 1)",
    "stored bytes are named by rows of several nodes":
        "UPDATE vectors SET data = (SELECT min(data) FROM vectors) WHERE node = (SELECT max(node) FROM vectors)",
    "stored bytes that no vector row names": "INSERT INTO vector_data(vec) VALUES (?)",  # 4 zero floats
}


@pytest.mark.parametrize("detail", list(VECTOR_DAMAGE))
def test_vector_rows_and_their_shared_bytes_are_checked(db_path, detail):
    with open_engine(db_path) as engine:
        engine.write_memory("The heron came back to the pond.", ALICE)
        engine.write_memory("Ferns are watered on Sunday. The hose leaks.", ALICE)
        assert engine.db.verify().ok
        damage = VECTOR_DAMAGE[detail]
        engine.store.conn.execute(damage, (engine.store.backend.vector_param(bytes(16)),) if "?" in damage else ())
        report = engine.db.verify()
        assert not report.ok
        assert detail in {m.detail for m in report.mismatches if m.kind == "vector"}, report.mismatches
