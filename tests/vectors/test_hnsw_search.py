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


def test_nearest_among_ranks_the_given_nodes_exactly_and_skips_erased_ones(db_path):
    vectors = _vectors(300, seed=5)
    with WorldDB.open(db_path) as db:
        anchors = _write(db, vectors, "n")
        with db.write() as w:
            w.erase(anchors[7])
        rowid = {db.store.rowid(a): i for i, a in enumerate(anchors)}
    index = _index(db_path, snapshots=False)
    try:
        given = sorted(rowid)[:60]
        query = vectors[1] + 0.5 * vectors[2]
        found = index.nearest_among(query, given, 10)
        alive = [r for r in given if rowid[r] != 7]
        exact = sorted(alive, key=lambda r: -float(vectors[rowid[r]] @ (query / np.linalg.norm(query))))[:10]
        assert [node for node, _ in found] == exact
        assert found[0][1] == pytest.approx(float(vectors[rowid[exact[0]]] @ (query / np.linalg.norm(query))), abs=1e-5)
        everything = index.nearest_among(query, given, 100)
        assert len(everything) == len(alive) and all(node in alive for node, _ in everything)
        assert index.nearest_among(query, [], 10) == []
    finally:
        index.store.close()
