"""Summary-first reads against the full-detail traversal, on a consolidated store.

    python -m bench.consolidate [--topics 100] [--facts-per-topic 100] [--runs 15] [--seed 7]

Store. A fresh database (tmp dir, synchronous=NORMAL) gets one scope, `--topics` Topic
worlds inside it, and `--facts-per-topic` Fact nodes in each (10k facts by default), built
the way worlddb.graph.facts stores them: subject-relation-object text, refers_to edges to shared
Entity nodes. Seeded, so every run builds the same store. Then one `Consolidator` pass
(extractive summarizer, min_age_secs=0) writes a Summary beside every topic; a second pass
must write nothing, and the JSON says whether it did.

Measurement. Two reads, each over every topic of the scope and each through the public
read API with the same plan (validity, conflict annotations):

    summary_first   worlddb.consolidator.summary_first(db, topics, within=[scope])
                    -> the topics and their current summaries
    full_detail     db.query(worlds=[scope]).seed(*topics).expand(["contains"]).run()
                    -> the topics and every fact inside them

plus the same pair for a single topic. Each read runs once to warm SQLite's page cache,
then `--runs` times; the JSON reports the median wall time (perf_counter) in milliseconds,
the spread (min/max), the number of nodes each returned, and full_detail / summary_first
as the speedup. The claim to check: summary_first is faster (speedup > 1).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from worlddb.consolidator import Consolidator, summary_first
from worlddb.core.records import Node
from worlddb.extract.summarize import ExtractiveSummarizer
from worlddb.graph.database import WorldDB
from worlddb.graph.facts import fact_edges, fact_node

PEOPLE = ["Alice", "Bob", "Carol", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas"]
RELATIONS = ["likes", "works_with", "visited", "recommended", "borrowed_from", "wrote_about"]
THINGS = ["the red notebook", "a sourdough starter", "the Lisbon trip", "chess openings", "the garden plan",
          "a jazz record", "the budget sheet", "a mountain bike", "the novel draft", "a ceramic bowl"]


def build(path: Path, topics: int, per_topic: int, seed: int) -> tuple[WorldDB, str, list[str], float]:
    rng = random.Random(seed)
    db = WorldDB.open(path, synchronous="NORMAL")
    started = time.perf_counter()
    with db.write() as w:
        scope = w.scope("user", "bench")
        people = {n: w.add(Node("Entity", name=n), valid_from=0) for n in PEOPLE}
        things = {n: w.add(Node("Entity", name=n), valid_from=0) for n in THINGS}
        anchors = []
        for t in range(topics):
            topic = w.add(Node("Topic", name=f"topic {t}", created_at=t), parents=[scope])
            anchors.append(topic)
            for i in range(per_topic):
                subject, relation, obj = rng.choice(PEOPLE), rng.choice(RELATIONS), rng.choice(THINGS)
                text = f"{subject} {relation.replace('_', ' ')} {obj} (note {t}.{i})."
                node = fact_node(subject=people[subject], relation=relation, obj=things[obj], object_is_entity=True,
                                 text=text, subject_name=subject, object_name=obj, provenance={"bench": seed},
                                 created_at=t * per_topic + i)
                w.add(node, parents=[topic])
                for edge in fact_edges(node):
                    w.link(edge)
    return db, scope, anchors, time.perf_counter() - started


def timed(read, runs: int) -> dict:
    nodes = len(read().nodes)  # warm-up; also what it returns
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        read()
        samples.append((time.perf_counter() - t) * 1000)
    return {"median_ms": round(statistics.median(samples), 3), "min_ms": round(min(samples), 3),
            "max_ms": round(max(samples), 3), "nodes": nodes}


def compare(db: WorldDB, scope: str, topics: list[str], runs: int) -> dict:
    summary = timed(lambda: summary_first(db, topics, within=[scope]), runs)
    detail = timed(lambda: db.query(worlds=[scope]).seed(*topics).expand(["contains"]).run(), runs)
    return {"summary_first": summary, "full_detail": detail,
            "speedup": round(detail["median_ms"] / summary["median_ms"], 2)}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--facts-per-topic", type=int, default=100)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db, scope, topics, build_s = build(Path(tmp) / "bench.db", args.topics, args.facts_per_topic, args.seed)
        try:
            consolidator = Consolidator(db, summarizer=ExtractiveSummarizer(), min_age_secs=0)
            first = consolidator.run()
            again = consolidator.run()
            result = {
                "store": {"topics": args.topics, "facts": args.topics * args.facts_per_topic,
                          "build_s": round(build_s, 3)},
                "consolidate": {"summaries": len(first.summaries), "seconds": round(first.seconds, 3),
                                "rerun_transactions": again.transactions},
                "runs": args.runs,
                "all_topics": compare(db, scope, topics, args.runs),
                "one_topic": compare(db, scope, topics[:1], args.runs),
            }
        finally:
            db.close()
    result["summary_first_faster"] = all(result[k]["speedup"] > 1 for k in ("all_topics", "one_topic"))
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
