"""The inspector's pages and actions, rendered on the server (Starlette + Jinja2, no script).

    GET  /ui/                       the scopes with their counts; a search over all of them
    GET  /ui/scope?key=user:alice   a scope's memories newest first, with validity; ?q= recalls
    GET  /ui/scope/export?key=...   what the scope remembers now, as a JSON-lines file (`worlddb export`)
    GET  /ui/memory/{id}            a memory in full: metadata, entities, facts, supersession
                                    history, the hash check of its id; retire and amend forms
                                    (once it no longer holds: retire as never true)
    POST /ui/memory/{id}/retire     memory_retire (wrong=on: as never true)
    POST /ui/memory/{id}/amend      memory_amend (redirects to the new memory)
    GET  /ui/entity/{id}            an entity: aliases, class, proposals, facts, mentions, and
                                    a picture of its neighbourhood
    GET  /ui/proposals?status=      merge proposals (pending by default)
    POST /ui/proposals/{id}/accept  accept_merge; .../reject: reject_merge
    GET/POST /ui/login, POST /ui/logout

Every page and action goes through the memory API (an AsyncEngine) inside the scopes that
`Gate.scopes` grants the caller (worlddb.server.inspector.access), never around it, and with
the caller's Access, so the engine enforces the grant too and names no other scope. Errors of
the engine become a page saying what was wrong (404 for an id outside the scopes, as for an
unknown one; 403 for what the grant forbids); nothing is written when an action fails. Every
login at the form, signed in or refused, and every action that reaches the engine (retire,
amend, accept, reject, and an export), done or refused, writes an audit line (worlddb.server.audit), as a
tool call does.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from worlddb import __version__
from worlddb.core.errors import Conflict, Forbidden, NotFound, WorldDBError
from worlddb.memory.access import Access
from worlddb.memory.aio import AsyncEngine
from worlddb.memory.corrections import AMENDABLE, RETIRABLE
from worlddb.memory.engine import Engine
from worlddb.memory.results import MemoryDetail
from worlddb.memory.scopes import ScopeSet, parse_scope_key

from ..audit import INSPECTOR_ACCEPT, INSPECTOR_AMEND, INSPECTOR_EXPORT, INSPECTOR_REJECT, INSPECTOR_RETIRE, Audit
from . import views
from .access import COOKIE, Caller, Gate, Origins, Session, Sessions, csrf_ok

#: where the inspector is served; its cookie is scoped to this path
UI_PATH = "/ui"
HERE = Path(__file__).parent
#: a page of memories, of mentions, of search results
PAGE = 50
MENTIONS = 20
HITS = 20
#: supersession steps followed each way from a memory
HISTORY_MAX = 50
#: a wrong token costs this long, so guessing it is slow
LOGIN_DELAY = 0.5
HEADERS = [
    (b"content-security-policy", b"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                                 b"frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


@dataclass
class Ctx:
    """One authenticated request: its session, the engine, and the scopes it may see."""

    request: Request
    session: Session
    engine: AsyncEngine
    scopes: ScopeSet
    form: FormData | None = None

    @property
    def access(self) -> Access:
        """The caller's grant, passed with every engine call."""
        return self.session.caller.access

    def field(self, name: str, default: str = "") -> str:
        value = self.form.get(name, default) if self.form is not None else default
        return value if isinstance(value, str) else default


Handler = Callable[[Ctx], Awaitable[Response]]


