"""The memory API: what the MCP tools call, one method per tool.

    engine = Engine.open("memory.db", default_user="alice")
    res = engine.write_memory("I live in Austin", ScopeSet.of(user="alice"))
    engine.recall("where do I live", scopes)

Contract
- Writes go extract -> resolve -> reconcile -> commit: the model work (embedding, name
  vectors) happens before the write lock is taken; resolution, nodes, edges (through
  their handlers), index rows and vectors then land in one transaction.
- Content is immutable: amend writes a new memory that supersedes the old one.
- Every operation is scoped. A memory is reachable through a scope only if that scope
  contains it; reading, amending or retiring it through another scope is NotFound.
- Every operation takes an `access` (worlddb.memory.access.Access): the scopes it names
  must be granted - else NotFound, worded as for a scope or id that does not exist, before
  anything is read or written - and what it returns names only granted scopes. Without
  one the caller is the file's owner, with every scope.
- Bad input raises InvalidInput/NotFound before anything is written.

The engine checks arguments, holds the `Services` (worlddb.memory.services) and calls the
operation modules with them; it runs no SQL of its own. It is synchronous and
single-threaded per instance; worlddb.memory.aio gives it a thread of its own for async
callers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from worlddb.anthropic import configured_extractor, configured_judge, configured_tiebreaker
from worlddb.consolidator import ConsolidatorTask
from worlddb.core.errors import InvalidInput
from worlddb.core.records import MAX_TEXT_CHARS
from worlddb.core.store import Store
from worlddb.core.timeutil import now_us, parse_time
from worlddb.extract import warmup
from worlddb.extract.builtin import BuiltinExtractor
from worlddb.extract.judge import BuiltinJudge
from worlddb.graph import text_index
from worlddb.graph.database import WorldDB
from worlddb.graph.reembed import reembed as run_reembed
from worlddb.protocols import Embedder, Extractor, Registry, Tiebreaker, UpdateJudge
from worlddb.resolver import Reclusterer, Resolver
from worlddb.retrieval.sources import Sources
from worlddb.vectors import hnsw
from worlddb.vectors.embedder import HashEmbedder, default_embedder
from worlddb.vectors.hnsw import AnnIndex
from worlddb.vectors.static_query import StaticEncoder

from . import claims_backfill, corrections, entities, exporting, importing, ingest, purge, reading, search
from . import messages as conversation
from . import scopes as scopelib
from .access import Access
from .ingest import PreparedSession
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
from .scopes import ScopeSet, scope_key, unknown_id
from .services import Services
from .write import (
    PreparedWrite,
    S,
    Staged,
    WriteRequest,
    check_text,
    closes_for,
    commit,
    embed_names,
    names_to_embed,
    prepare,
)

#: the model whose static wordpiece table ships with WorldDB (worlddb.vectors.static_query)
MINILM_ID = "all-MiniLM-L6-v2-onnx-int8"
#: Engine.open(embedder=RECORDED): the built-in embedder the file was first embedded with
RECORDED = "recorded"
#: item keys write_memories accepts, as write_memory's arguments
_ITEM_KEYS = frozenset({"text", "metadata", "valid_from", "entities", "facts"})


class Engine:
    """The memory API over one open database.

    :param db: the open graph (worlddb.graph.database.WorldDB); the engine closes it.
    :param embedder: texts -> vectors; a database refuses an embedder of another model.
    :param extractor: text -> candidate entities and facts (default: the built-in rules).
    :param tiebreaker: the resolver's choice among several candidate entities.
    :param default_scopes: the scope a call that names none falls back to.
    :param functional: relations that hold one current value per subject (``lives_in``).
    :param query_model: also embed queries with the model (default: model-free vectors).
    :param encoder: the static query table; by default the shipped one for MiniLM, none otherwise.
    :param reembed: re-embed a database made with another model instead of refusing it, and
        one whose text vectors are of an older form (text_index.vector_form) instead of keeping it.
    :param judge: what a memory_write means for current memories (default: the built-in rules,
        with `functional` relations and registered functional handlers as single-valued slots).
    """

    def __init__(self, db: WorldDB, *, embedder: Embedder, extractor: Extractor | None = None,
                 tiebreaker: Tiebreaker | None = None, default_scopes: ScopeSet | None = None,
                 functional: Sequence[str] = (), query_model: bool = False, encoder: StaticEncoder | None = None,
                 reembed: bool = False, judge: UpdateJudge | None = None):
        #: the static table lives in the embedding model's space; other embedders get no
        #: model-free query vectors (their vector lanes then need query_model=True)
        if encoder is None and embedder.model_id == MINILM_ID and embedder.dim == 384:
            encoder = StaticEncoder()
        try:
            text_index.check_model(db.store, embedder.model_id, embedder.dim)
            if reembed and text_index.vector_form(db.store) != text_index.CURRENT:
                run_reembed(db, embedder, encoder)  # a store of an older text form: moved to the current one
        except text_index.EmbeddingMismatch:
            if not reembed:
                raise
            run_reembed(db, embedder, encoder)
        # indexes are built after any re-embedding, from the vectors that now exist
        resolver = Resolver(db, embedder, tiebreaker=tiebreaker)
        sources = Sources(store=db.store, whole=db.ann(hnsw.EFFECTIVE), units=db.ann(hnsw.UNIT), resolver=resolver,
                          embedder=embedder, encoder=encoder, query_model=query_model)
        self.services = Services(db=db, embedder=embedder, encoder=encoder,
                                 extractor=extractor if extractor is not None else BuiltinExtractor(),
                                 resolver=resolver, sources=sources, functional=frozenset(functional),
                                 default_scopes=default_scopes,
                                 judge=judge if judge is not None else builtin_judge(db.registry, functional),
                                 vector_text=text_index.vector_form(db.store))
        self._consolidator: ConsolidatorTask | None = None
        self._backfill: claims_backfill.BackfillTask | None = None

    @classmethod
    def open(cls, path: str | Path, *, embedder: Embedder | str | None = None, extractor: Extractor | None = None,
             default_user: str | None = None, functional: Sequence[str] = (), registry: Registry | None = None,
             synchronous: str = "FULL", query_model: bool = False, reembed: bool = False,
             judge: UpdateJudge | None = None) -> Engine:
        """Open (or create) the database at `path`.

        :param path: the SQLite file (``":memory:"`` for a throwaway store).
        :param embedder: default: the shipped MiniLM model, loaded once per process.
            ``"recorded"``: the built-in embedder the file was written with (MiniLM or
            hashing; MiniLM for a new file), for tools that open whatever they are given.
        :param extractor: default: Anthropic-backed with ANTHROPIC_API_KEY set, else the built-in.
        :param default_user: calls that name no scope act on ``user:<default_user>``.
        :param functional: relations that hold one current value per subject.
        :param registry: the edge-type handlers (default: the thirteen built-ins).
        :param synchronous: SQLite's ``synchronous`` setting; ``FULL`` loses no acknowledged write.
        :param query_model: also embed queries with the model.
        :param reembed: re-embed a database made with another model instead of refusing it, and
            one whose text vectors are of an older form (text_index.vector_form) instead of keeping it.
        :param judge: what a memory_write means for current memories; default: a model judge
            with ANTHROPIC_API_KEY set (falling back to the built-in rules), else the rules.
        """
        tiebreaker = None
        if extractor is None:
            # the Anthropic-backed extractor and tiebreaker only when a key is configured;
            # otherwise (and on any failure of theirs) the deterministic built-ins
            extractor = configured_extractor()
            tiebreaker = configured_tiebreaker()
        db = WorldDB.open(path, registry=registry, synchronous=synchronous)
        if judge is None:
            judge = configured_judge(fallback=builtin_judge(db.registry, functional))
        default = ScopeSet((("user", default_user),)) if default_user else None
        try:
            if isinstance(embedder, str):
                if embedder != RECORDED:
                    raise InvalidInput(f"embedder must be an Embedder or {RECORDED!r}")
                embedder = _recorded_embedder(text_index.recorded_model(db.store))
                # the model-free query table lives in MiniLM's space; other models embed queries
                query_model = query_model or embedder.model_id != MINILM_ID
            elif embedder is None:
                embedder = default_embedder()
            return cls(db, embedder=embedder, extractor=extractor, tiebreaker=tiebreaker, default_scopes=default,
                       functional=functional, query_model=query_model, reembed=reembed, judge=judge)
        except BaseException:
            db.close()
            raise

    # ------------------------------------------------------------------ what it holds
    @property
    def db(self) -> WorldDB:
        return self.services.db

    @property
    def store(self) -> Store:
        return self.services.db.store

    @property
    def embedder(self) -> Embedder:
        return self.services.embedder

    @property
    def extractor(self) -> Extractor:
        return self.services.extractor

    @property
    def resolver(self) -> Resolver:
        return self.services.resolver

    @property
    def index(self) -> AnnIndex:
        """The HNSW index of whole-text vectors."""
        return self.services.whole

    @property
    def units(self) -> AnnIndex:
        """The HNSW index of sentence-unit vectors."""
        return self.services.units

    @property
    def default_scopes(self) -> ScopeSet | None:
        return self.services.default_scopes

    @property
    def functional(self) -> frozenset[str]:
        return self.services.functional

    # ------------------------------------------------------------------ lifecycle
    def start_background(self, *, recluster: bool = True, consolidate_every: float | None = None,
                         min_age_secs: float = 3600.0) -> None:
        """Start the background work that never blocks a write: re-resolution of each write's
        2-hop neighbourhood, the claims index of memories written before it or read by an
        older slot reader, if any are left (worlddb.memory.claims_backfill), and (if an
        interval is given) the consolidator. Each runs on its own thread with its own
        connection to the same file."""
        resolver = self.resolver
        if recluster and resolver.reclusterer is None and self.store.path != ":memory:":
            resolver.reclusterer = Reclusterer.for_resolver(resolver)
        if self._backfill is None and self.store.path != ":memory:":
            claims_backfill.mark_stale(self.db)
        if self._backfill is None and claims_backfill.pending(self.store) is not None:
            self._backfill = claims_backfill.BackfillTask(self.store.path, registry=self.db.registry).start()
        if consolidate_every and self._consolidator is None:
            self._consolidator = ConsolidatorTask(self.store.path, interval_secs=consolidate_every,
                                                  registry=self.db.registry, min_age_secs=min_age_secs,
                                                  functional=tuple(self.functional))
            self._consolidator.start()

    def warm(self) -> None:
        """Bring every in-memory index up to date with the file now: the whole-text and
        sentence HNSW indexes, and the resolver's names. On a large store their first build
        takes seconds to minutes unless a snapshot of them is on disk
        (worlddb.vectors.hnsw_snapshots), and they are saved once built; a server calls this
        at start, so that the first tool call does not pay for it (a call that arrives
        meanwhile waits only for the rest). The extractor's and slot reader's tables too: the
        first write would build them (worlddb.extract.warmup)."""
        warmup.warm()
        self.index.sync()
        self.units.sync()
        self.resolver.index.catch_up(vectors=self.resolver.embedder is not None)
        # what took minutes to build is saved now, not only at a close that may never come
        # (a stdio server is often ended by a signal)
        self.db.save_ann_snapshots()
        self.resolver.index.save_snapshot()

    @property
    def backfill_task(self) -> claims_backfill.BackfillTask | None:
        """The background claims backfill, if start_background started one."""
        return self._backfill

    def stop_background(self) -> None:
        if self._backfill is not None:
            self._backfill.stop()
            self._backfill = None
        if self.resolver.reclusterer is not None:
            self.resolver.reclusterer.stop()
            self.resolver.reclusterer = None
        if self._consolidator is not None:
            self._consolidator.stop()
            self._consolidator = None

    def close(self) -> None:
        self.stop_background()
        self.resolver.close()
        self.db.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing
    def write_memory(self, text: str, scopes: ScopeSet, *, metadata: dict | None = None,
                     valid_from: str | None = None, entities: list[dict] | None = None,
                     facts: list[dict] | None = None, access: Access | None = None) -> WriteResult:
        """memory_write: one memory, with its entities and facts (extracted unless given). Without
        `valid_from` it begins when its text says it became true ("I moved to Berlin last month"),
        if it says so of every fact drawn from it (worlddb.extract.stated), else now."""
        prepared = self.prepare_write(text, scopes, metadata=metadata, valid_from=valid_from, entities=entities,
                                      facts=facts, access=access)
        return self.commit_write(self.complete(prepared), access=access)[0]

    def write_messages(self, messages: Sequence[dict], scopes: ScopeSet, *, session: str | None = None,
                       valid_from: str | None = None, access: Access | None = None) -> WriteResult:
        """memory_write with messages: a conversation's turns (role, content, optional time,
        caption, ref), written as one Session world of Turn nodes chained by precedes, as
        `ingest_conversation` writes a session (worlddb.memory.messages). A later call with
        the same `session` id in the same scopes continues that world and its chain.
        `valid_from` is the session's time, and the first message's where it gives none (a later
        one without a time was said when the one before it was); times may not run backwards."""
        prepared = self.prepare_messages(messages, scopes, session=session, valid_from=valid_from, access=access)
        return self.commit_messages(self.complete(prepared), access=access)

    def write_memories(self, items: Sequence[dict], scopes: ScopeSet, *,
                       access: Access | None = None) -> list[WriteResult]:
        """Write many memories in one transaction (all or none), for imports: each item takes
        the arguments of write_memory (text, metadata, valid_from, entities, facts)."""
        prepared = self.prepare_memories(items, scopes, access=access)
        return self.commit_write(self.complete(prepared), access=access)

    # ------------------------------------------------------------------ writing in steps
    # Each write above is: prepare_* (checks the arguments, runs the extractor and embeds the
    # texts; reads nothing from the store), complete (the read that says which entity names
    # need a vector - names_to_embed - and the model for those: embed_names), then commit_*
    # (judges and writes, in one transaction). worlddb.memory.aio runs the model's steps off
    # the engine's thread, so that other calls go ahead meanwhile. See worlddb.memory.write.
    def prepare_write(self, text: str, scopes: ScopeSet, *, metadata: dict | None = None,
                      valid_from: str | None = None, entities: list[dict] | None = None,
                      facts: list[dict] | None = None, arrived: str | None = None,
                      access: Access | None = None) -> PreparedWrite:
        """write_memory's first step. `arrived` (ISO-8601): when the call arrived, the memory's
        time if there is no `valid_from` and its text states none (default: now, as this runs)."""
        _access(access).admit(scopes)
        start = valid_from or arrived
        request = WriteRequest(text=check_text(text), scopes=scopes, metadata=metadata or {},
                               valid_from=parse_time(start, field="valid_from" if valid_from else "arrived")
                               if start else None,
                               entities=entities, facts=facts, tool="memory_write", from_text=not valid_from)
        return prepare(self.services, [request])

    def prepare_memories(self, items: Sequence[dict], scopes: ScopeSet, *, arrived: str | None = None,
                         access: Access | None = None) -> PreparedWrite:
        """write_memories' first step. `arrived` (ISO-8601): when the call arrived; the item at
        position i without a `valid_from` is valid from `arrived` plus i microseconds (default:
        now, as each item is prepared)."""
        _access(access).admit(scopes)
        if not isinstance(items, (list, tuple)) or not items:
            raise InvalidInput("items must be a non-empty list of memories")
        came = parse_time(arrived, field="arrived") if arrived else None
        requests = []
        for position, item in enumerate(items):
            if not isinstance(item, dict) or set(item) - _ITEM_KEYS:
                raise InvalidInput("each item is an object with text and optionally metadata, valid_from, "
                                   "entities, facts")
            valid_from = item.get("valid_from")
            requests.append(WriteRequest(
                text=check_text(item.get("text")), scopes=scopes, metadata=item.get("metadata") or {},
                valid_from=parse_time(valid_from, field="valid_from") if valid_from
                else None if came is None else came + position,
                entities=item.get("entities"), facts=item.get("facts"), tool="memory_write",
                from_text=not valid_from))
        return prepare(self.services, requests)

    def prepare_messages(self, messages: Sequence[dict], scopes: ScopeSet, *, session: str | None = None,
                         valid_from: str | None = None, arrived: str | None = None,
                         access: Access | None = None) -> PreparedSession:
        """write_messages' first step. `arrived` (ISO-8601): when the call arrived, the time of
        a message without one if there is no `valid_from` (default: now, as this step runs)."""
        _access(access).admit(scopes)
        start = parse_time(valid_from, field="valid_from") if valid_from else None
        came = parse_time(arrived, field="arrived") if arrived else None
        return conversation.prepare_messages(self.services, scopes, messages, session=session, valid_from=start,
                                             arrived=came)

    def amend_target(self, memory_id: str, text: str, scopes: ScopeSet, *, reason: str | None = None,
                     valid_from: str | None = None, arrived: str | None = None,
                     access: Access | None = None) -> corrections.AmendTarget:
        """amend's first step, a read: the memory it replaces, checked. `arrived` (ISO-8601):
        when the call arrived, the amend's time if there is no `valid_from` (default: now, as
        this step runs)."""
        caller = _access(access)
        caller.admit(scopes, unknown_id(memory_id, scopes))
        return corrections.amend_target(self.services, memory_id, text, scopes, reason=reason,
                                        valid_from=parse_time(valid_from, field="valid_from") if valid_from else None,
                                        arrived=parse_time(arrived, field="arrived") if arrived else None,
                                        access=caller)

    def prepare_amend(self, target: corrections.AmendTarget) -> corrections.PreparedAmend:
        """amend's model step."""
        return corrections.prepare_amend(self.services, target)

    def names_to_embed(self, prepared: Staged) -> list[str]:
        """The entity names a prepared write still needs vectors for (a read; no model)."""
        return names_to_embed(self.services, prepared.mentions)

    def embed_names(self, prepared: S, names: list[str]) -> S:
        """`prepared` with the vectors of `names` (the model; reads nothing)."""
        return prepared.with_names(embed_names(self.services, names))

    def complete(self, prepared: S) -> S:
        """`names_to_embed`, then `embed_names`."""
        return self.embed_names(prepared, self.names_to_embed(prepared))

    def commit_write(self, prepared: PreparedWrite, *, access: Access | None = None) -> list[WriteResult]:
        """The last step of write_memory (one result) and write_memories."""
        caller = _access(access)
        return caller.redact(commit(self.services, prepared, caller))

    def commit_messages(self, prepared: PreparedSession, *, access: Access | None = None) -> WriteResult:
        """The last step of write_messages."""
        caller = _access(access)
        return caller.redact(conversation.commit_messages(self.services, prepared, closes_for(self.services, caller)))

    def commit_amend(self, prepared: corrections.PreparedAmend, *, access: Access | None = None) -> AmendResult:
        """The last step of amend."""
        return _access(access).redact(corrections.commit_amend(self.services, prepared))

    def import_memories(self, items: Sequence[importing.ImportItem], *, batch: int = importing.BATCH,
                        progress: Callable[[int], None] | None = None, judge: bool = False,
                        access: Access | None = None) -> importing.ImportReport:
        """Write items read from a file (`importing.read_items`: JSON lines of memory_write
        arguments, the MCP reference memory server's file, a Mem0 export) in transactions of
        `batch` memories; `progress(n)` is called as each transaction commits. With `judge`,
        each text memory is judged against the current ones as memory_write judges it (in a
        transaction of its own); a memory that begins after now always is. Every item's scopes
        must be granted before anything is written."""
        items = list(items)
        access = _access(access)
        for scopes in dict.fromkeys(item.scopes for item in items):
            access.admit(scopes)
        return importing.import_items(self.services, items, batch=batch, progress=progress, judge=judge,
                                      access=access)

    def export_memories(self, scopes: ScopeSet, *, access: Access | None = None) -> Iterator[dict]:
        """What the scopes remember now, oldest first, as memory_write arguments that
        `import_memories` (the jsonl format) writes again: each current memory, and each run of
        a conversation's turns as one call with messages (worlddb.memory.exporting)."""
        _access(access).admit(scopes)
        return exporting.export_lines(self.services, scopes)

    def amend(self, memory_id: str, text: str, scopes: ScopeSet, *, reason: str | None = None,
              valid_from: str | None = None, access: Access | None = None) -> AmendResult:
        """memory_amend: a new memory supersedes the old one (content is never edited); it is
        valid from `valid_from` (ISO-8601; default now). The new memory joins every scope the
        old one was in, so a memory shared with another scope is corrected there too; a caller
        not granted every one of them is refused (Forbidden) and nothing is written."""
        target = self.amend_target(memory_id, text, scopes, reason=reason, valid_from=valid_from, access=access)
        return self.commit_amend(self.complete(self.prepare_amend(target)), access=access)

    def retire(self, memory_id: str, scopes: ScopeSet, *, reason: str | None = None,
               valid_to: str | None = None, wrong: bool = False, access: Access | None = None) -> RetireResult:
        """memory_retire: close one memory's (or fact's) validity - at `valid_to` (ISO-8601, not
        later than now) or now; nothing is deleted. `wrong`: it never held, and what it replaced
        holds again (corrections.retire). It is closed in every scope it is in: a caller not
        granted every one of them is refused (Forbidden) and nothing changes."""
        caller = _access(access)
        caller.admit(scopes, unknown_id(memory_id, scopes))
        return corrections.retire(self.services, memory_id, scopes, reason=reason,
                                  valid_to=parse_time(valid_to, field="valid_to") if valid_to else None,
                                  wrong=wrong, access=caller)

    def retire_all(self, scopes: ScopeSet, *, access: Access | None = None) -> RetireAllResult:
        """memory_retire_all: retire everything current in the scopes. A scope that does not exist
        is NotFound, as purge_scope has it; a caller not granted every scope that shares something
        current here is refused (Forbidden). Either way nothing changes."""
        caller = _access(access)
        caller.admit(scopes)
        return corrections.retire_all(self.services, scopes, access=caller)

    def purge_scope(self, scopes: ScopeSet, confirm: str, *, erase: bool = False,
                    access: Access | None = None) -> PurgeResult:
        """memory_purge_scope: retire one scope; with erase, remove what belongs to it alone.
        Needs an admin grant that covers the scope."""
        if len(scopes) != 1:
            raise InvalidInput("purge one scope at a time: name exactly one of user_id, agent_id, app_id, run_id")
        _access(access).admit_purge(scopes)
        kind, sid = scopes.pairs[0]
        key = scope_key(kind, sid)
        if confirm != key:
            raise InvalidInput(f"confirm must equal the scope key {key!r} to purge it")
        return purge.purge(self.services, kind, sid, erase=erase)

    def ingest_conversation(self, sessions: Sequence[ingest.SessionIn], scopes: ScopeSet, *,
                            source: str = "conversation", access: Access | None = None) -> ingest.IngestResult:
        """Bulk-ingest sessions of turns (worlddb.memory.ingest) into the given scopes."""
        _access(access).admit(scopes)
        return ingest.ingest_conversation(self.services, scopes, list(sessions), source=source)

    # ------------------------------------------------------------------ reading
    def recall(self, query: str, scopes: ScopeSet, *, limit: int = 10, as_of: str | None = None,
               known_at: str | None = None, include_retired: bool = False,
               access: Access | None = None) -> RecallResult:
        """memory_recall: hybrid search within the scopes, no model at query time."""
        access = _access(access)
        access.admit(scopes)
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be non-empty text")
        if len(query) > MAX_TEXT_CHARS:
            raise InvalidInput(f"query is longer than {MAX_TEXT_CHARS} characters")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 100:
            raise InvalidInput("limit must be an integer from 1 to 100")
        known = parse_time(known_at, field="known_at") if known_at else None
        if known is not None and known >= now_us():
            known = None  # nothing is known beyond now: a later known_at is now, not a valid time to come
        return access.redact(search.recall(self.services, query, scopes, limit=limit,
                                           as_of=parse_time(as_of, field="as_of") if as_of else None,
                                           known_at=known, include_retired=include_retired))

    def list_memories(self, scopes: ScopeSet, *, limit: int = 50, cursor: str | None = None,
                      include_retired: bool = False, access: Access | None = None) -> Page:
        """memory_list: a page of the scopes' memories, newest first."""
        access = _access(access)
        access.admit(scopes)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 500:
            raise InvalidInput("limit must be an integer from 1 to 500")
        return access.redact(reading.list_memories(self.services, scopes, limit=limit, cursor=cursor,
                                                   include_retired=include_retired))

    def read_memory(self, memory_id: str, scopes: ScopeSet, *, cursor: str | None = None,
                    include_retired: bool = False, access: Access | None = None) -> MemoryDetail:
        """memory_read: one memory in full, with a hash check of its stored bytes. For an
        entity id its `entity` is the entity in full (read_entity), `cursor` (its
        next_cursor) pages the memories that mention it, and `include_retired` adds what no
        longer holds (past facts, closed mentions); for a memory id it changes nothing."""
        access = _access(access)
        access.admit(scopes, unknown_id(memory_id, scopes))
        return access.redact(entities.read_node(self.services, memory_id, scopes, cursor=cursor,
                                                include_retired=include_retired))

    def list_scopes(self, kind: str | None = None, *, access: Access | None = None) -> ScopeList:
        """memory_list_scopes: the scopes (granted to the caller) with their current and
        retired counts."""
        return _access(access).redact(scopelib.list_scopes(self.store, kind))

    def all_scopes(self, *, access: Access | None = None) -> ScopeSet:
        """Every scope in the file the caller is granted (empty if none): without `access`,
        what the operator at the command line may name. Reads the scopes alone, without
        counting what each holds (an inspector asks this on every request)."""
        access = _access(access)
        every = scopelib.every_scope(self.store)
        return every if access.sees_all else ScopeSet(tuple(p for p, key in zip(every, every.keys)
                                                            if access.allows(key)))

    # ------------------------------------------------------------------ identity
    def read_entity(self, entity_id: str, scopes: ScopeSet, *, limit: int = 20, cursor: str | None = None,
                    include_retired: bool = False, access: Access | None = None) -> EntityDetail:
        """One entity: names, class members, pending merge proposals, neighbours, and a page
        of the memories that mention it or a member of its class, newest first."""
        access = _access(access)
        access.admit(scopes, unknown_id(entity_id, scopes, "entity"))
        return access.redact(entities.read_entity(self.services, entity_id, scopes, limit=limit, cursor=cursor,
                                                  include_retired=include_retired))

    def find_entities(self, name_or_id: str, scopes: ScopeSet, *, access: Access | None = None) -> list[EntityRef]:
        """The entities a name (exact name or alias, else fuzzy) or an id names in the scopes."""
        _access(access).admit(scopes)
        return entities.find_entities(self.services, name_or_id, scopes)

    def merge_proposals(self, scopes: ScopeSet, *, status: str | None = "pending",
                        limit: int | None = None, access: Access | None = None) -> ProposalList:
        """same_as merge proposals between entities of the scopes, newest first (status
        pending, accepted, rejected, or None for all)."""
        access = _access(access)
        access.admit(scopes)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise InvalidInput("limit must be a positive integer")
        return access.redact(entities.list_proposals(self.services, scopes, status=status, limit=limit))

    def accept_merge(self, proposal_id: str, scopes: ScopeSet, *, reason: str | None = None,
                     access: Access | None = None) -> ProposalOut:
        """Accept a pending proposal: its two entities join one equivalence class."""
        access = _access(access)
        access.admit(scopes, entities.unknown_proposal(proposal_id, scopes))
        return access.redact(entities.decide(self.services, proposal_id, scopes, accept=True, reason=reason))

    def reject_merge(self, proposal_id: str, scopes: ScopeSet, *, reason: str | None = None,
                     access: Access | None = None) -> ProposalOut:
        """Reject a pending proposal: its two entities stay apart."""
        access = _access(access)
        access.admit(scopes, entities.unknown_proposal(proposal_id, scopes))
        return access.redact(entities.decide(self.services, proposal_id, scopes, accept=False, reason=reason))

    def export_identity(self, scopes: ScopeSet, entity_id: str | None = None, *,
                        access: Access | None = None) -> dict:
        """Everything held about one entity's identity (all members, their records,
        provenance, mentions and names, the proposals between them), or about every
        identity in the scopes; only what the scopes hold."""
        _access(access).admit(scopes, None if entity_id is None else unknown_id(entity_id, scopes, "entity"))
        return entities.export(self.services, scopes, entity_id)

    def scope_anchors(self, scopes: ScopeSet) -> list[str]:
        """Anchors of the named scopes that exist (a scope never written to has none)."""
        return scopelib.scope_anchors(self.store, scopes)


def _recorded_embedder(model_id: str | None) -> Embedder:
    """The built-in embedder that made `model_id`'s vectors (MiniLM for a file with none)."""
    if model_id is None or model_id == MINILM_ID:
        return default_embedder()
    kind, _, dim = model_id.rpartition("-")
    if kind == "hash-v1" and dim.isdigit():
        return HashEmbedder(int(dim))
    raise InvalidInput(f"this database was embedded with {model_id}, which is not a built-in embedder; "
                       "open it from Python with that embedder")


_OWNER = Access.owner()


def _access(access: Access | None) -> Access:
    """The caller's access; none given is the file's owner (the process that opened it)."""
    if access is None:
        return _OWNER
    if not isinstance(access, Access):
        raise InvalidInput("access must be a worlddb.memory.access.Access")
    return access


def builtin_judge(registry: Registry, functional: Sequence[str] = ()) -> BuiltinJudge:
    """The built-in judge, with the relations named by `functional` and every registered
    functional handler (one whose `functional` attribute is true) held to one value at a time."""
    registered = [t for t in registry.types() if getattr(registry.get(t), "functional", False)]
    return BuiltinJudge(single=[*functional, *registered])
