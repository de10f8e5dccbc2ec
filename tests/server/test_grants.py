"""Multi-tenant HTTP: every caller sees only the scopes it was granted.

One real server on a loopback port, real MCP clients, principals from `worlddb auth`
(worlddb.memory.principals) and the single all-scopes token. Alice's principal is granted
user:alice. Through each of the nine tools she is refused user:bob - reading, recalling,
listing, amending, retiring, retiring all, purging, writing - with exactly the words a
scope (or id) that does not exist gets, and a full dump of the file is the same before and
after every refusal. What she is shown names no other scope.
"""

from __future__ import annotations

import asyncio
import re

import httpx2
import pytest

from bench.serverproc import call, call_error
from tests import pg

from .helpers import add_tokens, client_with, dump, make_config, serving

OWNER_TOKEN = "the-single-all-scopes-token-5d1e"
BOB_TEXT = "Bob keeps his spare key in the kitchen drawer"
SHARED_TEXT = "Alice and the travel agent booked the Lisbon flight"
MISSING_ID = "0" * 64


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def tenants(request, tmp_path_factory):
    """(url, db, tokens, ids): a populated store served over HTTP, on each backend in turn
    (a SQLite file; a fresh database on the test PostgreSQL server)."""
    on_postgresql = request.param == "postgresql"
    db = pg.new_database() if on_postgresql else tmp_path_factory.mktemp("grants") / "memory.db"
    config = make_config(db, default_user="zed")
    with serving(config, token=OWNER_TOKEN) as url:
        ids = asyncio.run(_populate(url))
        tokens = add_tokens(db, {"alice": ["user:alice"], "alice-admin": ["user:alice"], "agents": ["agent:*"],
                                 "bob": ["user:bob"], "both": ["user:alice", "agent:travel"]},
                            admins=("alice-admin",))
        yield url, db, tokens, ids
    if on_postgresql:
        pg.drop_database(db)


async def _populate(url: str) -> dict[str, str]:
    async with client_with(url, OWNER_TOKEN) as owner:
        return {
            "alice": (await call(owner, "memory_write", text="Alice parks on level three", user_id="alice"))["id"],
            "shared": (await call(owner, "memory_write", text=SHARED_TEXT, user_id="alice",
                                  agent_id="travel"))["id"],
            "bob": (await call(owner, "memory_write", text=BOB_TEXT, user_id="bob"))["id"],
            "bob_old": (await call(owner, "memory_write", text="Bob drives a blue van", user_id="bob"))["id"],
        }


def _against(scope: str, ids: dict[str, str]) -> list[tuple[str, dict]]:
    """One call of each tool that names `scope` (a user id) - every one must be refused."""
    target = ids.get(scope, MISSING_ID)
    return [
        ("memory_write", {"text": "Alice writes into someone else's memory", "user_id": scope}),
        ("memory_recall", {"query": "spare key kitchen drawer", "user_id": scope, "include_retired": True}),
        ("memory_list", {"user_id": scope, "include_retired": True}),
        ("memory_read", {"id": target, "user_id": scope}),
        ("memory_read", {"id": target[:8], "user_id": scope}),
        ("memory_amend", {"id": target, "text": "Bob sold the van", "user_id": scope}),
        ("memory_retire", {"id": target, "user_id": scope, "reason": "alice says so"}),
        ("memory_retire_all", {"user_id": scope}),
        ("memory_purge_scope", {"user_id": scope, "confirm": f"user:{scope}", "erase": True}),
    ]


