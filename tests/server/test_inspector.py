"""The memory inspector over HTTP on a loopback port, as a browser would speak to it: the
login and its cookie, CSRF and Origin checks on every form, the Host check, the pages, the
actions and what they change in the file, and the one function that decides what a caller
may see. The real browser drives it in test_inspector_browser.py."""

from __future__ import annotations

import json
import re
from contextlib import contextmanager

import httpx2
import pytest
import uvicorn

from tests.support import ALICE, BOB, open_engine
from worlddb.memory.scopes import ScopeSet
from worlddb.server import inspector_app, uvicorn_server
from worlddb.server.inspector import Gate

from .helpers import dump, in_thread, loopback_socket, make_config

TOKEN = "inspector-test-token-51c2"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@contextmanager
def mcp_server(db_file, token: str | None = TOKEN):
    """`worlddb serve --transport http`'s app: /mcp and /ui over one engine."""
    sock = loopback_socket()
    server = uvicorn_server(make_config(db_file), host="127.0.0.1", port=sock.getsockname()[1], token=token)
    with in_thread(server, sock) as base:
        yield base


@contextmanager
def inspector_only(db_file, gate: Gate):
    sock = loopback_socket()
    app = inspector_app(make_config(db_file), gate=gate)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=sock.getsockname()[1], log_level="warning"))
    with in_thread(server, sock) as base:
        yield base


def _memories(db_file):
    """Sarah Connor and Sara Conner (a pending proposal), a move (Austin superseded by Denver),
    and bob's memory with a proposal of its own."""
    with open_engine(db_file) as engine:
        sarah = engine.write_memory("My manager Sarah Connor approved the Q3 budget.", ALICE)
        sara = engine.write_memory("Sara Conner wants the quarterly report by Friday.", ALICE)
        austin = engine.write_memory("I live in Austin, Texas.", ALICE, valid_from="2023-06-01")
        denver = engine.amend(austin.id, "I live in Denver, Colorado.", ALICE, reason="moved")
        engine.write_memory("Bob's sister Maria Lopez keeps bees.", BOB)
        bees = engine.write_memory("Maria Lopes sells the honey at the market.", BOB)
        return {"sarah": sarah, "sara": sara, "austin": austin, "denver": denver, "bees": bees,
                "proposal": engine.merge_proposals(ALICE).proposals[0],
                "bob_proposals": engine.merge_proposals(BOB).proposals}


def _login(client: httpx2.Client, base: str, token: str = TOKEN) -> httpx2.Response:
    page = client.get(f"{base}/ui/login")
    return client.post(f"{base}/ui/login", data={"csrf": CSRF.search(page.text).group(1), "token": token,
                                                  "next": "/ui/"}, headers={"origin": base})


