"""What kind of thing a bare name is (a place, an organisation), by the embedding model.

Contract: ``kind_of(embedder, name)`` is "place", "organization" or None. It embeds the name with
the write's embedder (a model call: a write makes it in its model step, worlddb.memory.write's
`prepare`, never under the write lock) and compares it with the nouns of each kind (`KIND_WORDS`),
as embedded once per embedder: the kind whose nearest noun is nearer than every other kind's by
at least that kind's `MARGIN` is the name's. A name nearest a person's noun, or near two kinds
alike, has none. The nouns and margins were chosen on well-known cities, towns and companies
with the MiniLM model: every city of the set is a place by at least 0.11, no company, person's
name or weekday by as much (a nation's word may be: "Thai", "Spanish"; worlddb.extract.
unread_change.renamed takes no adjective); a company is an organisation less surely (some by
under 0.04, which are then of no kind). An embedder whose vectors carry no meaning (the hash embedder)
does not tell the kinds' own nouns apart (`MEANING`), and gives no kind. Deterministic for a
given embedder.

The kind tells which slot a correction that names only a value corrects
(worlddb.memory.turn_updates.memory_renamed): a place a home, an organisation an employer or a
school (`SLOTS`).
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["KIND_WORDS", "MARGIN", "MEANING", "SLOTS", "kind_of"]

#: the nouns a name of each kind is near (a person's, so that a name is no place or company for
#: want of a nearer kind)
KIND_WORDS = {"place": ("city", "town", "country"), "organization": ("company", "corporation", "employer"),
              "person": ("person",)}
#: by how much the nearest noun of a kind must be nearer than every other kind's
MARGIN = {"place": 0.1, "organization": 0.04}
#: the slots (catalogue attributes) whose values are of each kind
SLOTS = {"place": frozenset({"home"}), "organization": frozenset({"employer", "school"})}

#: by how much the nouns of one kind must be nearer one another than those of two kinds (`_apart`)
MEANING = 0.1

_LOCK = threading.Lock()
#: the nouns' vectors, per embedder (by identity, kept alive with it)
_NOUNS: dict[int, tuple[object, dict[str, np.ndarray]]] = {}


def kind_of(embedder, name: str) -> str | None:
    """The kind of `name` ("place", "organization") by `embedder`, or None (see the module docstring)."""
    nouns = _nouns(embedder)
    if nouns is None:
        return None
    vector = np.asarray(embedder.embed([name]), dtype=np.float32)[0]
    nearest = {kind: float((vectors @ vector).max()) for kind, vectors in nouns.items()}
    best = max(nearest, key=nearest.get)
    runner_up = max(v for k, v in nearest.items() if k != best)
    return best if best in MARGIN and nearest[best] - runner_up >= MARGIN[best] else None


def _nouns(embedder) -> dict[str, np.ndarray] | None:
    """The nouns' vectors by `embedder`, or None where they do not tell the kinds apart (`_apart`)."""
    with _LOCK:
        held = _NOUNS.get(id(embedder))
        if held is None or held[0] is not embedder:
            nouns = {kind: np.asarray(embedder.embed(list(words)), dtype=np.float32)
                     for kind, words in KIND_WORDS.items()}
            held = (embedder, nouns if _apart(nouns) else None)
            _NOUNS[id(embedder)] = held
        return held[1]


def _apart(nouns: dict[str, np.ndarray]) -> bool:
    """Whether the nouns of each kind are nearer one another than the others' by MEANING: the
    embedder's vectors carry what a name's kind is read from ("city" is near "town", not
    "company"). The hash embedder's nouns share no words, and are all about as far apart."""
    within = [float((v @ v.T)[np.triu_indices(len(v), 1)].mean()) for v in nouns.values() if len(v) > 1]
    kinds = list(nouns.values())
    across = [float((a @ b.T).mean()) for i, a in enumerate(kinds) for b in kinds[i + 1:]]
    return min(within) - max(across) >= MEANING
