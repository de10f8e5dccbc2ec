"""Principals: named bearer tokens and the scopes each is granted, kept in the database file.

    token = add_token(store, "alice-laptop", ["user:alice", "agent:*"])   # shown once
    authenticate(store, token)        # -> Access("alice-laptop", ("user:alice", "agent:*"))
    revoke(store, "alice-laptop")

A token is 32 random bytes from `secrets` (URL-safe text with a ``wdb_`` prefix). Only its
SHA-256 is stored: a token that random needs no slow hash, and a copy of the file gives no
one a working token. A token is looked up by that digest, so comparing it leaks nothing
about stored tokens. Revoking marks the principal revoked: the next request made with its
token is refused, also by a server already running (every request is authenticated against
the file). The row stays, so that revoking the last token does not reopen a server that
had required tokens (`any_token`); adding a token under a revoked name replaces it.

Changes commit in one write transaction of the store (worlddb.core.store), like any other
write; nothing here touches the memory graph.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from worlddb.core.errors import InvalidInput, NotFound
from worlddb.core.store import Store
from worlddb.core.timeutil import now_us, to_iso

from .access import Access

TOKEN_PREFIX = "wdb_"
#: matched whole (fullmatch): "$" also matches before a final newline, so "alice\n" passed and
#: could not be revoked by the name `auth list` showed
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")


@dataclass(frozen=True)
class PrincipalInfo:
    """A principal as `worlddb auth list` shows it (never its token or digest)."""

    name: str
    grants: list[str]
    admin: bool
    created_at: str
    revoked_at: str | None = None


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidInput("a principal's name is 1-64 letters, digits and . _ @ - (starting with a letter "
                           "or digit)")
    return name


def add_token(store: Store, name: str, grants: Sequence[str], *, admin: bool = False) -> str:
    """Create principal `name` with `grants`; returns its token, which is not stored.

    :param grants: scope keys or patterns (``user:alice``, ``agent:*``, ``*``), at least one.
    :param admin: may purge (the scopes it is granted).
    """
    check_name(name)
    canonical = Access(name, tuple(grants), admin).grants
    if not canonical:
        raise InvalidInput("grant at least one scope (--scope user:alice, --scope 'agent:*', --scope '*')")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with store.transaction("auth"):
        row = store.conn.execute("SELECT revoked_at FROM principals WHERE name=?", (name,)).fetchone()
        if row is not None and row[0] is None:
            raise InvalidInput(f"a principal named {name} exists; revoke it first to issue a new token")
        store.conn.execute("INSERT INTO principals(name, token_sha256, grants, admin, created_at) "
                           "VALUES (?,?,?,?,?) ON CONFLICT(name) DO UPDATE SET token_sha256=excluded.token_sha256, "
                           "grants=excluded.grants, admin=excluded.admin, created_at=excluded.created_at, "
                           "revoked_at=NULL", (name, token_digest(token), json.dumps(list(canonical)),
                                               int(admin), now_us()))
    return token


def revoke(store: Store, name: str) -> None:
    """Revoke principal `name`: its token opens nothing from the next request on."""
    with store.transaction("auth"):
        changed = store.conn.execute("UPDATE principals SET revoked_at=? WHERE name=? AND revoked_at IS NULL",
                                     (now_us(), name)).rowcount
        if not changed:
            raise NotFound(f"no principal named {name} holds a token")


def list_principals(store: Store) -> list[PrincipalInfo]:
    """Every principal, revoked ones included."""
    rows = store.conn.execute("SELECT name, grants, admin, created_at, revoked_at FROM principals ORDER BY name")
    return [PrincipalInfo(name=name, grants=json.loads(grants), admin=bool(admin), created_at=to_iso(created),
                          revoked_at=to_iso(revoked) if revoked is not None else None)
            for name, grants, admin, created, revoked in rows]


def any_token(store: Store) -> bool:
    """Whether a principal was ever added (an HTTP server then admits only live tokens)."""
    return store.conn.execute("SELECT 1 FROM principals LIMIT 1").fetchone() is not None


def authenticate(store: Store, token: str) -> Access | None:
    """The Access of the principal holding `token`, or None."""
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
        return None
    row = store.conn.execute("SELECT name, grants, admin FROM principals WHERE token_sha256=? AND revoked_at IS NULL",
                             (token_digest(token),)).fetchone()
    if row is None:
        return None
    name, grants, admin = row
    return Access(name, tuple(json.loads(grants)), bool(admin))


__all__ = ["TOKEN_PREFIX", "PrincipalInfo", "add_token", "any_token", "authenticate", "check_name",
           "list_principals", "revoke", "token_digest"]
