"""CPU per text of the slot reader (`worlddb.extract.slots.read`), next to a baseline installation.

    python -m bench.slot_reader [--locomo ../shared/data/locomo-dev.json]
                                [--updates ../shared/data/updates-dev.json]
                                [--baseline-python PY] [--rounds 3] [--out FILE]

Texts: the LoCoMo dev turns, the statements of the update cases (old, new and distractors),
the synthetic memories `bench.import_rate` imports (bench.mcp's generator) and texts of
`bench.synthetic`'s corpus (pseudo-words with capitalised names). Each corpus is read once per
pass with the reader's cache cleared, in a child process (`python -c`, so another
installation's interpreter runs its own worlddb); process CPU time per text, the best of two
passes in a child, the median over `--rounds` children. With `--baseline-python`, the
baseline's children alternate with this installation's, so both see the same load.

Each child also digests its readings (claims and cues of every text, read as is and with a
speaker name): equal digests mean the two installations read every text the same way.
`first_read_ms` is the first call's cost in a fresh process (the reader's one-time set-up).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.mcp import memory_text
from bench.output import emit
from bench.serverproc import child_env, working_dir
from bench.synthetic import Corpus

#: run by each child: time the reader over every corpus, and digest the readings
_CHILD = """
import hashlib, json, sys, time
t0 = time.process_time()
from worlddb.extract import slots
import_ms = (time.process_time() - t0) * 1e3
corpora = json.load(open(sys.argv[1]))
t0 = time.process_time()
slots.read("I moved to Denver last month.")
first_ms = (time.process_time() - t0) * 1e3
out = {"import_ms": round(import_ms, 1), "first_read_ms": round(first_ms, 1), "ms_per_text": {}, "digest": {}}
for name, texts in corpora.items():
    best = None
    for _ in range(2):
        slots._read.cache_clear()
        t0 = time.process_time()
        for text in texts:
            slots.read(text)
        spent = time.process_time() - t0
        best = spent if best is None else min(best, spent)
    out["ms_per_text"][name] = best / len(texts) * 1e3
    digest = hashlib.sha256()
    for text in texts:
        for speaker in (None, "Caroline"):
            reading = slots.read(text, speaker_is=speaker)
            digest.update(repr((reading.claims, sorted(reading.cues))).encode())
    out["digest"][name] = digest.hexdigest()
print(json.dumps(out))
"""


def corpora(locomo: Path, updates: Path, synthetic: int, seed: int) -> dict[str, list[str]]:
    turns = [turn["text"] for conversation in json.loads(locomo.read_text())
             for key, session in conversation["conversation"].items()
             if key.startswith("session_") and isinstance(session, list) for turn in session]
    statements = [s for case in json.loads(updates.read_text())["cases"]
                  for s in (case["old"], case["new"], *case["distractors"])]
    rng = random.Random(seed)
    imported = [memory_text(rng, i) for i in range(synthetic)]
    corpus = Corpus(nodes=synthetic, edges=synthetic * 2, seed=seed)
    pseudo = [t for chunk in corpus.chunks(synthetic) for t in chunk.texts if t][: synthetic // 2]
    return {"locomo_dev_turns": turns, "updates_dev_statements": statements, "import_rate_memories": imported,
            "synthetic_corpus": pseudo}


def child(path: Path, python: str | None) -> dict:
    load = round(os.getloadavg()[0], 2)
    done = subprocess.run([python or sys.executable, "-c", _CHILD, str(path)], env=child_env(), capture_output=True,
                          text=True, check=True, cwd=working_dir(python))
    return {**json.loads(done.stdout), "loadavg_1min": load}


def summary(runs: list[dict]) -> dict:
    names = runs[0]["ms_per_text"]
    return {"ms_per_text": {n: round(statistics.median(r["ms_per_text"][n] for r in runs), 4) for n in names},
            "ms_per_text_runs": {n: [round(r["ms_per_text"][n], 4) for r in runs] for n in names},
            "import_ms": statistics.median(r["import_ms"] for r in runs),
            "first_read_ms": statistics.median(r["first_read_ms"] for r in runs),
            "digest": runs[0]["digest"], "same_readings_every_run": all(r["digest"] == runs[0]["digest"] for r in runs),
            "loadavg_1min": [r["loadavg_1min"] for r in runs]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=Path("../shared/data/locomo-dev.json"))
    parser.add_argument("--updates", type=Path, default=Path("../shared/data/updates-dev.json"))
    parser.add_argument("--synthetic", type=int, default=2000,
                        help="synthetic memories (and half as many corpus texts)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline-python", default=None,
                        help="also time this interpreter's installation of worlddb, alternating with this one")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    texts = corpora(args.locomo, args.updates, args.synthetic, args.seed)
    runs: list[dict] = []
    baseline_runs: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "texts.json"
        path.write_text(json.dumps(texts))
        for _ in range(args.rounds):
            runs.append(child(path, None))
            if args.baseline_python:
                baseline_runs.append(child(path, args.baseline_python))
            print(json.dumps({"round": len(runs), "ms_per_text": runs[-1]["ms_per_text"]}), file=sys.stderr)
    report = {"benchmark": "slot_reader", "texts": {n: len(t) for n, t in texts.items()}, "cpus": os.cpu_count(),
              "results": summary(runs)}
    if baseline_runs:
        before = summary(baseline_runs)
        now = report["results"]["ms_per_text"]
        report["baseline"] = {"python": args.baseline_python, "results": before}
        report["speedup"] = {n: round(before["ms_per_text"][n] / now[n], 2) for n in now}
        report["same_readings_as_baseline"] = {n: before["digest"][n] == report["results"]["digest"][n] for n in now}
    emit(report, args.out)


if __name__ == "__main__":
    main()
