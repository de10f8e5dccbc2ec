"""Who may use the inspector, what each caller may see, and the checks every request passes.

- `Gate`: the MCP endpoint's token (the same one, compared in constant time). With no token
  configured the inspector is open to whoever can reach the port, exactly as /mcp is, so it
  binds to loopback unless told otherwise. `Gate.scopes(engine, caller)` is the one place
  that says which scopes a caller may see; every page and action asks it, and passes what it
  answers to the memory API, which never reaches beyond the scopes it is given.
- `Sessions`: server-side, in memory. The cookie carries a random session id only (HttpOnly,
  SameSite=Strict, Path=/ui); the token is typed into a login form once and never appears in
  a URL, a page or a log. A login starts a new session id.
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

from worlddb.memory.aio import AsyncEngine
from worlddb.memory.scopes import ScopeSet

COOKIE = "worlddb_ui"
#: a session lasts this long after its last use
SESSION_TTL = 12 * 3600.0
#: sessions kept at most; the least recently used goes first
MAX_SESSIONS = 1000


@dataclass(frozen=True)
class Caller:
    """Who a session belongs to: the token's holder (one today; principals with grants later)."""

    name: str


class Gate:
    """The token check, and what a caller may see.

    :param token: the MCP endpoint's token; None: no login (loopback, as /mcp).
    """

    def __init__(self, token: str | None):
        if token is not None and not token:
            raise ValueError("an empty token would let everyone in")
        self._expected = token.encode("utf-8") if token else None

    @property
    def needs_login(self) -> bool:
        return self._expected is not None

    def open_caller(self) -> Caller | None:
        """The caller of a request when no login is needed, else None."""
        return None if self.needs_login else Caller("local")

    def login(self, given: str) -> Caller | None:
        if self._expected is None:
            return Caller("local")
        if hmac.compare_digest(given.encode("utf-8"), self._expected):
            return Caller("token")
        return None

    async def scopes(self, engine: AsyncEngine, caller: Caller) -> ScopeSet:
        """The scopes `caller` may see and change: every page and action works inside these.
        One token opens every scope in the file."""
        return await engine.all_scopes()


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
