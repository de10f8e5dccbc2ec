"""Entity precision/recall of the built-in extractor on hand-annotated LoCoMo dev turns, and its speed.

    python -m bench.extract_eval --data ../shared/data/locomo-dev.json [--gold bench/data/entity_gold.json]
                                 [--errors] [--out result.json]

Prints one JSON object: micro precision/recall/F1 over (turn, entity) pairs for three views -
``all`` (speaker + mentions), ``mentions`` (the speaker of the turn removed from both sides, since
the extractor is told who speaks), ``others`` (both conversation participants removed: the names
nobody told the extractor about) - and ``turns_per_s`` over every turn of the data set.

Sample. All turns of the data set in file order (conversation, session, turn), shuffled with
``random.Random(2024)``, first 150. ``bench/data/entity_gold.json`` keeps each turn's text so a
changed data file is detected rather than silently scored.

Annotation guideline (applied by reading each turn; the file was committed before any extractor
existed). Gold for a turn = its speaker + every named-entity mention in its ``text``:
* names of specific people, including nicknames and short forms used in address ("Mel", "Jo"),
  animals (pets), places (cities, countries, regions, named landmarks), organisations, businesses
  and brands, named events, titled works (books, films, songs, games, series, bands) and fictional
  characters;
* surface form as written, possessive dropped ("Oliver's" -> "Oliver"), a title's leading "The"
  kept as written ("The Hobbit"); one entry per distinct name in a turn;
* not entities: identity, nationality or group descriptors ("LGBTQ", "European"), dates, weekdays,
  months, holidays and other temporal expressions, common nouns capitalised for emphasis or at the
  start of a sentence, interjections and abbreviations ("BTW").
Matching: a prediction is a ``EntityCandidate`` whose type is not "concept" (noun phrases are not
named entities); names are compared after lower-casing, dropping a possessive and a leading "the",
and removing punctuation ("Spider-Man" == "spiderman").
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from datetime import datetime
from pathlib import Path

from worlddb.extract import ExtractionContext
from worlddb.extract.builtin import BuiltinExtractor

SEED, SIZE = 2024, 150
DEFAULT_GOLD = Path(__file__).parent / "data" / "entity_gold.json"


def normalise(name: str) -> str:
    name = re.sub(r"['’]s\b", "", name.lower())
    name = re.sub(r"^the\s+", "", name.strip())
    name = re.sub(r"[^\w\s]", "", name)
    return " ".join(name.split())


def load_turns(data: list[dict]) -> list[dict]:
    """Every turn with its conversation id, participants and session timestamp, in file order."""
    turns = []
    for conv in data:
        c = conv["conversation"]
        participants = (c["speaker_a"], c["speaker_b"])
        for key, session in c.items():
            if not (key.startswith("session_") and isinstance(session, list)):
                continue
            stamp = datetime.strptime(c[f"{key}_date_time"], "%I:%M %p on %d %B, %Y")
            for turn in session:
                turns.append({**turn, "sample_id": conv["sample_id"], "timestamp": stamp,
                              "participants": participants})
    return turns


def score(pairs: list[tuple[set[str], set[str]]]) -> dict:
    tp = sum(len(gold & pred) for gold, pred in pairs)
    n_pred = sum(len(pred) for _, pred in pairs)
    n_gold = sum(len(gold) for gold, _ in pairs)
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4),
            "tp": tp, "predicted": n_pred, "gold": n_gold}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--gold", default=DEFAULT_GOLD, type=Path)
    ap.add_argument("--errors", action="store_true", help="list false positives/negatives on stderr")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)

    turns = load_turns(json.loads(args.data.read_text()))
    gold_doc = json.loads(args.gold.read_text())
    sample = list(turns)
    random.Random(gold_doc.get("seed", SEED)).shuffle(sample)
    sample = sample[: gold_doc.get("size", SIZE)]
    gold_turns = gold_doc["turns"]
    if [(t["sample_id"], t["dia_id"]) for t in sample] != [(g["sample_id"], g["dia_id"]) for g in gold_turns]:
        sys.exit("gold file does not match the seeded sample of this data file")

    extractor = BuiltinExtractor()
    views: dict[str, list] = {"all": [], "mentions": [], "others": []}
    for turn, gold in zip(sample, gold_turns):
        if turn["text"].strip() != gold["text"].strip():
            sys.exit(f"text of {turn['sample_id']} {turn['dia_id']} differs from the gold file")
        ctx = ExtractionContext(turn["timestamp"], turn["speaker"], None, turn["participants"])
        found = extractor.extract(turn["text"], ctx)
        pred = {normalise(e.name) for e in found.entities if e.type != "concept"}
        truth = {normalise(turn["speaker"])} | {normalise(m) for m in gold["mentions"]}
        speaker = {normalise(turn["speaker"])}
        both = {normalise(p) for p in turn["participants"]}
        views["all"].append((truth, pred))
        views["mentions"].append((truth - speaker, pred - speaker))
        views["others"].append((truth - both, pred - both))
        if args.errors and truth != pred:
            print(f"{turn['sample_id']} {turn['dia_id']}: FP={sorted(pred - truth)} FN={sorted(truth - pred)}"
                  f" | {turn['text'][:120]}", file=sys.stderr)

    start = time.perf_counter()
    for turn in turns:
        extractor.extract(turn["text"], ExtractionContext(turn["timestamp"], turn["speaker"], None,
                                                          turn["participants"]))
    elapsed = time.perf_counter() - start
    result = {
        "sample": {"turns": len(sample), "seed": gold_doc.get("seed", SEED)},
        **{view: score(pairs) for view, pairs in views.items()},
        "speed": {"turns": len(turns), "seconds": round(elapsed, 3),
                  "turns_per_s": round(len(turns) / elapsed, 1)},
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return result


if __name__ == "__main__":
    main()
