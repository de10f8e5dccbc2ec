"""Who may use the inspector, what each caller may see, and the checks every request passes.

- `Gate`: the MCP endpoint's credentials (worlddb.server.auth.Callers): its single token, the
  principals' tokens kept in the file, OAuth access tokens. With none configured the
  inspector is open to whoever can reach the port, exactly as /mcp is, so it binds to
  loopback unless told otherwise. A login yields the caller's Access
  (worlddb.memory.access): `Gate.scopes(engine, caller)` is the one place that says which
  scopes a caller may see - those it is granted - and every page and action passes both
  those scopes and the caller's Access to the memory API, which enforces the grant itself
  and names no other scope in what it returns.
- `Sessions`: server-side, in memory. The cookie carries a random session id only (HttpOnly,
  SameSite=Strict, Path=/ui); the token is typed into a login form once and never appears in
  a URL, a page or a log. A login starts a new session id. The session keeps the token, in
  this process's memory only, and every request checks it again (`Gate.recheck`): a token
  revoked with `worlddb auth revoke`, or an OAuth token past its expiry, ends the session on
  its next request, and a principal's grants are read afresh.
- Every request's Host must be one the server answers to (a page on another site that
  rebinds its name to 127.0.0.1 gets 421). Every POST must come from this origin (Origin,
  else Referer) and carry the session's CSRF token; anything else is 403 and changes
  nothing.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from starlette.requests import Request

from worlddb.memory.access import Access
from worlddb.memory.aio import AsyncEngine
from worlddb.memory.scopes import ScopeSet

from ..auth import Callers

COOKIE = "worlddb_ui"
#: a session lasts this long after its last use
SESSION_TTL = 12 * 3600.0
#: sessions kept at most; the least recently used goes first
MAX_SESSIONS = 1000


@dataclass(frozen=True)
class Caller:
    """Who a session belongs to, and the scopes it is granted; the token it signed in with,
    checked again on every request (never shown, logged or sent back)."""

    name: str
    access: Access
    token: str | None = field(default=None, repr=False)


#: the caller of an inspector that needs no login
LOCAL = Caller("local", Access.owner("local"))


class Gate:
    """The login check, and what a caller may see.

    :param callers: the server's credentials (worlddb.server.auth.Callers); None, or none
        configured in it: no login (loopback, as /mcp).
    """

    def __init__(self, callers: Callers | None = None):
        self._callers = callers

    @property
    def needs_login(self) -> bool:
        return self._callers is not None and self._callers.credentials_configured()

    def open_caller(self) -> Caller | None:
        """The caller of a request when no login is needed, else None."""
        return None if self.needs_login else LOCAL

    async def login(self, given: str) -> Caller | None:
        if not self.needs_login:
            return LOCAL
        verified = await self._callers.verify_token(given)
        return Caller(verified.access.principal, verified.access, given) if verified is not None else None

    async def recheck(self, caller: Caller) -> Caller | None:
        """`caller` as its token stands now: None once it no longer opens the server (revoked,
        expired), else with the grants it holds now."""
        if caller.token is None:
            return caller if not self.needs_login else None
        return await self.login(caller.token)

    async def scopes(self, engine: AsyncEngine, caller: Caller) -> ScopeSet:
        """The scopes `caller` may see and change: every page and action works inside these.
        They are the scopes in the file its grant covers (all of them for the owner's token)."""
        return await engine.all_scopes(access=caller.access)


@dataclass
class Session:
    id: str
    csrf: str
    #: None until the login form has been passed
    caller: Caller | None
    expires: float
    flash: list[str] = field(default_factory=list)


class Sessions:
    def __init__(self, ttl: float = SESSION_TTL, limit: int = MAX_SESSIONS):
        self.ttl, self.limit = ttl, limit
        self._by_id: OrderedDict[str, Session] = OrderedDict()

    def new(self, caller: Caller | None) -> Session:
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), caller, time.monotonic() + self.ttl)
        self._by_id[session.id] = session
        while len(self._by_id) > self.limit:
            self._by_id.popitem(last=False)
        return session

    def get(self, session_id: str | None) -> Session | None:
        session = self._by_id.get(session_id) if session_id else None
        if session is None:
            return None
        if session.expires < time.monotonic():
            self.drop(session.id)
            return None
        session.expires = time.monotonic() + self.ttl
        self._by_id.move_to_end(session.id)
        return session

    def drop(self, session_id: str) -> None:
        self._by_id.pop(session_id, None)


class Origins:
    """The Host names and Origins this server answers to: patterns as the MCP SDK's
    transport security takes them ("127.0.0.1:*", "http://localhost:*")."""

    def __init__(self, hosts: list[str], origins: list[str]):
        self.hosts, self.origins = list(hosts), list(origins)

    def host_ok(self, host: str | None) -> bool:
        return bool(host) and _matches(host, self.hosts)

    def same_origin(self, request: Request) -> bool:
        """A POST came from one of this server's own pages."""
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        origin = request.headers.get("origin")
        if origin is not None:
            return origin == own and _matches(origin, self.origins)
        referer = request.headers.get("referer", "")
        return referer.startswith(own + "/") and _matches(own, self.origins)


def _matches(value: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        if value == pattern:
            return True
        if pattern.endswith(":*"):
            base, _, port = value.rpartition(":")
            if base == pattern[:-2] and port.isdigit():
                return True
    return False


def csrf_ok(session: Session, given: object) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(), session.csrf.encode())
