"""The values the memory API returns: plain frozen dataclasses, JSON-ready.

They double as the MCP tools' structured output (the SDK derives each tool's output
schema from them), so field names and meanings here are the public contract. Times
are ISO-8601 UTC strings; ids are 64-hex anchors.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class EntityOut:
    id: str
    name: str
    type: str | None
    #: "exact" (an existing entity), "new", or "proposed_merge" (new, with pending same_as
    #: proposals); "linked" in memory_read
    resolution: str
    #: entities a *pending* same_as proposal says it may be
    proposed_merge_with: list[str] = field(default_factory=list)
    #: the ids of those pending proposals (decide them with accept/reject)
    proposals: list[str] = field(default_factory=list)
    scope: str = ""
    #: the other members of its equivalence class: accepted same_as (memory_read)
    same_as: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class EntityRef:
    id: str
    name: str


@dataclass(frozen=True)
class PendingMerge:
    """A pending same_as proposal, seen from one of its two entities."""

    id: str
    other_id: str
    other_name: str
    #: the resolver tier that proposed it: fuzzy, phonetic, embedding, tiebreaker, ...
    tier: str | None
    score: float | None


@dataclass(frozen=True)
class RelatedEntity:
    """An entity next to another: a fact links them, or memories mention both."""

    id: str
    name: str
    #: the fact's relation ("works_at"; "<-works_at" when the other is its subject), or
    #: "mentioned with"
    relation: str
    #: how many memories mention both, or facts link them
    count: int


@dataclass(frozen=True)
class ProposalOut:
    """A same_as merge proposal: entity `a` may be the same as entity `b`."""

    id: str
    status: str
    a: EntityRef
    b: EntityRef
    tier: str | None
    score: float | None
    scopes: list[str]
    evidence: dict
    reason: str | None = None


@dataclass(frozen=True)
class ProposalList:
    proposals: list[ProposalOut]


@dataclass(frozen=True)
class FactOut:
    id: str
    subject: str
    relation: str
    object: str
    text: str
    valid_from: str | None = None
    valid_to: str | None = None
    #: the memories that state it: a memory's own facts name that memory; an entity's page lists
    #: a fact several memories state once, with all of them, newest first
    sources: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ConflictOut:
    id: str
    with_id: str


@dataclass(frozen=True)
class TurnOut:
    """A turn written from one message: its id, and the caller's ref for the message."""

    id: str
    ref: str | None = None


@dataclass(frozen=True)
class WriteResult:
    #: the memory written; for messages, the Session world that holds their turns
    id: str
    scopes: list[str]
    valid_from: str
    entities: list[EntityOut]
    facts: list[FactOut]
    #: current memories this write replaced (supersedes edges from it; their validity now ends
    #: where it begins), and ones it contradicts (both stay current and carry the conflict)
    superseded: list[str]
    conflicts: list[ConflictOut]
    #: for messages: the Session world's id (as recall's hits name it) ...
    session: str | None = None
    #: ... and one turn per message, in message order
    turns: list[TurnOut] = field(default_factory=list)
    #: set when this write said again what a current memory says: nothing new was written, and
    #: `id` names that memory
    duplicate_of: str | None = None
    #: up to 5 current memories that may be about the same thing, left undecided (compatible
    #: additions, restatements): recall them, and memory_amend or memory_retire if one is out of date
    related: list[str] = field(default_factory=list)
    #: current memories this write changed only in part (revises edges from it): each also says
    #: something this one leaves alone, so it stays current, and reads mark it `revised_by`; for
    #: messages, the earlier turns whose slot one of its turns changed (worlddb.memory.turn_updates)
    revised: list[str] = field(default_factory=list)
    #: current memories that begin after this one and change what it says (history written after
    #: what followed it): the earliest ends it (supersedes it, `superseded_by`) or, where this one
    #: also says what it leaves alone, changes it in part (`revised_by`); a conversation turn
    #: dated after it that changes it marks it (`revised_by`). For messages: the stored turns and
    #: memories dated after some of its turns that change them (they mark those turns)
    superseded_by: list[str] = field(default_factory=list)
    revised_by: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Hit:
    id: str
    type: str
    text: str
    #: the lanes' fused relevance (higher is better). Results come in rank order, which is this
    #: score's order except where a question about one slot put the hits stating it first
    #: (those carry the lane "slot"), the hits naming a code the query names first (lane
    #: "identifier"), or a newer memory came just ahead of one it changed (lane "successor")
    score: float
    #: lane name -> 1-based rank in that lane ("bm25", "vector", "entity", ...; "slot": the
    #: hit states the attribute the question asks about, and ranks first for it; "identifier":
    #: the hit names every code the query names ("OPS-2"), and ranks first for it; "successor":
    #: the hit superseded or revised the one that held this place, and comes just ahead of it, or
    #: in its place where that one is superseded and hidden)
    lanes: dict[str, int]
    valid_from: str
    valid_to: str | None
    retired: bool
    scopes: list[str]
    entities: list[str]
    conflicts: list[str]
    superseded_by: list[str] = field(default_factory=list)
    speaker: str | None = None
    session: str | None = None
    #: the memories this one replaced (supersedes edges from it)
    supersedes: list[str] = field(default_factory=list)
    #: marks of edge types beyond the built-in ones, by the name their handler gave them
    annotations: dict[str, list[str]] = field(default_factory=dict)
    #: the metadata the memory was written with (a turn's: its speaker, its ref as turn_id, its
    #: caption), as memory_read gives it
    metadata: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RecallResult:
    results: list[Hit]
    scopes_searched: list[str]