def _text(html: str) -> str:
    """What a reader sees of a page: tags dropped, whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _csrf(client: httpx2.Client, url: str) -> str:
    return CSRF.search(client.get(url).text).group(1)


def test_the_inspector_needs_the_servers_token_and_keeps_it_out_of_urls(db_file):
    _memories(db_file)
    with mcp_server(db_file) as base, httpx2.Client() as client:
        first = client.get(f"{base}/ui/scope?key=user%3Aalice")
        assert first.status_code == 303
        assert first.headers["location"] == "/ui/login?next=%2Fui%2Fscope%3Fkey%3Duser%253Aalice"
        wrong = _login(client, base, "not-the-token")
        assert wrong.status_code == 401 and "not the token" in wrong.text
        assert client.get(f"{base}/ui/").status_code == 303  # still signed out
        right = _login(client, base)
        assert right.status_code == 303 and right.headers["location"] == "/ui/"
        cookie = right.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
        assert TOKEN not in cookie and TOKEN not in right.headers["location"]
        index = client.get(f"{base}/ui/")
        assert index.status_code == 200 and "user:alice" in index.text and TOKEN not in index.text
        assert "merge proposal" in index.text
        # /mcp still takes only the bearer header; the cookie opens nothing there
        assert client.post(f"{base}/mcp", json={}).status_code == 401
        # signing out ends the session
        out = client.post(f"{base}/ui/logout", data={"csrf": _csrf(client, f"{base}/ui/")}, headers={"origin": base})
        assert out.status_code == 303 and client.get(f"{base}/ui/").status_code == 303


def test_every_form_post_needs_this_origin_and_the_sessions_csrf_token(db_file):
    found = _memories(db_file)
    target = found["denver"].id
    with mcp_server(db_file) as base, httpx2.Client() as client:
        _login(client, base)
        csrf = _csrf(client, f"{base}/ui/memory/{target}")
        before = dump(db_file)
        attempts = [
            ({"csrf": csrf, "reason": "x"}, {"origin": "http://evil.example"}),
            ({"csrf": csrf, "reason": "x"}, {"origin": "null"}),
            ({"csrf": csrf, "reason": "x"}, {"origin": base.replace("127.0.0.1", "localhost")}),  # another origin
            ({"csrf": csrf, "reason": "x"}, {}),  # neither Origin nor Referer
            ({"csrf": csrf, "reason": "x"}, {"referer": "http://evil.example/ui/"}),
            ({"reason": "x"}, {"origin": base}),  # no token
            ({"csrf": csrf[:-1] + ("B" if csrf.endswith("A") else "A"), "reason": "x"}, {"origin": base}),
        ]
        for data, headers in attempts:
            response = client.post(f"{base}/ui/memory/{target}/retire", data=data, headers=headers)
            assert response.status_code == 403, (data, headers)
        # a browser without the session (another site's form) is refused as well
        with httpx2.Client() as stranger:
            assert stranger.post(f"{base}/ui/memory/{target}/retire", data={"csrf": csrf},
                                 headers={"origin": base}).status_code == 403
        assert dump(db_file) == before
        # the same form from the page itself goes through (Referer when a browser omits Origin)
        done = client.post(f"{base}/ui/memory/{target}/retire", data={"csrf": csrf, "reason": "moved away"},
                           headers={"referer": f"{base}/ui/memory/{target}"})
        assert done.status_code == 303 and done.headers["location"] == f"/ui/memory/{target}"
        page = client.get(f"{base}/ui/memory/{target}").text
        assert "Retired: it stays readable" in page and "reason: moved away" in page
    with open_engine(db_file) as engine:
        assert engine.read_memory(target, ALICE).retired


def test_a_foreign_host_is_refused_before_anything_runs(db_file):
    with mcp_server(db_file) as base, httpx2.Client() as client:
        assert client.get(f"{base}/ui/login", headers={"host": "evil.example:8765"}).status_code == 421
        assert client.get(f"{base}/ui/login", headers={"host": "127.0.0.1.evil.example"}).status_code == 421
        assert client.get(f"{base}/ui/login").status_code == 200


def test_without_a_token_the_pages_open_but_forms_still_need_csrf(db_file):
    found = _memories(db_file)
    with mcp_server(db_file, token=None) as base, httpx2.Client() as client:
        index = client.get(f"{base}/ui/")
        assert index.status_code == 200 and "HttpOnly" in index.headers["set-cookie"]
        assert client.get(f"{base}/ui/login").status_code == 303  # nothing to sign in to
        proposal = found["proposal"].id
        before = dump(db_file)
        unsigned = client.post(f"{base}/ui/proposals/{proposal}/accept", data={}, headers={"origin": base})
        assert unsigned.status_code == 403
        assert dump(db_file) == before
        csrf = _csrf(client, f"{base}/ui/proposals")
        done = client.post(f"{base}/ui/proposals/{proposal}/accept", data={"csrf": csrf, "back": "/ui/proposals"},
                           headers={"origin": base})
        assert done.status_code == 303 and done.headers["location"] == "/ui/proposals"
        assert "are now one identity" in client.get(f"{base}/ui/proposals").text
    with open_engine(db_file) as engine:
        assert engine.merge_proposals(ALICE, status="accepted").proposals[0].id == proposal


def test_the_pages_show_validity_history_search_entities_and_proposals(db_file):
    found = _memories(db_file)
    with mcp_server(db_file) as base, httpx2.Client() as client:
        _login(client, base)
        scope = client.get(f"{base}/ui/scope?key=user%3Aalice").text
        austin = scope.index("I live in Austin, Texas.")
        assert "superseded" in scope[austin:austin + 600] and found["denver"].id[:12] in scope[austin:austin + 600]
        assert scope.index("I live in Denver") < scope.index("I live in Austin")  # newest first
        current = client.get(f"{base}/ui/scope?key=user%3Aalice&current=1").text
        assert "I live in Austin" not in current and "I live in Denver" in current
        hits = client.get(f"{base}/ui/scope?key=user%3Aalice&q=quarterly+report").text
        assert "Sara Conner wants the quarterly report by Friday." in hits and "bm25 #" in hits
        everywhere = client.get(f"{base}/ui/?q=honey").text
        assert "Maria Lopes sells the honey" in everywhere and "user:bob" in everywhere
        memory = client.get(f"{base}/ui/memory/{found['denver'].id[:10]}").text
        assert found["denver"].id in memory and "Verified just now" in memory
        history = _text(memory)
        assert history.index("I live in Austin") < history.index("I live in Denver, Colorado. (this one)")
        assert 'action="/ui/memory/' in memory and "/amend" in memory and "/retire" in memory
        old = client.get(f"{base}/ui/memory/{found['austin'].id}").text
        # only a current memory can be amended, or retired as over; one replaced may still turn out never true
        assert "/amend" not in old and 'id="retire-wrong"' not in old
        assert 'class="retire wrong"' in old and 'name="wrong" value="on"' in old
        sarah = found["sarah"].entities[0].id
        entity = client.get(f"{base}/ui/entity/{sarah}").text
        assert "<svg" in entity and "Sara Conner" in entity and "may be (fuzzy)" in entity
        assert f"/ui/proposals/{found['proposal'].id}/accept" in entity
        proposals = client.get(f"{base}/ui/proposals").text
        assert "Sara Conner" in proposals and "Maria" in proposals
        unknown = client.get(f"{base}/ui/memory/{'0' * 64}")
        assert unknown.status_code == 404 and "no memory with id" in unknown.text
        assert client.get(f"{base}/ui/scope?key=user%3Anobody").status_code == 404
        assert client.get(f"{base}/ui/scope?key=bogus").status_code == 400


def test_amend_replaces_the_memory_and_the_old_one_stays_in_its_history(db_file):
    found = _memories(db_file)
    denver = found["denver"].id
    with mcp_server(db_file) as base, httpx2.Client() as client:
        _login(client, base)
        csrf = _csrf(client, f"{base}/ui/memory/{denver}")
        done = client.post(f"{base}/ui/memory/{denver}/amend", headers={"origin": base},
                           data={"csrf": csrf, "text": "I live in Boulder, Colorado.", "reason": "moved again"})
        assert done.status_code == 303
        new_id = done.headers["location"].rsplit("/", 1)[1]
        page = _text(client.get(f"{base}{done.headers['location']}").text)
        assert "Amended: this new memory supersedes the old one" in page
        history = page[page.index("History"):]
        assert history.index("Austin") < history.index("Denver") < history.index("Boulder, Colorado. (this one)")
        refused = client.post(f"{base}/ui/memory/{denver}/amend", headers={"origin": base},
                              data={"csrf": csrf, "text": "again"})
        assert refused.status_code == 400 and "no longer current" in refused.text
    with open_engine(db_file) as engine:
        assert engine.read_memory(new_id, ALICE).supersedes == [denver]


class OnlyAlice(Gate):
    """A caller granted user:alice alone: what a principal with a grant will see."""

    async def scopes(self, engine, caller):
        return ScopeSet.of(user="alice")


def test_every_page_and_action_stays_inside_what_the_gate_grants(db_file):
    found = _memories(db_file)
    bob_memory = found["bees"].id
    bob_entity = found["bees"].entities[0].id
    with inspector_only(db_file, OnlyAlice(None)) as base, httpx2.Client() as client:
        index = client.get(f"{base}/ui/").text
        assert "user:alice" in index and "user:bob" not in index
        searched = client.get(f"{base}/ui/?q=honey+market").text
        assert "Results for" in searched and "sells the honey" not in searched and "user:bob" not in searched
        assert client.get(f"{base}/ui/scope?key=user%3Abob").status_code == 404
        assert client.get(f"{base}/ui/scope/export?key=user%3Abob").status_code == 404
        assert client.get(f"{base}/ui/memory/{bob_memory}").status_code == 404
        assert client.get(f"{base}/ui/entity/{bob_entity}").status_code == 404
        proposals = client.get(f"{base}/ui/proposals").text
        assert "Sara Conner" in proposals and "Maria" not in proposals
        before = dump(db_file)
        csrf = _csrf(client, f"{base}/ui/memory/{found['sarah'].id}")
        for path in (f"/ui/memory/{bob_memory}/retire", f"/ui/proposals/{found['bob_proposals'][0].id}/accept"):
            response = client.post(f"{base}{path}", data={"csrf": csrf}, headers={"origin": base})
            assert response.status_code == 404, path
        assert dump(db_file) == before


def test_a_scope_downloads_as_the_lines_worlddb_export_writes(db_file):
    found = _memories(db_file)
    with open_engine(db_file) as engine:
        expected = list(engine.export_memories(ALICE))
    with mcp_server(db_file) as base, httpx2.Client() as client:
        assert client.get(f"{base}/ui/scope/export?key=user%3Aalice").status_code == 303  # signed in first
        _login(client, base)
        page = client.get(f"{base}/ui/scope?key=user%3Aalice").text
        assert '/ui/scope/export?key=user%3Aalice"' in page
        download = client.get(f"{base}/ui/scope/export?key=user%3Aalice")
        assert download.status_code == 200 and download.headers["content-type"].startswith("application/x-ndjson")
        assert download.headers["content-disposition"] == 'attachment; filename="worlddb-user-alice.jsonl"'
        lines = [json.loads(line) for line in download.text.splitlines()]
        assert lines == expected
        texts = [line["text"] for line in lines]
        # what the scope remembers now: Denver, not the Austin it replaced, and nothing of bob's
        assert found["denver"].id and "I live in Denver, Colorado." in texts and "I live in Austin, Texas." not in texts
        assert not any("honey" in text or "bees" in text for text in texts)


def test_assets_ship_with_the_package_and_pages_load_nothing_from_elsewhere(db_file):
    _memories(db_file)
    with mcp_server(db_file, token=None) as base, httpx2.Client() as client:
        css = client.get(f"{base}/ui/static/inspector.css")
        assert css.status_code == 200 and "text/css" in css.headers["content-type"]
        page = client.get(f"{base}/ui/")
        assert "default-src 'none'" in page.headers["content-security-policy"]
        for html in (page.text, client.get(f"{base}/ui/proposals").text):
            assert not re.search(r"""(src|href)=["'](https?:)?//""", html)
            assert "<script" not in html


