"""What each text-vector form costs the model: tokens per write and CPU to embed, in one run.

    python -m bench.vector_forms [--data ../shared/data/locomo-dev.json]
                                 [--updates ../shared/data/updates-dev.json] [--rounds 3] [--out FILE]

For every form of worlddb.graph.text_index (FORMS), `text_index.prepare` embeds what a write
of each dev session's turns embeds of their own texts (whole-text vectors and sentence vectors;
speakers' names and the session's description come on top in a real write), one call per
session, as Engine.ingest_conversation and memory_write(messages=...) call it. Reported per
form:
  tokens_per_turn          model tokens ([CLS] and [SEP] included) per dev turn
  tokens_per_short_memory  the same for the statements of updates-dev (plain memories of
                           one sentence, most of them), embedded one call each
  turns_per_cpu_s          dev turns prepared per CPU-second of this process (median of the
                           rounds; the forms alternate within each round, so all see the
                           same machine load)
The default embedder (MiniLMEmbedder) is used throughout.
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
from worlddb.core.timeutil import now_us, parse_time
from worlddb.graph import text_index
from worlddb.vectors.embedder import MiniLMEmbedder


def dev_sessions(data: list[dict]) -> list[list[tuple[Node, int]]]:
    out = []
    for conv in data:
        for session in sessions_of(conv["conversation"]):
            start = parse_time(session.date, field="date")
            out.append([(Node("Turn", name=t.speaker, content=t.text,
                              meta={"speaker": t.speaker, **({"caption": t.caption} if t.caption else {})}), start)
                        for t in session.turns])
    return out


def embedded_texts(node: Node, start: int, form: str) -> list[str]:
    """The texts one model run each goes over for a node in `form`."""
    if form == text_index.LATE_UNDATED:
        return [text_index.late_pools(node, start)[0]]
    whole = text_index.vector_text(node, start, form)
    units = text_index.unit_texts(node, start, form)
    return [whole] + ([] if units == [whole] else units)


def tokens(embedder: MiniLMEmbedder, nodes: list[tuple[Node, int]], form: str) -> float:
    total = sum(embedder.count_tokens(t) + 2 for node, start in nodes for t in embedded_texts(node, start, form))
    return round(total / len(nodes), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo-dev.json"))
    parser.add_argument("--updates", type=Path, default=Path("../shared/data/updates-dev.json"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    sessions = dev_sessions(json.loads(args.data.read_text()))
    turns = [n for s in sessions for n in s]
    cases = json.loads(args.updates.read_text())["cases"]
    memories = [(Node("Memory", name="memory", content=text), now_us())
                for c in cases for text in (c["old"], c["new"], *c["distractors"])]
    embedder = MiniLMEmbedder()
    text_index.prepare(embedder, None, sessions[0])  # load and warm before timing
    cpu: dict[str, list[float]] = {form: [] for form in text_index.FORMS}
    loads = []
    for _ in range(args.rounds):
        loads.append(round(os.getloadavg()[0], 2))
        for form in text_index.FORMS:
            started = time.process_time()
            for session in sessions:
                text_index.prepare(embedder, None, session, form=form)
            cpu[form].append(time.process_time() - started)
    rows = {form: {"tokens_per_turn": tokens(embedder, turns, form),
                   "tokens_per_short_memory": tokens(embedder, memories, form),
                   "turns_per_cpu_s": round(len(turns) / statistics.median(cpu[form]), 1)}
            for form in text_index.FORMS}
    report = {"benchmark": "vector_forms", "turns": len(turns), "sessions": len(sessions),
              "short_memories": len(memories), "rounds": args.rounds, "loadavg_1min": loads,
              "current": text_index.CURRENT, "forms": rows}
    emit(report, args.out)


if __name__ == "__main__":
    main()
