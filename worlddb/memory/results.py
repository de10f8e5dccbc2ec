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
    #: "exact" (an existing entity), "new", or "proposed_merge" (new, with pending same_as proposals)
    resolution: str
    proposed_merge_with: list[str] = field(default_factory=list)
    proposals: list[str] = field(default_factory=list)
    scope: str = ""


@dataclass(frozen=True)
class FactOut:
    id: str
    subject: str
    relation: str
    object: str
    text: str
    valid_from: str | None = None
    valid_to: str | None = None


@dataclass(frozen=True)
class ConflictOut:
    id: str
    with_id: str


@dataclass(frozen=True)
class WriteResult:
    id: str
    scopes: list[str]
    valid_from: str
    entities: list[EntityOut]
    facts: list[FactOut]
    superseded: list[str]
    conflicts: list[ConflictOut]


@dataclass(frozen=True)
class Hit:
    id: str
    type: str
    text: str
    score: float
    #: lane name -> 1-based rank in that lane ("bm25", "vector", "entity", ...)
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


@dataclass(frozen=True)
class AmendResult:
    id: str
    supersedes: str
    scopes: list[str]
    valid_from: str


@dataclass(frozen=True)
class RetireResult:
    id: str
    retired: bool
    valid_to: str | None
    already_retired: bool = False


@dataclass(frozen=True)
class RetireAllResult:
    scopes: list[str]
    retired: int


@dataclass(frozen=True)
class PurgeResult:
    scope: str
    retired: int
    erased: int
    kept_shared: int


@dataclass(frozen=True)
class ScopeInfo:
    kind: str
    id: str
    key: str
    memories: int
    retired: int


@dataclass(frozen=True)
class ScopeList:
    scopes: list[ScopeInfo]
