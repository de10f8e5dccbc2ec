"""Summary nodes for old worlds, and the summary-first read.

Which worlds. Every current node with a non-empty interior, except Scope worlds and
Summary nodes, that has at least one parent world. A summary lives beside its world - in
each of the world's parent worlds - so it is visible exactly where the world is and a
summary of alice's world can never appear in bob's scope. Scopes and other root worlds are
not summarized: they have no parent, and a summary inside the world itself would change
the very version it fingerprints. Worlds are visited deepest first, so a parent is
summarized after the summaries of its sub-worlds have landed in it.

Age. A world is old enough once nothing in its content changed for `min_age_secs`: the
latest of its own t_ingested, the t_added/t_removed of every contains edge inside it
(transitively; contains edges into Summary nodes excluded), every change of an interior
edge set inside it, and every validity change of a non-Summary node inside it (a closure
recorded or withdrawn). Summaries
the consolidator writes therefore never make a world look young.

What is summarized. The world's own content, then the texts of its current content,
oldest first (valid_from, then t_ingested, then created_at): each current non-Summary
child's content; a child that is itself a world contributes its current summary when it
has one, else its content and, recursively, its interior. Only the `max_texts` most recent
texts are fed to the summarizer.

Fingerprint. blake3 over the world's current version id (a Merkle root of its whole
interior) and the sorted anchors of the texts summarized, so it changes when the interior
changes and when validity alone changes (a detail retired or superseded in place). It
deliberately leaves out the summarizer: configuring a model later re-summarizes nothing
that is unchanged.

Writes, one transaction per world. A world whose current summary carries its fingerprint
gets no new summary (only its placement is checked against the world's current parents).
Otherwise the summary text is computed outside any transaction, then, under the write lock
and only if the world is still as read (its version, and its content time: no text inside it
closed or moved meanwhile) and none of the texts has ended by then:

    Node(type="Summary", name="Summary of <world name>", content=<text>, valid until the
         earliest valid_to among the texts summarized (a planned change ends it with them),
         meta={"fingerprint", "of": <world anchor>, "summarizer": <name>}, and "of_topic": true
         for a topic world (topics.py), whose summary recall never returns,
         provenance={"source": "consolidator", "summarizer": <name>}, created_at=<tx time>)
    inside every parent of the world; Summary -summarizes-> World; the new summary
    -supersedes-> each previous current summary (whose handler closes it); then the
    `SummaryIndexer` writes its index rows (default: the FTS5 row, `TextIndexer`).

A world left with no text to summarize, retired or erased, no longer valid, or left with
no parent has its current summary retired. Between passes, the write that closes a text a
summary quotes ends that summary in its own transaction (worlddb.graph.stale_summaries), so
a retired, superseded or amended text is never quoted by a current summary; the next pass
summarizes the world again. `summaries_covering(store, anchor)` lists every
summary (closed ones too) whose text may derive from a node, for erasure to follow.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from worlddb.core import ids
from worlddb.core.errors import InvalidInput
from worlddb.core.records import Edge, Node, NodeView
from worlddb.core.store import Store, list_params, rowids_sql
from worlddb.extract import ExtractionError
from worlddb.extract.summarize import ExtractiveSummarizer
from worlddb.graph.database import WorldDB
from worlddb.graph.query import MAX_HOPS, Subgraph
from worlddb.protocols import Summarizer

from .inference import is_current
from .report import Report
from .topics import is_topic

log = logging.getLogger(__name__)

SUMMARY = "Summary"

# Worlds with an interior, and anything a live summarizes edge points at (so the summary
# of a world that was emptied, retired or orphaned is seen and retired), deepest first.
_CANDIDATES = (
    "SELECT n.anchor, n.type FROM nodes n WHERE n.type NOT IN ('Scope', 'Summary') AND (n.n_children > 0 OR EXISTS "
    "(SELECT 1 FROM edges e WHERE e.dst = n.rowid AND e.type = 'summarizes' AND e.seq_removed IS NULL)) "
    "ORDER BY (SELECT count(*) FROM closure c WHERE c.node = n.rowid) DESC, n.rowid"
)
_CONTENT_TIME = """
WITH world(r) AS (SELECT rowid FROM nodes WHERE anchor = ?),
inside(a) AS (SELECT r FROM world UNION SELECT node FROM closure WHERE world = (SELECT r FROM world)),
content(a, anchor) AS (SELECT i.a, n.anchor FROM inside i JOIN nodes n ON n.rowid = i.a WHERE n.type != 'Summary')
SELECT max(t) FROM (
  SELECT t_ingested AS t FROM nodes WHERE anchor = ?
  UNION ALL SELECT CASE WHEN e.t_removed > e.t_added THEN e.t_removed ELSE e.t_added END FROM content c
    JOIN edges e ON e.src = c.a AND e.type = 'contains' JOIN nodes d ON d.rowid = e.dst WHERE d.type != 'Summary'
  UNION ALL SELECT tx.at FROM content c JOIN member_log m ON m.world = c.a AND m.kind = 1 JOIN tx ON tx.seq = m.seq
  UNION ALL SELECT tx.at FROM content c JOIN validity_log v ON v.anchor = c.anchor JOIN tx ON tx.seq = v.seq
  UNION ALL SELECT tx.at FROM content c JOIN validity_log v ON v.anchor = c.anchor JOIN tx ON tx.seq = v.seq_withdrawn
)"""


def fingerprint(version: str, summarized: Iterable[str]) -> str:
    """What a summary stands for: the world's version and the anchors whose text it used."""
    return ids.summary_fingerprint(version, summarized)


