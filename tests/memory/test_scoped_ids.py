"""Id prefixes are resolved inside the caller's scopes: a prefix shared with a memory of
another scope is neither ambiguous nor answered with that memory's id."""

from __future__ import annotations

import pytest

from worlddb.core.errors import AmbiguousId, NotFound
from worlddb.core.records import Edge, Node
from worlddb.graph.database import WorldDB
from worlddb.memory.access import Access
from worlddb.memory.engine import Engine
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import HashEmbedder

pytestmark = pytest.mark.both_backends

# two records whose ids share their first 8 hex characters (found by brute force)
COLLIDING = [Node(type="Memory", content=f"collision {n}", created_at=1_700_000_000_000_000)
             for n in ("00038249", "00108325")]
ALICE, BOB, CAROL = (ScopeSet((("user", name),)) for name in ("alice", "bob", "carol"))


def plant(path, scopes):
    with WorldDB.open(path) as db, db.write() as w:
        for node, (kind, sid) in zip(COLLIDING, scopes):
            w.add(node, parents=[w.scope(kind, sid)])


def test_the_planted_ids_share_a_prefix():
    first, second = (n.id for n in COLLIDING)
    assert first[:8] == second[:8] and first != second


def test_a_prefix_shared_across_scopes_resolves_to_the_callers_memory(db_path):
    plant(db_path, [("user", "alice"), ("user", "bob")])
    mine, theirs = (n.id for n in COLLIDING)
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        assert engine.read_memory(mine[:8], ALICE).id == mine
        assert engine.read_memory(mine[:8], BOB).id == theirs
        with pytest.raises(NotFound) as missed:
            engine.read_memory(mine[:8], CAROL)
        assert mine not in str(missed.value) and theirs not in str(missed.value)


def test_a_prefix_shared_within_one_scope_stays_ambiguous(db_path):
    plant(db_path, [("user", "alice"), ("user", "alice")])
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        with pytest.raises(AmbiguousId) as ambiguous:
            engine.read_memory(COLLIDING[0].id[:8], ALICE)
        assert set(ambiguous.value.candidates) == {n.id for n in COLLIDING}
        with pytest.raises(NotFound):
            engine.read_memory(COLLIDING[0].id[:8], BOB)


def test_store_resolve_id_without_worlds_still_sees_every_node(db_path):
    plant(db_path, [("user", "alice"), ("user", "bob")])
    with WorldDB.open(db_path) as db:
        with pytest.raises(AmbiguousId):
            db.store.resolve_id(COLLIDING[0].id[:8])
        assert db.store.resolve_id(COLLIDING[0].id) == COLLIDING[0].id
        with pytest.raises(NotFound):
            db.store.resolve_id(COLLIDING[0].id, within=[])


def test_read_names_no_id_of_another_scope_in_the_provenance(engine):
    """An amend records the memory it replaced in its provenance; once the graph layer has
    moved that memory into another scope, a principal reading the amendment learns neither
    its id there nor (as before) in `supersedes`."""
    old = engine.write_memory("The spare key is under the blue pot.", ALICE)
    new = engine.amend(old.id, "The spare key is under the red pot.", ALICE)
    assert engine.read_memory(new.id, ALICE).provenance["supersedes"] == old.id
    (alice_world,) = engine.scope_anchors(ALICE)
    with engine.db.write() as w:
        w.link(Edge("contains", w.scope("user", "bob"), old.id))
        w.unlink(Edge("contains", alice_world, old.id))
    for access in (Access("p-alice", ("user:alice",)), None):
        detail = engine.read_memory(new.id, ALICE, access=access)
        assert old.id not in repr(detail) and detail.provenance["tool"] == "memory_amend"


def test_recall_names_no_session_of_another_scope(engine):
    """A turn the graph layer also put into another scope is found there by recall, but its
    session, which that scope does not hold, is not named."""
    done = engine.ingest_conversation([SessionIn(date="2024-03-01", turns=(
        TurnIn(speaker="Ana", text="The zephyrine kite flew over the harbour."),), name="kites")], ALICE)
    (turn,) = done.turns.values()
    agent = ScopeSet((("agent", "ag-1"),))
    with engine.db.write() as w:
        w.link(Edge("contains", w.scope("agent", "ag-1"), turn))
    for access in (Access("p-agents", ("agent:*",)), None):
        (hit,) = [h for h in engine.recall("zephyrine kite", agent, access=access).results if h.id == turn]
        assert hit.session is None and done.sessions[0] not in repr(hit)
    (own,) = [h for h in engine.recall("zephyrine kite", ALICE).results if h.id == turn]
    assert own.session == done.sessions[0]
