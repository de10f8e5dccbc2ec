"""The typed lane: texts that name a thing of the kind the question asks for.

"Which cities has Jon visited?" is answered by turns that name a city ("Took a short trip
to Rome"), whatever else they share with the question; "What movies have both seen?" by
turns that name a film. The extractor types some of the names it finds ("place", "work",
"person", "organization", "animal"; worlddb.extract.EntityCandidate) and the resolver keeps
each name's type (worlddb.resolver.index). So a question whose asked-for word maps to a
type (`asked_type`) draws the texts that name an entity of that type, ranked by their
sentence vectors' cosine to the question plus that word, as the answer_type lane ranks
(worlddb.retrieval.lanes).

The asked-for word is read from the question's form only: among the words right after
"what" or "which" (past an "is the" / "are the"), up to HEAD_REACH of them and up to the
first function word, the first that ANSWER_TYPES lists ("which city", "what areas of the
U.S.", "what video games", "what are the names of"). So "what time is the team standup"
asks for a time and "what is my job title" for no kind of thing. A word names a kind of
thing, never a question's subject. "Where" is not read as asking for a place: of a store
of plain memories, "Where do I live?" then ranked a drive to a conference above the move.

Left out: a name's mentions by its own speaker role (a speaker is no answer about
people), the entities the question itself names, and for "person" anyone who has spoken
in the scope (the participants of a conversation name each other in every other turn).
A typed entity's mentions are read newest first, at most MENTIONS_PER_ENTITY of each, and
at most TYPED_ENTITIES_MAX entities (the most recently registered): a lane of a few
thousand texts at most, whatever the size of the scope, ranked exactly
(AnnIndex.nearest_among).
"""

from __future__ import annotations

import re
from itertools import islice

import numpy as np

from worlddb.core.records import TEXT_TYPES
from worlddb.core.store import inside_sql, list_params
from worlddb.graph import identity
from worlddb.graph.text_index import STOPWORDS
from worlddb.resolver.outcomes import Mention

from .sources import Sources

#: the words of a question that name the kind of thing it asks for, by entity type
ANSWER_TYPES: dict[str, frozenset[str]] = {
    "place": frozenset("""city cities town towns country countries state states place places location locations
                          area areas region regions destination destinations""".split()),
    # not "title": a job has one
    "work": frozenset("""book books novel novels movie movies film films show shows series game games song songs
                         album albums""".split()),
    "person": frozenset("people person names authors author artists artist musicians".split()),
    "organization": frozenset("company companies organization organizations organisation organisations"
                              " brand brands team teams".split()),
    "animal": frozenset("pet pets animal animals".split()),
}
_TYPE_OF = {word: etype for etype, words in ANSWER_TYPES.items() for word in words}
#: how many words after "what" / "which" are read for the asked-for word
HEAD_REACH = 4
#: typed entities read per query, and mentions read per entity (newest first)
TYPED_ENTITIES_MAX = 100
MENTIONS_PER_ENTITY = 40
_WHAT = re.compile(rf"\b(?:what|which)((?:\s+[\w'+.-]+){{1,{HEAD_REACH + 2}}})", re.I)
_COPULAS = frozenset({"is", "are", "was", "were"})
_DETERMINERS = frozenset({"the", "some", "all"})
_TEXT = ",".join("?" * len(TEXT_TYPES))


def asked_type(query: str) -> tuple[str, str] | None:
    """(entity type, the word that asks for it), or None (module docstring)."""
    for match in _WHAT.finditer(query):
        words = match.group(1).lower().split()
        if words[:1] and words[0] in _COPULAS:
            words = words[2:] if words[1:2] and words[1] in _DETERMINERS else words[1:]
        for word in words[:HEAD_REACH]:
            if word in _TYPE_OF:
                return _TYPE_OF[word], word
            if word in STOPWORDS:
                break
    return None


def typed_lane(sources: Sources, query: str, vector: np.ndarray | None, mentions: list[Mention], worlds: list[str],
               depth: int, open_only_at: int | None) -> list[int]:
    """Rowids of the texts inside `worlds` that name an entity of the asked type, best first;
    `vector` is the query's (recall's other lanes have it already)."""
    asked = asked_type(query)
    if asked is None:
        return []
    etype, word = asked
    store = sources.store
    named = {store.rowid(a) for cls in identity.classes_of(store, sorted({m.anchor for m in mentions}))
             for a in cls} if mentions else set()
    newest = sorted(sources.resolver.entities_of_type(worlds, (etype,)) - named, reverse=True)
    if etype == "person":
        newest = (e for e in newest if not _has_spoken(store, e))
    entities = list(islice(newest, TYPED_ENTITIES_MAX))
    if not entities:
        return []
    validity, extra = ("AND (n.valid_to IS NULL OR n.valid_to > ?)", [open_only_at]) if open_only_at else ("", [])
    role = store.backend.json_field("e.props", "role")
    texts: set[int] = set()
    for entity in entities:
        texts.update(row[0] for row in store.conn.execute(
            "SELECT n.rowid FROM edges e JOIN nodes n ON n.rowid = e.src "
            f"WHERE e.dst = ? AND e.type = 'refers_to' AND e.seq_removed IS NULL AND coalesce({role}, '') <> 'speaker' "
            f"AND (n.type || '') IN ({_TEXT}) {validity} AND {inside_sql('n', len(worlds))} "
            "ORDER BY e.rowid DESC LIMIT ?",
            (entity, *TEXT_TYPES, *extra, *list_params(worlds), *list_params(worlds), MENTIONS_PER_ENTITY)))
    if not texts or vector is None:
        return sorted(texts, reverse=True)[:depth]
    kind = sources.query_vector(word)
    if kind is not None:
        vector = vector + kind
        vector = (vector / float(np.linalg.norm(vector))).astype(np.float32)
    # exact over a few thousand texts at most: a filtered graph search over so small a share
    # of a large index visits most of the graph (bench.typed_lane)
    ranked = [rowid for rowid, _ in sources.units.nearest_among(vector, texts, depth)]
    found = set(ranked)  # a text with no vector of its own (none is written so) follows, newest first
    return ranked + [rowid for rowid in sorted(texts, reverse=True) if rowid not in found][:depth - len(ranked)]


def _has_spoken(store, entity: int) -> bool:
    role = store.backend.json_field("e.props", "role")
    return store.conn.execute(
        f"SELECT 1 FROM edges e WHERE e.dst = ? AND e.type = 'refers_to' AND {role} = 'speaker' LIMIT 1",
        (entity,)).fetchone() is not None