@pytest.mark.parametrize("principal", ["alice", "alice-admin"])
async def test_each_tool_refuses_an_ungranted_scope_as_if_it_did_not_exist_and_changes_nothing(tenants, principal):
    url, db, tokens, ids = tenants
    async with client_with(url, tokens[principal]) as alice, client_with(url, OWNER_TOKEN) as owner:
        for (tool, bob_args), (_, nobody_args) in zip(_against("bob", ids), _against("nobody", ids)):
            before = dump(db)
            refused = await call_error(alice, tool, **bob_args)
            assert dump(db) == before, f"{tool} changed the file"
            # the same words as for a scope that does not exist: nothing tells that bob exists
            missing = await call_error(alice, tool, **nobody_args)
            expected = missing.replace("user:nobody", "user:bob")
            if "id" in bob_args:
                expected = expected.replace(nobody_args["id"], bob_args["id"])
                # ...and as for an id that does not exist, as the owner of every scope is told
                unknown = await call_error(owner, tool, **{**bob_args, "id": nobody_args["id"]})
                assert refused.replace(bob_args["id"], nobody_args["id"]) == unknown
            assert refused == expected
            if tool != "memory_purge_scope" or principal == "alice-admin":
                assert refused.endswith("exists") or "no memory with id" in refused, refused
            assert dump(db) == before
        # the ninth tool lists only what is granted, though bob and agent:travel exist
        listed = await call(alice, "memory_list_scopes")
        assert [s["key"] for s in listed["scopes"]] == ["user:alice"]
        assert [s["key"] for s in (await call(owner, "memory_list_scopes"))["scopes"]] == \
            ["agent:travel", "user:alice", "user:bob"]
        # and Bob's memory is refused through her own scope as an unknown id is
        text = await call_error(alice, "memory_read", id=ids["bob"], user_id="alice")
        assert text == f"memory_read: no memory with id {ids['bob']} in scope user:alice"
        # the refusals can fail: Bob's own principal is served
        async with client_with(url, tokens["bob"]) as bob:
            assert (await call(bob, "memory_read", id=ids["bob"], user_id="bob"))["text"] == BOB_TEXT


async def test_purging_needs_an_admin_grant_and_one_that_covers_the_scope(tenants):
    url, db, tokens, _ = tenants
    async with client_with(url, tokens["alice"]) as alice:
        before = dump(db)
        text = await call_error(alice, "memory_purge_scope", user_id="alice", confirm="user:alice")
        assert text == "memory_purge_scope: memory_purge_scope needs an admin grant, and this caller has none"
        assert dump(db) == before
    async with client_with(url, tokens["alice-admin"]) as admin:
        text = await call_error(admin, "memory_purge_scope", user_id="bob", confirm="user:bob")
        assert text == "memory_purge_scope: no scope user:bob exists"
        assert dump(db) == before


async def test_what_a_principal_is_shown_names_only_its_granted_scopes(tenants):
    url, _, tokens, ids = tenants
    async with client_with(url, tokens["alice"]) as alice:
        hits = (await call(alice, "memory_recall", query="Lisbon flight travel agent", user_id="alice"))["results"]
        shared = [h for h in hits if h["id"] == ids["shared"]]
        assert shared and shared[0]["scopes"] == ["user:alice"]
        assert all(h["scopes"] == ["user:alice"] for h in hits)
        detail = await call(alice, "memory_read", id=ids["shared"], user_id="alice")
        assert detail["scopes"] == ["user:alice"]
        assert detail["provenance"]["scopes"] == ["user:alice"]
        assert "agent:travel" not in str(detail)
        page = await call(alice, "memory_list", user_id="alice", limit=500, include_retired=True)
        assert {m["id"] for m in page["memories"]} >= {ids["alice"], ids["shared"]}
        assert "agent:travel" not in str(page) and "user:bob" not in str(page)
    async with client_with(url, OWNER_TOKEN) as owner:  # the owner sees the shared scope: the test can fail
        assert (await call(owner, "memory_read", id=ids["shared"], user_id="alice"))["scopes"] == \
            ["agent:travel", "user:alice"]


