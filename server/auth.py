"""Who is calling over HTTP: the bearer token, turned into the caller's Access.

This module only establishes identity; what an identity may do is decided by the memory
layer (worlddb.memory.access), on every engine call. Built from the mcp SDK's auth
support: `Callers` is its TokenVerifier, `CallerBackend` its BearerAuthBackend, and
`Guard` stacks starlette's AuthenticationMiddleware, the SDK's AuthContextMiddleware and
RequireAuthMiddleware (401 with a WWW-Authenticate header that, with OAuth configured,
points at the protected-resource metadata document) in front of every route.

A bearer token is, in this order:
- the server's single token (``--token`` / WORLDDB_TOKEN), compared in constant time:
  principal ``token``, every scope, admin;
- with OAuth configured, a JWT access token from the issuer (worlddb.server.oauth);
- a principal's token from ``worlddb auth add-token`` (worlddb.memory.principals), looked
  up in the database file on every request, so a revoked token stops working at once.
With none of the three configured (no --token, no OAuth, no principal ever added to the
file) the server is open, as a local single-user server is: every request is the principal
``anonymous``, with every scope. Once any is configured, a request without a good token
gets 401 and reaches nothing - not even a route that does not exist.

The token is read from the Authorization header only (never the URL, which access logs
print), is not kept once checked, and is never logged.
"""

from __future__ import annotations

import hmac
import threading
import time
from urllib.parse import urlparse

import anyio.to_thread
from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import build_resource_metadata_url, cors_middleware
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl, ConfigDict
from starlette.applications import Starlette
from starlette.authentication import AuthCredentials
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import HTTPConnection
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from worlddb.core.store import Store
from worlddb.memory import principals
from worlddb.memory.access import Access

from .audit import Audit
from .oauth import JwtVerifier, OAuthSettings

#: the principal of the server's single all-scopes token
TOKEN_PRINCIPAL = "token"
#: the principal of every request to a server with no credentials configured
ANONYMOUS = "anonymous"
WELL_KNOWN = "/.well-known/oauth-protected-resource"