@pytest.mark.parametrize("target, expected", [
    ("/ui/proposals", "/ui/proposals"), ("https://evil.example/", "/ui/"), ("//evil.example/ui/", "/ui/"),
    ("/ui/../mcp", "/ui/"), ("/uix", "/ui/"), ("/ui\\\\evil", "/ui/")])
def test_where_a_form_may_send_the_browser_next(target, expected):
    from worlddb.server.inspector.pages import _safe_next

    assert _safe_next(target) == expected


def test_every_template_and_stylesheet_is_package_data():
    """The wheel carries what the pages need: each file beside the inspector's modules matches
    a package-data pattern in pyproject.toml (a file that matched none would be left out)."""
    import fnmatch
    import tomllib
    from pathlib import Path

    import worlddb.server.inspector as inspector

    root = Path(inspector.__file__).parent
    patterns = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())[
        "tool"]["setuptools"]["package-data"]["worlddb.server.inspector"]
    assets = [p.relative_to(root).as_posix() for p in root.rglob("*")
              if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert "static/inspector.css" in assets and "templates/base.html" in assets
    assert all(any(fnmatch.fnmatch(asset, pattern) for pattern in patterns) for asset in assets), assets


def test_a_memory_changed_in_part_shows_as_revised_with_a_link_to_the_change(db_file):
    with open_engine(db_file) as engine:
        both = engine.write_memory("I live in Lyon and work at Renault.", ALICE, valid_from="2023-06-01")
        moved = engine.write_memory("I moved to Nantes, I live in Nantes now.", ALICE)
    assert moved.revised == [both.id]
    with mcp_server(db_file) as base, httpx2.Client() as client:
        _login(client, base)
        page = client.get(f"{base}/ui/memory/{both.id}").text
        assert 'class="badge revised">revised in part</span>' in page
        assert f'href="/ui/memory/{moved.id}"' in page
        assert "/amend" in page and "/retire" in page  # still current: it can still be changed
        scope = client.get(f"{base}/ui/scope?key=user%3Aalice&current=1").text
        assert "I live in Lyon and work at Renault." in scope and "revised in part" in scope