async def test_a_pattern_grant_covers_every_scope_of_its_kind_and_nothing_else(tenants):
    url, db, tokens, ids = tenants
    async with client_with(url, tokens["agents"]) as agents:
        detail = await call(agents, "memory_read", id=ids["shared"], agent_id="travel")
        assert detail["scopes"] == ["agent:travel"]
        written = await call(agents, "memory_write", text="The planner prefers morning flights", agent_id="planner")
        assert written["scopes"] == ["agent:planner"]
        before = dump(db)
        assert await call_error(agents, "memory_recall", query="key", user_id="alice") == \
            "memory_recall: no scope user:alice exists"
        # naming a granted scope with an ungranted one refuses the whole call
        assert await call_error(agents, "memory_write", text="x", agent_id="planner", user_id="bob") == \
            "memory_write: no scope user:bob exists"
        # retiring all of a scope the pattern covers but that does not exist reads as an ungranted
        # one (user:bob exists): it was told it had retired nothing, and wrote a transaction
        unknown = await call_error(agents, "memory_retire_all", agent_id="nobody")
        assert unknown == "memory_retire_all: no scope agent:nobody exists"
        assert await call_error(agents, "memory_retire_all", user_id="bob") == \
            unknown.replace("agent:nobody", "user:bob")
        assert await call_error(agents, "memory_retire_all", agent_id="planner", run_id="nobody") == \
            "memory_retire_all: no scope run:nobody exists"
        assert dump(db) == before
        keys = [s["key"] for s in (await call(agents, "memory_list_scopes"))["scopes"]]
        assert keys == ["agent:planner", "agent:travel"]


async def test_a_memory_shared_with_an_ungranted_scope_is_not_amended_or_retired_by_a_principal_that_sees_it(
        tenants):
    url, db, tokens, ids = tenants
    async with client_with(url, tokens["alice"]) as alice, client_with(url, tokens["agents"]) as agents:
        before = dump(db)
        for client, scope in ((alice, {"user_id": "alice"}), (agents, {"agent_id": "travel"})):
            assert (await call(client, "memory_read", id=ids["shared"], **scope))["text"] == SHARED_TEXT
            text = await call_error(client, "memory_amend", id=ids["shared"], text="They booked Porto instead",
                                    **scope)
            assert text.startswith(f"memory_amend: memory {ids['shared']} is also in a scope this caller may not "
                                   "write"), text
            assert "agent:" not in text and "user:" not in text and "travel" not in text and "alice" not in text
            assert dump(db) == before
            text = await call_error(client, "memory_retire", id=ids["shared"], **scope)
            assert text.startswith(f"memory_retire: memory {ids['shared']} is also in a scope this caller may "
                                   "not write"), text
            assert "agent:" not in text and "user:" not in text and "travel" not in text and "alice" not in text
            assert dump(db) == before
            text = await call_error(client, "memory_retire_all", **scope)
            assert text.startswith("memory_retire_all: some memories of these scopes are also in a scope this "
                                   "caller may not write"), text
            assert "agent:" not in text and "user:" not in text and "travel" not in text and "alice" not in text
            assert dump(db) == before
    # a principal granted every scope of a shared memory amends it in all of them: the refusal can fail
    async with client_with(url, OWNER_TOKEN) as owner:
        shared = await call(owner, "memory_write", text="Alice and the travel agent prefer aisle seats",
                            user_id="alice", agent_id="travel")
    async with client_with(url, tokens["both"]) as both:
        amended = await call(both, "memory_amend", id=shared["id"], text="They prefer window seats now",
                             user_id="alice")
        assert amended["supersedes"] == shared["id"] and sorted(amended["scopes"]) == ["agent:travel", "user:alice"]