@dataclass(frozen=True)
class MemoryOut:
    id: str
    type: str
    text: str | None
    metadata: dict
    scopes: list[str]
    valid_from: str
    valid_to: str | None
    t_ingested: str
    retired: bool
    retire_reason: str | None = None
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    #: marks of edge types beyond the built-in ones, by the name their handler gave them
    annotations: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Page:
    memories: list[MemoryOut]
    next_cursor: str | None


@dataclass(frozen=True)
class HashCheck:
    ok: bool
    version: str
    detail: str


@dataclass(frozen=True)
class EntityDetail:
    """An entity as a reader sees it: names, class, proposals, facts, neighbours, and a page
    of the memories that mention it or a member of its class, newest first."""

    id: str
    name: str
    type: str | None
    aliases: list[str]
    scopes: list[str]
    #: the other members of its equivalence class (accepted same_as)
    same_as: list[EntityRef]
    #: pending same_as proposals touching it or its class
    proposals: list[PendingMerge]
    #: current facts whose subject or object is it or a member of its class
    facts: list[FactOut]
    related: list[RelatedEntity]
    mentions: list[MemoryOut]
    #: pass it back (memory_read cursor) for the next page of mentions
    next_cursor: str | None
    #: with include_retired only (else empty): facts whose subject or object is it or a member
    #: of its class that held once and hold no more (ended by a change or retired; not those
    #: that never held), each once per stretch of time it held, with valid_from, valid_to and
    #: sources; the most recently ended first
    past_facts: list[FactOut] = field(default_factory=list)


@dataclass(frozen=True)
class MemoryDetail:
    id: str
    type: str
    text: str | None
    metadata: dict
    scopes: list[str]
    valid_from: str
    valid_to: str | None
    t_ingested: str
    retired: bool
    retire_reason: str | None
    provenance: dict
    entities: list[EntityOut]
    facts: list[FactOut]
    supersedes: list[str]
    superseded_by: list[str]
    contradicts: list[str]
    hash_check: HashCheck
    #: for an entity id: the entity in full (otherwise None)
    entity: EntityDetail | None = None
    #: marks of edge types beyond the built-in ones, by the name their handler gave them
    annotations: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class AmendResult:
    id: str
    supersedes: str
    scopes: list[str]
    valid_from: str
    #: the current memories the new text contradicts (the judge's conflicts, as memory_write's)
    conflicts: list[ConflictOut] = field(default_factory=list)
    #: other current memories the new text changes (what memory_write would supersede or revise):
    #: an amend closes none of them; each stays current, and reads mark it `revised_by`
    revised: list[str] = field(default_factory=list)
    #: a current memory that begins after the amend and changes what it says, which ends it
    #: (as memory_write's `superseded_by` and `revised_by`)
    superseded_by: list[str] = field(default_factory=list)
    revised_by: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RetireResult:
    id: str
    retired: bool
    valid_to: str | None
    already_retired: bool = False


@dataclass(frozen=True)
class RetireAllResult:
    scopes: list[str]
    #: the memories (and turns) that were current and are now retired, as memory_list_scopes
    #: counts them; the facts drawn from them and the consolidator's summaries in the scopes are
    #: retired too, uncounted
    retired: int


@dataclass(frozen=True)
class PurgeResult:
    scope: str
    #: the scope's own memories (and turns) that were current and are now retired; its facts,
    #: entities, topic worlds and the consolidator's summaries are retired with them, uncounted
    retired: int
    #: the scope's own items (memories, facts, entities, ...) this call erased; those an earlier
    #: purge erased are not counted again (0 without erase)
    erased: int
    kept_shared: int


@dataclass(frozen=True)
class ScopeInfo:
    kind: str
    id: str
    key: str
    #: memories and turns true now: begun, and neither closed nor retired
    memories: int
    #: closed by now: retired, superseded, or retired before they began
    retired: int
    #: written with a valid_from still to come, not retired: true from then on
    upcoming: int = 0


@dataclass(frozen=True)
class ScopeList:
    scopes: list[ScopeInfo]
