"""Where a write's CPU goes, in process: the model, the update judge and the rest, per memory.

    python -m bench.write_cost [--memories 10000] [--writes 100] [--imports 1000] [--sessions 40]
                               [--data ../shared/data/locomo-dev.json] [--out FILE]

Two embedders over the same model, one after the other in each part of one run: the
default, and `all_fusions` (every onnxruntime fusion, as before DISABLED_FUSIONS).
  single  a file of `--memories` synthetic memories (bench.mcp's generator, written once with
          the default embedder: the vectors are the same) is copied for each embedder, opened,
          read once (so its indexes are built, as a serving process's are), and takes
          `--writes` single write_memory calls (memory_write's path, the update judge
          included).
  import  `--imports` memories of the same generator imported into a fresh file in
          transactions of 500 (`worlddb import`'s path), after a first 500 that warm it.
  conversation  the first `--sessions` sessions of the LoCoMo dev conversations, each
          written with memory_write's messages path (Engine.write_messages, one call per
          session) into a fresh file per embedder, the two embedders taking turns session
          by session; per turn.
Per memory: CPU milliseconds of the whole process, of the model's runs (the onnxruntime
calls, on whatever thread ran them), of the update judge (its BM25 candidate search
separately), and memories per CPU-second. CPU time is what a busy machine moves least;
wall figures are given too, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import threading
import time
from pathlib import Path

from bench.locomo import sessions_of
from bench.mcp import memory_text, prefill
from bench.output import emit
from worlddb.memory import update_candidates
from worlddb.memory import write as write_path
from worlddb.memory.engine import Engine
from worlddb.memory.importing import ImportItem
from worlddb.memory.scopes import ScopeSet
from worlddb.vectors.embedder import MiniLMEmbedder

SCOPE = ScopeSet((("user", "bench"),))


class Meter:
    """Thread CPU seconds spent inside chosen functions, summed over every thread."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._lock = threading.Lock()

    def wrap(self, key: str, fn):
        self.seconds.setdefault(key, 0.0)

        def timed(*args, **kwargs):
            started = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                with self._lock:
                    self.seconds[key] += time.thread_time() - started

        return timed

    def reset(self) -> None:
        self.seconds = dict.fromkeys(self.seconds, 0.0)


def metered(embedder: MiniLMEmbedder, meter: Meter) -> MiniLMEmbedder:
    embedder._session.run = meter.wrap("model", embedder._session.run)
    return embedder


def per_memory(meter: Meter, n: int, cpu: float, wall: float) -> dict:
    parts = {f"{k}_cpu_ms": round(1e3 * v / n, 2) for k, v in meter.seconds.items()}
    return {"cpu_ms": round(1e3 * cpu / n, 2), **parts,
            "per_cpu_s": round(n / cpu, 1), "per_s": round(n / wall, 1), "loadavg_1min": round(os.getloadavg()[0], 2)}


def single(path: Path, embedder: MiniLMEmbedder, meter: Meter, writes: int, seed: int) -> dict:
    rng = random.Random(seed)
    with Engine.open(path, embedder=embedder, synchronous="NORMAL") as engine:
        engine.recall("warm up", SCOPE)
        for i in range(10):
            engine.write_memory(memory_text(rng, 10**8 + i), SCOPE)
        meter.reset()
        cpu, wall = time.process_time(), time.perf_counter()
        for i in range(writes):
            engine.write_memory(memory_text(rng, 10**8 + 100 + i), SCOPE)
        return per_memory(meter, writes, time.process_time() - cpu, time.perf_counter() - wall)


def bulk(folder: Path, embedder: MiniLMEmbedder, meter: Meter, count: int, seed: int) -> dict:
    rng = random.Random(seed)
    items = [ImportItem(line=i + 1, scopes=SCOPE, arguments={"text": memory_text(rng, i)}) for i in range(500 + count)]
    with Engine.open(folder / "import.db", embedder=embedder) as engine:
        engine.import_memories(items[:500])
        meter.reset()
        cpu, wall = time.process_time(), time.perf_counter()
        engine.import_memories(items[500:])
        return per_memory(meter, count, time.process_time() - cpu, time.perf_counter() - wall)


def conversations(folder: Path, embedders: dict, meters: dict, current: dict, data: list[dict],
                  sessions: int) -> dict:
    """Each embedder writes the same sessions into its own file, taking turns session by session."""
    work = [(conv["sample_id"], s) for conv in data for s in sessions_of(conv["conversation"])][:sessions]
    engines = {name: Engine.open(folder / f"conversation-{name}.db", embedder=e) for name, e in embedders.items()}
    spent = {name: [0.0, 0.0] for name in embedders}
    turns = 0
    try:
        for meter in meters.values():
            meter.reset()
        for user, session in work:
            messages = [{"role": t.speaker, "content": t.text, "ref": t.turn_id,
                         **({"caption": t.caption} if t.caption else {})} for t in session.turns]
            turns += len(messages)
            for name, engine in engines.items():
                current["meter"] = meters[name]
                cpu, wall = time.process_time(), time.perf_counter()
                engine.write_messages(messages, ScopeSet((("user", user),)), session=session.name,
                                      valid_from=session.date)
                spent[name][0] += time.process_time() - cpu
                spent[name][1] += time.perf_counter() - wall
    finally:
        for engine in engines.values():
            engine.close()
    return {name: {"sessions": len(work), "turns": turns, **per_memory(meters[name], turns, *spent[name])}
            for name in embedders}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=100)
    parser.add_argument("--imports", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--sessions", type=int, default=40, help="LoCoMo dev sessions for the conversation part")
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo-dev.json"))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    meters = {"all_fusions": Meter(), "default": Meter()}
    embedders = {"all_fusions": metered(MiniLMEmbedder(disabled_fusions=()), meters["all_fusions"]),
                 "default": metered(MiniLMEmbedder(), meters["default"])}
    # the judge and its BM25 search, attributed to whichever embedder's engine is running
    current = {"meter": meters["default"]}
    judge, lexical = write_path._judge, update_candidates.lexical

    def judged(*a, **k):
        return current["meter"].wrap("judge", judge)(*a, **k)

    def searched(*a, **k):
        return current["meter"].wrap("judge_bm25", lexical)(*a, **k)

    write_path._judge, update_candidates.lexical = judged, searched
    for meter in meters.values():
        meter.seconds.update({"judge": 0.0, "judge_bm25": 0.0})
    report: dict = {"benchmark": "write_cost", "memories": args.memories, "writes": args.writes,
                    "imports": args.imports, "single": {}, "import": {}}
    with tempfile.TemporaryDirectory() as tmp:
        if args.sessions:
            report["conversation"] = conversations(Path(tmp), embedders, meters, current,
                                                   json.loads(args.data.read_text()), args.sessions)
        base = Path(tmp) / "base.db"
        report["prefill_per_s"] = round(prefill(base, args.memories, "minilm", args.seed), 1)
        for name, embedder in embedders.items():
            current["meter"] = meters[name]
            copy = Path(tmp) / f"{name}.db"
            shutil.copyfile(base, copy)
            report["single"][name] = single(copy, embedder, meters[name], args.writes, args.seed + 1)
        for name, embedder in embedders.items():
            current["meter"] = meters[name]
            folder = Path(tmp) / name
            folder.mkdir()
            report["import"][name] = bulk(folder, embedder, meters[name], args.imports, args.seed + 2)
    emit(report, args.out)


if __name__ == "__main__":
    main()