class Inspector:
    """The inspector over one engine.

    :param engine: returns the open AsyncEngine (None while the server starts or stops).
    :param gate: who may log in, and what each caller may see.
    :param origins: the Host names and Origins the server answers to.
    :param audit: where each login at the form and each action is written down, done or
        refused (worlddb.server.audit); None: nowhere.
    """

    def __init__(self, engine: Callable[[], AsyncEngine | None], *, gate: Gate, origins: Origins,
                 audit: Audit | None = None):
        self._engine = engine
        self.gate = gate
        self.origins = origins
        self.audit = audit if audit is not None else Audit(None)
        self.sessions = Sessions()
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                                 undefined=jinja2.StrictUndefined)
        env.globals.update(ui=UI_PATH, version=__version__)
        env.filters["q"] = lambda value: quote(str(value), safe="")
        self.templates = Jinja2Templates(env=env)

    def app(self) -> ASGIApp:
        """The ASGI app to mount at UI_PATH."""
        routes = [
            Route("/", self._endpoint(self.index), methods=["GET"]),
            Route("/login", self.login_form, methods=["GET"]),
            Route("/login", self.login, methods=["POST"]),
            Route("/logout", self._endpoint(self.logout, post=True), methods=["POST"]),
            Route("/scope", self._endpoint(self.scope), methods=["GET"]),
            Route("/scope/export", self._endpoint(self.export), methods=["GET"]),
            Route("/memory/{id}", self._endpoint(self.memory), methods=["GET"]),
            Route("/memory/{id}/retire", self._endpoint(self.retire, post=True), methods=["POST"]),
            Route("/memory/{id}/amend", self._endpoint(self.amend, post=True), methods=["POST"]),
            Route("/entity/{id}", self._endpoint(self.entity), methods=["GET"]),
            Route("/proposals", self._endpoint(self.proposals), methods=["GET"]),
            Route("/proposals/{id}/{decision}", self._endpoint(self.decide, post=True), methods=["POST"]),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ]
        app = Starlette(routes=routes, exception_handlers={WorldDBError: self._engine_error})
        return Guard(app, self.origins)

    # ------------------------------------------------------------------ the request's caller
    def _endpoint(self, handler: Handler, *, post: bool = False):
        async def endpoint(request: Request) -> Response:
            return await self._guarded(request, handler, post=post)

        return endpoint

    async def _guarded(self, request: Request, handler: Handler, *, post: bool) -> Response:
        session = self.sessions.get(request.cookies.get(COOKIE))
        fresh = False
        if session is not None and session.caller is not None:
            caller = await self.gate.recheck(session.caller)
            if caller is None:  # its token was revoked, or has expired, since it signed in
                self.sessions.drop(session.id)
                session = None
            else:
                session.caller = caller
        if session is None or session.caller is None:
            caller = self.gate.open_caller()
            if caller is None or post:
                if post:  # a POST without a live session never acts, whoever sent it
                    return self._refused(request, "Your session has ended or was never started: reload the page.")
                return RedirectResponse(f"{UI_PATH}/login?next={quote(_here(request), safe='')}", 303)
            session, fresh = self.sessions.new(caller), True
        form = None
        if post:
            form = await request.form()
            if not self.origins.same_origin(request) or not csrf_ok(session, form.get("csrf")):
                return self._refused(request, "This form did not come from this page (cross-site request refused).")
        engine = self._engine()
        if engine is None:
            return PlainTextResponse("the memory is not open yet; try again in a moment", 503)
        scopes = await self.gate.scopes(engine, session.caller)
        response = await handler(Ctx(request, session, engine, scopes, form))
        if fresh:
            self._set_cookie(request, response, session)
        return response

    def _set_cookie(self, request: Request, response: Response, session: Session) -> None:
        response.set_cookie(COOKIE, session.id, httponly=True, samesite="strict", path=UI_PATH,
                            secure=request.url.scheme == "https")

    def _render(self, ctx: Ctx | None, request: Request, name: str, code: int = 200, **values: Any) -> Response:
        flash = []
        if ctx is not None:
            flash, ctx.session.flash = ctx.session.flash, []
        context = {"csrf": ctx.session.csrf if ctx else "", "flash": flash, "signed_in": ctx is not None,
                   "needs_login": self.gate.needs_login, **values}
        response = self.templates.TemplateResponse(request, name, context, status_code=code)
        response.headers["cache-control"] = "no-store"
        return response

    def _refused(self, request: Request, message: str) -> Response:
        return self._render(None, request, "error.html", 403, title="Refused", message=message)

    async def _engine_error(self, request: Request, exc: Exception) -> Response:
        status = (404 if isinstance(exc, NotFound) else 409 if isinstance(exc, Conflict)
                  else 403 if isinstance(exc, Forbidden) else 400)
        title = {404: "Not found", 409: "Already done", 403: "Not allowed"}.get(status, "Not accepted")
        return self._render(None, request, "error.html", status, title=title, message=str(exc))

    # ------------------------------------------------------------------ login
    async def login_form(self, request: Request) -> Response:
        if not self.gate.needs_login:
            return RedirectResponse(f"{UI_PATH}/", 303)
        session = self.sessions.get(request.cookies.get(COOKIE))
        fresh = session is None
        if session is None:
            session = self.sessions.new(None)
        response = self.templates.TemplateResponse(request, "login.html", {
            "csrf": session.csrf, "flash": [], "signed_in": False, "needs_login": True, "error": "",
            "next": _safe_next(request.query_params.get("next"))}, status_code=200)
        if fresh:
            self._set_cookie(request, response, session)
        return response

    async def login(self, request: Request) -> Response:
        session = self.sessions.get(request.cookies.get(COOKIE))
        form = await request.form()
        if session is None or not self.origins.same_origin(request) or not csrf_ok(session, form.get("csrf")):
            return self._refused(request, "This login form did not come from this page: reload it and try again.")
        token = form.get("token")
        started = time.perf_counter()
        caller: Caller | None = await self.gate.login(token) if isinstance(token, str) else None
        self.audit.inspector_login(principal=caller.access.principal if caller is not None else None,
                                   seconds=time.perf_counter() - started)
        target = _safe_next(form.get("next"))
        if caller is None:
            await asyncio.sleep(LOGIN_DELAY)
            return self.templates.TemplateResponse(request, "login.html", {
                "csrf": session.csrf, "flash": [], "signed_in": False, "needs_login": True,
                "error": "That is not the token this server was started with, nor one it has issued.",
                "next": target}, status_code=401)
        self.sessions.drop(session.id)  # a new id once signed in: a planted cookie is worth nothing
        signed_in = self.sessions.new(caller)
        response = RedirectResponse(target, 303)
        self._set_cookie(request, response, signed_in)
        return response

    async def logout(self, ctx: Ctx) -> Response:
        self.sessions.drop(ctx.session.id)
        response = RedirectResponse(f"{UI_PATH}/login" if self.gate.needs_login else f"{UI_PATH}/", 303)
        response.delete_cookie(COOKIE, path=UI_PATH)
        return response

    # ------------------------------------------------------------------ pages
    async def index(self, ctx: Ctx) -> Response:
        visible = set(ctx.scopes.keys)
        scopes = [s for s in (await ctx.engine.list_scopes(access=ctx.access)).scopes if s.key in visible]
        query = ctx.request.query_params.get("q", "").strip()
        hits = await self._search(ctx, query, ctx.scopes) if query and len(ctx.scopes) else None
        pending = (await ctx.engine.merge_proposals(ctx.scopes, access=ctx.access)).proposals
        return self._render(ctx, ctx.request, "index.html", scopes=scopes, query=query, hits=hits,
                            pending=len(pending))

    async def scope(self, ctx: Ctx) -> Response:
        key = ctx.request.query_params.get("key", "")
        one = _scope_of(key, ctx.scopes)
        params = ctx.request.query_params
        query = params.get("q", "").strip()
        current_only = params.get("current") == "1"
        if query:
            hits = await self._search(ctx, query, one, include_retired=not current_only)
            return self._render(ctx, ctx.request, "scope.html", key=key, query=query, hits=hits, rows=None,
                                next_cursor=None, current_only=current_only)
        page = await ctx.engine.list_memories(one, limit=PAGE, cursor=params.get("cursor") or None,
                                              include_retired=not current_only, access=ctx.access)
        details = await _details(ctx, [m.id for m in page.memories], one)
        rows = [(d, views.of_detail(d)) for d in details]
        return self._render(ctx, ctx.request, "scope.html", key=key, query="", hits=None, rows=rows,
                            next_cursor=page.next_cursor, current_only=current_only)

    async def export(self, ctx: Ctx) -> Response:
        """What one scope remembers now, as the JSON lines `worlddb import` reads (`worlddb
        export`), downloaded as a file; audited as an action is."""
        key = ctx.request.query_params.get("key", "")
        one = _scope_of(key, ctx.scopes)

        async def scopes_of(_done) -> list[str]:
            return [key]

        lines = await self._audited(ctx, INSPECTOR_EXPORT, lambda: ctx.engine.export_memories(one, access=ctx.access),
                                    scopes_of)
        body = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        name = re.sub(r"[^\w.-]+", "-", key).strip("-") or "scope"
        return Response(body, media_type="application/x-ndjson",
                        headers={"content-disposition": f'attachment; filename="worlddb-{name}.jsonl"'})

    async def _search(self, ctx: Ctx, query: str, scopes: ScopeSet, include_retired: bool = False):
        found = await ctx.engine.recall(query, scopes, limit=HITS, include_retired=include_retired, access=ctx.access)
        return [(hit, views.of_hit(hit)) for hit in found.results]

    async def memory(self, ctx: Ctx) -> Response:
        detail = await ctx.engine.read_memory(ctx.request.path_params["id"], ctx.scopes, access=ctx.access)
        if detail.type == "Entity":
            return RedirectResponse(f"{UI_PATH}/entity/{detail.id}", 303)
        history = await ctx.engine.run(_history, detail, ctx.scopes, ctx.access)
        open_now = detail.valid_to is None and not detail.retired
        # one that held at some time, closed or retired since, may still turn out never to have held
        held = detail.valid_to != detail.valid_from
        return self._render(ctx, ctx.request, "memory.html", m=detail, validity=views.of_detail(detail),
                            history=[(h, views.of_detail(h)) for h in history],
                            can_retire=open_now and detail.type in RETIRABLE,
                            can_retire_wrong=not open_now and held and detail.type in RETIRABLE,
                            can_amend=open_now and detail.type in AMENDABLE)

    async def _audited(self, ctx: Ctx, tool: str, act: Callable[[], Awaitable[Any]],
                       scopes_of: Callable[[Any], Awaitable[list[str]]]) -> Any:
        """Run an action and write its audit line: who, which action, the scope keys of what
        it changed (none when refused), how it ended (the error's class, never its message)."""
        started = time.perf_counter()
        outcome, error, scopes = "error", "Interrupted", []
        try:
            done = await act()
            outcome, error = "ok", None
            scopes = await scopes_of(done)
            return done
        except Exception as exc:
            error = type(exc).__name__
            raise
        finally:
            self.audit.tool_call(principal=ctx.access.principal, tool=tool, scopes=scopes, outcome=outcome,
                                 error=error, seconds=time.perf_counter() - started)

    async def retire(self, ctx: Ctx) -> Response:
        async def scopes_of(done) -> list[str]:
            return (await ctx.engine.read_memory(done.id, ctx.scopes, access=ctx.access)).scopes

        # the form's "never true" box: memory_retire's wrong
        wrong = ctx.field("wrong") == "on"
        done = await self._audited(ctx, INSPECTOR_RETIRE, lambda: ctx.engine.retire(
            ctx.request.path_params["id"], ctx.scopes, reason=ctx.field("reason").strip() or None, wrong=wrong,
            access=ctx.access), scopes_of)
        ctx.session.flash.append(
            "Already retired." if done.already_retired else
            "Retired as never true: no time finds it, and what it replaced is current again." if wrong else
            "Retired: it stays readable, but recall no longer returns it.")
        return RedirectResponse(f"{UI_PATH}/memory/{done.id}", 303)

    async def amend(self, ctx: Ctx) -> Response:
        done = await self._audited(ctx, INSPECTOR_AMEND, lambda: ctx.engine.amend(
            ctx.request.path_params["id"], ctx.field("text"), ctx.scopes,
            reason=ctx.field("reason").strip() or None, access=ctx.access), _scopes_of)
        ctx.session.flash.append("Amended: this new memory supersedes the old one, which stays in its history.")
        return RedirectResponse(f"{UI_PATH}/memory/{done.id}", 303)

    async def entity(self, ctx: Ctx) -> Response:
        cursor = ctx.request.query_params.get("cursor") or None
        entity = await ctx.engine.read_entity(ctx.request.path_params["id"], ctx.scopes, limit=MENTIONS,
                                              cursor=cursor, include_retired=True, access=ctx.access)
        details = await _details(ctx, [m.id for m in entity.mentions], ctx.scopes)
        picture = views.neighbourhood(entity, lambda anchor: f"{UI_PATH}/entity/{anchor}")
        return self._render(ctx, ctx.request, "entity.html", e=entity, picture=picture,
                            mentions=[(d, views.of_detail(d)) for d in details])

    async def proposals(self, ctx: Ctx) -> Response:
        status = ctx.request.query_params.get("status", "pending")
        found = await ctx.engine.merge_proposals(ctx.scopes, status=status, limit=200, access=ctx.access)
        return self._render(ctx, ctx.request, "proposals.html", proposals=found.proposals, status=status)

    async def decide(self, ctx: Ctx) -> Response:
        decision = ctx.request.path_params["decision"]
        if decision not in ("accept", "reject"):
            raise NotFound(f"no action {decision!r}: accept or reject")
        act = ctx.engine.accept_merge if decision == "accept" else ctx.engine.reject_merge
        done = await self._audited(ctx, INSPECTOR_ACCEPT if decision == "accept" else INSPECTOR_REJECT,
                                   lambda: act(ctx.request.path_params["id"], ctx.scopes,
                                               reason=ctx.field("reason").strip() or None, access=ctx.access),
                                   _scopes_of)
        ctx.session.flash.append(
            f"Accepted: {done.a.name} and {done.b.name} are now one identity." if decision == "accept" else
            f"Rejected: {done.a.name} and {done.b.name} stay apart.")
        return RedirectResponse(_safe_next(ctx.field("back")) if ctx.field("back") else f"{UI_PATH}/proposals", 303)


