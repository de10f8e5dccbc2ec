"""One consolidation pass: inferred edges, the contradiction sweep, topics, then summaries.

    report = Consolidator(db, min_age_secs=3600, functional={"lives_in"}).run()
    report.summary()      # JSON-able counts

Contract
- Every write goes through `db.write("consolidate")` and every edge through the
  reconciler (`w.link`, `w.unlink`), so each edge type's handler decides about it.
- An inferred edge lasts only as long as its premises: one whose premise was unlinked or
  retired is withdrawn before the closure is computed again, and one whose premises'
  interval narrowed is linked again with that interval (`inference.stale_inferred`).
- The pass never holds the write lock for long: inferred and contradicts edges are
  written in transactions of at most `batch` edges, each summary in a transaction of its
  own, and summarizer calls (which may ask a model) happen outside any transaction.
- A handler's refusal costs only the refused edge: the batch it was in rolls back and is
  replayed one edge per transaction; the refusal is listed in `Report.refused` (see
  `_each` for what else counts as a refusal).
- Nothing is written when there is nothing to do: candidates are computed from reads
  first and a transaction is opened only for a non-empty batch, so a pass over an
  unchanged store commits no transaction at all.
- One pass at a time per store, across every process and server sharing it: `run` takes
  the backend's runner lock RUN_LOCK (a PostgreSQL advisory lock; always granted on
  SQLite, where one machine's processes share the file) and skips the pass when another
  holds it. Every write is also made under the store's write lock, so even overlapping
  passes could only ever add each content-addressed edge once.
- Order: inference, then contradictions, then topics (topics.py), then summaries -
  summaries come last because inferred interior edges and topic membership are part of a
  world's content and fingerprint, and a new topic gets its summary in the same pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from worlddb.anthropic import configured_summarizer
from worlddb.core.errors import Conflict, InvalidInput
from worlddb.core.records import Edge
from worlddb.core.timeutil import US, now_us
from worlddb.graph.database import WorldDB
from worlddb.graph.facts import normalize_relation
from worlddb.protocols import Summarizer

from . import inference, summaries, topics
from .report import Report

#: the lock (worlddb.core.backends `try_lock`) one pass holds, so that servers sharing a
#: store never consolidate it at the same time
RUN_LOCK = "worlddb.consolidate"
#: Edge types closed transitively by default.
CLOSURE_TYPES = ("causes", "subtype_of")
#: What costs a planned edge its place but not the pass (Refused is a Conflict).
_NOT_WRITABLE = (Conflict, InvalidInput)


class Consolidator:
    """The consolidator over one open WorldDB (used from one thread at a time).

    summarizer     a `Summarizer`; None means `configured_summarizer()`: the Anthropic one
                   when ANTHROPIC_API_KEY is set, else the built-in extractive one
    min_age_secs   a world is summarized once its content has been quiet this long
    functional     relation names (as in worlddb.graph.facts) that hold one value per subject
    closure_types  edge types closed transitively
    max_chars      longest summary text; max_texts: most recent details fed to the summarizer
    max_inferred   at most this many inferred edges per pass (Report.truncated says more remain)
    indexer        a summaries.SummaryIndexer for new summaries' text (default: FTS5 only)
    batch          edges per write transaction
    clock          current time in microseconds (tests pin it)
    """

    def __init__(self, db: WorldDB, *, summarizer: Summarizer | None = None, min_age_secs: float = 3600.0,
                 functional: Iterable[str] = (), closure_types: Sequence[str] = CLOSURE_TYPES,
                 max_chars: int = 1200, max_texts: int = 400, max_inferred: int = 10_000,
                 batch: int = 200, indexer: summaries.SummaryIndexer | None = None,
                 clock: Callable[[], int] = now_us):
        if min_age_secs < 0:
            raise InvalidInput("min_age_secs must not be negative")
        if max_chars < 1 or max_texts < 1 or max_inferred < 0 or batch < 1:
            raise InvalidInput("max_chars, max_texts and batch must be positive; max_inferred not negative")
        for edge_type in closure_types:
            db.registry.get(edge_type)  # UnknownEdgeType now rather than mid-pass
        if summarizer is None:
            summarizer = configured_summarizer()
        self.db = db
        self.summarizer = summarizer
        self.min_age_us = int(min_age_secs * US)
        self.functional = frozenset(normalize_relation(r) for r in functional)
        self.closure_types = tuple(closure_types)
        self.max_chars = max_chars
        self.max_texts = max_texts
        self.max_inferred = max_inferred
        self.batch = batch
        self.indexer = indexer if indexer is not None else summaries.TextIndexer()
        self.clock = clock

    def run(self) -> Report:
        """One full pass: infer, sweep, summarize. Returns what it did. One pass runs at a
        time on a store: a pass that finds another runner's (another server's) in progress
        does nothing and says so (`Report.skipped`)."""
        report = Report()
        started = time.perf_counter()
        store = self.db.store
        if not store.backend.try_lock(store.conn, RUN_LOCK):
            report.skipped = True
            return report
        try:
            self.infer(report)
            self.sweep(report)
            self.topics(report)
            self.summarize(report)
        finally:
            store.backend.unlock(store.conn, RUN_LOCK)
        report.seconds = time.perf_counter() - started
        return report

    def infer(self, report: Report | None = None) -> Report:
        """Transitive closure of each closure type, computed once over the current graph.
        Edges already present between the same ends (asserted or inferred) are skipped.
        Inferred edges whose premises changed since are withdrawn or redrawn first (see
        `inference.stale_inferred`), so the closure can draw them again where it still holds."""
        report = report if report is not None else Report()
        now = self.clock()
        budget = self.max_inferred
        for edge_type in self.closure_types:
            gone, redraw = inference.stale_inferred(self.db.store, edge_type)
            report.withdrawn += self._each(gone, lambda w, e: w.unlink(e.edge), lambda e: e.id, report)
            report.redrawn += self._each(redraw, _redraw, lambda r: r[0].id, report)
            planned = inference.closure_edges(self.db.store, edge_type, now)
            if len(planned) > budget:
                report.truncated = True
                planned = planned[:budget]
            budget -= len(planned)
            report.inferred += self.link_each(planned, report)
        return report

    def sweep(self, report: Report | None = None) -> Report:
        """contradicts edges between a subject's current facts of a functional relation
        that disagree on the object (and share a scope)."""
        report = report if report is not None else Report()
        if self.functional:
            planned = inference.contradiction_edges(self.db.store, self.functional, self.clock())
            report.contradictions += self.link_each([(e, None, None) for e in planned], report)
        return report

    def topics(self, report: Report | None = None, *, scopes: Iterable[str] | None = None) -> Report:
        """Topic worlds for every scope (or those of `scopes`, anchors) whose members changed
        enough since they were last clustered (topics.py)."""
        report = report if report is not None else Report()
        topics.TopicPass(self.db, self.clock(), batch=self.batch, scopes=scopes).run(report)
        return report

    def summarize(self, report: Report | None = None, *, types: Iterable[str] | None = None) -> Report:
        """Summary nodes for every world whose content is older than min_age_secs (only
        worlds of `types`, when given)."""
        report = report if report is not None else Report()
        summaries.SummaryPass(self.db, self.clock(), summarizer=self.summarizer, indexer=self.indexer,
                               min_age_us=self.min_age_us, max_texts=self.max_texts,
                               max_chars=self.max_chars, types=types).run(report)
        return report

    def link_each(self, planned: Sequence[tuple[Edge, int | None, int | None]], report: Report) -> list[str]:
        """Write (edge, valid_from, valid_to) triples through the reconciler in batches
        (see `_each`). Returns the ids of the edges that were written."""
        return self._each(planned, lambda w, p: w.link(p[0], valid_from=p[1], valid_to=p[2]),
                          lambda p: p[0].id, report)

    def _each(self, items: Sequence, apply: Callable, ident: Callable, report: Report) -> list[str]:
        """apply(writer, item) for each item, in batches.

        A batch is one transaction. If a handler refuses an edge (Refused), or the store's
        state forbids it (another Conflict, or InvalidInput such as an end that has left
        the premises' world), that batch rolls back and is replayed one item per
        transaction, so only that item is lost. Storage errors abort the pass. Returns
        the ids of the items for which apply returned True."""
        done: list[str] = []
        for start in range(0, len(items), self.batch):
            chunk = items[start:start + self.batch]
            try:
                done += self._apply(chunk, apply, ident, report)
            except _NOT_WRITABLE:
                for one in chunk:
                    try:
                        done += self._apply([one], apply, ident, report)
                    except _NOT_WRITABLE as exc:
                        report.refused.append((ident(one), str(exc)))
        return done

    def _apply(self, chunk: Sequence, apply: Callable, ident: Callable, report: Report) -> list[str]:
        done = []
        with self.db.write("consolidate") as w:
            for item in chunk:
                if apply(w, item):
                    done.append(ident(item))
        report.transactions += 1
        return done


def _redraw(w, item) -> bool:
    """The same inferred edge with the interval its premises give now."""
    edge, valid_from, valid_to = item
    w.unlink(edge.edge)
    return w.link(edge.edge, valid_from=valid_from, valid_to=valid_to)
