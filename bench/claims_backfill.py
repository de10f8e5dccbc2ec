"""The claims backfill's rate and how long it holds the write lock, on a store of N memories
written before the claims index.

    python -m bench.claims_backfill [--memories 10000] [--scopes 20] [--batch 200] [--out FILE]

Writes N memories into a fresh SQLite store (`write_memories`, 500 per transaction, the
hashing embedder: the pass reads no vector), half of them bench.mcp's synthetic notes and half
first-person statements about homes, employers, relatives and favourites, spread over
`--scopes` user scopes; takes the store back to schema 8's layout (the claims table dropped:
all that migration 9 added) and opens it again, which migrates it and marks the pass as due;
then runs the pass to its end (worlddb.memory.claims_backfill.backfill) and reports memories
per second and the longest and median write transaction of a batch (the time it holds the
write lock). Baseline, in the same run: the slot reading alone (`slot_readings.claim_keys` of every
text, no store), the floor of what the pass does per memory; and the write of the same
memories (what a store pays to record them at write time, embedding included). The slot
reader's cache of recent readings is emptied before each of the two measurements.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from bench.mcp import memory_text
from worlddb.core import schema
from worlddb.extract import slots
from worlddb.graph.database import WorldDB
from worlddb.memory import claims_backfill, slot_readings
from worlddb.memory.engine import Engine
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import HashEmbedder

CITIES = ["Austin", "Denver", "Lisbon", "Perth", "Nairobi", "Oslo", "Tromso", "Lyon", "Boston", "Phoenix"]
COMPANIES = ["Acme", "Dell", "Stripe", "Airbnb", "Equinor", "Initech", "Renault", "Globex"]
RELATIVES = ["sister", "brother", "cousin", "aunt", "uncle"]
NAMES = ["Nora", "Priya", "Omar", "Ana", "Ivo", "Sami", "Dara", "Nia"]
FAVOURITES = [("editor", ["Vim", "Helix", "Emacs"]), ("band", ["Radiohead", "Blur", "Low"]),
              ("food", ["ramen", "tacos", "dal"])]


def statement(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return f"I live in {rng.choice(CITIES)} now, near the {rng.choice(['river', 'park', 'station'])}."
    if kind == 1:
        return f"I work at {rng.choice(COMPANIES)} as a {rng.choice(['designer', 'engineer', 'analyst'])}."
    if kind == 2:
        return f"My {rng.choice(RELATIVES)} {rng.choice(NAMES)} lives in {rng.choice(CITIES)}."
    thing, values = rng.choice(FAVOURITES)
    return f"My favourite {thing} is {rng.choice(values)}."


def texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [memory_text(rng, i) if i % 2 else f"{statement(rng)} (note {i})" for i in range(count)]


def to_schema_8(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DROP TABLE claims")
        conn.execute("DELETE FROM meta WHERE key = ?", (schema.CLAIMS_BACKFILL_KEY,))
        conn.execute("PRAGMA user_version = 8")
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10000)
    parser.add_argument("--scopes", type=int, default=20)
    parser.add_argument("--batch", type=int, default=claims_backfill.BATCH)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    all_texts = texts(args.memories, args.seed)
    out: dict = {"memories": args.memories, "scopes": args.scopes, "batch": args.batch,
                 "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "old.db"
        started = time.perf_counter()
        with Engine.open(path, embedder=HashEmbedder(), query_model=True) as engine:
            for s in range(args.scopes):
                mine = all_texts[s::args.scopes]
                scope = ScopeSet((("user", f"u{s}"),))
                for start in range(0, len(mine), 500):
                    engine.write_memories([{"text": t} for t in mine[start:start + 500]], scope)
        out["write_per_s"] = round(args.memories / (time.perf_counter() - started))
        to_schema_8(path)
        # the slot reader keeps its latest readings: each measurement starts from none
        slots._read.cache_clear()
        started = time.perf_counter()
        for i, text in enumerate(all_texts):
            slot_readings.claim_keys(text, [], f"u{i % args.scopes}")
        out["slot_reading_per_s"] = round(args.memories / (time.perf_counter() - started))
        slots._read.cache_clear()
        with WorldDB.open(path) as db:
            holds: list[float] = []
            write = db.write

            @contextmanager
            def timed(kind: str = "write"):
                began = time.perf_counter()
                with write(kind) as w:
                    yield w
                holds.append(time.perf_counter() - began)

            db.write = timed  # type: ignore[method-assign]
            report = claims_backfill.backfill(db, batch=args.batch)
            rows = db.store.conn.execute("SELECT count(*) FROM claims").fetchone()[0]
    out.update({"backfilled": report.memories, "claims": report.claims, "rows": rows, "batches": report.batches,
                "seconds": round(report.seconds, 2), "backfill_per_s": round(report.memories / report.seconds),
                "lock_hold_ms_max": round(max(holds) * 1000, 1),
                "lock_hold_ms_median": round(statistics.median(holds) * 1000, 1),
                "load_after": os.getloadavg()})
    out["backfill_vs_slot_reading"] = round(out["backfill_per_s"] / out["slot_reading_per_s"], 3)
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
