"""The nine memory tools, as an MCP server (mcp 2.x MCPServer).

Each tool parses its arguments, makes one engine call on the engine's own thread
(worlddb.memory.aio.AsyncEngine), and returns the engine's record as structured output - the
records in worlddb.memory.results are the output schemas - and as the same record in compact
JSON text, for clients that hand the model the text. Engine errors become tool errors
(isError) in exactly one place, `WorldDBServer.call_tool`, worded for the model that
called: what was wrong, never a stack trace. Nothing is written when a call fails.
Arguments are taken as sent: a flag must be a JSON boolean, a count a JSON integer, a text a
string (null is "not given"); nothing of another type is converted (`Flag`, `Count`,
`ArgumentsAsSent`), and the schemas tools/list publishes say exactly that.

Every engine call carries the caller's Access (worlddb.memory.access), and the engine
enforces it. Here it is only found: over HTTP, from the identity the transport's
authentication established (worlddb.server.auth); over stdio or in memory, the local
owner, with every scope. An HTTP request that arrives without an identity gets none: it
is granted nothing. `call_tool` also applies the per-principal limits to HTTP callers
(worlddb.server.limits) and writes one audit line per call (worlddb.server.audit).
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import logging
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, ValidationError

from worlddb import __version__
from worlddb.core.errors import InvalidInput, RateLimited, WorldDBError
from worlddb.memory.access import Access
from worlddb.memory.aio import AsyncEngine
from worlddb.memory.engine import Engine
from worlddb.memory.messages import MAX_MESSAGES, check_write_arguments
from worlddb.memory.results import (
    AmendResult,
    MemoryDetail,
    Page,
    PurgeResult,
    RecallResult,
    RetireAllResult,
    RetireResult,
    ScopeList,
    WriteResult,
)
from worlddb.memory.scopes import ScopeSet, resolve_scopes

from . import texts
from .audit import Audit
from .auth import CallerToken
from .limits import Limits
from .schemas import lean
from .stdio import loop_pipes

log = logging.getLogger("worlddb.server")


@dataclass
class ServerConfig:
    db: str
    default_user: str | None = None
    functional: tuple[str, ...] = ()
    query_model: bool = False
    consolidate_every: float | None = None
    background: bool = True
    engine_options: dict = field(default_factory=dict)
    #: per-principal limits on HTTP callers' tool calls (worlddb.server.limits); 0 turns one off
    rate_limit: float = 50.0
    max_in_flight: int = 8
    #: where the audit log goes: None (nowhere), "-" (stderr) or a file (worlddb.server.audit)
    audit_log: str | None = None
    #: rotate the audit file before it passes this many bytes, keeping audit_backups old
    #: files (0: never; it may still be rotated from outside)
    audit_max_bytes: int = 0
    audit_backups: int = 5
    #: a process that only serves (`worlddb serve`): once the indexes are warm, move every
    #: object made so far out of the garbage collector's way (gc.freeze), so that a full
    #: collection scans what calls made since, not the ~125k objects of the model, the
    #: schemas and the indexes (95 ms each time, twice in 600 calls at 10k memories)
    freeze_startup: bool = False


def audit_for(config: ServerConfig) -> Audit:
    """The audit log `config` asks for."""
    return Audit(config.audit_log, max_bytes=config.audit_max_bytes, backups=config.audit_backups)


@dataclass
class AppState:
    engine: AsyncEngine


class EntityIn(BaseModel):
    # an unknown key ("alias" for "aliases") is refused, not dropped: the entity would be
    # written without what it meant to say
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(min_length=1, max_length=512, description="The entity's name as written")]
    type: Annotated[str | None, Field(description="person, place, organization, ...")] = None
    aliases: Annotated[list[str] | None, Field(description="Other names for the same entity (at most 20)")] = None


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Annotated[str, Field(min_length=1, max_length=512, description=texts.ROLE)]
    content: Annotated[str, Field(min_length=1, max_length=32_000, description=texts.CONTENT)]
    time: Annotated[str | None, Field(description=texts.MESSAGE_TIME)] = None
    caption: Annotated[str | None, Field(max_length=4_000, description=texts.CAPTION)] = None
    ref: Annotated[str | None, Field(min_length=1, max_length=256, description=texts.REF)] = None


class FactIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subject: Annotated[str, Field(min_length=1, description="Who or what the fact is about (an entity name)")]
    relation: Annotated[str, Field(min_length=1, description="The relation, e.g. lives_in, works_at")]
    object: Annotated[str, Field(min_length=1, description="The value: an entity name or a literal")]
    text: Annotated[str | None, Field(description="The fact in words (optional)")] = None


UserId = Annotated[str | None, Field(description=texts.USER_ID)]
AgentId = Annotated[str | None, Field(description=texts.AGENT_ID)]
AppId = Annotated[str | None, Field(description=texts.APP_ID)]
RunId = Annotated[str | None, Field(description=texts.RUN_ID)]
MemoryId = Annotated[str, Field(description=texts.MEMORY_ID)]


def _null_is(default: object) -> BeforeValidator:
    """An optional argument sent as null means "not given": clients whose models must fill every
    parameter send null for the ones they leave unset. The argument's type stays what it is (a
    plain str is never parsed as JSON by the SDK: a memory may read '{"a": 1}')."""
    return BeforeValidator(lambda value: default if value is None else value)


#: optional text, number and flag arguments: null is the default
NoText, NoFlag = _null_is(""), _null_is(False)
When = Annotated[str, Field(description=texts.WHEN), NoText]
#: a flag is a JSON true or false and a count a JSON integer, nothing pydantic's lax mode would
#: turn into one ("on", "off", 1, "3", 2.0, true as a count): `"erase": "on"` would otherwise
#: erase a scope. Strict() comes before the null default, which then runs first.
Flag = Annotated[bool, Strict()]
Count = Annotated[int, Strict()]


#: the local caller (stdio, an in-memory client): the owner of the file
OWNER = Access.owner()
#: an HTTP request that carries no identity: granted nothing
NOBODY = Access("unauthenticated")
#: the arguments that name scopes
SCOPE_ARGUMENTS = ("user_id", "agent_id", "app_id", "run_id")


def caller(ctx: Context | None) -> tuple[Access, bool]:
    """(the caller's Access, whether it called over HTTP)."""
    request = None
    if ctx is not None:
        try:
            request = ctx.request_context.request
        except ValueError:  # no request in progress: a direct call_tool
            request = None
    if request is None:
        return OWNER, False
    token = getattr(request.scope.get("user"), "access_token", None)
    return (token.access if isinstance(token, CallerToken) else NOBODY), True


#: the tools made in this process, by their function's code, name and options: build_server
#: declares the same nine functions each time, and the argument and output models the SDK makes
#: of a signature (pydantic models and their JSON schemas) were most of a build's cost, about
#: 0.1 s of CPU; a function that closes over nothing of its build behaves the same in every one
_MADE: dict[tuple[Any, str | None, str], Any] = {}


class WorldDBServer(MCPServer[AppState]):
    """MCPServer with the single boundary where engine errors become tool errors, limits
    are applied and calls are audited."""

    _parameters: dict[str, set[str]] | None = None
    #: the open engine while the server runs (the inspector at /ui shares it)
    engine: AsyncEngine | None = None
    limits: Limits = Limits()
    audit: Audit = Audit(None)
    default_scopes: ScopeSet | None = None

    def add_tool(self, fn, name: str | None = None, **options) -> None:
        """The SDK's tool, its arguments read as sent (ArgumentsAsSent) and its schemas lean
        (worlddb.server.schemas: no generated titles); made once per process
        for each tool function and options, then given to every server built (`_MADE`)."""
        key = (fn.__code__, name, repr(sorted(options.items())))
        made = _MADE.get(key) if fn.__closure__ is None else None
        if made is not None:
            # the same function declared again by another build_server: its models are the same
            self._tool_manager._tools[made.name] = made.model_copy(update={"fn": fn})
            return
        super().add_tool(fn, name=name, **options)
        # the SDK takes no argument handling of a tool's own: the tool it made is given one
        tool = self._tool_manager.get_tool(name or fn.__name__)
        metadata = {key: getattr(tool.fn_metadata, key) for key in FuncMetadata.model_fields}
        # the schemas as a client lists them, made lean once here rather than at every listing
        if metadata["output_schema"] is not None:
            metadata["output_schema"] = lean(metadata["output_schema"])
        tool.fn_metadata = ArgumentsAsSent(**metadata)
        tool.parameters = lean(tool.parameters)
        if fn.__closure__ is None:
            _MADE[key] = tool

    async def run_stdio_async(self) -> None:
        """The SDK's stdio serving over pipes the event loop reads and writes itself
        (worlddb.server.stdio), not through a worker thread per line."""
        async with loop_pipes() as pipes:
            if pipes is None:
                await super().run_stdio_async()
                return
            async with stdio_server(*pipes) as (read_stream, write_stream):
                # as MCPServer.run_stdio_async does, on these streams
                lowlevel = self._lowlevel_server
                await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None):
        access, remote = caller(context)
        started = time.perf_counter()
        outcome, error = "error", "Interrupted"
        try:
            with self.limits.hold(access.principal) if remote else _unlimited():
                result = await self._call_tool(name, arguments, context)
            outcome, error = "ok", None
            return result
        except RateLimited as exc:
            outcome, error = "limited", "RateLimited"
            raise CallFailed(f"{name}: {exc}", "RateLimited") from None
        except CallFailed as exc:
            error = exc.kind
            raise
        except Exception as exc:
            error = type(exc).__name__
            raise
        finally:
            if self.audit.enabled:
                scopes = self._scopes_named(name, arguments, access)
                if outcome == "error" and not all(access.allows(k) for k in scopes):
                    outcome = "denied"
                self.audit.tool_call(principal=access.principal, tool=name, scopes=scopes, outcome=outcome,
                                     error=error, seconds=time.perf_counter() - started)

    async def _call_tool(self, name: str, arguments: dict[str, Any], context: Context | None):
        await self._refuse_unknown_arguments(name, arguments)
        try:
            return _compact(await super().call_tool(name, arguments, context))
        except UnexpectedToolError as exc:
            if isinstance(exc.__cause__, WorldDBError):
                raise CallFailed(f"{name}: {exc.__cause__}", type(exc.__cause__).__name__) from None
            raise
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                problems = [f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}"
                            for e in exc.__cause__.errors(include_url=False)]
                raise CallFailed(f"{name}: invalid arguments: " + "; ".join(problems), "InvalidArguments") from None
            raise

    def _scopes_named(self, name: str, arguments: Any, access: Access) -> list[str]:
        """The scope keys a call acted on, for the audit log: those it named, else its default."""
        known = (self._parameters or {}).get(name)
        if not isinstance(arguments, dict) or (known is not None and "user_id" not in known):
            return []
        named = {arg: arguments.get(arg) for arg in SCOPE_ARGUMENTS}
        try:
            return resolve_scopes(**named, default=access.default_scopes(self.default_scopes)).keys
        except InvalidInput:
            return []

    async def _refuse_unknown_arguments(self, name: str, arguments: dict[str, Any]) -> None:
        # The SDK ignores unknown keys; a misspelt scope ("user" for "user_id") would then
        # silently fall back to the default scope, so unknown keys are refused.
        if self._parameters is None:
            self._parameters = {t.name: set(t.input_schema.get("properties", {})) for t in await self.list_tools()}
        known = self._parameters.get(name)
        if known is None or not isinstance(arguments, dict):
            return
        unknown = sorted(set(arguments) - known)
        if unknown:
            raise CallFailed(f"{name}: unknown argument(s) {', '.join(unknown)}; "
                             f"expected some of {', '.join(sorted(known))}", "InvalidArguments")


