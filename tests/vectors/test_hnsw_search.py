"""AnnIndex.search with a filter: every node that passes comes back when fewer pass than asked
for, nearest first (hnswlib refuses such a query outright; the index asks again for less).
Equal vectors share one graph element: what is written after many of them is still found,
and each of them is found through it."""

from __future__ import annotations

import numpy as np
import pytest

from worlddb.graph.database import WorldDB
from worlddb.vectors.hnsw import EFFECTIVE

from .test_hnsw_snapshots import DIM, MODEL, _index, _vectors, _write


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


def _with_equal_ones(db_path, equal: int, distinct: int, seed: int) -> tuple[list[str], list[str], np.ndarray]:
    """`equal` copies of one vector written first (one text said over and over), then `distinct`
    others; the anchors of both, and the distinct vectors."""
    vectors = _vectors(distinct + 1, seed=seed)
    with WorldDB.open(db_path) as db:
        same = _write(db, np.repeat(vectors[:1], equal, axis=0), "same")
        others = _write(db, vectors[1:], "other")
    return same, others, vectors[1:]


def test_vectors_written_after_many_equal_ones_are_still_found_by_their_own_vector(db_path):
    same, others, vectors = _with_equal_ones(db_path, 3000, 300, seed=11)
    index = _index(db_path, snapshots=False)
    try:
        index.sync()
        rowid = {index.store.rowid(a): a for a in others}
        found = sum(rowid.get(index.search(vector, 1)[0][0]) == anchor for anchor, vector in zip(others, vectors))
        assert found == 300
        assert len(index) == 3300 and index._index.element_count == 301  # one element holds the equal ones
    finally:
        index.store.close()


def test_a_search_reaching_equal_vectors_returns_each_node_and_a_filter_picks_among_them(db_path):
    same, others, vectors = _with_equal_ones(db_path, 50, 100, seed=12)
    index = _index(db_path, snapshots=False)
    try:
        index.sync()
        rows = [index.store.rowid(a) for a in same]
        query = _vectors(1, seed=12)[0]  # the equal ones' vector
        hits = index.search(query, 60)
        assert {node for node, _ in hits[:50]} == set(rows) and hits[0][1] == pytest.approx(1.0, abs=1e-5)
        assert len(hits) == 60  # up to k nodes, then the nearest others
        picked = set(rows[10:13])
        assert {node for node, _ in index.search(query, 5, allowed=picked.__contains__)} == picked
    finally:
        index.store.close()


def test_deleting_or_changing_the_element_of_equal_vectors_leaves_the_others_found(db_path):
    same, others, vectors = _with_equal_ones(db_path, 5, 100, seed=13)
    query = _vectors(1, seed=13)[0]
    with WorldDB.open(db_path) as db:
        index = db.ann(EFFECTIVE)
        index.sync()
        element = next(label for label in index._twins)
        holder = index._node[element]
        with db.write() as w:  # the node whose vector is the graph's element is erased
            w.erase(db.store.anchors_for_rowids([holder])[holder])
        index.sync()
        rows = {db.store.rowid(a) for a in same} - {holder}
        assert {node for node, _ in index.search(query, 4)} == rows
        moved = next(iter(rows))
        with db.write() as w:  # another takes a vector of its own
            w.put_vector(db.store.anchors_for_rowids([moved])[moved], EFFECTIVE, MODEL, vectors[0].tobytes(), DIM)
        index.sync()
        assert {node for node, _ in index.search(query, 3)} == rows - {moved}
        assert {node for node, _ in index.search(vectors[0], 2)} == {moved, db.store.rowid(others[0])}