class CallerToken(AccessToken):
    """The SDK's AccessToken, carrying the caller's Access. ``token`` is left empty: the
    bearer token is not kept once it has been checked."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    access: Access


def caller_token(access: Access, subject: str | None = None) -> CallerToken:
    return CallerToken(token="", client_id=access.principal, scopes=list(access.grants), subject=subject,
                       access=access)


class Callers:
    """The SDK TokenVerifier for WorldDB: a bearer token -> the caller (see the module
    docstring). The principals are read through a connection of its own to the file."""

    def __init__(self, db: str, *, token: str | None = None, oauth: OAuthSettings | None = None):
        if token is not None and not token:
            raise ValueError("an empty token would let everyone in")
        self.db = db
        self._token = token.encode("utf-8") if token else None
        self._jwt = JwtVerifier(oauth) if oauth is not None else None
        self._store: Store | None = None
        self._lock = threading.Lock()
        self._required = False

    async def verify_token(self, token: str) -> CallerToken | None:
        if self._token is not None and hmac.compare_digest(token.encode("utf-8"), self._token):
            return caller_token(Access.owner(TOKEN_PRINCIPAL))
        if self._jwt is not None and token.count(".") == 2:
            access = await anyio.to_thread.run_sync(self._jwt.verify, token)
            return caller_token(access, subject=access.principal) if access is not None else None
        access = await anyio.to_thread.run_sync(self._stored, token)
        return caller_token(access) if access is not None else None

    async def open_to_all(self) -> bool:
        """Whether no credential of any kind is configured (a request then needs none). Once
        a principal exists the answer stays no: revoked principals keep their rows."""
        if self._token is not None or self._jwt is not None or self._required:
            return False
        self._required = await anyio.to_thread.run_sync(self._any_stored)
        return not self._required

    def credentials_configured(self) -> bool:
        """`not open_to_all()`, answered on the calling thread (one small read of the file)."""
        if not (self._token is not None or self._jwt is not None or self._required):
            self._required = self._any_stored()
        return self._token is not None or self._jwt is not None or self._required

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def _stored(self, token: str) -> Access | None:
        with self._lock:
            return principals.authenticate(self._principals(), token)

    def _any_stored(self) -> bool:
        with self._lock:
            return principals.any_token(self._principals())

    def _principals(self) -> Store:
        if self._store is None:
            self._store = Store.open(self.db)
        return self._store


class CallerBackend(BearerAuthBackend):
    """The SDK's bearer backend, plus the open server: with nothing configured every request
    is `ANONYMOUS` with every scope."""

    token_verifier: Callers

    async def authenticate(self, conn: HTTPConnection):
        if await self.token_verifier.open_to_all():
            return AuthCredentials(["*"]), AuthenticatedUser(caller_token(Access.owner(ANONYMOUS)))
        return await super().authenticate(conn)


class Guard:
    """ASGI: authenticate every HTTP request before it reaches `app`; serve the OAuth
    protected-resource metadata document (when OAuth is configured) to anyone.

    :param own_login: a path whose app authenticates its callers itself (the inspector's
        login form and session cookie: a browser sends no bearer header); requests under it
        pass through.
    :param audit: where a request refused with 401 is written down (worlddb.server.audit).
    """

    def __init__(self, app: ASGIApp, callers: Callers, oauth: OAuthSettings | None = None, *,
                 own_login: str | None = None, audit: Audit | None = None):
        self.app = app
        self._audit = audit
        self.callers = callers
        self._own_login = own_login
        metadata_url = None
        self._public: ASGIApp | None = None
        self._public_paths: frozenset[str] = frozenset()
        if oauth is not None:
            resource = AnyHttpUrl(oauth.resource)
            metadata_url = build_resource_metadata_url(resource)
            routes = metadata_routes(oauth)
            self._public = Starlette(routes=routes)
            self._public_paths = frozenset(r.path for r in routes)
        required = RequireAuthMiddleware(app, [], metadata_url)
        self._guarded = AuthenticationMiddleware(AuthContextMiddleware(required), backend=CallerBackend(callers))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, self._closing(send))
        elif scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
        elif self._public is not None and scope["path"] in self._public_paths:
            await self._public(scope, receive, send)
        elif self._own_login and (scope["path"] == self._own_login or scope["path"].startswith(self._own_login + "/")):
            await self.app(scope, receive, send)
        elif self._audit is not None and self._audit.enabled:
            await self._guarded(scope, receive, self._auditing(send))
        else:
            await self._guarded(scope, receive, send)

    def _auditing(self, send: Send) -> Send:
        """`send`, writing an audit line when the response is a 401."""
        started = time.perf_counter()

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401 and self._audit is not None:
                self._audit.unauthenticated(seconds=time.perf_counter() - started)
            await send(message)

        return wrapped

    def _closing(self, send: Send) -> Send:
        """`send`, closing the principals' connection once the server has shut down."""

        async def wrapped(message: Message) -> None:
            if message["type"] in ("lifespan.shutdown.complete", "lifespan.shutdown.failed"):
                self.callers.close()
            await send(message)

        return wrapped


def metadata_routes(oauth: OAuthSettings) -> list[Route]:
    """The protected-resource metadata document (RFC 9728), with the SDK's handler: at the
    well-known path plus the resource's path (``/.well-known/oauth-protected-resource/mcp``,
    where RFC 9728 and the WWW-Authenticate header put it) and at the bare well-known path.
    The issuer is given exactly as configured: OAuth compares issuers as strings."""
    metadata = ProtectedResourceMetadata(resource=oauth.resource, authorization_servers=[oauth.issuer],
                                         resource_name="WorldDB")
    endpoint = cors_middleware(ProtectedResourceMetadataHandler(metadata).handle, ["GET", "OPTIONS"])
    url = build_resource_metadata_url(AnyHttpUrl(oauth.resource))
    paths = dict.fromkeys((urlparse(str(url)).path, WELL_KNOWN))
    return [Route(path, endpoint=endpoint, methods=["GET", "OPTIONS"]) for path in paths]


__all__ = ["ANONYMOUS", "TOKEN_PRINCIPAL", "CallerBackend", "CallerToken", "Callers", "Guard", "caller_token",
           "metadata_routes"]
