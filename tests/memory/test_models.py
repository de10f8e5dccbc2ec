"""One model per database: a different embedder is refused, or everything is re-embedded."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import ALICE, open_engine
from worlddb.graph.text_index import EmbeddingMismatch
from worlddb.vectors import hnsw
from worlddb.vectors.embedder import HashEmbedder


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
        rows = second.store.conn.execute("SELECT DISTINCT model, dim FROM vectors WHERE vec IS NOT NULL").fetchall()
        assert rows == [("hash-v1-128", 128)]
        kinds = {k for (k,) in second.store.conn.execute("SELECT DISTINCT kind FROM vectors")}
        assert {hnsw.CONTENT, hnsw.EFFECTIVE, hnsw.UNIT, hnsw.NAME} <= kinds
        hits = second.recall("tomatoes full sun", ALICE).results
        assert hits[0].text == "Tomatoes need full sun" and "vector" in hits[0].lanes
        assert second.db.verify().ok
        vec = np.frombuffer(second.store.conn.execute(
            "SELECT vec FROM vectors WHERE kind=? LIMIT 1", (hnsw.EFFECTIVE,)).fetchone()[0], dtype=np.float32)
        assert vec.shape == (128,)