def content_time(store: Store, world: str) -> int:
    """When the world's content last changed (see the module docstring), in microseconds."""
    return store.conn.execute(_CONTENT_TIME, (world, world)).fetchone()[0]


def current_summaries(store: Store, world: str, now: int) -> list[NodeView]:
    """The world's Summary nodes not closed or retired by `now`, oldest first. Their
    valid_from is not compared with `now`: a summary written earlier in the same pass
    (valid from its transaction time, after the pass began) is already current."""
    views = store.get_many(e.src for e in store.edges(dst=world, type="summarizes"))
    live = (v for v in views.values() if v.type == SUMMARY and not v.erased and v.retired_at is None
            and (v.valid_to is None or now < v.valid_to))
    return sorted(live, key=lambda v: (v.valid_from, v.t_ingested, v.anchor))


def _ended(view: NodeView, now: int) -> bool:
    """Retired, erased, or no longer valid: its summaries must not stay current."""
    return view.erased or view.retired_at is not None or (view.valid_to is not None and view.valid_to <= now)


def summaries_covering(store: Store, anchor: str) -> list[str]:
    """Every Summary - current or closed - of every world that holds `anchor`, or of the
    node itself if it is a world. Summary text is derived from the details, so whoever
    erases a detail's content should erase these too (and the next pass re-summarizes
    what is left)."""
    worlds = [anchor] + store.ancestors(anchor)
    rows = store.conn.execute(
        f"SELECT DISTINCT s.anchor FROM edges e JOIN nodes s ON s.rowid = e.src "
        f"WHERE e.type = 'summarizes' AND e.dst IN {rowids_sql(len(worlds))}",
        list_params(worlds),
    )
    return sorted(row[0] for row in rows)


@runtime_checkable
class SummaryIndexer(Protocol):
    """How a new summary's text reaches the read indexes.

    prepare(text)                      called outside any transaction (model work such as
                                       embedding goes here); returns what write() needs
    write(w, anchor, text, prepared)   called inside the summary's write transaction, after
                                       the node and its edges; writes index rows through `w`
    """

    def prepare(self, text: str) -> Any: ...
    def write(self, w, anchor: str, text: str, prepared: Any) -> None: ...


class TextIndexer:
    """The default: the summary's text gets an FTS5 row (the BM25 lane); no vectors."""

    def prepare(self, text: str) -> None:
        return None

    def write(self, w, anchor: str, text: str, prepared: None) -> None:
        w.index_text(anchor, text)


