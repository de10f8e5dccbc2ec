"""What recall's typed lane costs in a scope with many typed entities.

    python -m bench.typed_lane [--places 2000] [--mentions 5] [--probes 200] [--embedder hash|minilm]

One scope is filled through Engine.write_memories with `--places` made-up place names
("Karvonel"), each named by `--mentions` memories that the extractor types as places ("Ana
flew to Karvonel last week"), and as many memories that name nothing, each its own text.
Then recall (limit 10) is asked, alternating, a question whose asked-for word names a type
("Which cities has Ana visited?": the typed lane reads the mentions of its
TYPED_ENTITIES_MAX newest places) and the same question with a word that names none
("Which moments has Ana visited?": the lane is empty), so both see the same machine load.
The lane's own time is measured too, over the same questions. Prints JSON: P50/P95 of each, and their ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from worlddb.core.timeutil import now_us
from worlddb.memory.engine import Engine
from worlddb.memory.scopes import ScopeSet
from worlddb.retrieval.lanes import run_lanes
from worlddb.retrieval.typed_lane import typed_lane
from worlddb.vectors.embedder import HashEmbedder

SYLLABLES = ["kar", "vo", "nel", "bel", "mi", "ra", "tos", "lun", "dra", "sel", "qua", "rin", "mo", "tha", "zen"]
PEOPLE = ["Ana", "Ben", "Chen", "Dara", "Eli"]
#: the memories that name nothing all differ (a graph of thousands of equal vectors is no store's)
CHORES = ["quarterly report", "budget review", "garden fence", "tax forms", "kitchen shelves", "slide deck",
          "grant proposal", "bike repair", "photo album", "lesson plan", "code review", "travel blog"]
WHEN = ["before lunch", "on Monday", "late at night", "over the weekend", "after the standup", "in the morning",
        "at the library", "with a coffee", "on the train", "before the deadline"]
SCOPE = ScopeSet((("user", "bench"),))


def place_names(n: int, rng: random.Random) -> list[str]:
    names: set[str] = set()
    while len(names) < n:
        names.add("".join(rng.choice(SYLLABLES) for _ in range(3)).capitalize())
    return sorted(names)


def fill(engine: Engine, places: int, mentions: int, rng: random.Random) -> int:
    texts = []
    for name in place_names(places, rng):
        for _ in range(mentions):
            texts.append(f"{rng.choice(PEOPLE)} flew to {name} last week for the conference.")
            texts.append(f"{rng.choice(PEOPLE)} finished the {rng.choice(CHORES)} {rng.choice(WHEN)}, "
                         f"task {len(texts)} of the quarter.")
    rng.shuffle(texts)
    for start in range(0, len(texts), 500):
        engine.write_memories([{"text": t} for t in texts[start:start + 500]], SCOPE)
    return len(texts)


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50": round(1e3 * statistics.median(ordered), 3),
            "p95": round(1e3 * ordered[int(0.95 * (len(ordered) - 1))], 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--places", type=int, default=2000)
    parser.add_argument("--mentions", type=int, default=5)
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        # the hash embedder has no static query table: it embeds the query (query_model), as in bench.mcp
        options = {"embedder": HashEmbedder(), "query_model": True} if args.embedder == "hash" else {}
        engine = Engine.open(Path(tmp) / "typed.db", **options)
        try:
            started = time.perf_counter()
            memories = fill(engine, args.places, args.mentions, rng)
            load_s = time.perf_counter() - started
            worlds = [engine.store.scope_anchor("user", "bench")]
            sources = engine.services.sources
            typed_places = len(sources.resolver.entities_of_type(worlds, ("place",)))
            timed: dict[str, list[float]] = {"recall_typed": [], "recall_untyped": [], "lane": []}
            for i in range(args.probes):
                person = PEOPLE[i % len(PEOPLE)]
                for key, word in (("recall_typed", "cities"), ("recall_untyped", "moments")):
                    started = time.perf_counter()
                    engine.recall(f"Which {word} has {person} visited?", SCOPE, limit=10)
                    timed[key].append(time.perf_counter() - started)
                question = f"Which cities has {person} visited?"
                mentions = sources.resolver.find_mentions(worlds, question)
                started = time.perf_counter()
                lane = typed_lane(sources, question, sources.query_vector(question), mentions, worlds, 50,
                                  open_only_at=now_us())
                timed["lane"].append(time.perf_counter() - started)
            if not lane:
                raise SystemExit("the typed lane found nothing: the places were not typed")
            if run_lanes(sources, "Which moments has Ana visited?", worlds, 50, open_only_at=now_us())["typed"]:
                raise SystemExit("the typed lane ran for a question whose word names no type")
        finally:
            engine.close()
    out = {"benchmark": "typed_lane", "memories": memories, "typed_places": typed_places,
           "embedder": args.embedder, "load_seconds": round(load_s, 1),
           **{key: percentiles(samples) for key, samples in timed.items()}}
    out["recall_p95_ratio_typed_over_untyped"] = round(out["recall_typed"]["p95"] / out["recall_untyped"]["p95"], 3)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
