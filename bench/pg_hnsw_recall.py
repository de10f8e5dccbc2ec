"""How much of the exact top 10 pgvector's HNSW index finds, and what VACUUM or a rebuild changes.

    python -m bench.pg_hnsw_recall --db postgresql://... --nodes 30000 [--probes 200] [--ef 40,96]
                                   [--vacuum] [--rebuild] [--out FILE]

On a database `bench.scale --db` loaded (same --nodes and --seed), the probes' query
vectors (bench.scale's) are searched as the engine searches (worlddb.vectors.pgvector,
effective vectors) at each ef_search, and compared with the exact cosine top 10 over the
stored effective vectors. Reported as it stands, then after `VACUUM vector_data`
(--vacuum), then with the same index built afresh over the same rows in a scratch copy
of the table (--rebuild; the store is not touched), with the dead rows pgvector's
statistics count in vector_data at each step. A store's own reads do not change.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import psycopg

from bench.output import emit
from bench.synthetic import Corpus
from worlddb.vectors.hnsw import EFFECTIVE

SEARCH = ("WITH near AS MATERIALIZED (SELECT v.node, d.vec::vector({dim}) <=> %(q)s::vector({dim}) AS dist "
          "FROM {table} d JOIN LATERAL (SELECT v.node FROM vectors v WHERE v.data = d.id AND v.kind + 0 = %(kind)s "
          "OFFSET 0) v ON true WHERE vector_dims(d.vec) = {dim} "
          "ORDER BY d.vec::vector({dim}) <=> %(q)s::vector({dim}) LIMIT 10) SELECT node FROM near")


def _literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.8g}" for x in vector) + "]"


def exact_top10(conn, queries: np.ndarray) -> list[set[int]]:
    rows = conn.execute("SELECT v.node, d.vec::text FROM vectors v JOIN vector_data d ON d.id = v.data "
                        "WHERE v.kind = %s AND v.ord = 0", (EFFECTIVE,)).fetchall()
    nodes = np.array([r[0] for r in rows])
    matrix = np.array([json.loads(r[1]) for r in rows], dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return [set(nodes[np.argsort(-s)[:10]].tolist()) for s in queries @ matrix.T]


def measure(conn, table: str, queries: np.ndarray, exact: list[set[int]], efs: list[int]) -> list[dict]:
    sql = SEARCH.format(dim=queries.shape[1], table=table)
    out = []
    for ef in efs:
        conn.execute(f"SET hnsw.ef_search = {ef}")
        found, started = 0.0, time.perf_counter()
        for q, ref in zip(queries, exact):
            got = {r[0] for r in conn.execute(sql, {"q": _literal(q), "kind": EFFECTIVE})}
            found += len(ref & got) / 10
        out.append({"ef_search": ef, "recall_at_10_vs_exact": round(found / len(queries), 4),
                    "ms_per_query": round(1e3 * (time.perf_counter() - started) / len(queries), 2)})
    return out


def dead_rows(conn) -> dict:
    conn.execute("SELECT pg_stat_force_next_flush()")
    row = conn.execute("SELECT n_live_tup, n_dead_tup, n_tup_del FROM pg_stat_user_tables "
                       "WHERE relname = 'vector_data'").fetchone()
    return {"live": row[0], "dead": row[1], "deleted_since_stats_reset": row[2]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--ef", default="40,96")
    parser.add_argument("--vacuum", action="store_true")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args()
    efs = [int(x) for x in args.ef.split(",")]
    corpus = Corpus(args.nodes, int(args.nodes * 2.5), args.seed)
    queries = corpus.embedder.embed([p.query for p in corpus.probes(args.probes, args.seed)]).astype(np.float32)
    report: dict = {"benchmark": "bench.pg_hnsw_recall", "nodes": args.nodes, "probes": args.probes,
                    "loadavg": [round(x, 2) for x in os.getloadavg()]}
    with psycopg.connect(args.db, autocommit=True) as conn:
        conn.execute("SET hnsw.iterative_scan = relaxed_order")
        exact = exact_top10(conn, queries)
        report["as_it_stands"] = {"vector_data": dead_rows(conn), "search": measure(conn, "vector_data", queries,
                                                                                   exact, efs)}
        if args.vacuum:
            started = time.perf_counter()
            conn.execute("VACUUM vector_data")
            report["after_vacuum"] = {"vacuum_s": round(time.perf_counter() - started, 1),
                                      "vector_data": dead_rows(conn),
                                      "search": measure(conn, "vector_data", queries, exact, efs)}
        if args.rebuild:
            dim = queries.shape[1]
            conn.execute("DROP TABLE IF EXISTS bench_vector_copy")
            conn.execute("CREATE TABLE bench_vector_copy AS SELECT id, vec FROM vector_data")
            started = time.perf_counter()
            conn.execute(f"CREATE INDEX ON bench_vector_copy USING hnsw ((vec::vector({dim})) vector_cosine_ops) "
                         f"WITH (m = 16, ef_construction = 100) WHERE vector_dims(vec) = {dim}")
            conn.execute("ANALYZE bench_vector_copy")
            report["built_afresh"] = {"build_s": round(time.perf_counter() - started, 1),
                                      "search": measure(conn, "bench_vector_copy", queries, exact, efs)}
            conn.execute("DROP TABLE bench_vector_copy")
    emit(report, args.out)


if __name__ == "__main__":
    main()
