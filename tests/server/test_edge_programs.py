"""The read side follows the edge programs: a custom edge type's query rewrite decides what
memory_recall, memory_list and memory_read hide and what they name, over MCP."""

from __future__ import annotations

import pytest
from mcp import Client

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge
from worlddb.graph.database import WorldDB
from worlddb.handlers import HandlerRegistry
from worlddb.server import build_server

from .helpers import fails, make_config, ok

pytestmark = pytest.mark.both_backends


class Endorses:
    """A memory that backs another up: each names the ones that endorse it."""

    type = "endorses"

    def on_insert(self, ctx, edge: Edge) -> None:
        if edge.src == edge.dst:
            ctx.refuse("a memory cannot endorse itself")

    def on_delete(self, ctx, edge: Edge) -> None:
        return None

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return plan.mark("endorsed_by", self.type, "in")


class Retracts(Endorses):
    """A retraction: what it points at is no longer shown at all."""

    type = "retracts"

    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan:
        return plan.hide_linked(self.type, "in")


def registry() -> HandlerRegistry:
    handlers = HandlerRegistry.default()
    handlers.register(Endorses())
    handlers.register(Retracts())
    return handlers


async def test_a_custom_edge_type_hides_and_annotates_in_recall_list_and_read(db_path):
    server = build_server(make_config(db_path, registry=registry()))
    async with Client(server) as client:
        claim = await ok(client, "memory_write", text="The bridge opens to traffic in May.")
        source = await ok(client, "memory_write", text="The city council confirmed the bridge opening date.")
        rumour = await ok(client, "memory_write", text="The bridge opening is cancelled, someone said.")
        # another process of the same file links them, with the same edge programs
        with WorldDB.open(db_path, registry=registry()) as db, db.write() as w:
            w.link(Edge("endorses", source["id"], claim["id"]))
            w.link(Edge("retracts", source["id"], rumour["id"]))
        hits = {h["id"]: h for h in (await ok(client, "memory_recall", query="bridge opening"))["results"]}
        assert hits[claim["id"]]["annotations"] == {"endorsed_by": [source["id"]]}
        assert rumour["id"] not in hits
        assert (await ok(client, "memory_read", id=claim["id"]))["annotations"] == {"endorsed_by": [source["id"]]}
        assert "no memory" in await fails(client, "memory_read", id=rumour["id"])
        listed = [m["id"] for m in (await ok(client, "memory_list"))["memories"]]
        assert rumour["id"] not in listed and claim["id"] in listed


async def test_the_meaning_is_the_registered_program_not_the_stored_edge(db_path):
    async with Client(build_server(make_config(db_path, registry=registry()))) as client:
        kept = await ok(client, "memory_write", text="The ferry runs hourly.")
        other = await ok(client, "memory_write", text="The ferry schedule changed.")
    with WorldDB.open(db_path, registry=registry()) as db, db.write() as w:
        w.link(Edge("retracts", other["id"], kept["id"]))
    async with Client(build_server(make_config(db_path, registry=registry()))) as client:
        assert kept["id"] not in [h["id"] for h in (await ok(client, "memory_recall", query="ferry"))["results"]]
    # a server whose registry has no retracts program reads the same file without hiding anything
    async with Client(build_server(make_config(db_path))) as client:
        assert kept["id"] in [h["id"] for h in (await ok(client, "memory_recall", query="ferry"))["results"]]
