"""AnnIndex.search with a filter: every node that passes comes back when fewer pass than asked
for, nearest first (hnswlib refuses such a query outright; the index asks again for less)."""

from __future__ import annotations

import numpy as np
import pytest

from worlddb.graph.database import WorldDB

from .test_hnsw_snapshots import _index, _vectors, _write


@pytest.mark.parametrize("passing", [1, 3, 7, 40, 150])
def test_a_filtered_search_returns_all_that_pass_when_fewer_than_k_do(db_path, passing):
    vectors = _vectors(300, seed=3)
    with WorldDB.open(db_path) as db:
        _write(db, vectors, "n")
    index = _index(db_path, snapshots=False)
    try:
        index.sync()
        rowids = sorted(index._node.values())
        allowed = set(np.random.default_rng(passing).choice(rowids, size=passing, replace=False).tolist())
        query = vectors[0]
        found = index.search(query, 250, allowed=allowed.__contains__)
        assert {node for node, _ in found} == allowed
        similarities = [s for _, s in found]
        assert similarities == sorted(similarities, reverse=True)
    finally:
        index.store.close()