async def _scopes_of(done) -> list[str]:
    """The scope keys an amend or a merge decision reports it acted in (inside the grant)."""
    return list(done.scopes)


# ---------------------------------------------------------------------------- engine-thread reads
async def _details(ctx: Ctx, anchors: list[str], scopes: ScopeSet) -> list[MemoryDetail]:
    """memory_read for each of a page's memories, in one hop onto the engine's thread."""
    if not anchors:
        return []
    access = ctx.access
    return await ctx.engine.run(lambda engine: [engine.read_memory(a, scopes, access=access) for a in anchors])


def _history(engine: Engine, detail: MemoryDetail, scopes: ScopeSet, access: Access) -> list[MemoryDetail]:
    """The memory's supersession chain inside the scopes, oldest first: what it replaced
    (and what that replaced), itself, and what replaced it."""
    older, newer = [], []
    step = detail
    while step.supersedes and len(older) < HISTORY_MAX:
        step = engine.read_memory(step.supersedes[0], scopes, access=access)
        older.append(step)
    step = detail
    while step.superseded_by and len(newer) < HISTORY_MAX:
        step = engine.read_memory(step.superseded_by[0], scopes, access=access)
        newer.append(step)
    return [*reversed(older), detail, *newer] if older or newer else []


# ---------------------------------------------------------------------------- helpers
def _scope_of(key: str, visible: ScopeSet) -> ScopeSet:
    kind, sid = parse_scope_key(key)
    if key not in visible.keys:
        raise NotFound(f"no scope {key}")
    return ScopeSet(((kind, sid),))


def _here(request: Request) -> str:
    query = f"?{request.url.query}" if request.url.query else ""
    return f"{request.url.path}{query}"


def _safe_next(target: object) -> str:
    """A place inside the inspector to go after an action; anything else goes home."""
    if (isinstance(target, str) and (target == UI_PATH or target.startswith(UI_PATH + "/"))
            and "//" not in target and "\\" not in target and ".." not in target
            and not any(ord(c) < 32 for c in target)):
        return target
    return f"{UI_PATH}/"


class Guard:
    """ASGI middleware around the inspector: a Host this server does not answer to gets 421
    (DNS rebinding), and every response carries the security headers."""

    def __init__(self, app: ASGIApp, origins: Origins):
        self.app, self.origins = app, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        if not self.origins.host_ok(host):
            await PlainTextResponse("Invalid Host header", 421)(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        await self.app(scope, receive, with_headers)


__all__ = ["UI_PATH", "Guard", "Inspector"]