class _Stale(Exception):
    """Raised inside a summary's transaction to roll it back: the world moved on meanwhile."""


@dataclass(frozen=True)
class _Text:
    anchor: str
    text: str
    order: tuple[int, int, int, str]
    #: when the text stops holding (its node's valid_to), if it is known to end
    ends: int | None = None


def _ends(texts: list[_Text]) -> int | None:
    """The earliest end among `texts`: a summary of them holds no longer than they do."""
    return min((t.ends for t in texts if t.ends is not None), default=None)


class SummaryPass:
    """Summaries for every world due for one, at time `now` (see the module docstring)."""

    def __init__(self, db: WorldDB, now: int, *, summarizer: Summarizer, indexer: SummaryIndexer, min_age_us: int,
                 max_texts: int, max_chars: int, types: Iterable[str] | None = None):
        self.db = db
        self.store = db.store
        self.now = now
        self.summarizer = summarizer
        self.indexer = indexer
        self.min_age_us = min_age_us
        self.max_texts = max_texts
        self.max_chars = max_chars
        self.types = None if types is None else frozenset(types)

    def run(self, report: Report) -> None:
        for world, kind in self.store.conn.execute(_CANDIDATES).fetchall():
            if self.types is None or kind in self.types:
                self._one(world, report)

    def _one(self, world: str, report: Report) -> None:
        view = self.store.get(world)
        parents = sorted(self.store.parents(world))
        if _ended(view, self.now) or not parents:
            self._retire(current_summaries(self.store, world, self.now), report)
            return
        if view.valid_from > self.now:
            return
        quiet = content_time(self.store, world)
        if quiet > self.now - self.min_age_us:
            report.young += 1
            return
        texts = self._texts(view)
        mark = fingerprint(view.version, (t.anchor for t in texts))
        current = current_summaries(self.store, world, self.now)
        fresh = [s for s in current if s.meta.get("fingerprint") == mark]
        if fresh:
            self._place(fresh[-1].anchor, parents, report)
            return
        if not texts:
            self._retire(current, report)
            return
        text, made_by = self._condense([t.text for t in texts])
        if not text.strip():
            return
        prepared = self.indexer.prepare(text)
        try:
            with self.db.write("consolidate") as w:
                self._check_unchanged(w, view, quiet, texts, mark)
                summary = self._write(w, view, parents, current, text, made_by, mark, _ends(texts))
                self.indexer.write(w, summary, text, prepared)
        except _Stale:
            return  # changed or summarized meanwhile (rolled back); the next pass decides again
        report.transactions += 1
        report.summaries.append(summary)
        report.superseded += [old.anchor for old in current]

    def _check_unchanged(self, w, view: NodeView, quiet: int, texts: list[_Text], mark: str) -> None:
        """Under the write lock: the world is as it was read (its version, and no text inside it
        closed or moved since: its content time), none of the texts ends before the summary
        would begin, and no summary of it carries this fingerprint yet. Else _Stale."""
        world = view.anchor
        ends = _ends(texts)
        if (self.store.get(world).version != view.version or content_time(self.store, world) != quiet
                or (ends is not None and ends <= w.at)
                or any(s.meta.get("fingerprint") == mark for s in current_summaries(self.store, world, self.now))):
            raise _Stale()

    def _write(self, w, view: NodeView, parents: list[str], current: list[NodeView], text: str,
               made_by: str, mark: str, ends: int | None) -> str:
        world = view.anchor
        node = Node(SUMMARY, name=f"Summary of {view.name or view.type}"[:512], content=text,
                    meta={"fingerprint": mark, "of": world, "summarizer": made_by,
                          **({"of_topic": True} if is_topic(view) else {})},
                    provenance={"source": "consolidator", "summarizer": made_by}, created_at=w.at)
        summary = w.add(node, valid_to=ends, parents=parents)
        w.link(Edge("summarizes", summary, world))
        for old in current:
            w.link(Edge("supersedes", summary, old.anchor))
        return summary

    def _texts(self, world: NodeView) -> list[_Text]:
        found: list[_Text] = []
        self._collect(world.anchor, found)
        found.sort(key=lambda t: t.order)
        found = found[-self.max_texts:]
        if world.content:
            found.insert(0, _Text(world.anchor, world.content, (0, 0, 0, ""), world.valid_to))
        return found

    def _collect(self, world: str, found: list[_Text]) -> None:
        for child in self.store.get_many(self.store.children(world)).values():
            if child.type == SUMMARY or not is_current(child, self.now):
                continue
            order = (child.valid_from, child.t_ingested, child.created_at, child.anchor)
            if child.n_children > 0:
                summary = current_summaries(self.store, child.anchor, self.now)
                if summary:
                    found.append(_Text(summary[-1].anchor, summary[-1].content, order, summary[-1].valid_to))
                    continue
            if child.content:
                found.append(_Text(child.anchor, child.content, order, child.valid_to))
            if child.n_children > 0:
                self._collect(child.anchor, found)

    def _condense(self, texts: list[str]) -> tuple[str, str]:
        summarizer = self.summarizer
        try:
            return summarizer.summarize(texts, max_chars=self.max_chars), summarizer.name
        except ExtractionError as exc:
            log.warning("summarizer %s failed (%s); using the extractive one", summarizer.name, exc)
            fallback = ExtractiveSummarizer()
            return fallback.summarize(texts, max_chars=self.max_chars), fallback.name

    def _place(self, summary: str, parents: list[str], report: Report) -> None:
        """Keep a current summary in exactly the world's current parents."""
        have = set(self.store.parents(summary))
        missing, extra = sorted(set(parents) - have), sorted(have - set(parents))
        if not missing and not extra:
            return
        with self.db.write("consolidate") as w:
            for parent in missing:
                w.link(Edge("contains", parent, summary))
            for parent in extra:
                w.unlink(Edge("contains", parent, summary))
        report.transactions += 1
        report.placed += len(missing) + len(extra)

    def _retire(self, current: list[NodeView], report: Report) -> None:
        if not current:
            return
        with self.db.write("consolidate") as w:
            for old in current:
                w.retire(old.anchor, "its world is gone, orphaned or empty")
        report.transactions += 1
        report.retired += [old.anchor for old in current]


