"""Entity resolution latency per candidate at 10k and 100k known entities.

    python -m bench.resolver [--sizes 10000 100000] [--candidates 1000] [--seed 7] [--embedder hash]

For each size, a fresh database gets one scope holding that many entities (seeded
synthetic names: 75 % "<first name> <surname>" with 120 common first names - so first
names repeat hundreds of times, the hard case for trigram blocking - and surnames of 2-4
syllables, 25 % one- or two-word organisation/place names), written through the real
write path and indexed with `Resolver.register`. Then `--candidates` mentions are resolved,
each in its own committed write, through `Resolver.resolve` (which creates the entity and
stages the proposal where the outcome asks for it):
    exact  40 %  a known name with its case and spacing changed
    fuzzy  40 %  a known name with one letter inserted, deleted or replaced
    new    20 %  a fresh name no entity has
Name vectors are computed before each write with `Resolver.prepare`, as the write path
does, and timed separately. Printed as JSON: P50/P95/mean of `resolve` per candidate (in
the open transaction, commit excluded) overall and per kind, the whole write including
commit, the outcomes by tier, one-off costs (loading, building the in-memory name index
and the HNSW index), and `find_mentions` latency for short queries. The embedder used is
named in the output (default: HashEmbedder, 256 dims).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from worlddb.core.records import Node
from worlddb.graph.database import WorldDB
from worlddb.resolver import Resolver

FIRST = (
    "sarah john michael emily david anna jon joan james mary robert linda william elizabeth richard "
    "barbara joseph susan thomas jessica charles karen daniel nancy matthew lisa anthony betty mark helen "
    "donald sandra steven donna paul carol andrew ruth joshua sharon kenneth michelle kevin laura brian "
    "kimberly george deborah edward amy ronald angela timothy melissa jason rebecca jeffrey stephanie "
    "ryan virginia jacob kathleen gary pamela nicholas martha eric debra jonathan amanda stephen maria "
    "larry catherine justin christine scott carolyn brandon janet benjamin frances samuel heather gregory "
    "diane frank olivia alexander joyce raymond julie patrick victoria jack emma dennis kelly jerry "
    "christina tyler lauren aaron evelyn henry judith adam megan douglas cheryl nathan andrea peter hannah "
    "zachary jacqueline kyle gloria harold teresa omar priya wei yuki"
).split()
SYLLABLES = (
    "ka lo mi ne ra sa to vi den bar chen dor fel gan hol jin kor lan mar nor pol quin ros sel tam vor wen "
    "yal zor ber son ton ley field man berg stein ski vic ova ez ito ard ush imo elt"
).split()
SUFFIXES = ["", "", "", " labs", " group", " river", " city", " press", " clinic", " park"]


def _surname(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))).title()


def _name(rng: random.Random) -> str:
    if rng.random() < 0.75:
        return f"{rng.choice(FIRST).title()} {_surname(rng)}"
    return _surname(rng) + rng.choice(SUFFIXES).title()


def _names(rng: random.Random, n: int) -> list[str]:
    out: dict[str, None] = {}
    while len(out) < n:
        out.setdefault(_name(rng), None)
    return list(out)


def _exact_variant(rng: random.Random, name: str) -> str:
    return rng.choice([name.upper(), name.lower(), f"  {name} ", name.replace(" ", "  ")])


def _one_edit(rng: random.Random, name: str) -> str:
    i = rng.randrange(1, len(name))
    op = rng.randrange(3)
    letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
    if op == 0:
        return name[:i] + name[i + 1 :]
    if op == 1:
        return name[:i] + letter + name[i + 1 :]
    return name[:i] + letter + name[i:]


def _stats(values: list[float]) -> dict:
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"n": len(values), "p50_ms": round(pick(0.50), 3), "p95_ms": round(pick(0.95), 3),
            "mean_ms": round(statistics.fmean(values), 3)}


def _embedder(kind: str):
    if kind == "minilm":
        from worlddb.vectors.embedder import default_embedder

        return default_embedder()
    from worlddb.vectors.embedder import HashEmbedder

    return HashEmbedder()


def run_size(size: int, n_candidates: int, seed: int, embedder, workdir: Path) -> dict:
    rng = random.Random(seed)
    names = _names(rng, size)
    known = set(names)
    db = WorldDB.open(workdir / f"resolver-{size}.db", synchronous="NORMAL")
    resolver = Resolver(db, embedder=embedder)
    t0 = time.perf_counter()
    with db.write() as w:
        scope = w.scope("user", "bench")
    for start in range(0, size, 5000):
        chunk = names[start : start + 5000]
        vectors = embedder.embed([n.lower() for n in chunk])
        with db.write() as w:
            for i, (name, vec) in enumerate(zip(chunk, vectors)):
                anchor = w.add(Node("Entity", name=name, meta={"entity_type": None, "aliases": []},
                                    created_at=start + i), valid_from=0, parents=[scope])
                resolver.register(w, scope, anchor, vector=vec)
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    resolver.index.sync()
    index_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    resolver.index.nearest(db.store.rowid(scope), embedder.embed(["warm up"])[0], 1)
    ann_s = time.perf_counter() - t0

    kinds = ["exact"] * 40 + ["fuzzy"] * 40 + ["new"] * 20
    candidates = []
    for _ in range(n_candidates):
        kind = rng.choice(kinds)
        if kind == "exact":
            text = _exact_variant(rng, rng.choice(names))
        elif kind == "fuzzy":
            text = _one_edit(rng, rng.choice(names))
        else:
            text = _name(rng)
            while text in known:
                text = _name(rng)
        candidates.append((kind, text))

    resolve_ms: dict[str, list[float]] = {"exact": [], "fuzzy": [], "new": []}
    write_ms, prepare_ms = [], []
    outcomes: Counter = Counter()
    for kind, text in candidates:
        t0 = time.perf_counter()
        prepared = resolver.prepare([(text,)])
        t1 = time.perf_counter()
        with db.write() as w:
            t2 = time.perf_counter()
            outcome = resolver.resolve(w, scope, (text,), prepared=prepared)
            t3 = time.perf_counter()
        t4 = time.perf_counter()
        prepare_ms.append((t1 - t0) * 1000)
        resolve_ms[kind].append((t3 - t2) * 1000)
        write_ms.append((t4 - t1) * 1000)
        outcomes[f"{kind}->{type(outcome).__name__}:{getattr(outcome, 'tier', '-')}"] += 1

    mention_ms = []
    scopes = [scope]
    for _ in range(200):
        who = rng.choice(names)
        query = rng.choice([f"What did {who} say about the trip?", f"when did {_one_edit(rng, who)} move",
                            f"Tell me about {who.split()[0]} and the garden"])
        t0 = time.perf_counter()
        resolver.find_mentions(scopes, query)
        mention_ms.append((time.perf_counter() - t0) * 1000)
    resolver.close()
    db.close()
    everything = [v for values in resolve_ms.values() for v in values]
    return {
        "entities": size,
        "resolve_per_candidate": _stats(everything),
        "resolve_by_kind": {kind: _stats(values) for kind, values in resolve_ms.items() if values},
        "write_incl_commit": _stats(write_ms),
        "prepare_per_candidate": _stats(prepare_ms),
        "find_mentions_per_query": _stats(mention_ms),
        "outcomes": dict(sorted(outcomes.items())),
        "one_off_s": {"load_entities": round(load_s, 1), "name_index_build": round(index_s, 2),
                      "hnsw_build": round(ann_s, 2)},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--candidates", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--embedder", choices=["hash", "minilm"], default="hash")
    args = parser.parse_args(argv)
    embedder = _embedder(args.embedder)
    with tempfile.TemporaryDirectory() as tmp:
        runs = [run_size(size, args.candidates, args.seed, embedder, Path(tmp)) for size in args.sizes]
    print(json.dumps({
        "benchmark": "resolver",
        "embedder": {"class": type(embedder).__name__, "model_id": embedder.model_id, "dim": embedder.dim},
        "candidates_per_size": args.candidates,
        "seed": args.seed,
        "goal": "resolve P95 < 5 ms at 100k entities",
        "runs": runs,
    }, indent=2))


if __name__ == "__main__":
    main()
