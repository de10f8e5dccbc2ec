"""Serving the tools over stdio and streamable HTTP.

HTTP security, as the MCP specification asks of servers:
- Bind to 127.0.0.1 unless told otherwise.
- Validate Host and Origin on every request (DNS-rebinding protection): a page on
  another origin gets 403, a forged Host 421. For loopback binds the SDK's defaults
  allow exactly the loopback names; for any other bind, exactly that host.
- Authenticate every request before it reaches anything (worlddb.server.auth): the single
  token (--token / WORLDDB_TOKEN), the principals' tokens kept in the file (`worlddb auth`)
  and, with OAuth configured, JWT access tokens from the issuer (worlddb.server.oauth), whose
  protected-resource metadata document is then served and named by every 401. With no
  credential configured at all, a loopback server is open, as for one local user.
- Per-principal rate and in-flight limits on tool calls (worlddb.server.limits).
Stateless streamable HTTP: WorldDB never calls back into the client, so no session
state is kept between requests.

The memory inspector (worlddb.server.inspector) is served at /ui next to /mcp, over the same
engine and the same credentials; a browser cannot send a bearer header, so /ui checks the
token through its own login form and session cookie (the bearer check lets /ui through to
it), and applies the same Host and Origin rules. `inspector_server` serves it alone
(`worlddb ui`).

`serve_http` opens the store once before it announces anything: a store that cannot be opened
is its one error (as over stdio), not a failed server start. It binds the port before the
announcement, which names the port bound - a port it cannot bind is a ServeError, again before
anything is announced - and listens once the server has started. A start that fails later
with an engine error (the store was embedded with another model than the one given, say) stops
the server before it listens and raises that error (`_Start`), so the command line reports it in
one line and exits 2, as over stdio, instead of uvicorn logging its traceback and exiting 3.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from worlddb.core.errors import ServeError, WorldDBError, engine_error
from worlddb.core.store import Store
from worlddb.memory.aio import AsyncEngine

from .app import ServerConfig, audit_for, build_server
from .auth import Callers, Guard
from .inspector import UI_PATH, Gate, Inspector, Origins
from .oauth import OAuthSettings

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MCP_PATH = "/mcp"


def security_for(host: str) -> TransportSecuritySettings | None:
    """None lets the SDK apply its loopback defaults; any other bind allows exactly itself."""
    if host in LOOPBACK:
        return None
    name = f"[{host}]" if ":" in host else host
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=[f"{name}:*"],
                                     allowed_origins=[f"http://{name}:*", f"https://{name}:*"])


def origins_for(host: str) -> Origins:
    """The Host and Origin patterns a server bound to `host` answers to (the SDK's loopback
    defaults, or exactly that host)."""
    if host in LOOPBACK:
        return Origins(["127.0.0.1:*", "localhost:*", "[::1]:*"],
                       ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"])
    settings = security_for(host)
    return Origins(settings.allowed_hosts, settings.allowed_origins)


def http_app(config: ServerConfig, *, host: str = "127.0.0.1", token: str | None = None,
             oauth: OAuthSettings | None = None) -> ASGIApp:
    """The ASGI app: the MCP endpoint at /mcp behind authentication, and the inspector at /ui
    (see the module docstring).

    :param token: the single all-scopes bearer token, if any.
    :param oauth: accept JWT access tokens from this authorization server.
    """
    server = build_server(config)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, host=host,
                                     transport_security=security_for(host))
    callers = Callers(config.db, token=token, oauth=oauth)
    inspector = Inspector(lambda: server.engine, gate=Gate(callers), origins=origins_for(host), audit=server.audit)
    app.router.routes.insert(0, Mount(UI_PATH, app=inspector.app()))
    return Guard(app, callers, oauth, own_login=UI_PATH, audit=server.audit)


async def _to_inspector(request: Request) -> Response:
    return RedirectResponse(f"{UI_PATH}/", 303)


def inspector_app(config: ServerConfig, *, host: str = "127.0.0.1", token: str | None = None,
                  gate: Gate | None = None) -> ASGIApp:
    """The inspector alone, at /ui, over an engine of its own (no background work), taking
    the same credentials as `http_app` (the token, and the principals in the file). `gate`
    replaces that one (worlddb.server.inspector.access.Gate)."""
    holder: dict[str, AsyncEngine] = {}

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        options = {"default_user": config.default_user, "functional": config.functional,
                   "query_model": config.query_model, **config.engine_options}
        holder["engine"] = await AsyncEngine.open(config.db, **options)
        try:
            yield
        finally:
            await holder.pop("engine").close()
            audit.close()
            if callers is not None:
                callers.close()

    callers = Callers(config.db, token=token) if gate is None else None
    audit = audit_for(config)
    inspector = Inspector(lambda: holder.get("engine"), gate=gate or Gate(callers), origins=origins_for(host),
                          audit=audit)
    return Starlette(routes=[Mount(UI_PATH, app=inspector.app()), Route("/", _to_inspector, methods=["GET"])],
                     lifespan=lifespan)


def inspector_server(config: ServerConfig, *, host: str = "127.0.0.1", port: int = 8766, token: str | None = None):
    """The uvicorn server for the inspector alone (run it with .run())."""
    return _uvicorn(inspector_app(config, host=host, token=token), host, port)


def uvicorn_server(config: ServerConfig, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None,
                   oauth: OAuthSettings | None = None):
    """The uvicorn server for the app (run it with .run(), stop it with .should_exit = True)."""
    return _uvicorn(http_app(config, host=host, token=token, oauth=oauth), host, port)


def _uvicorn(app: ASGIApp, host: str, port: int):
    import uvicorn

    # access logs carry paths only; headers (and with them the token) are never logged
    return uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))


def serve_http(config: ServerConfig, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None,
               oauth: OAuthSettings | None = None) -> None:
    """Serve until stopped. The store is opened once first, so a store that cannot be opened
    is reported (its WorldDBError) before anything is announced; the port is bound before the
    announcement, which names the port bound (port 0: the free one the system chose). A start
    that fails with an engine error raises it (see the module docstring)."""
    Store.open(config.db).close()
    app = _Start(http_app(config, host=host, token=token, oauth=oauth))
    server = _uvicorn(app, host, port)
    # bound, not yet listening: a connection is refused, not left waiting, until the server has
    # started and listens (asyncio's start_serving), as it was before the port was known early
    sock = _bind(host, port)
    bound = sock.getsockname()[1]
    log = logging.getLogger("worlddb.server")
    log.warning("WorldDB MCP server on http://%s:%d%s", _netloc(host), bound, MCP_PATH)
    log.warning("memory inspector on http://%s:%d%s/", _netloc(host), bound, UI_PATH)
    with asyncio.Runner(loop_factory=server.config.get_loop_factory()) as runner:
        runner.run(app.serve(server, sock))


def _bind(host: str, port: int) -> socket.socket:
    """A socket bound to host:port, as uvicorn binds one (not listening yet); ServeError if the
    port is taken or the host is not this machine's."""
    sock = socket.socket(family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {_netloc(host)}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


class _Start:
    """The HTTP app as `serve_http` runs it. When the app's start (its lifespan) fails with an
    engine error, the server is stopped before it listens and the error is raised by `serve`,
    not handed to uvicorn as a traceback to log; any other failure of the start reaches uvicorn
    as before. Everything but the lifespan passes straight through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.error: WorldDBError | None = None
        self._serving: asyncio.Future | None = None

    async def serve(self, server, sock: socket.socket) -> None:
        """Run the uvicorn `server` on `sock` until it stops; raise the engine error that ended
        its start, if one did."""
        self._serving = asyncio.ensure_future(server.serve(sockets=[sock]))
        try:
            await self._serving
        except asyncio.CancelledError:
            if self.error is None:
                raise
            raise self.error from None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        failed: list[Message] = []

        async def told(message: Message) -> None:
            if message["type"] == "lifespan.startup.failed":
                failed.append(message)  # passed on once its cause is known to be no engine error
            else:
                await send(message)

        try:
            await self.app(scope, receive, told)
        except (WorldDBError, BaseExceptionGroup) as exc:
            self.error = engine_error(exc) if failed and self._serving is not None else None
            if self.error is None:
                raise
            self._serving.cancel()
        finally:
            if self.error is None:
                for message in failed:
                    await send(message)


def _netloc(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def serve_stdio(config: ServerConfig) -> None:
    build_server(config).run()