def summary_first(db: WorldDB, worlds: Iterable[str], *, within: Iterable[str] = (), depth: int = 0,
                  as_of: int | None = None, known_at: int | None = None) -> Subgraph:
    """Read worlds at summary resolution, descending into their interiors on demand.

    depth 0 returns each world with its summary (the Summary node visible under the pins,
    reached over its summarizes edge); a world with no such summary returns its direct
    children instead, so nothing is ever silently empty. depth n >= 1 returns the summaries
    and, as well, the details n containment levels down. `within` scopes the read like
    `db.query(worlds=...)`: worlds and nodes outside it are not returned. Built only from
    existing Query steps, so every handler's plan rewrite (validity, annotations) applies.
    """
    if not 0 <= depth <= MAX_HOPS:
        raise InvalidInput(f"depth must be between 0 and {MAX_HOPS}")
    worlds = tuple(dict.fromkeys(worlds))
    base = db.query(worlds=within, as_of=as_of, known_at=known_at)
    sub = base.seed(*worlds).expand(["summarizes"], direction="in").run()
    summarized = {e.dst for e in sub.edges if e.type == "summarizes" and e.src in sub.nodes}
    descend = [w for w in worlds if w in sub.nodes and (depth > 0 or w not in summarized)]
    if descend:
        _merge(sub, base.seed(*descend).expand(["contains"], hops=max(depth, 1)).run())
    return sub


def _merge(into: Subgraph, other: Subgraph) -> None:
    for anchor, view in other.nodes.items():
        into.nodes.setdefault(anchor, view)
    seen = {e.id for e in into.edges}
    into.edges += [e for e in other.edges if e.id not in seen]
    for name in ("conflicts", "superseded_by", "equivalents"):
        getattr(into, name).update(getattr(other, name))
