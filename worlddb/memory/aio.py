"""AsyncEngine: the memory API for async callers (the MCP server), one thread per database.

The engine is synchronous sqlite3 on purpose: a write runs dozens of statements, and
per-statement async (aiosqlite) measured ~10x slower per write here than running the whole
operation on one thread (bench/aio_overhead.py). So each call is one hop onto the
engine's own worker thread, where operations run one at a time, in arrival order:
no two ever interleave on the connection, and a cancelled caller cannot interrupt a
write half way (the operation finishes or rolls back on its own).

Writes keep the model off that thread. Each is run in the engine's steps (Engine.prepare_*,
names_to_embed, embed_names, commit_*; worlddb.memory.write): the steps that run the
extractor and the embedding model read nothing from the store and run on threads of their
own (MODEL_THREADS), the others on the engine thread. So a recall that arrives while a long
write is embedding goes ahead of it, and a small write does its own model work meanwhile;
what a write decides (its update judgments, which entities its names resolve to) is decided
in its commit step, against the store as it is then, exactly as when the steps run back to back.

Writes still commit in the order they arrived (`Arrivals`): each takes a ticket on arrival, and
its commit waits until every write that arrived before it has committed or failed (a write that
fails or is cancelled gives up its turn as it ends). A write without a valid_from is valid from
the moment it arrived, not from when its model step began (unless its text states when it became
true: worlddb.memory.write), and so are a message without a time, an amend without one, and each
item of write_memories (one microsecond apart, in order).
So a client that pipelines "I live in Austin" and then "I moved to Denver" has the second judged
against the first, even when the first is longer inside the model, and the times it records
follow the order the writes commit in. Reads take no ticket and wait for no model.
A write whose turn has already come when its model step ends (nothing that arrived before it
is still open) and whose names all have vectors - a single write's usual case - looks up its
names and commits in one hop onto the engine thread: each hop is two thread wake-ups on the
reply's path. What a commit leaves for the in-memory HNSW indexes to take is queued on the
engine thread behind it (WorldDB.upkeep_later), so the reply goes out while they take it.

Every method mirrors the `Engine` method of the same name, with the same arguments.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from worlddb.core.timeutil import now_us, to_iso

from .access import Access
from .engine import Engine
from .ingest import IngestResult, SessionIn
from .results import (
    AmendResult,
    EntityDetail,
    EntityRef,
    MemoryDetail,
    Page,
    ProposalList,
    ProposalOut,
    PurgeResult,
    RecallResult,
    RetireAllResult,
    RetireResult,
    ScopeList,
    WriteResult,
)
from .scopes import ScopeSet
from .write import S

T = TypeVar("T")
log = logging.getLogger("worlddb.memory")
#: writes whose model steps run at once: a second one (a small write arriving during a long
#: one) need not wait for the first; more would only share the same two cores
MODEL_THREADS = 2


class Arrivals:
    """The order writes arrived in: a ticket each, and a commit waits for the earlier ones.
    Used from one event loop; a ticket is given up (`done`) however its write ends."""

    def __init__(self) -> None:
        self._next = 0
        self._open: dict[int, asyncio.Event] = {}
        self._last_stamp = 0

    @contextmanager
    def ticket(self) -> Iterator[int]:
        """A ticket for a write arriving now, given up when the block ends (committed,
        failed or cancelled)."""
        number, self._next = self._next, self._next + 1
        self._open[number] = asyncio.Event()
        try:
            yield number
        finally:
            self._open.pop(number).set()

    def stamp(self, count: int = 1) -> int:
        """Now, in microseconds, later than any stamp given before: a write's default valid_from.
        `count` reserves that many consecutive stamps (one per item of a batch), the first returned."""
        first = max(now_us(), self._last_stamp + 1)
        self._last_stamp = first + max(count, 1) - 1
        return first

    def first(self, ticket: int) -> bool:
        """Whether every write that arrived before `ticket` has ended (its turn has come, and
        stays come: tickets given later are larger)."""
        return next(iter(self._open), ticket) == ticket

    async def turn(self, ticket: int) -> None:
        """Wait until every write that arrived before `ticket` has ended."""
        for number, ended in list(self._open.items()):
            if number >= ticket:
                break
            await ended.wait()


def _names_or_commit(engine: Engine, prepared: S, commit: Callable[..., T], access: Access | None
                     ) -> tuple[list[str], T | None]:
    """On the engine thread, for a write whose turn has come: the names it still needs vectors
    for, and if there are none, its commit then and there ([], the result)."""
    names = engine.names_to_embed(prepared)
    if names:
        return names, None
    return [], commit(engine, prepared, access=access)


def _log_failure(done: Future) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.error("upkeep after a commit failed", exc_info=done.exception())


class AsyncEngine:
    """An `Engine` on a thread of its own; open it with ``await AsyncEngine.open(path)``."""

    def __init__(self, engine: Engine, executor: ThreadPoolExecutor):
        self.engine = engine
        self._executor = executor
        self._closed = False
        engine.db.upkeep_later = self._after
        self._model = ThreadPoolExecutor(max_workers=MODEL_THREADS, thread_name_prefix="worlddb-model")
        self._arrivals = Arrivals()

    @classmethod
    async def open(cls, path: str | Path, **options: Any) -> AsyncEngine:
        """`Engine.open(path, **options)` on the new engine thread."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="worlddb")
        loop = asyncio.get_running_loop()
        try:
            engine = await loop.run_in_executor(executor, partial(Engine.open, path, **options))
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(engine, executor)

    def _after(self, step: Callable[[], None]) -> None:
        """Queue `step` on the engine thread, after what runs there now (WorldDB.upkeep_later);
        a step that comes to run after the engine has closed is dropped (the commit stands; the
        indexes are caches that catch up on the next read)."""

        def upkeep() -> None:
            if not self._closed:
                step()

        try:
            self._executor.submit(upkeep).add_done_callback(_log_failure)
        except RuntimeError:  # the thread is shutting down: nothing will read through it again
            pass

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run fn(engine, *args, **kwargs) on the engine thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, partial(fn, self.engine, *args, **kwargs))

    async def model(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run fn(engine, *args, **kwargs) on the model's thread: only for the engine's steps
        that read nothing from the store (Engine.prepare_*, embed_names)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._model, partial(fn, self.engine, *args, **kwargs))

    async def _write(self, ticket: int, prepared: S, commit: Callable[..., T], access: Access | None) -> T:
        """The steps of a write after the first: the names that need a vector (a read), their
        vectors (the model), and, once the writes that arrived before it have ended, the commit.
        When none is still open (its turn has come) and no name needs the model - most writes -
        the read and the commit are one hop onto the engine thread, not two."""
        if self._arrivals.first(ticket):
            names, committed = await self.run(_names_or_commit, prepared, commit, access)
            if not names:
                return committed
        else:
            names = await self.run(Engine.names_to_embed, prepared)
        if names:
            prepared = await self.model(Engine.embed_names, prepared, names)
        await self._arrivals.turn(ticket)
        return await self.run(commit, prepared, access=access)

    async def _in_turn(self, ticket: int, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A write done in one step on the engine thread, after the writes that arrived before it."""
        await self._arrivals.turn(ticket)
        return await self.run(fn, *args, **kwargs)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._close_engine)
        self._executor.shutdown(wait=True)
        self._model.shutdown(wait=True)

    def _close_engine(self) -> None:
        self._closed = True
        self.engine.close()

    async def __aenter__(self) -> AsyncEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def default_scopes(self) -> ScopeSet | None:
        return self.engine.default_scopes

    # ------------------------------------------------------------------ the memory API
    async def write_memory(self, text: str, scopes: ScopeSet, *, metadata: dict | None = None,
                           valid_from: str | None = None, entities: list[dict] | None = None,
                           facts: list[dict] | None = None, access: Access | None = None) -> WriteResult:
        with self._arrivals.ticket() as ticket:
            arrived = None if valid_from else to_iso(self._arrivals.stamp())
            prepared = await self.model(Engine.prepare_write, text, scopes, metadata=metadata, valid_from=valid_from,
                                        entities=entities, facts=facts, arrived=arrived, access=access)
            return (await self._write(ticket, prepared, Engine.commit_write, access))[0]

    async def write_messages(self, messages: Sequence[dict], scopes: ScopeSet, *, session: str | None = None,
                             valid_from: str | None = None, access: Access | None = None) -> WriteResult:
        with self._arrivals.ticket() as ticket:
            arrived = None if valid_from else to_iso(self._arrivals.stamp())
            prepared = await self.model(Engine.prepare_messages, messages, scopes, session=session,
                                        valid_from=valid_from, arrived=arrived, access=access)
            return await self._write(ticket, prepared, Engine.commit_messages, access)

    async def write_memories(self, items: Sequence[dict], scopes: ScopeSet, *,
                             access: Access | None = None) -> list[WriteResult]:
        with self._arrivals.ticket() as ticket:
            arrived = to_iso(self._arrivals.stamp(len(items) if isinstance(items, (list, tuple)) else 1))
            prepared = await self.model(Engine.prepare_memories, items, scopes, arrived=arrived, access=access)
            return await self._write(ticket, prepared, Engine.commit_write, access)

    async def amend(self, memory_id: str, text: str, scopes: ScopeSet, *, reason: str | None = None,
                    valid_from: str | None = None, access: Access | None = None) -> AmendResult:
        with self._arrivals.ticket() as ticket:
            arrived = None if valid_from else to_iso(self._arrivals.stamp())
            target = await self.run(Engine.amend_target, memory_id, text, scopes, reason=reason,
                                    valid_from=valid_from, arrived=arrived, access=access)
            prepared = await self.model(Engine.prepare_amend, target)
            return await self._write(ticket, prepared, Engine.commit_amend, access)

    async def retire(self, memory_id: str, scopes: ScopeSet, *, reason: str | None = None,
                     valid_to: str | None = None, wrong: bool = False, access: Access | None = None) -> RetireResult:
        with self._arrivals.ticket() as ticket:
            return await self._in_turn(ticket, Engine.retire, memory_id, scopes, reason=reason, valid_to=valid_to,
                                       wrong=wrong, access=access)

    async def retire_all(self, scopes: ScopeSet, *, access: Access | None = None) -> RetireAllResult:
        with self._arrivals.ticket() as ticket:
            return await self._in_turn(ticket, Engine.retire_all, scopes, access=access)

    async def purge_scope(self, scopes: ScopeSet, confirm: str, *, erase: bool = False,
                          access: Access | None = None) -> PurgeResult:
        with self._arrivals.ticket() as ticket:
            return await self._in_turn(ticket, Engine.purge_scope, scopes, confirm, erase=erase, access=access)

    async def ingest_conversation(self, sessions: Sequence[SessionIn], scopes: ScopeSet, *,
                                  source: str = "conversation", access: Access | None = None) -> IngestResult:
        with self._arrivals.ticket() as ticket:
            return await self._in_turn(ticket, Engine.ingest_conversation, sessions, scopes, source=source,
                                       access=access)

    async def recall(self, query: str, scopes: ScopeSet, *, limit: int = 10, as_of: str | None = None,
                     known_at: str | None = None, include_retired: bool = False,
                     access: Access | None = None) -> RecallResult:
        return await self.run(Engine.recall, query, scopes, limit=limit, as_of=as_of, known_at=known_at,
                              include_retired=include_retired, access=access)

    async def list_memories(self, scopes: ScopeSet, *, limit: int = 50, cursor: str | None = None,
                            include_retired: bool = False, access: Access | None = None) -> Page:
        return await self.run(Engine.list_memories, scopes, limit=limit, cursor=cursor,
                              include_retired=include_retired, access=access)

    async def read_memory(self, memory_id: str, scopes: ScopeSet, *, cursor: str | None = None,
                          include_retired: bool = False, access: Access | None = None) -> MemoryDetail:
        return await self.run(Engine.read_memory, memory_id, scopes, cursor=cursor, include_retired=include_retired,
                              access=access)

    async def list_scopes(self, kind: str | None = None, *, access: Access | None = None) -> ScopeList:
        return await self.run(Engine.list_scopes, kind, access=access)

    async def all_scopes(self, *, access: Access | None = None) -> ScopeSet:
        return await self.run(Engine.all_scopes, access=access)

    async def read_entity(self, entity_id: str, scopes: ScopeSet, *, limit: int = 20, cursor: str | None = None,
                          include_retired: bool = False, access: Access | None = None) -> EntityDetail:
        return await self.run(Engine.read_entity, entity_id, scopes, limit=limit, cursor=cursor,
                              include_retired=include_retired, access=access)

    async def find_entities(self, name_or_id: str, scopes: ScopeSet, *,
                            access: Access | None = None) -> list[EntityRef]:
        return await self.run(Engine.find_entities, name_or_id, scopes, access=access)

    async def merge_proposals(self, scopes: ScopeSet, *, status: str | None = "pending",
                              limit: int | None = None, access: Access | None = None) -> ProposalList:
        return await self.run(Engine.merge_proposals, scopes, status=status, limit=limit, access=access)

    async def accept_merge(self, proposal_id: str, scopes: ScopeSet, *, reason: str | None = None,
                           access: Access | None = None) -> ProposalOut:
        return await self.run(Engine.accept_merge, proposal_id, scopes, reason=reason, access=access)

    async def reject_merge(self, proposal_id: str, scopes: ScopeSet, *, reason: str | None = None,
                           access: Access | None = None) -> ProposalOut:
        return await self.run(Engine.reject_merge, proposal_id, scopes, reason=reason, access=access)

    async def export_memories(self, scopes: ScopeSet, *, access: Access | None = None) -> list[dict]:
        """Engine.export_memories, every line at once (read on the engine thread)."""
        return await self.run(_exported, scopes, access=access)

    async def export_identity(self, scopes: ScopeSet, entity_id: str | None = None, *,
                              access: Access | None = None) -> dict:
        return await self.run(Engine.export_identity, scopes, entity_id, access=access)

    async def warm(self) -> None:
        await self.run(Engine.warm)

    async def start_background(self, *, recluster: bool = True, consolidate_every: float | None = None,
                               min_age_secs: float = 3600.0) -> None:
        await self.run(Engine.start_background, recluster=recluster, consolidate_every=consolidate_every,
                       min_age_secs=min_age_secs)


def _exported(engine: Engine, scopes: ScopeSet, *, access: Access | None) -> list[dict]:
    return list(engine.export_memories(scopes, access=access))