class ArgumentsAsSent(FuncMetadata):
    """The SDK's argument handling, except that it parses a string argument as JSON only for a
    parameter that takes an array or an object (clients send `messages`, `entities`, `facts` or
    `metadata` as a string now and then), and keeps it only when it is one. The SDK parses every
    argument not typed exactly str: "null" became null, that is "not given", so `"user_id": "null"`
    wrote to the default scope and `"erase": "null"` was false; '["a"]' was no scope id."""

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        containers = _container_arguments(self.arg_model)
        parsed = super().pre_parse_json({key: value for key, value in data.items() if key in containers})
        return {key: parsed[key] if key in parsed and isinstance(parsed[key], list | dict) else value
                for key, value in data.items()}


@functools.cache
def _container_arguments(model: type[BaseModel]) -> frozenset[str]:
    """The arguments of a tool's argument model whose schema takes an array or an object."""
    def takes(schema: dict) -> bool:
        return schema.get("type") in ("array", "object") or any(takes(alt) for alt in schema.get("anyOf", ()))

    return frozenset(name for name, schema in model.model_json_schema()["properties"].items() if takes(schema))


class CallFailed(ToolError):
    """A tool error worded for the model that called, remembering the kind of error behind
    it (an engine error's class name, "InvalidArguments", "RateLimited") for the audit log."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


@contextmanager
def _unlimited() -> Iterator[None]:
    yield


def _compact(result: Any) -> Any:
    """A tool result whose text is its structured content as compact JSON. The SDK writes it
    indented, and a client that hands the model the text (most do) spends a quarter to a third
    of a recall's tokens on the indentation; the record is the same."""
    if isinstance(result, CallToolResult) and result.structured_content is not None and not result.is_error:
        text = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
        return result.model_copy(update={"content": [TextContent(type="text", text=text)]})
    return result


