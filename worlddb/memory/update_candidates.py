"""Candidates of update detection: the stored memories a new one may be about.

What worlddb.memory.updates judges a new memory against, found before the write lock
(`find`): current Memory nodes in the write's scopes that may be about the same thing -
the nearest ones to each of the new text's sentence vectors and to its whole-text vector
(the vectors embedded for the write itself, reused: nothing is embedded twice), and the
best BM25 matches of its text - or, when the judge can find nothing but a repeat
(`only_repeats`: the built-in one, for a text without slot claims), only matches holding
all its words, and candidates are not read for slots. The judge reads the CANDIDATES
nearest; a BM25-only match counts as similarity 0, below every neighbour, so the BM25 search
runs only when the neighbours in scope do not fill the candidates (it could change nothing
otherwise). A process whose HNSW indexes are not built yet (nothing has
read since it opened the file) does not build them for a write: it takes the scopes' most
recent memories instead of the nearest.

Claimed candidates: in a large scope the memory a write updates need not be among its
nearest ("I live in Austin" among thousands of the user's memories about places, plans
and people), so the judge also reads current memories of the write's scopes that the
claims index (worlddb.retrieval.claims) says claim something about the subject of one of
the new text's slot claims, in an attribute of that claim's family. They come after the
nearest, newest first, up to the first one already among the CANDIDATES nearest and at
most MAX_CLAIMED, each with its cosine if the vector search met it and 0 otherwise (as a
BM25-only find). A claim older than one the judge already reads is not added: the newest
claim of a slot is the one a change is about (an older one still current was judged when
the newer was written), and a write whose nearest hold it - most writes, in a scope of
any size - reads nothing more. The read is by the index's key, never a scan of the
scopes. Every memory_write, write_memories, import and amend records its claims (the slot
reader's and its facts', as read here; worlddb.memory.claims); memories written before
the index existed get theirs from a pass after the upgrade (worlddb.memory.claims_backfill),
and until it reaches them are found by their vectors only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from worlddb.core.store import Store, list_params, rowids_sql
from worlddb.core.timeutil import now_us
from worlddb.extract.judge import Statement
from worlddb.graph.lexical import lexical
from worlddb.retrieval import claims as claims_index
from worlddb.retrieval.lanes import eligible
from worlddb.vectors import hnsw

from .services import Services

#: how many neighbours each vector brings, and how many BM25 matches
NEIGHBOURS = 8


#: how many candidates the judge reads, nearest first
CANDIDATES = 2 * NEIGHBOURS


#: how many claimed candidates the judge reads besides the nearest, newest first: the newest
#: claim of a slot is the one a change is about, and one more allows for a revision between
MAX_CLAIMED = 2


#: a candidate below this cosine and not found by BM25 is not worth reading
MIN_SIMILARITY = 0.2


def with_cosines(store: Store, candidates: list[Statement], vector: np.ndarray) -> list[Statement]:
    """The candidates with the cosine of their stored whole-text vector to `vector` where the
    search gave none (a process whose indexes are not loaded takes the scopes' most recent
    memories, at similarity 0; a BM25-only find)."""
    missing = {store.rowid(c.id): c.id for c in candidates if c.similarity <= 0.0}
    missing.pop(None, None)
    if not missing:
        return candidates
    blobs = store.vectors(list(missing), hnsw.EFFECTIVE)
    query = vector / (np.linalg.norm(vector) or 1.0)
    found = {missing[r]: float(np.frombuffer(b, dtype=np.float32) @ query) for r, b in blobs.items()}
    return [replace(c, similarity=found.get(c.id, c.similarity)) for c in candidates]


def nearest(services: Services, worlds: list[str], text: str, vector: np.ndarray,
            units: np.ndarray) -> dict[str, float]:
    """The current texts of `worlds` nearest to a text about to be written (by its whole-text and
    sentence vectors, and BM25 where they find few), anchor -> similarity: the candidates an
    unread change is judged against (a conversation's turns: worlddb.memory.turn_updates)."""
    return find(services, worlds, text, vector, units, every=False, wanted=())


def find(services: Services, worlds: list[str], text: str, vector: np.ndarray,
                units: np.ndarray, every: bool = False, wanted: Iterable[claims_index.Key] = ()) -> dict[str, float]:
    """Anchor -> best cosine to the new text (0 for a BM25-only find), nearest first, then the
    memories the claims index gives for the keys `wanted`. `every`: the BM25 matches must hold
    every word of the text (the judge needs no others)."""
    store, now = services.store, now_us()
    best: dict[int, float] = {}
    for index, queries in ((services.units, units), (services.whole, vector.reshape(1, -1))):
        if index.source == "empty":
            for (rowid,) in store.conn.execute(_RECENT.format(worlds=rowids_sql(len(worlds))),
                                               (*list_params(worlds), now, RECENT)):
                best.setdefault(rowid, 0.0)
            continue
        for query in queries:
            for rowid, similarity in index.search(query, NEIGHBOURS * 4):
                if similarity >= MIN_SIMILARITY and similarity > best.get(rowid, -1.0):
                    best[rowid] = similarity
    allowed = eligible(store, worlds, list(best), now)
    # A BM25-only find ranks below every vector neighbour (its similarity is 0), so once the
    # neighbours fill the candidates the search cannot change them: it is skipped (a full
    # BM25 search of a text with many words is most of a write's judging).
    if sum(1 for r in allowed if best[r] > 0.0) < CANDIDATES:
        found = [rowid for rowid, _ in lexical(store, text, worlds, NEIGHBOURS, open_only_at=now, every=every)
                 if rowid not in best]
        for rowid in found:
            best[rowid] = 0.0
        allowed |= eligible(store, worlds, found, now)
    ranked = sorted((r for r in best if r in allowed), key=lambda r: -best[r])[:CANDIDATES]
    nearest = set(ranked)
    for rowid in claims_index.claiming(store, worlds, wanted, limit=MAX_CLAIMED, now=now, types=("Memory",)):
        if rowid in nearest:
            break  # the judge already reads a claim of the slot newer than the rest (module docstring)
        ranked.append(rowid)
    anchors = store.anchors_for_rowids(ranked)
    return {anchors[r]: best.get(r, 0.0) for r in ranked if r in anchors}


#: the latest memories of the scopes, when no index is built to find the nearest
RECENT = 20


_RECENT = ("SELECT DISTINCT n.rowid FROM closure c JOIN nodes n ON n.rowid = c.node WHERE c.world IN {worlds} "
           "AND n.type = 'Memory' AND (n.valid_to IS NULL OR n.valid_to > ?) ORDER BY n.rowid DESC LIMIT ?")
