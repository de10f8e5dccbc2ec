"""`worlddb identity` as a person runs it, in a subprocess against a real file: list the
pending merge proposals, accept or reject one, look an entity up, export identities; a bad
id or name is one clear line on stderr, a non-zero exit, and no change to the file."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench.serverproc import child_env
from tests.server.helpers import dump
from tests.support import ALICE, BOB, open_engine


def contents(path) -> list[str]:
    """Every row of every table, less the planner statistics SQLite refreshes on a close."""
    return [line for line in dump(path) if "sqlite_stat" not in line and not line.startswith("ANALYZE")]


def worlddb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "worlddb.cli", *args], env=child_env(), capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def store(tmp_path):
    """Sarah Connor and Sara Conner in alice's memory (one pending proposal), and a Sarah in bob's."""
    path = tmp_path / "memory.db"
    with open_engine(path) as engine:
        first = engine.write_memory("My manager Sarah Connor approved the Q3 budget.", ALICE)
        second = engine.write_memory("Sara Conner wants the quarterly report by Friday.", ALICE)
        engine.write_memory("Bob had lunch with Sarah Connor.", BOB)
        (proposal,) = engine.merge_proposals(ALICE).proposals
    return path, first, second, proposal


def test_pending_lists_the_proposals_plainly_and_as_json(store):
    path, _, _, proposal = store
    out = worlddb("identity", "pending", "--db", str(path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["PROPOSAL", "ENTITY", "MAY", "BE", "TIER", "SCORE", "SCOPE"]
    assert lines[1].split()[0] == proposal.id[:12] and "Sara Conner" in lines[1] and "Sarah Connor" in lines[1]
    assert lines[1].split()[-1] == "user:alice" and lines[-1].startswith("1 pending merge proposal;")
    as_json = json.loads(worlddb("identity", "pending", "--db", str(path), "--json").stdout)
    assert [(p["id"], p["status"], p["a"]["name"], p["b"]["name"]) for p in as_json] == [
        (proposal.id, "pending", "Sara Conner", "Sarah Connor")]
    other = worlddb("identity", "pending", "--db", str(path), "--scope", "user:bob")
    assert other.returncode == 0 and other.stdout.strip() == "no pending merge proposals"


def test_accept_joins_the_two_and_a_second_decision_or_a_bad_id_fails_cleanly(store):
    path, first, second, proposal = store
    before = contents(path)
    for args, message in [
        (("accept", "0123456789abcdef"), "worlddb identity accept: no merge proposal with id 0123456789abcdef"),
        (("reject", "not-an-id"), "worlddb identity reject: 'not-an-id' is not an id"),
        (("accept", proposal.id[:4]), "worlddb identity accept: an id prefix needs at least 8 hex characters"),
        (("accept", proposal.id, "--scope", "user:bob"), "worlddb identity accept: no merge proposal with id"),
    ]:
        out = worlddb("identity", *args, "--db", str(path))
        assert out.returncode == 2 and out.stderr.startswith(message), (args, out.stderr)
        assert "Traceback" not in out.stderr and out.stdout == ""
    assert contents(path) == before
    out = worlddb("identity", "accept", proposal.id[:10], "--db", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (f"accepted {proposal.id[:12]}: Sara Conner and Sarah Connor are one identity "
                                  "(user:alice)")
    again = worlddb("identity", "reject", proposal.id, "--db", str(path))
    assert again.returncode == 2 and "was already accepted" in again.stderr
    with open_engine(path) as engine:
        (decided,) = engine.merge_proposals(ALICE, status="accepted").proposals
        assert decided.id == proposal.id
        hits = {h.id: h.lanes for h in engine.recall("What does Sarah Connor want?", ALICE).results}
        assert hits[second.id].get("entity") and hits[first.id].get("entity")


def test_reject_keeps_them_apart_with_the_reason(store):
    path, _, _, proposal = store
    out = worlddb("identity", "reject", proposal.id, "--reason", "two different people", "--db", str(path))
    assert out.returncode == 0 and out.stdout.startswith(f"rejected {proposal.id[:12]}: Sara Conner and Sarah Connor")
    with open_engine(path) as engine:
        (decided,) = engine.merge_proposals(ALICE, status="rejected").proposals
        assert decided.reason == "two different people"


def test_show_finds_entities_by_name_word_or_id_in_every_scope_or_one(store):
    path, first, _, proposal = store
    out = worlddb("identity", "show", "Sarah Connor", "--db", str(path))
    assert out.returncode == 0, out.stderr
    blocks = out.stdout.split("\n\n")
    assert len(blocks) == 2  # alice's Sarah and bob's: the operator sees every scope
    alice = next(b for b in blocks if "user:alice" in b)
    # "My manager Sarah Connor": the extractor types her a person, and show says so
    assert alice.startswith("Sarah Connor  (person)\n") and f"pending   {proposal.id[:12]}  may be Sara Conner" in alice
    assert first.id[:12] in alice and "My manager Sarah Connor approved the Q3 budget." in alice
    only = worlddb("identity", "show", "connor", "--scope", "user:bob", "--db", str(path), "--json")
    (entity,) = json.loads(only.stdout)
    assert entity["scopes"] == ["user:bob"] and entity["mentions"][0]["text"] == "Bob had lunch with Sarah Connor."
    by_id = worlddb("identity", "show", entity["id"][:10], "--db", str(path))
    assert by_id.returncode == 0 and "user:bob" in by_id.stdout and "user:alice" not in by_id.stdout
    missing = worlddb("identity", "show", "Nobody Atall", "--db", str(path))
    assert missing.returncode == 2
    assert missing.stderr.strip() == ("worlddb identity show: no entity named 'Nobody Atall' in scope "
                                      "user:alice, user:bob")


def test_export_writes_every_identity_or_one_as_json(store, tmp_path):
    path, _, _, _ = store
    target = tmp_path / "identities.json"
    out = worlddb("identity", "export", "--db", str(path), "--out", str(target))
    assert out.returncode == 0 and out.stdout.startswith("wrote ") and str(target) in out.stdout
    report = json.loads(target.read_text())
    assert report["scopes"] == ["user:alice", "user:bob"]
    names = sorted(m["name"] for i in report["identities"] for m in i["members"])
    assert names.count("Sarah Connor") == 2 and "Sara Conner" in names
    ambiguous = worlddb("identity", "export", "Sarah Connor", "--db", str(path))
    assert ambiguous.returncode == 2 and "names 2 entities" in ambiguous.stderr
    one = json.loads(worlddb("identity", "export", "Sara Conner", "--db", str(path)).stdout)
    (identity,) = one["identities"]
    assert [m["name"] for m in identity["members"]] == ["Sara Conner"]
    assert [p["status"] for p in identity["proposals"]] == []  # its proposal's other end is outside the class


def test_identity_never_creates_a_database(tmp_path):
    out = worlddb("identity", "pending", "--db", str(tmp_path / "absent.db"))
    assert out.returncode == 2 and "no database at" in out.stderr
    assert not (tmp_path / "absent.db").exists()
