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
"""

from __future__ import annotations

import hmac
import json
import logging

from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from .app import ServerConfig, build_server

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MCP_PATH = "/mcp"


class BearerToken:
    """ASGI middleware: 401 for any HTTP request without the right bearer token."""

    def __init__(self, app: ASGIApp, token: str):
        if not token:
            raise ValueError("an empty token would let everyone in")
        self.app = app
        self._expected = b"Bearer " + token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # lifespan: the engine must still open and close
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


def http_app(config: ServerConfig, *, host: str = "127.0.0.1", token: str | None = None) -> ASGIApp:
    server = build_server(config)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, host=host,
                                     transport_security=security_for(host))
    return BearerToken(app, token) if token else app


def uvicorn_server(config: ServerConfig, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None):
    """The uvicorn server for the app (run it with .run(), stop it with .should_exit = True)."""
    import uvicorn

    app = http_app(config, host=host, token=token)
    # access logs carry paths only; headers (and with them the token) are never logged
    return uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))


def serve_http(config: ServerConfig, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None) -> None:
    logging.getLogger("worlddb.server").warning("WorldDB MCP server on http://%s:%d%s", host, port, MCP_PATH)
    uvicorn_server(config, host=host, port=port, token=token).run()


def serve_stdio(config: ServerConfig) -> None:
    build_server(config).run()
