"""`Resolver`: which known entity a mention names, decided inside the caller's write.

    resolver = Resolver(db, embedder=HashEmbedder())
    prepared = resolver.prepare(candidates)              # model calls, before the lock
    with db.write() as w:
        scope = w.scope("user", "alice")
        for c in candidates:
            outcome = resolver.resolve(w, scope, c, prepared=prepared)
            w.link(Edge("refers_to", memory, outcome.entity))

Contract
- `resolve` runs in the caller's transaction, so two writers can never both create
  "Sarah": the second sees the first. Exact -> the known entity is reused. Any other match
  -> a new entity plus a pending same_as proposal new -> match (Ambiguous: one per option).
  Nothing is ever merged without `accept_merge`.
- A new entity is `Node("Entity", name, meta={"entity_type", "aliases", "scope"})`, valid
  from 0, inside `scope` only; "scope" in meta keeps the same mention in two scopes (same
  transaction, same provenance) from hashing to one node shared by both.
- Its normalised name and aliases land in `resolver_names` and, with an embedder, its name
  vector in `vectors` (kind hnsw.NAME). One embedding model per database: the first one used
  is recorded and another is refused (vectors of two models must never be compared).
- `prepare` computes name vectors outside any transaction; `resolve` computes what it
  was not given (correct, but then the write lock is held during inference).
- `register` indexes an Entity written without resolution (an import); the background
  re-clusterer is what finds its duplicates.
- Erasing an entity (Writer.erase) clears its names here through an erase hook.
- `namesakes` says which first names begin several known full names of a scope: read-only,
  for the update judge and recall's slot step, which then take such a first name for none.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from worlddb.core.errors import Conflict, InvalidInput, NotFound, WorldDBError
from worlddb.core.records import Edge, Node
from worlddb.core.store import Store
from worlddb.extract import EntityCandidate
from worlddb.graph import identity
from worlddb.graph.database import WorldDB
from worlddb.graph.text_index import check_model
from worlddb.protocols import Embedder, Tiebreaker
from worlddb.resolver.tiebreak import DefaultTiebreaker
from worlddb.vectors import hnsw

from .index import NameIndex
from .mentions import entities_named, find_mentions
from .names import normalize_name, phonetic_key
from .outcomes import Ambiguous, Decision, Match, Mention, New, Resolution, Resolved, Thresholds
from .tiers import ALIAS, HELD, NAME, Context, Pending, Query, compatible, decide, names_equal

_MAX_TYPE_LEN = 64
#: past this many of a scope's names holding a first name, it names nobody in particular (`Resolver.namesakes`)
MAX_NAMESAKES = 5
log = logging.getLogger("worlddb.resolver")


@dataclass(frozen=True)
class Prepared:
    """Name vectors computed ahead of a write, by normalised name, for one model."""

    model: str | None
    vectors: dict[str, np.ndarray]


def as_query(candidate: Any) -> Query:
    """An EntityCandidate or a (name, type?, aliases?) tuple, checked and normalised."""
    if isinstance(candidate, EntityCandidate):
        name, etype, aliases = candidate.name, candidate.type, candidate.aliases
    elif isinstance(candidate, (tuple, list)) and 1 <= len(candidate) <= 3:
        name = candidate[0]
        etype = candidate[1] if len(candidate) > 1 else None
        aliases = candidate[2] if len(candidate) > 2 else ()
    else:
        raise InvalidInput("a candidate is an EntityCandidate or a (name, type, aliases) tuple")
    if not isinstance(name, str) or not normalize_name(name):
        raise InvalidInput("an entity name must be a non-empty string")
    if etype is not None and (not isinstance(etype, str) or len(etype) > _MAX_TYPE_LEN):
        raise InvalidInput(f"an entity type must be a string of at most {_MAX_TYPE_LEN} characters")
    if isinstance(aliases, str) or not isinstance(aliases, Iterable):
        raise InvalidInput("aliases must be a list of strings")
    keys, shown = [normalize_name(name)], []
    for alias in aliases or ():
        if not isinstance(alias, str):
            raise InvalidInput("aliases must be a list of strings")
        key = normalize_name(alias)
        if key and key not in keys:
            keys.append(key)
            shown.append(alias.strip())
    if etype is not None:
        etype = etype.strip().lower() or None
    return Query(name=name.strip(), keys=tuple(keys), aliases=tuple(shown), etype=etype)


def forget_names(conn, anchor: str, rowid: int) -> None:
    """Erase hook: an erased entity keeps no names here (the row stays, emptied, with the
    erasing transaction's seq, so every process's index drops it on its next sync)."""
    conn.execute(
        "UPDATE resolver_names SET norm=NULL, phon=NULL, etype=NULL, seq=(SELECT max(seq) FROM tx) WHERE node=?",
        (rowid,),
    )


class Resolver:
    def __init__(self, db: WorldDB, embedder: Embedder | None = None, *, tiebreaker: Tiebreaker | None = None,
                 thresholds: Thresholds | None = None, index: NameIndex | None = None,
                 reclusterer: Any = None):
        self.db = db
        self.store: Store = db.store
        self.embedder = embedder
        self.tiebreaker = tiebreaker if tiebreaker is not None else DefaultTiebreaker()
        self.thresholds = thresholds if thresholds is not None else Thresholds()
        self._own_index = index is None
        self.index = index if index is not None else NameIndex(self.store)
        # Name vectors are compared with this embedder's: refuse a database whose vectors
        # another model made (the database-wide record the engine checks too).
        if embedder is not None:
            check_model(self.store, embedder.model_id, embedder.dim)
        self.store.add_erase_hook(forget_names)
        #: fed by `after_write` (a Reclusterer, or anything with submit(nodes)); None: no re-clustering
        self.reclusterer = reclusterer
        self._tx = None
        self._pending = Pending()

    def close(self) -> None:
        if self._own_index:
            self.index.close()

    # ------------------------------------------------------------------ before the write
    def name_texts(self, candidates: Iterable[Any]) -> list[str]:
        """The texts `prepare` embeds for these candidates (so a caller can batch them with
        its own texts into one model call)."""
        return list(dict.fromkeys(as_query(c).norm for c in candidates))

    def needs_vector(self, candidates: Iterable[Any], scopes: Sequence[str | None]) -> list[Any]:
        """The candidates whose resolution in `scopes` (scope world anchors; None for a scope
        not created yet) may need a name vector: all but those with exactly one exact match
        in every scope, which the exact tier settles. Embedding only these saves a model run
        per known name. It is a read ahead of the write: should the guess be wrong by then
        (the entity erased meanwhile), the name is embedded inside the write instead."""
        rows = [self.store.rowid(s) if s is not None else None for s in scopes]
        candidates = list(candidates)
        if not rows or None in rows or not candidates:
            return candidates
        queries = [as_query(c) for c in candidates]
        # every mention's exact names in one read per scope (what exact_names reads for each)
        keys = list(dict.fromkeys(key for q in queries for key in q.keys))
        names = [names_equal(self.store, row, keys) for row in rows]

        def settled(q: Query) -> bool:
            return all(len({node for node, norm, _, etype in found if norm in q.keys and compatible(q.etype, etype)})
                       == 1 for found in names)

        return [c for c, q in zip(candidates, queries) if not settled(q)]

    def prepare(self, candidates: Iterable[Any], *, vectors: dict[str, np.ndarray] | None = None) -> Prepared:
        """Embed every candidate's name in one batch, outside any transaction, and bring the
        name indexes up to date, so the write lock is held for neither. `vectors` may carry
        name vectors the caller already computed (keyed by name_texts)."""
        names = self.name_texts(candidates)
        known = dict(vectors or {})
        missing = [n for n in names if n not in known]
        if self.embedder is not None and missing:
            known.update(zip(missing, self.embedder.embed(missing)))
        return self.prepared({n: known[n] for n in names if n in known})

    def prepared(self, vectors: dict[str, np.ndarray]) -> Prepared:
        """Name vectors computed ahead (keyed by name_texts, e.g. on another thread), as
        `prepare` returns them; brings the name indexes up to date, outside any transaction."""
        self.index.catch_up(vectors=self.embedder is not None)
        if self.embedder is None:
            return Prepared(None, {})
        return Prepared(self.embedder.model_id, {n: np.asarray(v, dtype=np.float32) for n, v in vectors.items()})

    # ------------------------------------------------------------------ inside the write
    def resolve(self, w, scope: str, candidate: Any, *, prepared: Prepared | None = None,
                provenance: dict | None = None, exclude: Iterable[str] = ()) -> Resolution:
        """Resolve one mention in `scope` (see the module contract); entities in `exclude`
        (anchors the mention cannot be: the speaker, for "my coworker Alice" in Alice's scope)
        are left out."""
        q = as_query(candidate)
        vector = self._vector_source(q, prepared)
        ctx = self._context(w, scope, vector)
        excluded = frozenset(row for row in (w.tx.rowid(a) for a in exclude) if row is not None)
        if excluded:
            ctx.exclude = excluded
        kind, matches = decide(ctx, q)
        if kind == "resolved" and matches[0].tier == "exact":
            return Resolved(match=matches[0], entity=matches[0].anchor)
        entity = self._create(w, scope, ctx.scope, q, provenance, vector(), held=kind == "ambiguous")
        proposals = tuple(self._stage(w, entity, m, q, origin="write") for m in matches)
        if kind == "resolved":
            return Resolved(match=matches[0], entity=entity, proposals=proposals)
        if kind == "ambiguous":
            return Ambiguous(options=tuple(matches), entity=entity, proposals=proposals)
        return New(entity=entity)

    def resolve_all(self, w, scope: str, candidates: Sequence[Any], *, prepared: Prepared | None = None,
                    provenance: dict | None = None) -> list[Resolution]:
        return [self.resolve(w, scope, c, prepared=prepared, provenance=provenance) for c in candidates]

    # ------------------------------------------------------------------ the memory layer's calls
    def after_write(self, anchors: Iterable[str]) -> None:
        """Hand a committed write's nodes to the background re-clusterer, if there is one;
        returns at once."""
        if self.reclusterer is not None:
            self.reclusterer.submit(nodes=list(anchors))

    # ------------------------------------------------------------------ read-only
    def match(self, scope: str, candidate: Any, *, exclude: Iterable[str] = (),
              vector: np.ndarray | None = None) -> Decision:
        """What `resolve` would decide, without writing: the tiers and the tiebreaker over
        the committed state (or the open transaction's, on the writer's thread). Entities
        in `exclude` are left out; `vector` is the mention's name vector, if known."""
        q = as_query(candidate)
        source = self._vector_source(q, None) if vector is None else (lambda: vector)
        ctx = self._context(None, scope, source)
        excluded = self._rowids(exclude)
        if excluded:
            ctx.exclude = frozenset(excluded)
        outcome, matches = decide(ctx, q)
        return Decision(outcome=outcome, matches=tuple(matches))

    def find_mentions(self, scope_anchors: Iterable[str], text: str) -> list[Mention]:
        """Known entities a query names (exact phrases of 1-3 words, fuzzy words of 4+
        characters); read-only, no model. See worlddb.resolver.mentions."""
        return find_mentions(self.store, self.index, self.thresholds, scope_anchors, text)

    def entities_named(self, scope_anchors: Iterable[str], name: str, *, words: bool = False) -> list[str]:
        """Entities in the scopes whose normalised name or an alias is `name`'s (with
        `words`: contains it as whole words); read-only, no model. See
        worlddb.resolver.mentions."""
        return entities_named(self.store, scope_anchors, name, words=words)

    def entities_of_type(self, scope_anchors: Iterable[str], etypes: Iterable[str]) -> set[int]:
        """The entities (nodes.rowid) of the scopes with a committed name of one of `etypes`
        ("place", "work", ...: the types extractors give); read-only, from the name index."""
        self.index.sync()
        etypes = tuple(etypes)
        return set().union(*(self.index.of_type(row, etypes) for row in self._rowids(scope_anchors)))

    def namesakes(self, scope_anchors: Iterable[str], firsts: Iterable[str]) -> frozenset[str]:
        """The first names of `firsts` (lower case) that begin the full names of two or more
        people of one of the scopes (committed names, of people or untyped), or that more than
        MAX_NAMESAKES of its names hold: where Ana Souza and Ana Lima are known, "ana" alone
        names neither (worlddb.extract.slots.same_person's `ambiguous`). Read-only, no model."""
        wanted = {first for first in firsts if first and " " not in first}
        if not wanted:
            return frozenset()
        self.index.sync()
        out: set[str] = set()
        for scope in self._rowids(scope_anchors):
            for first in wanted - out:
                known = self.index.containing(scope, first, MAX_NAMESAKES)
                full = {c.norm for c in known or () if c.norm.startswith(first + " ") and c.etype in (None, "person")}
                if known is None or len(full) > 1:
                    out.add(first)
        return frozenset(out)

    def register(self, w, scope: str, anchor: str, *, vector: np.ndarray | None = None) -> bool:
        """Index an Entity node already inside `scope` without resolving it; False if it
        was indexed before."""
        view = self.store.require(anchor)
        if view.type != "Entity" or view.erased:
            raise InvalidInput(f"{anchor} is not a live Entity node")
        scope_row = w.tx.rowid(scope) if isinstance(scope, str) else None
        if scope_row is None:
            raise NotFound(f"no scope world has id {scope!r}")
        if not w.tx.within(anchor, scope):
            raise InvalidInput(f"entity {anchor} is not inside scope {scope}")
        node_row = w.tx.rowid(anchor)
        if self.store.conn.execute("SELECT 1 FROM resolver_names WHERE node=? LIMIT 1", (node_row,)).fetchone():
            return False
        meta = view.meta
        raw = meta.get("aliases")
        aliases = [a for a in raw if isinstance(a, str)] if isinstance(raw, list) else []
        q = as_query((view.name, meta.get("entity_type"), aliases))
        self._overlay(w)
        if vector is None and self.embedder is not None:
            vector = self.embedder.embed([q.norm])[0]
        self._index_names(w, scope_row, anchor, q, vector)
        return True

    # ------------------------------------------------------------------ identity
    def equivalence_class(self, anchor: str) -> set[str]:
        return identity.equivalence_class(self.store, anchor)

    def export_identity(self, anchor: str) -> dict[str, Any]:
        """identity.export_identity plus, per member, the names this resolver holds."""
        out = identity.export_identity(self.store, anchor)
        for member in out["members"]:
            rows = self.store.conn.execute(
                "SELECT r.kind, r.norm, r.phon, s.anchor FROM resolver_names r JOIN nodes n ON n.rowid = r.node "
                "JOIN nodes s ON s.rowid = r.scope WHERE n.anchor=? ORDER BY r.id", (member["id"],))
            member["resolver_names"] = [
                {"kind": "alias" if kind == ALIAS else "name", "norm": norm, "phonetic_key": phon, "scope": scope}
                for kind, norm, phon, scope in rows if norm is not None
            ]
        return out

    # ------------------------------------------------------------------ internals
    def _scope_row(self, scope: str, tx=None) -> int:
        row = (self.store if tx is None else tx).rowid(scope) if isinstance(scope, str) else None
        if row is None:
            raise NotFound(f"no scope world has id {scope!r}")
        return row

    def _rowids(self, anchors: Iterable[str]) -> list[int]:
        batch = [a for a in anchors if isinstance(a, str)]
        if not batch:
            return []
        rows = self.store.conn.execute(
            f"SELECT rowid FROM nodes WHERE anchor IN ({','.join('?' * len(batch))})", batch)
        return [row[0] for row in rows]

    def _overlay(self, w) -> Pending:
        if self._tx is not w.tx:  # a new transaction: what the last one wrote is committed or gone
            self._tx, self._pending = w.tx, Pending()
            # the names (and name vectors) this write adds are in the index as soon as it
            # commits, so no later lookup catches up on them
            w.after_commit(self._after_commit)
        return self._pending

    def _after_commit(self) -> None:
        # the overlay's names and vectors are committed now: the index takes them, and the
        # overlay lets go of them (after a bulk load it held every entity's name vector)
        self._tx, self._pending = None, Pending()
        try:
            self.index.advance(vectors=self.embedder is not None)
        except (WorldDBError, RuntimeError, self.store.backend.Error) as exc:
            # the write is committed; the next lookup catches up (and meets the error) instead
            log.warning("the resolver's name index could not take a commit: %s", exc)

    def _context(self, w, scope: str, vector) -> Context:
        # inside a write, through the rowids the transaction remembers (a rowid never changes)
        scope_row = self._scope_row(scope, None if w is None else w.tx)
        pending = self._overlay(w) if w is not None else Pending()
        self.index.sync()
        return Context(store=self.store, index=self.index, thresholds=self.thresholds,
                       tiebreaker=self.tiebreaker, scope=scope_row, vector=vector, pending=pending)

    def _vector_source(self, q: Query, prepared: Prepared | None):
        memo: list = []

        def vector() -> np.ndarray | None:
            if self.embedder is None:
                return None
            if not memo:
                given = prepared.vectors.get(q.norm) if prepared is not None else None
                if given is not None and prepared.model != self.embedder.model_id:
                    raise InvalidInput(f"prepared with {prepared.model}, but this resolver embeds with "
                                       f"{self.embedder.model_id}")
                memo.append(given if given is not None else self.embedder.embed([q.norm])[0])
            return memo[0]

        return vector

    def _create(self, w, scope: str, scope_row: int, q: Query, provenance: dict | None,
                vector: np.ndarray | None, *, held: bool = False) -> str:
        meta = {"entity_type": q.etype, "aliases": list(q.aliases), "scope": scope}
        node = Node("Entity", name=q.name, meta=meta, provenance=provenance or {}, created_at=w.at)
        anchor = w.add(node, valid_from=0, parents=[scope])
        self._index_names(w, scope_row, anchor, q, vector, held=held)
        return anchor

    def _index_names(self, w, scope_row: int, anchor: str, q: Query, vector: np.ndarray | None, *,
                     held: bool = False) -> None:
        pending = self._overlay(w)
        node_row = w.tx.rowid(anchor)
        first = HELD if held else NAME
        rows = [(node_row, scope_row, first if i == 0 else ALIAS, key, phonetic_key(key) or None, q.etype, w.tx.seq)
                for i, key in enumerate(q.keys)]
        w.tx.conn.executemany(
            "INSERT INTO resolver_names(node, scope, kind, norm, phon, etype, seq) VALUES (?,?,?,?,?,?,?)", rows)
        pending.names.extend((scope_row, node_row, key, q.etype) for key in q.keys)
        if vector is not None and self.embedder is not None:
            vec = np.asarray(vector, dtype=np.float32)
            w.put_vector(anchor, hnsw.NAME, self.embedder.model_id, vec.tobytes(), int(vec.shape[0]))
            pending.vectors[node_row] = (scope_row, vec)

    def _stage(self, w, entity: str, match: Match, q: Query, *, origin: str) -> str:
        return stage(w, entity, match, mention=q.name, origin=origin,
                     model=self.embedder.model_id if (self.embedder and match.tier == "embedding") else None)


def stage(w, entity: str, match: Match, *, mention: str, origin: str, model: str | None = None) -> str:
    """Stage the pending proposal `entity` same_as `match.anchor`; returns its id."""
    evidence = {"mention": mention, "mention_key": match.mention, "matched": match.matched,
                "matched_name": match.name, "origin": origin}
    if match.tier == "phonetic":
        evidence["phonetic_key"] = phonetic_key(match.matched)
    if model is not None:
        evidence["model"] = model
    before = len(w.receipt.proposals)
    w.link(Edge("same_as", entity, match.anchor,
                props={"tier": match.tier, "score": round(match.score, 4), "evidence": evidence}))
    if len(w.receipt.proposals) == before:
        raise Conflict(f"the same_as edge {entity} -> {match.anchor} was already live; no proposal staged")
    return w.receipt.proposals[-1]