async def test_a_write_by_a_principal_that_sees_a_shared_memory_marks_it_and_never_closes_it(tenants):
    """Superseding ends a memory in every scope it is in, as a retire does: a principal not
    granted them all writes the change, which revises the memory and leaves it current."""
    url, _, tokens, _ = tenants
    async with client_with(url, OWNER_TOKEN) as owner:
        lisbon = (await call(owner, "memory_write", text="I live in Lisbon.", user_id="alice",
                             agent_id="travel"))["id"]
    async with client_with(url, tokens["agents"]) as agents:
        porto = await call(agents, "memory_write", text="I moved to Porto last week.", agent_id="travel")
        assert porto["superseded"] == [] and lisbon in porto["revised"], porto
        hits = (await call(agents, "memory_recall", query="Where do I live?", agent_id="travel"))["results"]
        seen = {hit["id"]: hit for hit in hits}
        assert seen[lisbon]["valid_to"] is None and seen[lisbon]["annotations"]["revised_by"] == [porto["id"]]
    async with client_with(url, tokens["alice"]) as alice:
        detail = await call(alice, "memory_read", id=lisbon)
        assert detail["valid_to"] is None and detail["superseded_by"] == [] and not detail["retired"]
        hits = (await call(alice, "memory_recall", query="Where do I live?"))["results"]
        assert [hit["text"] for hit in hits if hit["id"] == lisbon] == ["I live in Lisbon."]
    # a caller granted every scope of one closes it as before
    async with client_with(url, OWNER_TOKEN) as owner:
        job = (await call(owner, "memory_write", text="I work at Initech.", user_id="alice",
                           agent_id="travel"))["id"]
    async with client_with(url, tokens["both"]) as both:
        moved = await call(both, "memory_write", text="I started a new job at Globex last week.", user_id="alice")
        assert moved["superseded"] == [job], moved


async def test_a_conversation_by_a_principal_that_sees_a_shared_memory_marks_it_and_closes_none_of_its_facts(
        tmp_path):
    db = tmp_path / "memory.db"
    with serving(make_config(db, default_user=None), token=OWNER_TOKEN) as url:
        async with client_with(url, OWNER_TOKEN) as owner:
            home = (await call(owner, "memory_write", text="I live in Lisbon.", user_id="alice",
                               agent_id="planner"))["id"]
            job = (await call(owner, "memory_write", text="I work at Google.", user_id="alice",
                              agent_id="planner"))["id"]
            assert [f["valid_to"] for f in (await call(owner, "memory_read", id=home, user_id="alice"))["facts"]] \
                == [None]
        tokens = add_tokens(db, {"planner": ["agent:planner"]})
        async with client_with(url, tokens["planner"]) as planner:
            said = await call(planner, "memory_write", messages=[
                {"role": "user", "content": "I moved to Porto last week."}])
            assert said["revised"] == [home]
        async with client_with(url, OWNER_TOKEN) as owner:
            read = await call(owner, "memory_read", id=home, user_id="alice")
            assert read["valid_to"] is None and read["facts"] and all(f["valid_to"] is None for f in read["facts"])
            # the owner's own turn, granted every scope, closes the fact its change is about
            said = await call(owner, "memory_write", user_id="alice", agent_id="planner", messages=[
                {"role": "user", "content": "I started a new job at Dell last week."}])
            assert job in said["revised"]
            read = await call(owner, "memory_read", id=job, user_id="alice")
            assert read["facts"] and all(f["valid_to"] is not None for f in read["facts"])


async def test_a_session_held_by_a_scope_the_caller_does_not_name_is_not_continued_into_it(tmp_path):
    db = tmp_path / "memory.db"
    with serving(make_config(db, default_user=None), token=OWNER_TOKEN) as url:
        async with client_with(url, OWNER_TOKEN) as owner:
            await call(owner, "memory_write", user_id="alice", app_id="team", session="kickoff",
                       messages=[{"role": "alice", "content": "Kickoff: the budget is 10k."}])
        tokens = add_tokens(db, {"alice": ["user:alice"]})
        before = dump(db)
        async with client_with(url, tokens["alice"]) as alice:
            error = await call_error(alice, "memory_write", user_id="alice", session="kickoff",
                                     messages=[{"role": "alice", "content": "Secret: I plan to quit."}])
        assert "session 'kickoff' is held by other scopes than exactly these (user:alice)" in error
        assert "app:team" not in error  # a scope she is not granted is not named to her
        assert dump(db) == before
        async with client_with(url, OWNER_TOKEN) as owner:
            # the owner too continues it only with the scopes it was started with
            error = await call_error(owner, "memory_write", user_id="alice", session="kickoff",
                                     messages=[{"role": "alice", "content": "Secret: I plan to quit."}])
            assert "held by other scopes than exactly these" in error
            more = await call(owner, "memory_write", user_id="alice", app_id="team", session="kickoff",
                              messages=[{"role": "alice", "content": "We meet again on Friday."}])
            team = [m["text"] for m in (await call(owner, "memory_list", app_id="team"))["memories"]]
            assert sorted(more["scopes"]) == ["app:team", "user:alice"] and "Secret: I plan to quit." not in team


