"""A whole store copied (`worlddb copy`): into a new file against SQLite's own backup, and into PostgreSQL.

    python -m bench.copy_store --db SOURCE [--rounds 3] [--pg] [--out results.json]

Copies the store at SOURCE (a SQLite file; `bench.locomo --db FILE` leaves the LoCoMo dev store
the docs use) `rounds` times each way, the ways alternating round by round:
  copy_file     worlddb.core.copy.copy_store into a new SQLite file
  sqlite_backup the baseline: SQLite's online backup API into a new file, page by page (a byte
                copy of the file, which cannot go to another backend)
  copy_pg       with --pg, copy_store into a fresh database of a throwaway PostgreSQL
                (bench.pgserver), its vector index built at the end included
  verify_copy   `worlddb verify`'s re-derivation of every id on the file copy, apart
Prints JSON: per way the rows copied, each round's seconds and the median, rows per second, the
ratio of copy_file to sqlite_backup, and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from bench.output import emit
from worlddb.core.copy import copy_store
from worlddb.graph.database import WorldDB


def _backup(source: Path, target: Path) -> None:
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def run(source: Path, rounds: int, pg: bool) -> dict:
    work = Path(tempfile.mkdtemp(prefix="worlddb-copy-"))
    urls: list[str] = []
    server = None
    if pg:
        from bench.pgserver import start

        server, urls = start(work / "pg", rounds)
    seconds: dict[str, list[float]] = {"copy_file": [], "sqlite_backup": [], "verify_copy": []}
    if pg:
        seconds["copy_pg"] = []
    rows = 0
    load_before = os.getloadavg()[0]
    try:
        for i in range(rounds):
            started = time.perf_counter()
            rows = sum(copy_store(source, work / f"copy-{i}.db").rows.values())
            seconds["copy_file"].append(time.perf_counter() - started)
            started = time.perf_counter()
            _backup(source, work / f"backup-{i}.db")
            seconds["sqlite_backup"].append(time.perf_counter() - started)
            if pg:
                started = time.perf_counter()
                copy_store(source, urls[i])
                seconds["copy_pg"].append(time.perf_counter() - started)
            started = time.perf_counter()
            with WorldDB.open(work / f"copy-{i}.db") as db:
                assert db.verify().ok
            seconds["verify_copy"].append(time.perf_counter() - started)
    finally:
        if server is not None:
            server.cleanup()
    median = {way: statistics.median(times) for way, times in seconds.items()}
    return {
        "benchmark": "copy_store", "source": str(source), "source_bytes": source.stat().st_size, "rows": rows,
        "rounds": rounds, "seconds": {way: [round(t, 6) for t in times] for way, times in seconds.items()},
        "median_seconds": {way: round(t, 6) for way, t in median.items()},
        "rows_per_second": {way: round(rows / t) for way, t in median.items() if way != "verify_copy"},
        "copy_file_vs_sqlite_backup": round(median["copy_file"] / median["sqlite_backup"], 2),
        "loadavg_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="the store to copy (a SQLite file)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pg", action="store_true", help="also copy into a throwaway PostgreSQL")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    report = run(args.db, args.rounds, args.pg)
    emit(report, args.out)


if __name__ == "__main__":
    main()
