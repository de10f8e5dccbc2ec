"""The exception tree of WorldDB, and the one place where sqlite3 errors are translated.

    WorldDBError                 base of everything the engine raises on purpose
    ├── InvalidInput             the caller's argument is wrong; nothing was written
    │   ├── AmbiguousId          an id prefix matches several nodes (.candidates)
    │   └── UnknownEdgeType      no handler is registered for an edge type
    ├── NotFound                 no node, edge, scope or proposal has that id (also what a
    │                            caller is told about a scope outside its grant)
    ├── Forbidden                the caller's grant does not allow the operation (purge needs admin;
    │                            an amend, retire or retire_all touching a memory also in a scope
    │                            outside the grant)
    ├── RateLimited              the caller is over its request rate or in-flight limit
    │                            (.retry_after, in seconds)
    ├── Conflict                 the request is well formed but the store's state forbids it
    │   ├── ValidityConflict     a validity interval would re-open or move later
    │   └── Refused              an edge handler refused the write (whole write rolled back)
    ├── IntegrityError           stored bytes do not re-derive their ids
    ├── SchemaError              the file's schema is newer than this code, or not ours
    ├── StorageError             SQLite could not do it: disk full, read-only, locked too long
    ├── EmbedderError            the embedding model is missing or fails its digest check, or
    │                            was given something other than texts (also a ValueError)
    ├── ExtractionError          an extractor, summarizer or tiebreaker produced no usable answer;
    │                            the model-backed ones answer it with their built-in fallback
    └── ServeError               the server cannot listen where it was told (a port in use, a
                                 host that is none of this machine's)

Every public operation either completes or raises one of these with nothing written.
Foreign exceptions (sqlite3.*) never leave the engine untranslated: `translate_sqlite`
is the single mapping, used by the store's transaction boundary. `engine_error` finds the
engine error behind an exception that a task group wrapped (a server's start, say).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence


class WorldDBError(Exception):
    """Base class of all errors the engine raises on purpose."""


class InvalidInput(WorldDBError, ValueError):
    """An argument is malformed or out of range. Nothing was written."""


class AmbiguousId(InvalidInput):
    """An id prefix matched more than one node."""

    def __init__(self, prefix: str, candidates: Sequence[str]):
        self.prefix = prefix
        self.candidates = tuple(candidates)
        shown = ", ".join(self.candidates[:10])
        more = "" if len(self.candidates) <= 10 else f" and {len(self.candidates) - 10} more"
        super().__init__(f"id prefix {prefix!r} is ambiguous: it matches {shown}{more}")


class UnknownEdgeType(InvalidInput):
    """No handler is registered for this edge type; such edges are never written."""


class NotFound(WorldDBError, LookupError):
    """No node, edge, scope or proposal has the given id."""


class Forbidden(WorldDBError, PermissionError):
    """The caller may not do this at all (memory_purge_scope without an admin grant), or may
    not do it to this memory: an amend or retire of a memory that is also in a scope outside
    the grant (it would change that scope too; the message names no such scope). A scope outside the
    grant that the caller names is never Forbidden: that is NotFound, worded as for a scope
    that does not exist, so that the answer does not reveal whether it exists."""


class RateLimited(WorldDBError):
    """The caller is over its request rate or has too many calls in flight; nothing ran.

    :param retry_after: seconds after which the same call would be admitted.
    """

    def __init__(self, message: str, retry_after: float):
        super().__init__(message)
        self.retry_after = retry_after


class Conflict(WorldDBError):
    """The request is well formed, but the current state of the store forbids it."""


class ValidityConflict(Conflict):
    """A validity interval may only tighten: re-opening or extending it is refused."""


class Refused(Conflict):
    """An edge handler refused the write; the whole write was rolled back."""


class IntegrityError(WorldDBError):
    """Stored bytes do not re-derive the ids that name them."""


class SchemaError(WorldDBError):
    """The database was written by a newer WorldDB, or is not a WorldDB file."""


class StorageError(WorldDBError):
    """SQLite could not carry out the operation (disk full, read-only file, busy)."""


class EmbedderError(WorldDBError, ValueError):
    """An embedder cannot be built (a model or tokenizer file is missing or fails its digest
    check) or cannot embed what it was given."""


class ExtractionError(WorldDBError):
    """An extractor or summarizer could not produce a result (e.g. a model's output failed the
    schema). The Anthropic bridge raises it internally and answers it with a fallback."""


class ServeError(WorldDBError):
    """The server cannot listen where it was told: the port is in use, or the host is not an
    address of this machine. Nothing was served."""


def engine_error(exc: BaseException) -> WorldDBError | None:
    """The engine error behind `exc`: itself, or the first one inside an exception group (a
    server's lifespan reports a failed start, e.g. an embedder mismatch, wrapped in one)."""
    if isinstance(exc, WorldDBError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = engine_error(inner)
            if found is not None:
                return found
    return None


def translate_sqlite(exc: sqlite3.Error) -> WorldDBError:
    """Map a sqlite3 exception to the engine's tree. The only place that does so."""
    message = str(exc)
    lowered = message.lower()
    if isinstance(exc, sqlite3.OperationalError):
        if "readonly" in lowered or "read-only" in lowered:
            return StorageError(f"the database is read-only: {message}")
        if "disk is full" in lowered or "database or disk is full" in lowered:
            return StorageError(f"the disk is full; nothing was written: {message}")
        if "locked" in lowered or "busy" in lowered:
            return StorageError(f"the database stayed locked by another writer: {message}")
        if "no such table" in lowered or "file is not a database" in lowered:
            return SchemaError(f"not a WorldDB database: {message}")
        return StorageError(message)
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in lowered:
        return SchemaError(f"not a WorldDB database: {message}")
    if isinstance(exc, sqlite3.IntegrityError):
        return IntegrityError(message)
    return StorageError(message)
