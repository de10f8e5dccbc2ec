"""The fuzzy tier reads a block of names, never the whole scope, and loses no near match."""

from __future__ import annotations

import math
import random

import jellyfish
import pytest

from worlddb.core.records import Node
from worlddb.resolver import FUZZY_THRESHOLD, NameIndex, normalize_name
from worlddb.resolver.names import name_similarity

SYLLABLES = "ka lo mi ne ra sa to vi den bar chen dor fel gan hol jin kor lan mar nor pol ros sel tam".split()
FIRST = "sarah john michael emily david anna jon joan james mary robert linda".split()


def _edit(rng: random.Random, name: str) -> str:
    i = rng.randrange(len(name))
    op = rng.randrange(3)
    if op == 0:
        return name[:i] + name[i + 1 :]
    letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
    return name[:i] + letter + name[i + (op == 1) :]


@pytest.fixture(scope="module")
def populated(tmp_path_factory):
    """3000 entities registered in one scope (a module fixture: built once)."""
    from worlddb.graph.database import WorldDB
    from worlddb.resolver import Resolver

    rng = random.Random(11)
    names = set()
    while len(names) < 3000:
        surname = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
        names.add(f"{rng.choice(FIRST)} {surname}" if rng.random() < 0.7 else surname)
    names = sorted(names)
    db = WorldDB.open(tmp_path_factory.mktemp("blocking") / "memory.db", synchronous="OFF")
    resolver = Resolver(db)
    with db.write() as w:
        scope = w.scope("user", "bench")
        for i, name in enumerate(names):
            anchor = w.add(Node("Entity", name=name, created_at=i), valid_from=0, parents=[scope])
            resolver.register(w, scope, anchor)
    yield db, resolver, scope, names
    resolver.close()
    db.close()


def test_every_name_within_the_edit_budget_reaches_the_comparison(populated):
    """Guaranteed: every name within e edits (e = 1..3 by length) that reaches the threshold.
    Measured: the share of *all* names over the threshold, farther ones included."""
    db, resolver, scope, names = populated
    index = NameIndex(db.store)
    index.sync()
    scope_row = db.store.rowid(scope)
    rng = random.Random(5)
    hits = total = 0
    for _ in range(150):
        mention = normalize_name(_edit(rng, _edit(rng, rng.choice(names))))
        budget = min(3, max(1, math.ceil(len(mention) / 8)))
        truth = {n for n in names if n != mention and name_similarity(mention, n) >= FUZZY_THRESHOLD}
        near = {n for n in truth if jellyfish.levenshtein_distance(mention, n) <= budget}
        found = {c.norm for c in index.fuzzy(scope_row, mention, FUZZY_THRESHOLD)} - {mention}
        assert near <= found <= truth, mention
        hits += len(found)
        total += len(truth)
    assert hits >= 0.9 * total
    index.close()


def test_a_fuzzy_mention_in_a_large_scope_resolves_to_its_entity(populated):
    db, resolver, scope, names = populated
    target = names[1234]
    decision = resolver.match(scope, (target[:-2] + target[-1],))  # one letter dropped
    assert decision.outcome == "resolved"
    assert (decision.matches[0].name, decision.matches[0].tier) == (target, "fuzzy")
