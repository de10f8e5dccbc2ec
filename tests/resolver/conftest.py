"""Fixtures for the resolver tests: a resolver over a real database file, and small embedders."""

from __future__ import annotations

import numpy as np
import pytest

from worlddb.resolver import Resolver
from worlddb.vectors.embedder import HashEmbedder


class SynonymEmbedder:
    """Names in one synonym group get one vector; everything else falls back to hashing.
    Stands in for a model that knows "Bob" is "Robert" where no spelling rule does."""

    model_id = "synonyms-test-64"
    dim = 64

    def __init__(self, groups=(("bob", "robert"), ("nyc", "new york city"))):
        self._hash = HashEmbedder(self.dim)
        self._group = {name: i for i, group in enumerate(groups) for name in group}
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        out = self._hash.embed(texts)
        for row, text in enumerate(texts):
            group = self._group.get(text.lower())
            if group is not None:
                vec = np.zeros(self.dim, dtype=np.float32)
                vec[group] = 1.0
                out[row] = vec
        return out


@pytest.fixture
def resolver(db):
    r = Resolver(db, embedder=HashEmbedder())
    yield r
    r.close()


@pytest.fixture
def scope(db):
    with db.write() as w:
        return w.scope("user", "alice")


@pytest.fixture
def synonyms():
    return SynonymEmbedder()


@pytest.fixture
def resolve(db):
    """resolve(resolver, scope, *candidates): each in its own committed write; the outcomes."""

    def run(resolver, scope, *candidates, **kwargs):
        out = []
        for candidate in candidates:
            if isinstance(candidate, str):
                candidate = (candidate,)
            with db.write() as w:
                out.append(resolver.resolve(w, scope, candidate, **kwargs))
        return out

    return run
