"""Precision and recall of names at the start of a sentence, labelled by the corpus itself.

    python -m bench.sentence_initial [--data-dir ../shared/data] [--baseline PYTHON] [--sample 30]

A capitalised word that opens a sentence is ambiguous ("Sarah prefers tea" / "Coffee is great"),
so no hand labels are needed to score it: the rest of the corpus says how the word is written
where a capital is not forced. Each sentence-initial capitalised word (not "I", "I'm") is labelled by
its counts elsewhere, after the first word of a sentence: more often capitalised -> a name, more
often lower-case -> not a name, never seen or a tie -> unknown (left out). The corpus is every
LoCoMo dev turn and every statement (old, new, distractors) of the updates dev cases.

The built-in extractor decides "name" when one of its non-concept entities starts at the word.
Two views: ``bare`` (an empty ``ExtractionContext``, what a memory_write without a speaker gives)
and ``context`` (a LoCoMo turn's speaker and both participants as known names). Prints one JSON
object; with ``--baseline`` the same script runs under that interpreter (another checkout's
virtualenv, so another ``worlddb``) on the same words, and ``changed`` samples the decisions
that differ (``random.Random(7)``).

The script imports nothing but ``worlddb``, so another checkout's interpreter can run it as a file.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from worlddb.extract import ExtractionContext
from worlddb.extract.builtin import BuiltinExtractor, split_sentences

WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def load_texts(data_dir: Path) -> list[tuple[str, ExtractionContext | None]]:
    """(text, context for the ``context`` view) for every LoCoMo turn and updates statement."""
    out: list[tuple[str, ExtractionContext | None]] = []
    for conv in json.loads((data_dir / "locomo-dev.json").read_text()):
        c = conv["conversation"]
        participants = (c["speaker_a"], c["speaker_b"])
        for key, session in c.items():
            if key.startswith("session_") and isinstance(session, list):
                for turn in session:
                    out.append((turn["text"], ExtractionContext(None, turn["speaker"], None, participants)))
    for case in json.loads((data_dir / "updates-dev.json").read_text())["cases"]:
        for text in (case["old"], case["new"], *case["distractors"]):
            out.append((text, None))
    return out


def words(text: str):
    """(offset, word, sentence-initial?) for every word of ``text``."""
    for s, e in split_sentences(text):
        for i, m in enumerate(WORD.finditer(text[s:e])):
            yield s + m.start(), m.group(0), i == 0


def key(word: str) -> str:
    return re.sub(r"['’]s$", "", word).casefold()


def labels(texts) -> dict[str, bool]:
    """word -> is a name, from how the corpus writes it after a sentence's first word."""
    upper, lower = Counter(), Counter()
    for text, _ in texts:
        for _, word, initial in words(text):
            if not initial and word[0].isalpha():
                (upper if word[0].isupper() else lower)[key(word)] += 1
    return {w: upper[w] > lower[w] for w in upper.keys() | lower.keys() if upper[w] != lower[w]}


def decisions(texts) -> dict[str, list]:
    """For each view, per (text index, offset) of a sentence-initial capitalised word: [word, name?]."""
    extractor = BuiltinExtractor()
    out: dict[str, list] = {"bare": [], "context": []}
    for i, (text, ctx) in enumerate(texts):
        for view, context in (("bare", ExtractionContext()), ("context", ctx)):
            if context is None:
                continue
            starts = {e.span[0] for e in extractor.extract(text, context).entities
                      if e.type != "concept" and e.span is not None}
            for offset, word, initial in words(text):
                if initial and word[0].isupper() and not re.match(r"I(?:['’]|$)", word):  # "I", "I'm"
                    out[view].append([i, offset, word, offset in starts])
    return out


def score(decided: list, truth: dict[str, bool]) -> dict:
    tp = fp = fn = 0
    for _, _, word, named in decided:
        label = truth.get(key(word))
        if label is None:
            continue
        tp += named and label
        fp += named and not label
        fn += label and not named
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "tp": tp, "fp": fp, "fn": fn}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--baseline", help="python of another checkout to score the same way")
    ap.add_argument("--sample", type=int, default=30, help="changed decisions to list")
    ap.add_argument("--decisions", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    texts = load_texts(args.data_dir)
    mine = decisions(texts)
    if args.decisions:
        json.dump(mine, sys.stdout)
        return {}
    truth = labels(texts)
    initial = mine["bare"]
    result = {"texts": len(texts), "sentence_initial": len(initial),
              "labelled": sum(key(d[2]) in truth for d in initial),
              "labelled_names": sum(truth.get(key(d[2]), False) for d in initial),
              "branch": {view: score(decided, truth) for view, decided in mine.items()}}
    if args.baseline:
        run = subprocess.run([args.baseline, str(Path(__file__).resolve()), "--data-dir", str(args.data_dir),
                              "--decisions"], capture_output=True, text=True, check=True,
                             cwd=Path(args.baseline).absolute().parents[2])
        base = json.loads(run.stdout)
        result["baseline"] = {view: score(decided, truth) for view, decided in base.items()}
        changed = [(view, t, b) for view in mine for t, b in zip(mine[view], base[view]) if t[3] != b[3]]
        result["changed"] = {view: sum(v == view for v, _, _ in changed) for view in mine}
        sample = random.Random(7).sample(changed, min(args.sample, len(changed)))
        result["changed_sample"] = [
            {"view": view, "word": t[2], "branch": t[3], "label": truth.get(key(t[2])),
             "text": texts[t[0]][0][max(0, t[1] - 20):t[1] + 60]}
            for view, t, _ in sample]
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