async def test_an_amend_of_a_memory_replaced_in_another_scope_names_neither_it_nor_a_retirement(tmp_path):
    db = tmp_path / "memory.db"
    with serving(make_config(db, default_user=None), token=OWNER_TOKEN) as url:
        async with client_with(url, OWNER_TOKEN) as owner:
            home = await call(owner, "memory_write", text="I live in Austin.", user_id="alice", agent_id="travel",
                              metadata={"speaker": "alice"})
            moved = await call(owner, "memory_write", text="I moved to Denver.", agent_id="travel",
                               metadata={"speaker": "alice"})
            assert moved["superseded"] == [home["id"]]
        tokens = add_tokens(db, {"alice": ["user:alice"]})
        async with client_with(url, tokens["alice"]) as alice:
            read = await call(alice, "memory_read", id=home["id"])
            assert read["valid_to"] is not None and not read["retired"] and read["superseded_by"] == []
            error = await call_error(alice, "memory_amend", id=home["id"], text="I live in Houston.")
            assert error == f"memory_amend: memory {home['id']} is no longer current; write a new memory"


async def test_a_page_cursor_tells_a_principal_nothing_of_what_other_scopes_wrote(tenants):
    url, _, tokens, ids = tenants
    async with client_with(url, tokens["alice"]) as alice, client_with(url, tokens["bob"]) as bob:
        mine = [(await call(alice, "memory_write", text=f"Alice's reading list, entry {i}"))["id"] for i in range(2)]
        for i in range(5):
            await call(bob, "memory_write", text=f"Bob's private note {i}")
        mine.append((await call(alice, "memory_write", text="Alice's reading list, entry 2"))["id"])
        page = await call(alice, "memory_list", limit=2)
        # the cursor is the last memory she was shown, not a row number counting bob's writes
        assert [m["id"] for m in page["memories"]] == mine[:0:-1] and page["next_cursor"] == mine[1]
        rest = await call(alice, "memory_list", limit=1, cursor=page["next_cursor"])
        assert [m["id"] for m in rest["memories"]] == [mine[0]]
        # an id of a scope she is not granted is no cursor of hers
        assert "cursor is not one this server returned" in await call_error(alice, "memory_list",
                                                                             cursor=ids["bob"])


async def test_a_principal_with_one_scope_uses_it_when_a_call_names_none(tenants):
    url, db, tokens, ids = tenants
    # the server's default scope (user:zed) is not granted to alice: her one scope is her default
    async with client_with(url, tokens["alice"]) as alice:
        written = await call(alice, "memory_write", text="Alice's umbrella is in the hall")
        assert written["scopes"] == ["user:alice"]
        assert (await call(alice, "memory_read", id=written["id"]))["text"] == "Alice's umbrella is in the hall"
    async with client_with(url, tokens["agents"]) as agents:  # a pattern is no default
        before = dump(db)
        refused = await call_error(agents, "memory_write", text="where does this go?")
        # the server has a default scope, not granted to this caller (it used to be told the server
        # had none), and which scope that is stays unsaid
        assert refused == ("memory_write: no scope given: pass user_id, agent_id, app_id or run_id (this server's "
                           "default scope is not granted to this caller)")
        assert "zed" not in refused
        assert dump(db) == before


