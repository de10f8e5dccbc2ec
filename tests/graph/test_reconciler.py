"""Never-appends: edges are written only through their handlers, atomically with everything else."""

from __future__ import annotations

import inspect

import pytest

from worlddb.core.errors import Refused, UnknownEdgeType
from worlddb.core.records import Edge, Node
from worlddb.core.store import Store
from worlddb.graph.database import WorldDB
from worlddb.handlers import HandlerRegistry, Relation

T0 = 1_700_000_000_000_000


class Boom(Relation):
    type = "boom"

    def on_insert(self, ctx, edge):
        ctx.close_validity(edge.dst, T0 + 5, "side effect")
        raise RuntimeError("handler failed halfway")


class Veto(Relation):
    type = "veto"

    def on_insert(self, ctx, edge):
        ctx.refuse("vetoed")


class Chain(Relation):
    """Derives a veto edge, so the refusal comes from a chained dispatch."""

    type = "chain"

    def on_insert(self, ctx, edge):
        ctx.close_validity(edge.dst, T0 + 7, "chained")
        ctx.derive(Edge("veto", edge.src, edge.dst))


class Mirror(Relation):
    """Derives the reverse edge, routed back through dispatch (idempotent, so it stops)."""

    type = "mirror"

    def on_insert(self, ctx, edge):
        ctx.derive(Edge("mirror", edge.dst, edge.src))


@pytest.fixture
def custom_db(db_path):
    registry = HandlerRegistry.default()
    for handler in (Boom(), Veto(), Chain(), Mirror()):
        registry.register(handler)
    database = WorldDB.open(db_path, registry=registry)
    yield database
    database.close()


def snapshot(db) -> dict:
    conn = db.store.conn
    return {table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("nodes", "edges", "members", "member_log", "trie", "versions",
                          "validity_log", "closure", "proposals", "tx")}


def setup_pair(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
        a = w.add(Node("Fact", content="a"), parents=[scope], valid_from=T0)
        b = w.add(Node("Fact", content="b"), parents=[scope], valid_from=T0)
    return scope, a, b


@pytest.mark.parametrize("edge_type, error", [("boom", RuntimeError), ("veto", Refused), ("chain", Refused)])
def test_a_failing_handler_rolls_back_the_whole_write(custom_db, edge_type, error):
    scope, a, b = setup_pair(custom_db)
    before = snapshot(custom_db)
    with pytest.raises(error):
        with custom_db.write() as w:
            extra = w.add(Node("Fact", content="written in the same transaction"), parents=[scope])
            w.link(Edge(edge_type, a, b))
    assert snapshot(custom_db) == before
    assert custom_db.get(extra) is None
    assert custom_db.get(b).valid_to is None
    assert custom_db.verify().ok


def test_derived_edges_go_through_their_own_handler(custom_db):
    _, a, b = setup_pair(custom_db)
    with custom_db.write() as w:
        w.link(Edge("mirror", a, b))
    assert {(e.src, e.dst) for e in custom_db.store.edges(type="mirror")} == {(a, b), (b, a)}
    assert len(w.receipt.edges) == 2


def test_unknown_edge_types_are_refused_and_write_nothing(db):
    _, a, b = setup_pair(db)
    before = snapshot(db)
    with pytest.raises(UnknownEdgeType, match="lives_in"):
        with db.write() as w:
            w.link(Edge("lives_in", a, b))
    assert snapshot(db) == before


def test_an_edge_to_a_missing_node_is_refused(db):
    _, a, _ = setup_pair(db)
    with pytest.raises(Exception, match="no node"):
        with db.write() as w:
            w.link(Edge("causes", a, "ee" * 32))


def test_interior_edges_must_lie_inside_their_world(db):
    scope, a, b = setup_pair(db)
    with db.write() as w:
        other = w.scope("user", "bob")
        outside = w.add(Node("Fact", content="c"), parents=[other])
    with pytest.raises(Exception, match="not inside world"):
        with db.write() as w:
            w.link(Edge("causes", a, outside, world=scope))
    with db.write() as w:
        assert w.link(Edge("causes", a, b, world=scope))
    assert custom_interior(db, scope) == 1


def custom_interior(db, world):
    return db.get(world).n_edges


def test_asserting_a_live_edge_again_changes_nothing(db):
    _, a, b = setup_pair(db)
    with db.write() as w:
        assert w.link(Edge("causes", a, b))
    before = snapshot(db)
    with db.write() as w:
        assert not w.link(Edge("causes", a, b))
    after = snapshot(db)
    assert after["edges"] == before["edges"] and after["versions"] == before["versions"]


@pytest.mark.parametrize("edge_type", ["causes", "refers_to"])
def test_asserting_an_edge_again_in_the_transaction_that_made_its_ends_changes_nothing(db, edge_type):
    with db.write() as w:
        scope = w.scope("user", "alice")
        a = w.add(Node("Fact", content="a"), parents=[scope], valid_from=T0)
        b = w.add(Node("Fact", content="b"), parents=[scope], valid_from=T0)
        assert w.link(Edge(edge_type, a, b))
        assert not w.link(Edge(edge_type, a, b))
        assert w.link(Edge(edge_type, b, a))
        assert w.add(Node("Fact", content="a"), parents=[scope], valid_from=T0) == a  # contains again
    rows = [(e.src, e.dst) for e in db.store.edges(type=edge_type)]
    assert rows == [(a, b), (b, a)]
    assert db.store.conn.execute("SELECT count(*) FROM edges WHERE type='contains'").fetchone()[0] == 2
    assert db.verify().ok


def test_no_public_function_of_the_store_writes_edges():
    writers = [name for cls in (Store,) for name, fn in inspect.getmembers(cls, inspect.isfunction)
               if not name.startswith("_") and "INSERT INTO edges" in inspect.getsource(fn)]
    assert writers == []
    from worlddb.core import txn

    source = inspect.getsource(txn)
    public = [name for name, fn in inspect.getmembers(txn.Tx, inspect.isfunction)
              if not name.startswith("_") and ("INTO edges" in inspect.getsource(fn)
                                               or "UPDATE edges SET seq_removed" in inspect.getsource(fn))]
    assert public == [] and "INTO edges" in source
