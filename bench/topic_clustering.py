"""Clustering a scope into topics: Leiden (igraph + leidenalg, what the engine uses) against
networkx's Louvain and label propagation, on the same graph, in the same process.

    python -m bench.topic_clustering [--sizes 2000,20000,50000] [--out results.json]

The graph is the one worlddb.consolidator.topics builds: each of N unit vectors linked to
its KNN nearest (weight the cosine), the vectors drawn from the seeded synthetic corpus of
bench.scale (bench.synthetic, topic-structured bag-of-words embeddings). Reported per size
and method: seconds (wall and CPU) for the partition alone, the number of communities, the
largest, and the modularity of the partition (computed by igraph for every method, so the
figures compare). Louvain and label propagation are each run with seed 0.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from bench.output import emit
from bench.synthetic import Corpus
from worlddb.consolidator import topics


def graph_of(x: np.ndarray):
    order, sims = topics._knn(x, topics.KNN)
    weights: dict[tuple[int, int], float] = {}
    for i in range(len(x)):
        for j, sim in zip(order[i].tolist(), sims[i].tolist()):
            pair = (min(i, j), max(i, j))
            weights[pair] = max(weights.get(pair, 0.0), max(0.0, sim))
    return sorted(weights.items())


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, round(time.perf_counter() - wall, 3), round(time.process_time() - cpu, 3)


def run(size: int) -> dict:
    import igraph
    import leidenalg
    import networkx as nx

    corpus = Corpus(size * 2, size * 5, 7)
    x = np.vstack([chunk.vectors for chunk in corpus.chunks(5_000)])[:size].astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    edges, knn_s, _ = timed(lambda: graph_of(x))
    g = igraph.Graph(n=size, edges=[e for e, _ in edges])
    g.es["weight"] = [w for _, w in edges]
    nxg = nx.Graph()
    nxg.add_nodes_from(range(size))
    nxg.add_weighted_edges_from((a, b, w) for (a, b), w in edges)

    def leiden():
        part = leidenalg.find_partition(g, leidenalg.RBConfigurationVertexPartition, weights="weight",
                                        resolution_parameter=topics.RESOLUTION, seed=0)
        return list(part.membership)

    def louvain():
        found = nx.community.louvain_communities(nxg, weight="weight", resolution=topics.RESOLUTION, seed=0)
        return _membership(found, size)

    def propagation():
        return _membership(nx.community.asyn_lpa_communities(nxg, weight="weight", seed=0), size)

    out = {"n": size, "edges": len(edges), "knn_graph_s": knn_s}
    for name, fn in (("leiden", leiden), ("louvain_networkx", louvain), ("label_propagation_networkx", propagation)):
        membership, wall, cpu = timed(fn)
        sizes = np.bincount(membership)
        out[name] = {"seconds": wall, "cpu_seconds": cpu, "communities": int(len(sizes)),
                     "largest": int(sizes.max()),
                     "modularity": round(g.modularity(membership, weights="weight"), 4)}
    return out


def _membership(communities, n: int) -> list[int]:
    membership = [0] * n
    for label, members in enumerate(sorted(sorted(c) for c in communities)):
        for i in members:
            membership[i] = label
    return membership


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000,50000")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    report = {"benchmark": "bench.topic_clustering", "loadavg": [round(v, 2) for v in os.getloadavg()],
              "runs": [run(int(n)) for n in args.sizes.split(",")]}
    emit(report, args.out)


if __name__ == "__main__":
    main()
