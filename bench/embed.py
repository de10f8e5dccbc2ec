"""Embedding throughput: the default embedder against one run at a time and against the fp32 graph, in one run.

    python -m bench.embed [--data ../shared/data/locomo-dev.json] [--rounds 3] [--out FILE]

What a write embeds: for every session of the dev conversations, the vector texts of its
turns (text_index.vector_text, the current form), their sentence units and the speakers'
names, in one `embed` call per session (as
Engine.ingest_conversation and memory_write(messages=...) do); and single short texts, one
call each (a memory_write of plain text). Three embedders over the same model:
`fp32` (one run at a time, the graph as shipped: fp32 products, as before
worlddb.vectors.integer_graph), `one_run_at_a_time` (threads=1, integer products) and the
default (integer products, DEFAULT_THREADS runs at once). They alternate round by round so
all see the same machine load. Reports wall and CPU time per text and token, how much of
each padded batch is padding, and the largest difference between the embedders' vectors
(the smallest cosine over the first five sessions' texts).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from bench.locomo import sessions_of
from bench.output import emit
from worlddb.core.records import Node
from worlddb.core.timeutil import parse_time
from worlddb.graph import text_index
from worlddb.vectors.embedder import DEFAULT_THREADS, DISABLED_FUSIONS, MiniLMEmbedder


def session_batches(data: list[dict]) -> list[list[str]]:
    """One list of texts per session: vector texts, sentence units, speakers' names."""
    out = []
    for conv in data:
        for session in sessions_of(conv["conversation"]):
            start = parse_time(session.date, field="date")
            nodes = [Node("Turn", name=t.speaker, content=t.text,
                          meta={"speaker": t.speaker, **({"caption": t.caption} if t.caption else {})})
                     for t in session.turns]
            texts = [text_index.vector_text(n, start) for n in nodes]
            units = [u for n, t in zip(nodes, texts) if (g := text_index.unit_texts(n, start)) != [t] for u in g]
            out.append(texts + units + sorted({t.speaker.lower() for t in session.turns}))
    return out


def measure(embedder: MiniLMEmbedder, batches: list[list[str]], singles: list[str]) -> dict:
    wall, cpu = time.perf_counter(), time.process_time()
    for texts in batches:
        embedder.embed(texts)
    bulk_wall, bulk_cpu = time.perf_counter() - wall, time.process_time() - cpu
    latencies = []
    cpu = time.process_time()
    for text in singles:
        started = time.perf_counter()
        embedder.embed([text])
        latencies.append(time.perf_counter() - started)
    single_cpu = time.process_time() - cpu
    return {"bulk_wall": bulk_wall, "bulk_cpu": bulk_cpu, "single": latencies, "single_cpu": single_cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo-dev.json"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=40, help="sessions per round (default 40)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    batches = session_batches(json.loads(args.data.read_text()))[: args.sessions]
    singles = [b[0] for b in batches]
    embedders = {"fp32": MiniLMEmbedder(threads=1, arithmetic="fp32"),
                 "one_run_at_a_time": MiniLMEmbedder(threads=1), "default": MiniLMEmbedder()}
    probe = embedders["default"]
    texts = sum(len(b) for b in batches)
    tokens = sum(probe.count_tokens(t) + 2 for b in batches for t in b)
    real = padded = 0
    for b in batches:
        windows = [w for t in dict.fromkeys(b) for w in probe._windows(t)[0]]
        for idx in probe._batches(windows):
            real += sum(len(windows[i]) for i in idx)
            padded += len(idx) * len(windows[idx[0]])
    for embedder in embedders.values():
        embedder.embed(batches[0])  # load and warm both before timing
    runs: dict[str, list[dict]] = {name: [] for name in embedders}
    loads = []
    for _ in range(args.rounds):
        loads.append(round(os.getloadavg()[0], 2))
        for name, embedder in embedders.items():
            runs[name].append(measure(embedder, batches, singles))
    def worst(a: str, b: str) -> float:
        return round(min(float((embedders[a].embed(t) * embedders[b].embed(t)).sum(axis=1).min())
                         for t in batches[:5]), 7)
    rows = {}
    for name, rs in runs.items():
        wall = statistics.median(r["bulk_wall"] for r in rs)
        cpu = statistics.median(r["bulk_cpu"] for r in rs)
        single = sorted(x for r in rs for x in r["single"])
        rows[name] = {
            "threads": embedders[name].threads,
            "bulk_texts_per_s": round(texts / wall, 1),
            "bulk_tokens_per_s": round(tokens / wall),
            "bulk_tokens_per_cpu_s": round(tokens / cpu),
            "single_text_p50_ms": round(1e3 * statistics.median(single), 2),
            "single_text_p95_ms": round(1e3 * single[int(0.95 * (len(single) - 1))], 2),
            "single_text_cpu_ms": round(1e3 * statistics.median(r["single_cpu"] for r in rs) / len(singles), 2),
        }
    report = {
        "benchmark": "embed", "default_threads": DEFAULT_THREADS, "cpus": os.cpu_count(),
        "sessions": len(batches), "texts": texts, "tokens": tokens,
        "padding_share": round(1 - real / padded, 3), "rounds": args.rounds, "loadavg_1min": loads,
        "disabled_fusions": list(DISABLED_FUSIONS),
        "min_cosine_default_vs_one_run": worst("default", "one_run_at_a_time"),
        "min_cosine_default_vs_fp32": worst("default", "fp32"),
        "results": rows,
        "speedup_bulk_wall": round(rows["default"]["bulk_texts_per_s"] / rows["one_run_at_a_time"]["bulk_texts_per_s"],
                                   2),
        "speedup_tokens_per_cpu_s_vs_fp32": round(rows["one_run_at_a_time"]["bulk_tokens_per_cpu_s"]
                                                  / rows["fp32"]["bulk_tokens_per_cpu_s"], 3),
        "speedup_single_text_cpu_vs_fp32": round(rows["fp32"]["single_text_cpu_ms"]
                                                 / rows["one_run_at_a_time"]["single_text_cpu_ms"], 3),
    }
    emit(report, args.out)


if __name__ == "__main__":
    main()
