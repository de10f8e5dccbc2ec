"""OAuth 2.1 resource server: JWT access tokens from an authorization server, as the MCP
authorization specification asks of an MCP server.

    settings = OAuthSettings(issuer="https://login.example.com", resource="https://memory.example.com/mcp",
                             jwks="https://login.example.com/.well-known/jwks.json", claim="scope")
    JwtVerifier(settings).verify(token)     # -> Access, or None for any token not good here

A token is accepted only if all of these hold (PyJWT does every check; nothing here is
cryptography):
- its header names an asymmetric algorithm (RS*, PS*, ES*, EdDSA) - never ``none``, never
  an HMAC one, which would let a published public key sign tokens;
- its signature verifies against the key of its ``kid`` in the configured JWKS (a file, or
  a URL fetched with PyJWT's client and cached; an unknown ``kid`` refetches it, at most
  every `REFETCH_SECS`), with that key's own algorithm;
- ``iss`` is the configured issuer, ``aud`` names this server's resource URL, ``exp`` is in
  the future and ``nbf`` (if present) in the past, both within `OAuthSettings.leeway`;
  ``exp``, ``iss``, ``aud`` and ``sub`` are all present.

The principal is ``oauth:<sub>``. Its grants come from one claim (``scope`` by default; a
dotted name reaches into nested objects, e.g. ``realm_access.roles``): a space-separated
string or a list, in which each entry that is a WorldDB grant (``user:alice``, ``agent:*``,
``*``) is one, the entry ``admin`` confers purging, and anything else (``openid``, ``email``)
is ignored. A valid token granting nothing is admitted and sees nothing.

Never logged: the token, or any claim but the subject.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt

from worlddb.core.errors import InvalidInput
from worlddb.memory.access import Access, parse_grant

log = logging.getLogger("worlddb.server")

#: the algorithms a token may be signed with: asymmetric only
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
#: the key type each algorithm needs
_KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}
#: an unknown kid refetches a JWKS URL at most this often
REFETCH_SECS = 30.0
#: the claim entry that allows memory_purge_scope
ADMIN = "admin"


@dataclass(frozen=True)
class OAuthSettings:
    """Where tokens come from and what they must say.

    :param issuer: the authorization server (the ``iss`` every token must carry).
    :param resource: this server's URL as clients reach it, e.g. ``https://memory.example.com/mcp``:
        the audience every token must name, and the ``resource`` of the metadata document.
    :param jwks: the issuer's signing keys: a JSON Web Key Set file, or its ``http(s)`` URL.
    :param claim: the claim that lists the grants (default ``scope``).
    :param leeway: seconds of clock skew allowed on ``exp`` and ``nbf``.
    """

    issuer: str
    resource: str
    jwks: str
    claim: str = "scope"
    leeway: float = 30.0

    @property
    def jwks_is_url(self) -> bool:
        return self.jwks.startswith(("https://", "http://"))


def grants_from_claim(value: Any) -> tuple[tuple[str, ...], bool]:
    """(grants, admin) from the configured claim's value; entries that are not WorldDB
    grants are ignored."""
    if isinstance(value, str):
        items = value.split()
    elif isinstance(value, list):
        items = [item for item in value if isinstance(item, str)]
    else:
        items = []
    grants = []
    for item in items:
        try:
            grants.append(parse_grant(item))
        except InvalidInput:
            continue
    return tuple(grants), ADMIN in items


class JwtVerifier:
    """Checks JWT access tokens against `OAuthSettings`; see the module docstring."""

    def __init__(self, settings: OAuthSettings):
        self.settings = settings
        base = settings.resource.rstrip("/")
        self._audiences = [base, base + "/"]
        issuer = settings.issuer.rstrip("/")
        self._issuers = [issuer, issuer + "/"]
        self._lock = threading.Lock()
        self._keys: list[dict] | None = None
        self._fetched = 0.0
        self._client = jwt.PyJWKClient(settings.jwks, cache_jwk_set=False, timeout=10) if settings.jwks_is_url \
            else None
        if self._client is None:
            self._keys = self._read_file()  # a missing or broken file fails at start, not at the first call

    def verify(self, token: str) -> Access | None:
        """The caller's Access if `token` is good here, else None. Blocking (it may fetch
        the JWKS): call it off the event loop."""
        try:
            header = jwt.get_unverified_header(token)
            alg = header.get("alg")
            if alg not in ALGORITHMS:
                return None
            key = self._key(header.get("kid"), alg)
            if key is None:
                return None
            claims = jwt.decode(token, key=key, algorithms=[alg], audience=self._audiences, issuer=self._issuers,
                                leeway=self.settings.leeway,
                                options={"require": ["exp", "iss", "aud", "sub"], "verify_signature": True})
        except (jwt.PyJWTError, ValueError, TypeError):
            return None
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            return None
        grants, admin = grants_from_claim(_claim(claims, self.settings.claim))
        return Access(f"oauth:{subject}", grants, admin)

    # ------------------------------------------------------------------ keys
    def _key(self, kid: Any, alg: str) -> jwt.PyJWK | None:
        found = self._find(self._current_keys(), kid)
        if found is None and self._client is not None and time.monotonic() - self._fetched > REFETCH_SECS:
            found = self._find(self._current_keys(refresh=True), kid)  # the issuer may have rotated its keys
        if found is None:
            return None
        kty = _KEY_TYPES.get(alg[:2])
        if found.get("kty") != kty or found.get("alg", alg) != alg or found.get("use", "sig") != "sig":
            return None
        return jwt.PyJWK(found, algorithm=alg)

    @staticmethod
    def _find(keys: list[dict], kid: Any) -> dict | None:
        usable = [k for k in keys if isinstance(k, dict) and k.get("kty") in ("RSA", "EC", "OKP")]
        if kid is None:
            return usable[0] if len(usable) == 1 else None
        return next((k for k in usable if k.get("kid") == kid), None)

    def _current_keys(self, refresh: bool = False) -> list[dict]:
        with self._lock:
            if self._client is not None and (self._keys is None or refresh):
                self._fetched = time.monotonic()
                try:
                    self._keys = _keys_of(self._client.fetch_data())
                except (jwt.PyJWTError, ValueError) as exc:
                    log.warning("fetching the JWKS from %s failed: %s", self.settings.jwks, exc)
                    return self._keys or []
            return self._keys or []

    def _read_file(self) -> list[dict]:
        try:
            return _keys_of(json.loads(Path(self.settings.jwks).read_text()))
        except (OSError, ValueError) as exc:
            raise InvalidInput(f"cannot read the JWKS file {self.settings.jwks}: {exc}") from exc


def _keys_of(document: Any) -> list[dict]:
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise ValueError("a JWKS is a JSON object with a list of keys")
    return document["keys"]


def _claim(claims: dict, name: str) -> Any:
    value: Any = claims
    for part in name.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


__all__ = ["ALGORITHMS", "JwtVerifier", "OAuthSettings", "grants_from_claim"]
