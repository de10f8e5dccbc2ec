"""Streamable HTTP on a loopback port: tools work; without the token 401; foreign Origin refused."""

from __future__ import annotations

import logging

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from .helpers import dump, make_config, ok, serving

pytestmark = pytest.mark.both_backends

TOKEN = "s3cret-token-7f1c-do-not-log"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def running(db_file, token: str | None = TOKEN):
    return serving(make_config(db_file), token=token)


async def test_tools_work_over_http_with_the_token(db_file):
    with running(db_file) as url:
        async with httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                mid = (await ok(client, "memory_write", text="Remote note about the harbour"))["id"]
                hits = (await ok(client, "memory_recall", query="harbour"))["results"]
                assert hits[0]["id"] == mid


@pytest.mark.parametrize("authorization", [None, "Bearer wrong", f"Basic {TOKEN}", TOKEN, f"Bearer {TOKEN}x"])
def test_requests_without_the_right_token_get_401_and_change_nothing(db_file, authorization):
    with running(db_file) as url:
        before = dump(db_file)
        headers = dict(HEADERS)
        if authorization is not None:
            headers["authorization"] = authorization
        write = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "memory_write", "arguments": {"text": "intruder"}}}
        for body in (INIT, write):
            response = httpx2.post(url, json=body, headers=headers, timeout=10)
            assert response.status_code == 401
            assert response.headers["www-authenticate"].startswith("Bearer")
        assert dump(db_file) == before


def test_a_foreign_origin_is_refused_even_with_the_token(db_file):
    with running(db_file) as url:
        headers = {**HEADERS, "authorization": f"Bearer {TOKEN}"}
        assert httpx2.post(url, json=INIT, headers={**headers, "origin": "http://evil.example"}, timeout=10
                           ).status_code == 403
        assert httpx2.post(url, json=INIT, headers={**headers, "host": "evil.example:80"}, timeout=10
                           ).status_code == 421
        local = httpx2.post(url, json=INIT, headers={**headers, "origin": "http://localhost:3000"}, timeout=10)
        assert local.status_code == 200


async def test_the_token_never_reaches_the_logs(db_file, caplog):
    caplog.set_level(logging.DEBUG)
    with running(db_file) as url:
        async with httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                await ok(client, "memory_write", text="logged?")
        httpx2.post(url, json=INIT, headers={**HEADERS, "authorization": "Bearer nope"}, timeout=10)
    assert caplog.records, "expected debug logging to be captured"
    assert all(TOKEN not in record.getMessage() for record in caplog.records)
    assert TOKEN not in caplog.text


def test_without_a_token_configured_http_is_open_on_loopback_only(db_file):
    with running(db_file, token=None) as url:
        assert httpx2.post(url, json=INIT, headers=HEADERS, timeout=10).status_code == 200
        assert url.startswith("http://127.0.0.1:")
