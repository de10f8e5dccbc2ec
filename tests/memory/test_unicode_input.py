"""Text SQLite cannot store (a lone surrogate) is refused as bad input, never a crash."""

from __future__ import annotations

import pytest

from worlddb.core.errors import InvalidInput
from worlddb.memory.engine import Engine
from worlddb.memory.scopes import ScopeSet, resolve_scopes
from worlddb.vectors.embedder import HashEmbedder

pytestmark = pytest.mark.both_backends

ALICE = ScopeSet((("user", "alice"),))
LONE = "\ud800"


@pytest.mark.parametrize("kind", ["user_id", "agent_id", "app_id", "run_id"])
def test_a_scope_id_with_a_lone_surrogate_is_invalid_input(kind):
    with pytest.raises(InvalidInput, match="lone surrogate"):
        resolve_scopes(**{kind: "alice" + LONE})


def test_a_retire_reason_with_a_lone_surrogate_is_refused_and_nothing_changes(db_path):
    with Engine.open(db_path, embedder=HashEmbedder(), query_model=True) as engine:
        memory = engine.write_memory("alice likes tea", ALICE, entities=[], facts=[])
        with pytest.raises(InvalidInput, match="lone surrogate"):
            engine.retire(memory.id, ALICE, reason="gone" + LONE)
        assert engine.store.get(memory.id).valid_to is None
        assert engine.retire(memory.id, ALICE, reason="gone").retired
