"""One model per database: a different embedder is refused, or everything is re-embedded."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import ALICE, BOB, open_engine
from worlddb.graph.text_index import EmbeddingMismatch
from worlddb.vectors import hnsw
from worlddb.vectors.embedder import HashEmbedder

pytestmark = pytest.mark.both_backends


def test_opening_with_another_model_is_refused_and_changes_nothing(db_path):
    with open_engine(db_path, embedder=HashEmbedder(64)) as first:
        first.write_memory("Tomatoes need full sun", ALICE)
    with pytest.raises(EmbeddingMismatch, match="hash-v1-64"):
        open_engine(db_path, embedder=HashEmbedder(128))
    with open_engine(db_path, embedder=HashEmbedder(64)) as again:
        assert again.recall("tomatoes sun", ALICE).results


def test_reembedding_on_request_replaces_every_vector(db_path):
    with open_engine(db_path, embedder=HashEmbedder(64)) as first:
        first.write_memory("Tomatoes need full sun", ALICE, entities=[{"name": "Tomatoes"}])
        first.write_memory("Basil likes warmth", ALICE)
    with open_engine(db_path, embedder=HashEmbedder(128), reembed=True) as second:
        assert (second.store.meta_get("embed_model"), second.store.meta_get("embed_dim")) == ("hash-v1-128", "128")
        stored = second.store.conn.execute("SELECT d.vec FROM vectors v JOIN vector_data d ON d.id = v.data")
        assert {len(vec) for (vec,) in stored} == {128 * 4}
        kinds = {k for (k,) in second.store.conn.execute("SELECT DISTINCT kind FROM vectors")}
        assert {hnsw.CONTENT, hnsw.EFFECTIVE, hnsw.UNIT, hnsw.NAME} <= kinds
        hits = second.recall("tomatoes full sun", ALICE).results
        assert hits[0].text == "Tomatoes need full sun" and "vector" in hits[0].lanes
        assert second.db.verify().ok
        anchor = hits[0].id
        vec = np.frombuffer(second.store.vector(anchor, hnsw.EFFECTIVE), dtype=np.float32)
        assert vec.shape == (128,)


def test_reembedding_stores_each_vector_of_a_node_once_and_leaves_erased_nodes_without(db_path):
    with open_engine(db_path, embedder=HashEmbedder(64)) as first:
        one = first.write_memory("Tomatoes need full sun", ALICE)
        two = first.write_memory("Basil likes warmth. It wilts in frost.", ALICE)
        gone = first.write_memory("The safe code is 4471", BOB)
        first.purge_scope(BOB, "user:bob", erase=True)
    with open_engine(db_path, embedder=HashEmbedder(128), reembed=True) as second:
        conn, store = second.store.conn, second.store
        rows = lambda anchor: conn.execute(  # noqa: E731
            "SELECT count(*), count(DISTINCT data) FROM vectors WHERE node=? AND data IS NOT NULL",
            (store.rowid(anchor),)).fetchone()
        assert rows(one.id)[0] >= 3 and rows(one.id)[1] == 1  # content, effective and sentence rows share one
        assert rows(two.id)[1] == 3  # the whole text and each of its two sentences
        assert rows(gone.id) == (0, 0)
        assert conn.execute("SELECT count(*) FROM fts WHERE rowid=?", (store.rowid(gone.id),)).fetchone()[0] == 0
        assert second.db.verify().ok
        assert [h.id for h in second.recall("basil warmth", ALICE, limit=1).results] == [two.id]
