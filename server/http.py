"""Serving the tools over stdio and streamable HTTP.

HTTP security, as the MCP specification asks of local servers:
- Bind to 127.0.0.1 unless told otherwise.
- Validate Host and Origin on every request (DNS-rebinding protection): a page on
  another origin gets 403, a forged Host 421. For loopback binds the SDK's defaults
  allow exactly the loopback names; for any other bind, exactly that host.
- With a token configured (--token / WORLDDB_TOKEN), every request must carry
  `Authorization: Bearer <token>`, compared in constant time; anything else gets 401
  and reaches nothing. The token is read from the header only (never the URL, which
  access logs print) and is never logged.
Stateless streamable HTTP: WorldDB never calls back into the client, so no session
state is kept between requests.

The memory inspector (worlddb.server.inspector) is served at /ui next to /mcp, over the same
engine and behind the same token; a browser cannot send a bearer header, so /ui checks the
token through its own login form and session cookie (the bearer check lets /ui through to
it), and applies the same Host and Origin rules. `inspector_server` serves it alone
(`worlddb ui`).
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from worlddb.memory.aio import AsyncEngine

from .app import ServerConfig, build_server
from .inspector import UI_PATH, Gate, Inspector, Origins

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MCP_PATH = "/mcp"


class BearerToken:
    """ASGI middleware: 401 for any HTTP request without the right bearer token, except
    under `own_login` (a path whose app checks the same token itself)."""

    def __init__(self, app: ASGIApp, token: str, *, own_login: str | None = None):
        if not token:
            raise ValueError("an empty token would let everyone in")
        self.app = app
        self._expected = b"Bearer " + token.encode("utf-8")
        self._own_login = own_login

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # lifespan: the engine must still open and close
            return
        path = scope.get("path", "")
        if self._own_login and (path == self._own_login or path.startswith(self._own_login + "/")):
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "unauthorized", "detail": "a valid bearer token is required"}).encode()
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="worlddb"'),
            (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


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


def http_app(config: ServerConfig, *, host: str = "127.0.0.1", token: str | None = None) -> ASGIApp:
    server = build_server(config)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, host=host,
                                     transport_security=security_for(host))
    inspector = Inspector(lambda: server.engine, gate=Gate(token), origins=origins_for(host))
    app.router.routes.insert(0, Mount(UI_PATH, app=inspector.app()))
    return BearerToken(app, token, own_login=UI_PATH) if token else app


async def _to_inspector(request: Request) -> Response:
    return RedirectResponse(f"{UI_PATH}/", 303)


def inspector_app(config: ServerConfig, *, host: str = "127.0.0.1", token: str | None = None,
                  gate: Gate | None = None) -> ASGIApp:
    """The inspector alone, at /ui, over an engine of its own (no background work). `gate`
    replaces the single-token one (worlddb.server.inspector.access.Gate)."""
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

    inspector = Inspector(lambda: holder.get("engine"), gate=gate or Gate(token), origins=origins_for(host))
    return Starlette(routes=[Mount(UI_PATH, app=inspector.app()), Route("/", _to_inspector, methods=["GET"])],
                     lifespan=lifespan)


def inspector_server(config: ServerConfig, *, host: str = "127.0.0.1", port: int = 8766, token: str | None = None):
    """The uvicorn server for the inspector alone (run it with .run())."""
    import uvicorn

    app = inspector_app(config, host=host, token=token)
    return uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))


def uvicorn_server(config: ServerConfig, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None):
    """The uvicorn server for the app (run it with .run(), stop it with .should_exit = True)."""
    import uvicorn

    app = http_app(config, host=host, token=token)
    # access logs carry paths only; headers (and with them the token) are never logged
    return uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))


def serve_http(config: ServerConfig, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None) -> None:
    log = logging.getLogger("worlddb.server")
    log.warning("WorldDB MCP server on http://%s:%d%s", _netloc(host), port, MCP_PATH)
    log.warning("memory inspector on http://%s:%d%s/", _netloc(host), port, UI_PATH)
    uvicorn_server(config, host=host, port=port, token=token).run()


def _netloc(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def serve_stdio(config: ServerConfig) -> None:
    build_server(config).run()
