"""The in-memory indexes take this process's writes when they commit: a read catches up only on
other processes' writes, never on a backlog of its own."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import ALICE, BOB, open_engine

pytestmark = pytest.mark.sqlite_only(
    "the in-process indexes kept beside a SQLite store; PostgreSQL searches in the database")


def test_built_indexes_take_each_commit_so_a_read_has_nothing_left_to_apply(db_path):
    with open_engine(db_path) as engine:
        engine.warm()
        written = engine.write_memories([{"text": f"Note {i}. It has two sentences."} for i in range(40)], ALICE)
        single = engine.write_memory("Priya adopted a rescue dog named Biscuit. He is three.", ALICE)
        # the indexes already hold every vector: catching up before a search applies nothing
        assert engine.index.sync() == 0 and engine.units.sync() == 0
        rows = {engine.store.rowid(r.id) for r in [*written, single]}
        assert rows <= engine.index.nodes() and rows <= engine.units.nodes()
        # and so do the resolver's names and name vectors
        assert engine.resolver.index.sync() == 0
        assert engine.resolver.index._name_vectors().sync() == 0
        assert engine.resolver.match(engine.scope_anchors(ALICE)[0], ("Biscuit",)).outcome == "resolved"


def test_an_index_not_built_yet_is_left_for_its_first_read(db_path):
    with open_engine(db_path) as writer:
        writer.write_memories([{"text": f"Reading list entry {i}"} for i in range(30)], ALICE)
    with open_engine(db_path) as engine:
        engine.write_memory("One more entry", ALICE)  # no read yet: the write builds nothing
        assert engine.index.source == "empty" and len(engine.index) == 0
        assert engine.recall("One more entry", ALICE, limit=1).results[0].text == "One more entry"
        assert len(engine.index) == 31


def test_another_process_writes_are_caught_up_on_the_next_read(db_path):
    with open_engine(db_path) as reader, open_engine(db_path) as other:
        reader.warm()
        before = len(reader.index)
        hit = other.write_memory("The boiler was serviced on Tuesday", ALICE)
        assert len(reader.index) == before  # not this connection's commit
        found = reader.recall("when was the boiler serviced", ALICE, limit=1).results
        assert found[0].id == hit.id and "vector" in found[0].lanes
        assert len(reader.index) == before + 1


def test_an_index_that_cannot_take_a_commit_does_not_fail_the_committed_write(db_path, monkeypatch, caplog):
    with open_engine(db_path) as engine:
        engine.warm()

        def broken() -> int:
            raise RuntimeError("hnswlib could not add")

        monkeypatch.setattr(engine.index, "advance", broken)
        written = engine.write_memory("The boiler was serviced on Tuesday", ALICE)  # acknowledged: it committed
        assert "could not take a commit" in caplog.text
        assert engine.read_memory(written.id, ALICE).text == "The boiler was serviced on Tuesday"
        monkeypatch.undo()
        found = engine.recall("when was the boiler serviced", ALICE, limit=1).results  # the read catches up
        assert found[0].id == written.id and "vector" in found[0].lanes


def test_a_bulk_load_of_entities_leaves_the_name_vector_index_for_its_first_search(db_path):
    from worlddb.core.records import Node

    with open_engine(db_path) as engine:
        with engine.db.write() as w:
            scope = w.scope("user", "alice")
            for i in range(50):
                anchor = w.add(Node("Entity", name=f"entity {i}", meta={"entity_type": "thing"}), parents=[scope])
                engine.resolver.register(w, scope, anchor)
        assert engine.resolver.index._ann is None  # the commit built nothing
        vector = engine.embedder.embed(["entity 7"])[0]
        nearest = engine.resolver.index.nearest(engine.store.rowid(scope), vector, 1)  # the first search builds it
        assert nearest and engine.store.anchors_for_rowids([nearest[0][0]])
        assert len(engine.resolver.index._ann) == 50


def test_another_process_erasure_is_caught_up_on_the_next_read(db_path):
    """An erased node's vector rows stay, cleared, under the erasing transaction's seq: a
    process whose indexes were built before drops it on its next read."""
    with open_engine(db_path) as reader, open_engine(db_path) as other:
        gone = reader.write_memory("The boiler was serviced on Tuesday. The plumber left at noon.", BOB)
        kept = reader.write_memory("The ferns were watered on Sunday", ALICE)
        reader.warm()
        rowid = reader.store.rowid(gone.id)
        assert rowid in reader.index.nodes() and rowid in reader.units.nodes()
        other.purge_scope(BOB, "user:bob", erase=True)
        assert rowid in reader.index.nodes()  # not this connection's commit
        assert reader.recall("when were the ferns watered", ALICE, limit=1).results[0].id == kept.id
        assert rowid not in reader.index.nodes() and rowid not in reader.units.nodes()
        vector = np.asarray(other.embedder.embed(["The boiler was serviced on Tuesday."])[0], dtype=np.float32)
        assert all(label != rowid for label, _ in reader.index.search(vector, 5))