def _scopes(engine: AsyncEngine, access: Access, user_id, agent_id, app_id, run_id) -> ScopeSet:
    server_default = engine.engine.default_scopes
    default = access.default_scopes(server_default)
    return resolve_scopes(user_id=user_id, agent_id=agent_id, app_id=app_id, run_id=run_id, default=default,
                          default_withheld=server_default is not None and default is None)


def _state(ctx: Context) -> AsyncEngine:
    return ctx.request_context.lifespan_context.engine


def _access(ctx: Context) -> Access:
    return caller(ctx)[0]


def build_server(config: ServerConfig) -> WorldDBServer:
    @asynccontextmanager
    async def lifespan(running: WorldDBServer) -> AsyncIterator[AppState]:
        options = {"default_user": config.default_user, "functional": config.functional,
                   "query_model": config.query_model, **config.engine_options}
        engine = await AsyncEngine.open(config.db, **options)
        warming = None
        running.engine = engine
        try:
            if config.background:
                await engine.run(Engine.start_background, consolidate_every=config.consolidate_every)
                # build the indexes while the client is still starting; tool calls queue behind it
                warming = asyncio.ensure_future(engine.run(Engine.warm))
            if config.freeze_startup:
                if warming is None:
                    gc.freeze()
                else:
                    warming.add_done_callback(lambda _: gc.freeze())
            yield AppState(engine)
        finally:
            running.engine = None
            if warming is not None:
                # a failed warm-up loses nothing: the next read meets the same error and reports it
                for outcome in await asyncio.gather(warming, return_exceptions=True):
                    if isinstance(outcome, Exception):
                        log.warning("building the indexes at start failed: %s", outcome)
            await engine.close()
            server.audit.close()

    server = WorldDBServer("worlddb", version=__version__, instructions=texts.INSTRUCTIONS, lifespan=lifespan,
                           log_level="WARNING")
    server.limits = Limits(config.rate_limit, config.max_in_flight)
    server.audit = audit_for(config)
    server.default_scopes = ScopeSet((("user", config.default_user),)) if config.default_user else None
    write = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False)
    read = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
    retire = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False)

    @server.tool(description=texts.WRITE, annotations=write)
    async def memory_write(
        ctx: Context[AppState, Any],
        # text and session are plain str (empty: not given): the SDK parses a string argument
        # that looks like JSON into an object unless its type is exactly str, and a memory
        # may well read '{"a": 1}'
        text: Annotated[str, Field(description=texts.TEXT), NoText] = "",
        messages: Annotated[list[MessageIn] | None, Field(max_length=MAX_MESSAGES, description=texts.MESSAGES)] = None,
        session: Annotated[str, Field(description=texts.SESSION), NoText] = "",
        user_id: UserId = None, agent_id: AgentId = None, app_id: AppId = None, run_id: RunId = None,
        metadata: Annotated[dict[str, Any] | None, Field(description=texts.METADATA)] = None,
        valid_from: When = "",
        entities: Annotated[list[EntityIn] | None, Field(description=texts.ENTITIES)] = None,
        facts: Annotated[list[FactIn] | None, Field(description=texts.FACTS)] = None,
    ) -> WriteResult:
        engine, access = _state(ctx), _access(ctx)
        scopes = _scopes(engine, access, user_id, agent_id, app_id, run_id)
        check_write_arguments(text=text or None, messages=messages, session=session or None, metadata=metadata,
                              entities=entities, facts=facts)
        if messages is not None:
            return await engine.write_messages([m.model_dump(exclude_none=True) for m in messages], scopes,
                                               session=session or None, valid_from=valid_from or None,
                                               access=access)
        return await engine.write_memory(
            text, scopes, metadata=metadata, valid_from=valid_from or None,
            entities=None if entities is None else [e.model_dump(exclude_none=True) for e in entities],
            facts=None if facts is None else [f.model_dump(exclude_none=True) for f in facts], access=access)

    @server.tool(description=texts.RECALL, annotations=read)
    async def memory_recall(
        query: Annotated[str, Field(description=texts.QUERY)], ctx: Context[AppState, Any],
        user_id: UserId = None, agent_id: AgentId = None, app_id: AppId = None, run_id: RunId = None,
        limit: Annotated[Count, Field(ge=1, le=100, description="How many results (1-100)"), _null_is(10)] = 10,
        as_of: Annotated[str, Field(description=texts.AS_OF), NoText] = "",
        known_at: Annotated[str, Field(description=texts.KNOWN_AT), NoText] = "",
        include_retired: Annotated[Flag, Field(description=texts.RECALL_INCLUDE_RETIRED), NoFlag] = False,
    ) -> RecallResult:
        engine, access = _state(ctx), _access(ctx)
        scopes = _scopes(engine, access, user_id, agent_id, app_id, run_id)
        return await engine.recall(query, scopes, limit=limit, as_of=as_of or None, known_at=known_at or None,
                                   include_retired=include_retired, access=access)

    @server.tool(description=texts.LIST, annotations=read)
    async def memory_list(
        ctx: Context[AppState, Any],
        user_id: UserId = None, agent_id: AgentId = None, app_id: AppId = None, run_id: RunId = None,
        limit: Annotated[Count, Field(ge=1, le=500, description="Page size (1-500)"), _null_is(50)] = 50,
        cursor: Annotated[str, Field(description="next_cursor from the previous page"), NoText] = "",
        include_retired: Annotated[Flag, Field(description=texts.INCLUDE_RETIRED), NoFlag] = False,
    ) -> Page:
        engine, access = _state(ctx), _access(ctx)
        scopes = _scopes(engine, access, user_id, agent_id, app_id, run_id)
        return await engine.list_memories(scopes, limit=limit, cursor=cursor or None, include_retired=include_retired,
                                          access=access)

    @server.tool(description=texts.READ, annotations=read)
    async def memory_read(
        id: MemoryId, ctx: Context[AppState, Any],
        user_id: UserId = None, agent_id: AgentId = None, app_id: AppId = None, run_id: RunId = None,
        cursor: Annotated[str, Field(description=texts.READ_CURSOR), NoText] = "",
        include_retired: Annotated[Flag, Field(description=texts.READ_INCLUDE_RETIRED), NoFlag] = False,
    ) -> MemoryDetail:
        engine, access = _state(ctx), _access(ctx)
        return await engine.read_memory(id, _scopes(engine, access, user_id, agent_id, app_id, run_id),
                                        cursor=cursor or None, include_retired=include_retired, access=access)

    @server.tool(description=texts.AMEND, annotations=write)
    async def memory_amend(
        id: MemoryId, text: Annotated[str, Field(description="The corrected memory, in full")],
        ctx: Context[AppState, Any],
        reason: Annotated[str, Field(description="Why it changed (optional)"), NoText] = "",
        user_id: UserId = None, agent_id: AgentId = None, app_id: AppId = None, run_id: RunId = None,
        valid_from: Annotated[str, Field(description=texts.AMEND_VALID_FROM), NoText] = "",
    ) -> AmendResult:
        engine, access = _state(ctx), _access(ctx)
        return await engine.amend(id, text, _scopes(engine, access, user_id, agent_id, app_id, run_id),
                                  reason=reason or None, valid_from=valid_from or None, access=access)

    @server.tool(description=texts.RETIRE, annotations=retire)
    async def memory_retire(
        id: MemoryId, ctx: Context[AppState, Any],
        reason: Annotated[str, Field(description="Why it no longer holds (optional)"), NoText] = "",
        user_id: UserId = None, agent_id: AgentId = None, app_id: AppId = None, run_id: RunId = None,
        valid_to: Annotated[str, Field(description=texts.RETIRE_VALID_TO), NoText] = "",
        wrong: Annotated[Flag, Field(description=texts.RETIRE_WRONG), NoFlag] = False,
    ) -> RetireResult:
        engine, access = _state(ctx), _access(ctx)
        return await engine.retire(id, _scopes(engine, access, user_id, agent_id, app_id, run_id),
                                   reason=reason or None, valid_to=valid_to or None, wrong=wrong, access=access)

    @server.tool(description=texts.RETIRE_ALL, annotations=retire)
    async def memory_retire_all(
        ctx: Context[AppState, Any],
        user_id: UserId = None, agent_id: AgentId = None, app_id: AppId = None, run_id: RunId = None,
    ) -> RetireAllResult:
        engine, access = _state(ctx), _access(ctx)
        if all(v is None for v in (user_id, agent_id, app_id, run_id)):
            raise InvalidInput("name the scopes to retire explicitly (user_id, agent_id, app_id or run_id): "
                               "the default scope is never retired whole implicitly")
        return await engine.retire_all(_scopes(engine, access, user_id, agent_id, app_id, run_id), access=access)

    @server.tool(description=texts.PURGE, annotations=ToolAnnotations(
        readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False))
    async def memory_purge_scope(
        confirm: Annotated[str, Field(description=texts.CONFIRM)], ctx: Context[AppState, Any],
        user_id: UserId = None, agent_id: AgentId = None, app_id: AppId = None, run_id: RunId = None,
        erase: Annotated[Flag, Field(description=texts.ERASE), NoFlag] = False,
    ) -> PurgeResult:
        engine = _state(ctx)
        if all(v is None for v in (user_id, agent_id, app_id, run_id)):
            raise InvalidInput("name the scope to purge explicitly (user_id, agent_id, app_id or run_id): "
                               "the default scope is never purged implicitly")
        scopes = resolve_scopes(user_id=user_id, agent_id=agent_id, app_id=app_id, run_id=run_id)
        return await engine.purge_scope(scopes, confirm, erase=erase, access=_access(ctx))

    @server.tool(description=texts.LIST_SCOPES, annotations=read)
    async def memory_list_scopes(
        ctx: Context[AppState, Any],
        kind: Annotated[str, Field(description="Only scopes of this kind: user, agent, app or run"), NoText] = "",
    ) -> ScopeList:
        return await _state(ctx).list_scopes(kind or None, access=_access(ctx))

    return server


__all__ = ["AppState", "InvalidInput", "ServerConfig", "WorldDBServer", "build_server", "caller",
           "CallFailed"]
