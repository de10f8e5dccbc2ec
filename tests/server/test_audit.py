"""The audit log: one JSON line per tool call - who, which tool, which scopes, how it ended,
how long it took - and never the memory text, the query, ids or a token."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace

import httpx2
import pytest
from mcp import Client

from bench.serverproc import call, call_error, child_env, stdio_params
from tests.support import ALICE, BOB, open_engine
from worlddb.memory.scopes import ScopeSet
from worlddb.server import build_server
from worlddb.server.audit import Audit

from .helpers import add_tokens, client_with, dump, make_config, serving

TEXT = "Alice's safe combination is 31-17-42 (audit canary text)"
QUERY = "what unlocks the safe? (audit canary query)"
OWNER_TOKEN = "single-token-canary-0c4f9d"
FIELDS = {"at", "principal", "tool", "scopes", "outcome", "error", "ms"}


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_one_line_per_call_over_http_without_text_or_tokens(tmp_path):
    db, audit = tmp_path / "memory.db", tmp_path / "logs" / "audit.jsonl"
    tokens = add_tokens(db, {"alice": ["user:alice"]})
    with serving(replace(make_config(db, default_user=None), audit_log=str(audit)), token=OWNER_TOKEN) as url:
        async with client_with(url, tokens["alice"]) as alice:
            written = await call(alice, "memory_write", text=TEXT, user_id="alice", metadata={"pin": "9911"})
            await call(alice, "memory_recall", query=QUERY, user_id="alice")
            await call(alice, "memory_read", id=written["id"][:8])  # her one scope is her default
            await call_error(alice, "memory_read", id="0" * 64, user_id="alice")
            await call_error(alice, "memory_list", user_id="bob")
            await call_error(alice, "memory_write", text=TEXT, user_id="alice", colour="red")
            await call(alice, "memory_list_scopes")
        async with client_with(url, OWNER_TOKEN) as owner:
            await call(owner, "memory_list", user_id="alice")
    records = lines(audit)
    assert all(set(r) == FIELDS for r in records)
    assert [(r["principal"], r["tool"], r["scopes"], r["outcome"], r["error"]) for r in records] == [
        ("alice", "memory_write", ["user:alice"], "ok", None),
        ("alice", "memory_recall", ["user:alice"], "ok", None),
        ("alice", "memory_read", ["user:alice"], "ok", None),
        ("alice", "memory_read", ["user:alice"], "error", "NotFound"),
        ("alice", "memory_list", ["user:bob"], "denied", "NotFound"),
        ("alice", "memory_write", ["user:alice"], "error", "InvalidArguments"),
        ("alice", "memory_list_scopes", [], "ok", None),
        ("token", "memory_list", ["user:alice"], "ok", None),
    ]
    assert all(isinstance(r["ms"], float) and r["ms"] >= 0 and r["at"].endswith("Z") for r in records)
    raw = audit.read_text()
    for secret in (TEXT, "31-17-42", QUERY, "safe", "9911", written["id"][:8], "0" * 64, tokens["alice"],
                   OWNER_TOKEN, "red"):
        assert secret not in raw, secret


async def test_local_calls_are_audited_as_the_owner(tmp_path, capfd):
    server = build_server(replace(make_config(tmp_path / "memory.db"), audit_log="-"))
    async with Client(server) as client:
        await call(client, "memory_write", text=TEXT)
    err = capfd.readouterr().err
    record = json.loads(err.strip().splitlines()[-1])
    assert (record["principal"], record["tool"], record["scopes"], record["outcome"]) == \
        ("owner", "memory_write", ["user:alice"], "ok")
    assert TEXT not in err


async def test_a_request_refused_for_its_token_is_audited_without_the_token(tmp_path):
    db, audit = tmp_path / "memory.db", tmp_path / "audit.jsonl"
    guess = "guessed-token-canary-77ab1"
    with serving(replace(make_config(db, default_user=None), audit_log=str(audit)), token=OWNER_TOKEN) as url:
        async with httpx2.AsyncClient() as http:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            headers = {"Accept": "application/json, text/event-stream"}
            assert (await http.post(url, json=body, headers=headers)).status_code == 401
            refused = await http.post(url, json=body, headers={**headers, "Authorization": f"Bearer {guess}"})
            assert refused.status_code == 401
        async with client_with(url, OWNER_TOKEN) as owner:
            await call(owner, "memory_list_scopes")
    records = lines(audit)
    assert all(set(r) == FIELDS for r in records)
    assert [(r["principal"], r["tool"], r["scopes"], r["outcome"]) for r in records] == [
        (None, None, [], "unauthenticated"),
        (None, None, [], "unauthenticated"),
        ("token", "memory_list_scopes", [], "ok"),
    ]
    assert guess not in audit.read_text() and OWNER_TOKEN not in audit.read_text()


CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def test_inspector_logins_are_audited_refused_and_signed_in_without_the_token(tmp_path):
    db, audit = tmp_path / "memory.db", tmp_path / "audit.jsonl"
    tokens = add_tokens(db, {"alice": ["user:alice"]})
    guess = "guessed-login-canary-5e2d"
    with serving(replace(make_config(db, default_user=None), audit_log=str(audit)), token=OWNER_TOKEN) as url:
        base = url.removesuffix("/mcp")
        with httpx2.Client() as browser:
            for token, status in ((guess, 401), ("", 401), (tokens["alice"], 303)):
                csrf = CSRF.search(browser.get(f"{base}/ui/login").text).group(1)
                answer = browser.post(f"{base}/ui/login", data={"csrf": csrf, "token": token, "next": "/ui/"},
                                      headers={"origin": base})
                assert answer.status_code == status
            assert browser.get(f"{base}/ui/").status_code == 200  # signed in: no redirect to the form
    records = lines(audit)
    assert all(set(r) == FIELDS for r in records)
    assert [(r["principal"], r["tool"], r["scopes"], r["outcome"], r["error"]) for r in records] == [
        (None, "inspector_login", [], "unauthenticated", None),
        (None, "inspector_login", [], "unauthenticated", None),
        ("alice", "inspector_login", [], "ok", None),
    ]
    raw = audit.read_text()
    assert guess not in raw and tokens["alice"] not in raw and OWNER_TOKEN not in raw


def test_inspector_actions_are_audited_and_what_the_grant_forbids_is_a_403(tmp_path):
    """Each action at the inspector is an audit line like a tool call: done (with the scopes
    it changed), forbidden (a 403 page: the memory is also in a scope outside the grant) or
    not found; an entity outside the grant is "no entity", as an unknown one."""
    db, audit = tmp_path / "memory.db", tmp_path / "audit.jsonl"
    tokens = add_tokens(db, {"alice": ["user:alice"]})
    with open_engine(db) as engine:
        own = engine.write_memory("Alice waters the ferns on Sundays.", ALICE)
        shared = engine.write_memory("Alice and Bob share the allotment.",
                                     ScopeSet((("user", "alice"), ("user", "bob"))))
        engine.write_memory("Maria Lopez keeps bees.", BOB, entities=[{"name": "Maria Lopez"}])
        bees = engine.write_memory("Maria Lopes sells the honey.", BOB, entities=[{"name": "Maria Lopes"}])
        (bob_proposal,) = engine.merge_proposals(BOB).proposals
    with serving(replace(make_config(db, default_user=None), audit_log=str(audit)), token=OWNER_TOKEN) as url:
        base = url.removesuffix("/mcp")
        with httpx2.Client() as browser:
            csrf = CSRF.search(browser.get(f"{base}/ui/login").text).group(1)
            assert browser.post(f"{base}/ui/login", data={"csrf": csrf, "token": tokens["alice"], "next": "/ui/"},
                                headers={"origin": base}).status_code == 303
            csrf = CSRF.search(browser.get(f"{base}/ui/memory/{own.id}").text).group(1)

            def post(path: str, **data) -> httpx2.Response:
                return browser.post(f"{base}/ui/{path}", data={"csrf": csrf, **data}, headers={"origin": base})

            amended = post(f"memory/{own.id}/amend", text="Alice waters the ferns on Saturdays.")
            assert amended.status_code == 303
            before = dump(db)
            forbidden = post(f"memory/{shared.id}/retire", reason="not hers alone")
            assert forbidden.status_code == 403 and "Not allowed" in forbidden.text
            assert dump(db) == before
            assert post(f"proposals/{bob_proposal.id}/accept").status_code == 404
            assert post(f"memory/{amended.headers['location'].rsplit('/', 1)[1]}/retire").status_code == 303
            download = browser.get(f"{base}/ui/scope/export?key=user%3Aalice")
            # the memory shared with bob is alice's too, and names only the scope she was granted (the
            # amendment, retired as no longer holding, leaves what it replaced replaced)
            assert download.status_code == 200 and [json.loads(line) for line in download.text.splitlines()] == [
                {"text": "Alice and Bob share the allotment.", "valid_from": shared.valid_from, "user_id": "alice"}]
            outside = browser.get(f"{base}/ui/entity/{bees.entities[0].id}")
            assert outside.status_code == 404 and "no entity with id" in outside.text
            assert "no memory" not in outside.text
    records = [r for r in lines(audit) if r["tool"] != "inspector_login"]
    assert all(set(r) == FIELDS for r in records)
    assert [(r["principal"], r["tool"], r["scopes"], r["outcome"], r["error"]) for r in records] == [
        ("alice", "inspector_amend", ["user:alice"], "ok", None),
        ("alice", "inspector_retire", [], "error", "Forbidden"),
        ("alice", "inspector_accept_merge", [], "error", "NotFound"),
        ("alice", "inspector_retire", ["user:alice"], "ok", None),
        ("alice", "inspector_export", ["user:alice"], "ok", None),
    ]
    raw = audit.read_text()
    assert "ferns" not in raw and own.id not in raw and tokens["alice"] not in raw


async def test_the_server_rotates_its_audit_file_by_size_without_losing_or_splitting_a_line(tmp_path):
    # `worlddb serve` over stdio, as a user starts it: a 1,000-byte file, two old files kept
    audit = tmp_path / "audit.jsonl"
    params = stdio_params(tmp_path / "memory.db", extra=("--audit-log", str(audit), "--audit-log-max-mb", "0.001",
                                                         "--audit-log-backups", "2"))
    async with Client(params) as client:
        for i in range(20):
            await call(client, "memory_write", text=f"note number {i}")
    kept = [audit.with_name(f"audit.jsonl.{n}") for n in (2, 1)] + [audit]
    assert all(path.exists() for path in kept) and not audit.with_name("audit.jsonl.3").exists()
    assert all(0 < path.stat().st_size <= 1000 for path in kept)
    records = [r for path in kept for r in lines(path)]  # oldest file first; each line whole JSON
    assert all(set(r) == FIELDS and r["tool"] == "memory_write" for r in records)
    stamps = [r["at"] for r in records]
    assert stamps == sorted(stamps)
    # 20 lines of about 150 bytes fill four files, six lines to a full one; the oldest went
    assert 12 <= len(records) < 20


async def test_an_audit_file_moved_away_by_logrotate_is_opened_anew_and_no_line_is_lost(tmp_path):
    db, audit = tmp_path / "memory.db", tmp_path / "audit.jsonl"
    server = build_server(replace(make_config(db), audit_log=str(audit)))
    async with Client(server) as client:
        await call(client, "memory_write", text="first")
        await call(client, "memory_list")
        audit.rename(tmp_path / "audit.jsonl.1")  # what logrotate does by default
        await call(client, "memory_recall", query="first")
        audit.with_name("audit.jsonl.1").rename(tmp_path / "audit.jsonl.2")
        audit.unlink()  # and a file deleted outright
        await call(client, "memory_list_scopes")
    assert [r["tool"] for r in lines(tmp_path / "audit.jsonl.2")] == ["memory_write", "memory_list"]
    assert [r["tool"] for r in lines(audit)] == ["memory_list_scopes"]
    assert not (tmp_path / "audit.jsonl.1").exists()


def test_an_audit_line_that_cannot_be_written_raises_rather_than_vanishing():
    audit = Audit("/dev/full")  # every write fails: no space left
    try:
        with pytest.raises(OSError):
            audit.tool_call(principal="owner", tool="memory_write", scopes=[], outcome="ok", error=None, seconds=0.0)
    finally:
        audit.close()


def test_bad_rotation_settings_are_one_clear_line(tmp_path):
    for flags in (("--audit-log-max-mb", "-1"), ("--audit-log-backups", "0")):
        bad = subprocess.run([sys.executable, "-m", "worlddb.cli", "serve", "--db", str(tmp_path / "x.db"),
                              "--embedder", "hash", *flags], env=child_env(), input="", capture_output=True,
                             text=True, timeout=60)
        assert bad.returncode == 2
        assert bad.stderr.strip() == "worlddb serve: --audit-log-max-mb must be >= 0 and --audit-log-backups >= 1"
        assert not (tmp_path / "x.db").exists()
    with pytest.raises(ValueError):
        Audit(str(tmp_path / "a.jsonl"), backups=0)