async def test_once_a_principal_exists_only_tokens_open_the_server_and_revoking_one_closes_it_at_once(tmp_path):
    from worlddb.core.store import Store
    from worlddb.memory import principals

    db = tmp_path / "memory.db"
    with serving(make_config(db)) as url:
        init = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "memory_list_scopes", "arguments": {}}}
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
                   "mcp-protocol-version": "2025-06-18"}
        assert httpx2.post(url, json=init, headers=headers, timeout=10).status_code == 200  # open: no credentials
        token = add_tokens(db, {"carol": ["user:carol"]})["carol"]
        assert httpx2.post(url, json=init, headers=headers, timeout=10).status_code == 401  # at once, no restart
        authorised = {**headers, "authorization": f"Bearer {token}"}
        assert httpx2.post(url, json=init, headers=authorised, timeout=10).status_code == 200
        store = Store.open(db)
        try:
            principals.revoke(store, "carol")
        finally:
            store.close()
        response = httpx2.post(url, json=init, headers=authorised, timeout=10)
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")


CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def _signed_in(client: httpx2.Client, base: str, token: str) -> httpx2.Response:
    page = client.get(f"{base}/ui/login")
    return client.post(f"{base}/ui/login", data={"csrf": CSRF.search(page.text).group(1), "token": token,
                                                  "next": "/ui/"}, headers={"origin": base})


def test_the_inspector_signs_principals_in_with_their_tokens_and_shows_only_their_scopes(tenants):
    url, db, tokens, ids = tenants
    base = url.removesuffix("/mcp")
    with httpx2.Client() as client:
        assert _signed_in(client, base, tokens["alice"]).status_code == 303
        index = client.get(f"{base}/ui/").text
        assert "user:alice" in index and "user:bob" not in index and "agent:travel" not in index
        shared = client.get(f"{base}/ui/memory/{ids['shared']}")
        assert shared.status_code == 200 and "Lisbon flight" in shared.text and "agent:travel" not in shared.text
        assert client.get(f"{base}/ui/memory/{ids['bob']}").status_code == 404
        assert client.get(f"{base}/ui/scope?key=user%3Abob").status_code == 404
        csrf = CSRF.search(client.get(f"{base}/ui/memory/{ids['shared']}").text).group(1)
        before = dump(db)
        refused = client.post(f"{base}/ui/memory/{ids['bob']}/retire", data={"csrf": csrf}, headers={"origin": base})
        assert refused.status_code == 404 and dump(db) == before
    with httpx2.Client() as owner:  # the single token still opens every scope, in the pages too
        assert _signed_in(owner, base, OWNER_TOKEN).status_code == 303
        index = owner.get(f"{base}/ui/").text
        assert "user:bob" in index and "agent:travel" in index
    with httpx2.Client() as stranger:
        assert _signed_in(stranger, base, tokens["alice"] + "x").status_code == 401


async def test_an_inspector_session_ends_on_its_next_request_once_its_token_is_revoked(tmp_path):
    from worlddb.core.store import Store
    from worlddb.memory import principals

    db = tmp_path / "memory.db"
    with serving(make_config(db, default_user=None), token=OWNER_TOKEN) as url:
        async with client_with(url, OWNER_TOKEN) as owner:
            pin = await call(owner, "memory_write", text="My bank PIN hint is my first dog.", user_id="dana")
            await call(owner, "memory_write", text="Erin's note about the garden.", user_id="erin")  # not hers
        base = url.removesuffix("/mcp")
        token = add_tokens(db, {"dana": ["user:dana"]})["dana"]
        with httpx2.Client() as dana:
            assert _signed_in(dana, base, token).status_code == 303
            page = dana.get(f"{base}/ui/memory/{pin['id']}")
            assert page.status_code == 200 and "PIN hint" in page.text
            csrf = CSRF.search(page.text).group(1)
            assert "user:erin" not in dana.get(f"{base}/ui/").text
            store = Store.open(db)
            try:
                principals.revoke(store, "dana")
            finally:
                store.close()
            before = dump(db)
            gone = dana.get(f"{base}/ui/memory/{pin['id']}")
            assert gone.status_code == 303 and "/ui/login" in gone.headers["location"]
            refused = dana.post(f"{base}/ui/memory/{pin['id']}/retire", data={"csrf": csrf}, headers={"origin": base})
            assert refused.status_code == 403 and dump(db) == before
            assert dana.get(f"{base}/ui/scope/export", params={"key": "user:dana"}).status_code == 303
