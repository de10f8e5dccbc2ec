"""OAuth 2.1 resource server: JWT access tokens checked against the issuer's keys.

Keys are made here (cryptography), published as a JWKS file or served on loopback, and
tokens signed with PyJWT. The server is the real one on a loopback port; its resource URL
is the public one a proxy would give it. Every bad token - expired, not yet valid, for
another audience or from another issuer, forged, unsigned (alg=none), HMAC-signed with the
public key - gets 401 with a WWW-Authenticate header naming the metadata document, and
changes nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from bench.serverproc import call, call_error
from worlddb.server import OAuthSettings
from worlddb.server import oauth as oauth_module
from worlddb.server.oauth import JwtVerifier, grants_from_claim

from .helpers import client_with, dump, make_config, serving

ISSUER = "https://login.example.com"
RESOURCE = "https://memory.example.com/mcp"
METADATA = "https://memory.example.com/.well-known/oauth-protected-resource/mcp"
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2025-06-18"}
WRITE = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "memory_write", "arguments": {"text": "a write that must not land", "user_id": "alice"}}}

RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
EC_KEY = ec.generate_private_key(ec.SECP256R1())
OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def jwk(key, kid: str, alg: str) -> dict:
    algorithm = jwt.algorithms.RSAAlgorithm if alg.startswith(("RS", "PS")) else jwt.algorithms.ECAlgorithm
    return {**algorithm.to_jwk(key.public_key(), as_dict=True), "kid": kid, "alg": alg, "use": "sig"}


JWKS = {"keys": [jwk(RSA_KEY, "rsa-1", "RS256"), jwk(EC_KEY, "ec-1", "ES256")]}


def claims(**changes) -> dict:
    now = int(time.time())
    base = {"iss": ISSUER, "aud": RESOURCE, "sub": "alice@example.com", "iat": now, "nbf": now - 10,
            "exp": now + 600, "scope": "openid email user:alice"}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def sign(payload: dict, key=RSA_KEY, kid: str = "rsa-1", alg: str = "RS256") -> str:
    return jwt.encode(payload, key, algorithm=alg, headers={"kid": kid})


def unsigned(payload: dict) -> str:
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'typ': 'JWT', 'kid': 'rsa-1'})}.{part(payload)}."


def hmac_with_public_key(payload: dict) -> str:
    """The algorithm-confusion forgery: HS256 keyed with the published public key."""
    public = RSA_KEY.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    header = base64.urlsafe_b64encode(json.dumps({"alg": "HS256", "kid": "rsa-1"}).encode()).rstrip(b"=")
    body = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=")
    signature = base64.urlsafe_b64encode(hmac.new(public, header + b"." + body, hashlib.sha256).digest()).rstrip(b"=")
    return (header + b"." + body + b"." + signature).decode()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    directory = tmp_path_factory.mktemp("oauth")
    jwks = directory / "jwks.json"
    jwks.write_text(json.dumps(JWKS))
    db = directory / "memory.db"
    settings = OAuthSettings(issuer=ISSUER, resource=RESOURCE, jwks=str(jwks))
    with serving(make_config(db, default_user=None), oauth=settings) as url:
        yield url, db


def test_the_protected_resource_metadata_document_is_served_to_anyone(guarded):
    url, _ = guarded
    base = url.removesuffix("/mcp")
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        response = httpx2.get(base + path, timeout=10)
        assert response.status_code == 200, path
        document = response.json()
        assert document["resource"] == RESOURCE
        assert document["authorization_servers"] == [ISSUER]
        assert document["bearer_methods_supported"] == ["header"]


async def test_a_valid_token_opens_exactly_the_scopes_its_claim_grants(guarded):
    url, db = guarded
    async with client_with(url, sign(claims())) as alice:
        written = await call(alice, "memory_write", text="Alice's locker is number 42", user_id="alice")
        assert written["scopes"] == ["user:alice"]
        assert (await call(alice, "memory_read", id=written["id"], user_id="alice"))["text"] == \
            "Alice's locker is number 42"
        before = dump(db)
        assert await call_error(alice, "memory_recall", query="locker", user_id="bob") == \
            "memory_recall: no scope user:bob exists"
        assert "admin grant" in await call_error(alice, "memory_purge_scope", user_id="alice", confirm="user:alice")
        assert dump(db) == before
    async with client_with(url, sign(claims(scope="user:alice admin", sub="ops"), key=EC_KEY, kid="ec-1",
                                         alg="ES256")) as admin:
        assert (await call(admin, "memory_list_scopes"))["scopes"][0]["key"] == "user:alice"
        assert (await call(admin, "memory_purge_scope", user_id="alice", confirm="user:alice"))["retired"] >= 1


@pytest.mark.parametrize("make", [
    lambda: sign(claims(exp=int(time.time()) - 3600, nbf=int(time.time()) - 7200)),
    lambda: sign(claims(nbf=int(time.time()) + 3600)),
    lambda: sign(claims(aud="https://other.example.com/mcp")),
    lambda: sign(claims(iss="https://evil.example.com")),
    lambda: sign(claims(), key=OTHER_KEY),
    lambda: unsigned(claims()),
    lambda: hmac_with_public_key(claims()),
    lambda: sign(claims(exp=None)),
    lambda: sign(claims(sub=None)),
    lambda: sign(claims(), kid="unknown-kid"),
    lambda: sign(claims(), key=EC_KEY, kid="rsa-1", alg="ES256"),
    lambda: sign(claims())[:-4] + "AAAA",
    lambda: "not.a.jwt",
], ids=["expired", "not-yet-valid", "wrong-audience", "wrong-issuer", "forged-signature", "alg-none",
        "hmac-with-public-key", "no-exp", "no-sub", "unknown-kid", "key-of-another-type", "tampered", "garbage"])
def test_bad_tokens_get_401_pointing_at_the_metadata_and_change_nothing(guarded, make):
    url, db = guarded
    before = dump(db)
    response = httpx2.post(url, json=WRITE, headers={**HEADERS, "authorization": f"Bearer {make()}"}, timeout=10)
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and f'resource_metadata="{METADATA}"' in challenge
    assert dump(db) == before


def test_without_any_token_the_401_names_the_metadata_document(guarded):
    url, _ = guarded
    response = httpx2.post(url, json=WRITE, headers=HEADERS, timeout=10)
    assert response.status_code == 401
    assert f'resource_metadata="{METADATA}"' in response.headers["www-authenticate"]


class _Jwks(BaseHTTPRequestHandler):
    document: dict = {"keys": []}

    def do_GET(self):
        body = json.dumps(type(self).document).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


async def test_keys_from_the_issuers_jwks_url_and_a_rotated_key_is_picked_up(tmp_path, monkeypatch):
    handler = type("Jwks", (_Jwks,), {"document": {"keys": [jwk(RSA_KEY, "rsa-1", "RS256")]}})
    issuer_keys = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=issuer_keys.serve_forever, daemon=True).start()
    monkeypatch.setattr(oauth_module, "REFETCH_SECS", 0.0)
    try:
        settings = OAuthSettings(issuer=ISSUER, resource=RESOURCE,
                                 jwks=f"http://127.0.0.1:{issuer_keys.server_address[1]}/jwks.json")
        with serving(make_config(tmp_path / "memory.db", default_user=None), oauth=settings) as url:
            async with client_with(url, sign(claims())) as alice:
                assert (await call(alice, "memory_list_scopes"))["scopes"] == []
            rotated = sign(claims(), key=OTHER_KEY, kid="rsa-2")
            assert httpx2.post(url, json=WRITE, headers={**HEADERS, "authorization": f"Bearer {rotated}"},
                               timeout=10).status_code == 401
            handler.document = {"keys": [jwk(RSA_KEY, "rsa-1", "RS256"), jwk(OTHER_KEY, "rsa-2", "RS256")]}
            async with client_with(url, rotated) as alice:
                assert (await call(alice, "memory_write", text="after rotation", user_id="alice"))["id"]
    finally:
        issuer_keys.shutdown()
        issuer_keys.server_close()


def test_the_grants_claim_is_configurable_and_ignores_what_is_not_a_grant(tmp_path):
    assert grants_from_claim("openid user:alice agent:* admin") == (("user:alice", "agent:*"), True)
    assert grants_from_claim(["user:bob", 7, "profile"]) == (("user:bob",), False)
    assert grants_from_claim(None) == ((), False)
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(JWKS))
    verifier = JwtVerifier(OAuthSettings(issuer=ISSUER, resource=RESOURCE, jwks=str(jwks), claim="realm.roles"))
    access = verifier.verify(sign(claims(scope=None, realm={"roles": ["user:carol", "offline_access"]})))
    assert access is not None and access.principal == "oauth:alice@example.com"
    assert access.grants == ("user:carol",) and not access.admin
    assert verifier.verify(sign(claims(aud=[RESOURCE, "https://other.example.com"]))) is not None
