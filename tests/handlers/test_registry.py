"""Custom edge types: registered in code or through the worlddb.handlers entry-point group."""

from __future__ import annotations

import sys
import textwrap

import pytest

from worlddb.core.errors import InvalidInput, Refused, UnknownEdgeType
from worlddb.core.records import Edge, Node
from worlddb.graph.database import WorldDB
from worlddb.handlers import BUILTIN, FunctionalRelation, HandlerRegistry

T0 = 1_700_000_000_000_000
DAY = 86_400_000_000


def test_the_default_registry_has_the_thirteen_builtin_types():
    assert HandlerRegistry.default().types() == sorted(
        ["contains", "refers_to", "supersedes", "same_as", "contradicts", "implies", "derived_from",
         "instance_of", "subtype_of", "causes", "precedes", "summarizes", "revises"])
    assert len(BUILTIN) == 13


def test_registering_a_type_twice_is_refused_unless_replacing():
    registry = HandlerRegistry.default()
    with pytest.raises(InvalidInput):
        registry.register(FunctionalRelation("causes"))
    registry.register(FunctionalRelation("causes"), replace=True)
    with pytest.raises(InvalidInput):
        registry.register(object())


def test_a_functional_relation_supersedes_the_previous_value_for_the_same_subject(db_path):
    registry = HandlerRegistry.default()
    registry.register(FunctionalRelation("lives_in"))
    with WorldDB.open(db_path, registry=registry) as db:
        with db.write() as w:
            scope = w.scope("user", "alice")
            alice, austin, denver, boston = (
                w.add(Node("Entity", name=n), parents=[scope], valid_from=0)
                for n in ("Alice", "Austin", "Denver", "Boston"))
            w.link(Edge("lives_in", alice, austin), valid_from=T0)
        with db.write() as w:
            w.link(Edge("lives_in", alice, denver), valid_from=T0 + 30 * DAY)
        old = db.store.edges(src=alice, type="lives_in")
        assert {(e.dst, e.valid_to) for e in old} == {(austin, T0 + 30 * DAY), (denver, None)}

        def lives(as_of):
            sub = db.query(worlds=[scope], as_of=as_of).seed(alice).expand(["lives_in"]).run()
            return set(sub.nodes) - {alice}

        assert lives(T0 + DAY) == {austin}
        assert lives(T0 + 40 * DAY) == {denver}
        assert lives(None) == {denver}
        # an older value arriving late may not displace the recorded later one
        with pytest.raises(Refused, match="later value"):
            with db.write() as w:
                w.link(Edge("lives_in", alice, boston), valid_from=T0 + 10 * DAY)


def test_the_same_edge_type_without_its_handler_is_refused(db):
    with db.write() as w:
        a = w.add(Node("Entity", name="a"))
        b = w.add(Node("Entity", name="b"))
    with pytest.raises(UnknownEdgeType):
        with db.write() as w:
            w.link(Edge("lives_in", a, b))


PLUGIN = textwrap.dedent('''
    from worlddb.handlers import FunctionalRelation

    class WorksAt(FunctionalRelation):
        def __init__(self):
            super().__init__("works_at")
''')


def test_plugins_load_from_the_entry_point_group_only_when_asked(tmp_path, monkeypatch):
    (tmp_path / "acme_plugin.py").write_text(PLUGIN)
    dist = tmp_path / "acme_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[worlddb.handlers]\nworks_at = acme_plugin:WorksAt\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = HandlerRegistry.default()
    assert "works_at" not in registry  # nothing is loaded as a side effect
    assert "acme_plugin" not in sys.modules
    assert registry.load_entry_points() == ["works_at"]
    assert "works_at" in registry
    with WorldDB.open(tmp_path / "p.db", registry=registry) as db:
        with db.write() as w:
            bob = w.add(Node("Entity", name="Bob"))
            acme = w.add(Node("Entity", name="Acme"))
            assert w.link(Edge("works_at", bob, acme))
