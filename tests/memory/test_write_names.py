"""Entity names on the write path: a name the exact tier settles is not embedded again."""

from __future__ import annotations

import pytest

from tests.support import ALICE, BOB, open_engine
from worlddb.vectors.embedder import HashEmbedder

pytestmark = pytest.mark.both_backends


class CountingEmbedder(HashEmbedder):
    """The hashing embedder, remembering every text it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return super().embed(texts)


def _written(embedder, engine, text, scopes, **kw):
    embedder.seen.clear()
    result = engine.write_memory(text, scopes, **kw)
    return result, list(embedder.seen)


def test_a_known_name_is_not_embedded_again_and_resolves_to_its_entity(db_path):
    embedder = CountingEmbedder()
    with open_engine(db_path, embedder=embedder) as engine:
        first, seen = _written(embedder, engine, "Maria likes hiking", ALICE, entities=[{"name": "Maria"}])
        assert "maria" in seen
        second, seen = _written(embedder, engine, "Maria bought boots", ALICE, entities=[{"name": " MARIA "}])
        assert "maria" not in seen
        assert second.entities[0].id == first.entities[0].id


def test_a_name_known_in_one_scope_is_embedded_for_a_scope_that_lacks_it(db_path):
    embedder = CountingEmbedder()
    with open_engine(db_path, embedder=embedder) as engine:
        alice = engine.write_memory("Maria likes hiking", ALICE, entities=[{"name": "Maria"}])
        bob, seen = _written(embedder, engine, "Maria met Bob", BOB, entities=[{"name": "Maria"}])
        assert "maria" in seen
        assert bob.entities[0].id != alice.entities[0].id


def test_two_entities_sharing_a_name_still_get_a_vector_for_the_tiers_that_follow(db_path):
    embedder = CountingEmbedder()
    with open_engine(db_path, embedder=embedder) as engine:
        engine.write_memory("Sam the plumber came", ALICE, entities=[{"name": "Sam", "type": "person"}])
        engine.write_memory("Sam the dog barked", ALICE, entities=[{"name": "Sam", "type": "animal"}])
        _, seen = _written(embedder, engine, "Sam was here", ALICE, entities=[{"name": "Sam"}])
        assert "sam" in seen
