"""The audit log: one JSON line per tool call - who, which tool, which scopes, how it ended,
how long it took - and never the memory text, the query, ids or a token."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import httpx2
from mcp import Client

from bench.serverproc import call, call_error
from worlddb.server import build_server

from .helpers import add_tokens, client_with, make_config, serving

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
