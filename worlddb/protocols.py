"""Every extension point of WorldDB, declared in one place.

A seam is a protocol: anything with the right attributes plugs in, and the built-ins
implement these protocols exactly as a plug-in would. Pass your own to `worlddb.open()`
(embedder, extractor, registry) or to the consolidator (summarizer), resolver (tiebreaker).

    EdgeHandler   the program of one edge type: on_insert / on_delete / on_query_rewrite
    EdgeContext   what a handler may read and do inside the write that runs it
    Registry      edge type -> handler; every edge write and every read plan goes through it
    Embedder      texts -> unit vectors (the built-in: MiniLM int8 ONNX, run locally)
    SpanEmbedder  an Embedder that also pools parts of one run of a text (`Pool`)
    Extractor     text -> candidate entities, facts and times (built-in: rules, no model)
    Summarizer    texts -> one summary (built-in: extractive)
    Tiebreaker    which of several candidate entities a mention names (built-in: by tier)
    UpdateJudge   what a new memory means for current ones about the same thing: update,
                  conflict, duplicate, related, unrelated (built-in: slot rules, no model)

Built-in implementations: worlddb.handlers (HandlerRegistry and the thirteen edge types),
worlddb.vectors.embedder (MiniLMEmbedder, HashEmbedder), worlddb.extract.builtin,
worlddb.extract.summarize, worlddb.resolver.tiebreak, worlddb.extract.judge; the Anthropic-backed
extractor, summarizer, tiebreaker and judge (worlddb.anthropic) are
used when ANTHROPIC_API_KEY is set and fall back to the built-ins on any failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

import numpy as np

from worlddb.core.plan import QueryPlan
from worlddb.core.records import Edge, EdgeView, NodeView
from worlddb.extract import Extraction, ExtractionContext
from worlddb.extract.judge import Statement, Verdict

__all__ = [
    "TIER_ORDER", "EdgeContext", "EdgeHandler", "Embedder", "Extractor", "Option", "Pool", "Registry",
    "SpanEmbedder", "Summarizer", "Tiebreaker", "Tier", "UpdateJudge",
]


# ---------------------------------------------------------------------------- edge programs
class EdgeContext(Protocol):
    """What a handler may see and do while its edge is being written.

    Reads see the transaction's own earlier writes. Effects are part of the same
    transaction: if anything later in the write fails, they are rolled back with it.
    Handlers do no I/O of their own: everything goes through this object.

    at                      transaction time of the write (microseconds)
    edge_valid_from         valid-from of the edge being written (given, else `at`)
    node(anchor)            the node, or None
    edges(src, dst, type)   live edges matching the given ends/type
    reaches(a, type, b)     whether b is reachable from a along live `type` edges
    within(node, world)     whether node lies (transitively) inside world
    close_validity(a, to)   close a node's validity at `to` in this edge's name: valid_to tightens
                            to it, or, if the node already ends earlier, the closure is recorded
                            and takes over should the earlier one be withdrawn
    withdraw_closures()     withdraw every closure made in this edge's name (by its handler, or
                            by the write that linked it); returns the nodes whose valid_to changed
    close_edge_validity(id, to)
    add_child / remove_child  change a world's interior (structural; the contains handler)
    derive(edge)            write another edge, dispatched to its own handler after this one
    remove(edge)            remove another live edge, through its handler
    stage_merge(a, b, ...)  record a pending same_as proposal; returns its id
    withdraw_merge(edge)    mark the proposal of a removed same_as edge as withdrawn
    note_conflict(a, b)     report a contradiction in the write's receipt
    refuse(message)         abort the whole write with Refused(message)
    """

    at: int
    edge_valid_from: int

    def node(self, anchor: str) -> NodeView | None: ...
    def edges(self, *, src: str | None = None, dst: str | None = None, type: str | None = None) -> list[EdgeView]: ...
    def reaches(self, start: str, edge_type: str, target: str) -> bool: ...
    def within(self, node: str, world: str) -> bool: ...
    def close_validity(self, anchor: str, to: int, reason: str) -> bool: ...
    def withdraw_closures(self) -> list[str]: ...
    def close_edge_validity(self, edge_id: str, to: int) -> bool: ...
    def add_child(self, world: str, child: str) -> None: ...
    def remove_child(self, world: str, child: str) -> None: ...
    def derive(self, edge: Edge, *, valid_from: int | None = None) -> None: ...
    def remove(self, edge: Edge) -> None: ...
    def stage_merge(self, a: str, b: str, *, tier: str | None, score: float | None, evidence: Any) -> str: ...
    def withdraw_merge(self, edge: Edge) -> None: ...
    def note_conflict(self, a: str, b: str) -> None: ...
    def refuse(self, message: str) -> None: ...


@runtime_checkable
class EdgeHandler(Protocol):
    """The program of one edge type.

    type                     the edge type this handler owns (unique in a registry)
    on_insert(ctx, edge)     called before the edge row is written; may refuse (raise
                             Refused via ctx.refuse), change validity, stage proposals
                             or derive further edges. Raising anything rolls back the
                             whole write, including nodes written with the edge.
    on_delete(ctx, edge)     called before the row is marked removed; same powers. Validity
                             re-opens only by withdrawing the edge's own closures.
    on_query_rewrite(plan)   return the plan a read must follow given this edge type's
                             meaning (hide, annotate, allow crossing). Pure: no I/O.
    """

    type: str

    def on_insert(self, ctx: EdgeContext, edge: Edge) -> None: ...
    def on_delete(self, ctx: EdgeContext, edge: Edge) -> None: ...
    def on_query_rewrite(self, plan: QueryPlan) -> QueryPlan: ...


@runtime_checkable
class Registry(Protocol):
    """Edge type -> handler. The reconciler dispatches every edge write through `get`, and
    every read starts from the plan `rewrite` returns (each handler's on_query_rewrite, in
    sorted type order). Built-in: worlddb.handlers.HandlerRegistry."""

    def register(self, handler: EdgeHandler, *, replace: bool = False) -> None: ...
    def get(self, edge_type: str) -> EdgeHandler: ...
    def types(self) -> list[str]: ...
    def rewrite(self, plan: QueryPlan) -> QueryPlan: ...
    def __contains__(self, edge_type: object) -> bool: ...


# ---------------------------------------------------------------------------- model-facing seams
@runtime_checkable
class Embedder(Protocol):
    """Maps texts to unit vectors.

    model_id names the model *and* everything that changes its vectors; vectors carrying
    different model_ids are never compared (a store refuses an embedder of another model).
    `embed(texts)` takes a sequence of str (a bare str is refused) and returns a float32
    array of shape (len(texts), dim), every row L2-normalised, row i for texts[i]. The same
    input gives the same output; no I/O happens in `embed`.
    """

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class Pool(NamedTuple):
    """Which tokens of one run over a text a pooled vector averages: every token that overlaps
    one of `ranges` (character ranges [start, end) of the text), and the run's [CLS]/[SEP]
    when `specials`. Pool(((0, len(text)),)) is the whole text, pooled as `embed` pools it."""

    ranges: tuple[tuple[int, int], ...]
    specials: bool = True


@runtime_checkable
class SpanEmbedder(Embedder, Protocol):
    """An Embedder that can run a text once and pool parts of it (late chunking).

    `embed_spans(texts, pools)` returns, for each text, a float32 array of shape
    (len(pools[i]), dim) of unit rows, row j pooled over pools[i][j] of the same run over
    texts[i]: a sentence's vector then carries the context of its whole text. A pool of the
    whole text (with specials) equals `embed([text])[0]`. A pool that covers no token falls
    back to the whole text. The method is optional: for an embedder without it, WorldDB
    embeds each pool's text on its own (`worlddb.vectors.embedder.embed_spans`), which is
    also what the built-in HashEmbedder does.
    """

    def embed_spans(self, texts: Sequence[str], pools: Sequence[Sequence[Pool]]) -> list[np.ndarray]: ...


@runtime_checkable
class Extractor(Protocol):
    """Turns text into candidate entities, facts and times (worlddb.extract).

    `extract` returns an Extraction whose `extractor` names the implementation that produced
    it. Implementations may raise only worlddb.extract.ExtractionError; the Anthropic-backed
    one never raises, because it falls back to the built-in one.
    """

    name: str

    def extract(self, text: str, ctx: ExtractionContext) -> Extraction: ...


@runtime_checkable
class Summarizer(Protocol):
    """Condenses texts (the members of a world) into one summary of at most `max_chars`
    characters. Implementations may raise only worlddb.extract.ExtractionError."""

    name: str

    def summarize(self, texts: Sequence[str], *, max_chars: int) -> str: ...


Tier = Literal["exact", "fuzzy", "embedding", "phonetic", "name_part", "nickname"]
#: the resolver's tiers, strongest evidence first
TIER_ORDER: tuple[Tier, ...] = ("exact", "fuzzy", "embedding", "phonetic", "name_part", "nickname")


@dataclass(frozen=True, slots=True)
class Option:
    """One candidate entity for a mention: its name and aliases, the resolver tier that found
    it, and that tier's score (higher is better; scales differ between tiers, which is why
    the tier is compared first)."""

    name: str
    aliases: tuple[str, ...] = ()
    tier: Tier = "exact"
    score: float = 1.0

    def __post_init__(self) -> None:
        if self.tier not in TIER_ORDER:
            raise ValueError(f"unknown tier {self.tier!r}; expected one of {TIER_ORDER}")


@runtime_checkable
class Tiebreaker(Protocol):
    """Chooses among a mention's candidate entities: the index of the chosen option, or None
    for "cannot tell" (the mention is then reported Ambiguous). Nothing is merged on a
    tiebreaker's word alone: every non-exact match still goes through a same_as proposal.
    Implementations may not raise for well-formed input; empty `options` yields None."""

    name: str

    def choose(self, mention: str, options: Sequence[Option]) -> int | None: ...


@runtime_checkable
class UpdateJudge(Protocol):
    """Decides, for a memory being written, what it means for each current memory that may be
    about the same thing (worlddb.extract.judge): one Verdict per candidate, in order, whose
    outcome is "update" (the new one supersedes it), "conflict" (a contradicts edge), "duplicate"
    (nothing new is written), "related" (reported, undecided) or "unrelated". Statements carry
    their text, valid-from, slot reading and vector similarity to the new one. Implementations
    may not raise for well-formed input; a model-backed one falls back to the built-in rules.
    A wrong "update" hides a true memory: when unsure, answer "related".

    Optionally, ``only_repeats(new)`` returns True when the judge can find nothing in this
    statement but a repeat of a candidate (an outcome of "duplicate" or "unrelated" for each):
    candidates are then read for nothing but their text and similarity, and of the memories
    found by words (BM25) only those holding all of its words are looked for, a much cheaper
    search than the best matches of any word. Without the method: False."""

    name: str

    def judge(self, new: Statement, candidates: Sequence[Statement]) -> list[Verdict]: ...
