"""WorldDB: long-term memory for AI agents in one SQLite file.

    import worlddb

    with worlddb.open("memory.db", default_user="alice") as memory:
        me = worlddb.ScopeSet.of(user="alice")
        memory.write_memory("I live in Austin, Texas.", me)
        for hit in memory.recall("where do I live?", me).results:
            print(hit.text, hit.superseded_by)

This module is the Python API: `open()`, `Engine` and `AsyncEngine`, the scope, access and
result records, the error tree (worlddb.core.errors) and the extension protocols
(worlddb.protocols). Names load on first use (PEP 562), so `import worlddb` loads
neither the embedding runtime nor the HNSW library. The MCP server is worlddb.server,
the command line `worlddb` (worlddb.cli).

Packages, lowest layer first; each imports only from the layers below it:

    core          canonical encoding and ids, hash trie, node/edge records, schema, store,
                  transactions
    extract       text -> candidate entities, facts and times; slot readings and the update
                  judge (built-in rules; Anthropic)
    protocols     every extension point, declared in one module
    handlers      the edge-type programs and their registry (repository: handlers/)
    vectors       embedders, HNSW indexes and their snapshots, composition, static query table
    graph         the WorldDB facade, reconciler, query pipeline, text index, verify
    resolver      mentions -> entities, tiered, never merging silently
    consolidator  summaries, inferred edges, contradiction sweeps in the background
    retrieval     recall's lanes, fusion and graph step
    memory        Engine, AsyncEngine and the operations behind the nine tools
    server        the nine MCP tools over stdio and streamable HTTP (repository: server/)
    cli           the `worlddb` command
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from worlddb.core.errors import (
        AmbiguousId,
        Conflict,
        EmbedderError,
        ExtractionError,
        Forbidden,
        IntegrityError,
        InvalidInput,
        NotFound,
        RateLimited,
        Refused,
        SchemaError,
        ServeError,
        StorageError,
        UnknownEdgeType,
        ValidityConflict,
        WorldDBError,
    )
    from worlddb.memory.access import Access
    from worlddb.memory.aio import AsyncEngine
    from worlddb.memory.engine import Engine
    from worlddb.memory.ingest import IngestResult, SessionIn, TurnIn
    from worlddb.memory.results import (
        AmendResult,
        ConflictOut,
        EntityDetail,
        EntityOut,
        EntityRef,
        FactOut,
        HashCheck,
        Hit,
        MemoryDetail,
        MemoryOut,
        Page,
        PendingMerge,
        ProposalList,
        ProposalOut,
        PurgeResult,
        RecallResult,
        RelatedEntity,
        RetireAllResult,
        RetireResult,
        ScopeInfo,
        ScopeList,
        WriteResult,
    )
    from worlddb.memory.scopes import ScopeSet
    from worlddb.protocols import (
        EdgeContext,
        EdgeHandler,
        Embedder,
        Extractor,
        Registry,
        Summarizer,
        Tiebreaker,
        UpdateJudge,
    )

#: public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("Engine",), "worlddb.memory.engine"),
    **dict.fromkeys(("AsyncEngine",), "worlddb.memory.aio"),
    **dict.fromkeys(("ScopeSet",), "worlddb.memory.scopes"),
    **dict.fromkeys(("Access",), "worlddb.memory.access"),
    **dict.fromkeys(("IngestResult", "SessionIn", "TurnIn"), "worlddb.memory.ingest"),
    **dict.fromkeys((
        "AmendResult", "ConflictOut", "EntityDetail", "EntityOut", "EntityRef", "FactOut", "HashCheck", "Hit",
        "MemoryDetail", "MemoryOut", "Page", "PendingMerge", "ProposalList", "ProposalOut", "PurgeResult",
        "RecallResult", "RelatedEntity", "RetireAllResult", "RetireResult", "ScopeInfo", "ScopeList", "WriteResult",
    ), "worlddb.memory.results"),
    **dict.fromkeys((
        "AmbiguousId", "Conflict", "EmbedderError", "ExtractionError", "Forbidden", "IntegrityError",
        "InvalidInput", "NotFound", "RateLimited", "Refused", "SchemaError", "ServeError", "StorageError",
        "UnknownEdgeType",
        "ValidityConflict", "WorldDBError",
    ), "worlddb.core.errors"),
    **dict.fromkeys((
        "EdgeContext", "EdgeHandler", "Embedder", "Extractor", "Registry", "Summarizer", "Tiebreaker", "UpdateJudge",
    ), "worlddb.protocols"),
}

__all__ = [
    "__version__", "open", "Access", "AmbiguousId", "AmendResult", "AsyncEngine", "Conflict", "ConflictOut",
    "EdgeContext", "EdgeHandler", "Embedder", "EmbedderError", "Engine", "EntityDetail", "EntityOut", "EntityRef",
    "ExtractionError", "Extractor", "FactOut", "Forbidden", "HashCheck", "Hit", "IngestResult", "IntegrityError",
    "InvalidInput", "MemoryDetail", "MemoryOut", "NotFound", "Page", "PendingMerge", "ProposalList", "ProposalOut",
    "PurgeResult", "RateLimited", "RecallResult", "Refused", "Registry", "RelatedEntity", "RetireAllResult",
    "RetireResult", "SchemaError", "ScopeInfo", "ScopeList", "ScopeSet", "ServeError", "SessionIn", "StorageError",
    "Summarizer",
    "Tiebreaker", "TurnIn", "UnknownEdgeType", "UpdateJudge", "ValidityConflict", "WorldDBError", "WriteResult",
]


def open(path: str | Path, **options: Any) -> Engine:
    """Open (or create) the memory database at `path`: `Engine.open(path, **options)`.

    :param path: the SQLite file, created with its folder if missing; ``":memory:"`` for a
        throwaway store.
    :param options: as `Engine.open`: embedder, extractor, default_user, functional,
        registry, synchronous, query_model, reembed, judge.
    """
    from worlddb.memory.engine import Engine

    return Engine.open(path, **options)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'worlddb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
