"""`worlddb auth`: tokens printed once, stored as digests, listed without secrets, revoked."""

from __future__ import annotations

from worlddb.cli import main
from worlddb.core.store import Store
from worlddb.memory import principals


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_token_prints_the_token_once_as_its_last_line_and_stores_only_its_digest(tmp_path, capsys):
    db = tmp_path / "team.db"
    code, out, _ = _run(capsys, "auth", "add-token", "alice-laptop", "--scope", "user:alice", "--scope", "agent:*",
                        "--db", str(db))
    assert code == 0
    token = out.strip().splitlines()[-1]
    assert token.startswith("wdb_") and " " not in token
    assert out.count(token) == 1
    store = Store.open(db)
    try:
        access = principals.authenticate(store, token)
    finally:
        store.close()
    assert access.principal == "alice-laptop" and access.grants == ("user:alice", "agent:*") and not access.admin
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert token.encode() not in raw

    code, out, _ = _run(capsys, "auth", "add-token", "ops", "--scope", "*", "--admin", "--db", str(db))
    assert code == 0
    code, listing, _ = _run(capsys, "auth", "list", "--db", str(db))
    assert code == 0
    lines = listing.strip().splitlines()
    assert lines[0].split("\t")[:3] == ["alice-laptop", "user:alice agent:*", "-"]
    assert lines[1].split("\t")[:3] == ["ops", "*", "admin"]
    assert token not in listing and "wdb_" not in listing and principals.token_digest(token) not in listing

    assert _run(capsys, "auth", "revoke", "alice-laptop", "--db", str(db))[0] == 0
    code, listing, _ = _run(capsys, "auth", "list", "--db", str(db))
    assert "\trevoked " in listing.splitlines()[0]
    store = Store.open(db)
    try:
        assert principals.authenticate(store, token) is None
    finally:
        store.close()


def test_bad_requests_exit_2_with_a_message_and_change_nothing(tmp_path, capsys):
    db = tmp_path / "team.db"
    assert _run(capsys, "auth", "add-token", "a", "--scope", "user:a", "--db", str(db))[0] == 0
    before = _run(capsys, "auth", "list", "--db", str(db))[1]
    code, out, err = _run(capsys, "auth", "add-token", "b", "--scope", "users:b", "--db", str(db))
    assert code == 2 and "must look like kind:id" in err and not out
    code, _, err = _run(capsys, "auth", "add-token", "a", "--scope", "user:a", "--db", str(db))
    assert code == 2 and "exists" in err
    code, _, err = _run(capsys, "auth", "revoke", "nobody", "--db", str(db))
    assert code == 2 and "no principal named nobody" in err
    assert _run(capsys, "auth", "list", "--db", str(db))[1] == before
    code, _, err = _run(capsys, "auth", "list", "--db", str(tmp_path / "missing.db"))
    assert code == 2 and "no database" in err and not (tmp_path / "missing.db").exists()


def test_a_name_ending_in_a_line_break_is_refused(tmp_path, capsys):
    # "$" in a pattern also matches before a final newline: "alice\n" was added, then listed as
    # "alice" and could not be revoked by that name (a grant is stripped: "user:alice\n" is user:alice)
    db = tmp_path / "team.db"
    assert _run(capsys, "auth", "add-token", "a", "--scope", "user:a", "--db", str(db))[0] == 0
    before = _run(capsys, "auth", "list", "--db", str(db))[1]
    for name in ("alice\n", "b" * 64 + "\n"):
        code, out, err = _run(capsys, "auth", "add-token", name, "--scope", "user:alice", "--db", str(db))
        assert code == 2 and not out and "a principal's name is 1-64 letters" in err, (name, err)
    assert _run(capsys, "auth", "list", "--db", str(db))[1] == before
