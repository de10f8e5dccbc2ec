"""Identity: the canonical encoding of nodes and edges, and every hash WorldDB derives.

All ids are blake3-256, written as 64 lowercase hex characters. Each hash is
domain-separated by a tag, so a node, an edge and a trie node can never share an id:

    node id    = blake3(b"worlddb.node.v1\\0"   + canonical(node record))
    edge id    = blake3(b"worlddb.edge.v1\\0"   + canonical(edge record))
    trie leaf  = blake3(b"worlddb.leaf.v1\\0"   + the sorted member ids, 32 raw bytes each)
    trie node  = blake3(b"worlddb.branch.v1\\0" + the 16 child digests, 32 raw bytes each)
    proposal   = blake3(b"worlddb.proposal.v1\\0" + "<same_as edge id>:<transaction seq>")
    summary    = blake3(b"worlddb.summary.v1\\0" + canonical({"world": version, "summarized": anchors}))
    erased world version
               = blake3(b"worlddb.erased.v1\\0"  + canonical({"after": previous version id,
                                                              "children": {...}, "edges": {...}}))

The canonical form of a record is JSON with sorted keys, no insignificant whitespace,
UTF-8, non-ASCII characters kept literal, every string (keys included) in Unicode NFC,
integers as integers, finite floats in Python's shortest round-trip form, and no NaN or
infinity. Two records that differ only in dict order or Unicode normalisation encode to
the same bytes; any change to a covered field changes the bytes.

A node record covers: type, name, content, meta, provenance, created_at (microseconds
since the Unix epoch, UTC) and its interior - the Merkle roots and sizes of its set of
child ids and its set of interior edge ids (see worlddb.core.trie). A node's *genesis* record
has an empty interior; the genesis id is the node's stable anchor. Every later state of a
world's interior yields a new *version* id from the same record with new roots. Once a
world's record is erased there is no record to re-encode, so each later state of its
interior is named from the version before it and the new roots instead: still a hash
that commits to the interior, and to the world's history up to the erasure.

An edge record covers: type, src, dst (anchors), world (the anchor whose interior holds
it, or null) and props. It deliberately leaves out time, so asserting the same edge
twice is idempotent.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from blake3 import blake3

from worlddb.core.errors import InvalidInput

ENCODING_VERSION = 1
HEX_LEN = 64

_NODE_TAG = b"worlddb.node.v1\x00"
_EDGE_TAG = b"worlddb.edge.v1\x00"
_LEAF_TAG = b"worlddb.leaf.v1\x00"
_BRANCH_TAG = b"worlddb.branch.v1\x00"
_PROPOSAL_TAG = b"worlddb.proposal.v1\x00"
_FINGERPRINT_TAG = b"worlddb.summary.v1\x00"
_ERASED_TAG = b"worlddb.erased.v1\x00"
_HEX = frozenset("0123456789abcdef")
_FULL_ID = re.compile(r"[0-9a-f]{64}")


def normalize(value: Any, _depth: int = 0) -> Any:
    """Return the canonical JSON-able form of `value`, or raise InvalidInput.

    Strings become NFC; mappings get string keys (NFC) and lose their order;
    tuples become lists. Anything JSON cannot represent exactly is refused.
    """
    if _depth > 32:
        raise InvalidInput("value is nested more than 32 levels deep")
    kind = type(value)
    if kind is str:  # the common cases first, by exact type (isinstance on ABCs is slow)
        return _nfc(value)
    if kind is int or kind is bool or value is None:
        return value
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _nfc(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput("NaN and infinity have no canonical encoding")
        return value
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidInput(f"mapping keys must be strings, got {type(key).__name__}")
            norm_key = _nfc(key)
            if norm_key in out:
                raise InvalidInput(f"key {key!r} appears twice after Unicode normalisation")
            out[norm_key] = normalize(item, _depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [normalize(item, _depth + 1) for item in value]
    raise InvalidInput(f"{type(value).__name__} values cannot be stored; use JSON types")


def _nfc(text: str) -> str:
    if text.isascii():
        return text  # ASCII is NFC, and has no surrogates
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput("text is not valid Unicode (it contains a lone surrogate)") from exc
    return unicodedata.normalize("NFC", text)


def canonical(record: Any) -> bytes:
    """The canonical bytes of a JSON-able record (normalised first)."""
    return json.dumps(
        normalize(record),
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
        allow_nan=False,
    ).encode("utf-8")


_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


def canonical_normal(record: Any) -> bytes:
    """`canonical` of a record already in normal form (the output of `normalize`, or
    built only from such parts): the same bytes, without walking the record again."""
    return _ENCODER.encode(record).encode("utf-8")


_quote = json.encoder.encode_basestring  # what json.dumps(ensure_ascii=False) writes for a str


def node_body(*, type: str, name: str, content: str, meta: Mapping[str, Any], provenance: Mapping[str, Any],
              created_at: int) -> bytes:
    """`canonical(node_record(...))` of a genesis record (empty interior), written out
    directly. Every argument must already be in normal form and `type` a checked type
    name (ASCII letters, digits and _.:-, which JSON writes as they are). Keys in sorted
    order: children, content, created_at, edges, meta, name, prov, type, v."""
    return genesis_body(genesis_record(type=type, name=name, content=content, meta=meta, provenance=provenance,
                                       created_at=created_at))


def genesis_record(*, type: str, name: str, content: str, meta: Mapping[str, Any], provenance: Mapping[str, Any],
                   created_at: int) -> bytes:
    """What the store keeps of a genesis record: its canonical bytes without the empty
    interior (the same two entries in every genesis record). `genesis_body` puts them
    back; JSON readers see the record's fields either way."""
    return (
        f'{{"content":{_quote(content)},"created_at":{int.__repr__(created_at)},"meta":{_mapping(meta)},'
        f'"name":{_quote(name)},"prov":{_mapping(provenance)},"type":"{type}","v":{ENCODING_VERSION}}}'
    ).encode()


_META_KEY = b',"meta":'
_CHILDREN_ENTRY = b'{"children":'


def genesis_body(record: bytes) -> bytes:
    """The canonical genesis record (what a node id hashes) from what `genesis_record`
    stored. The interior entries go back at their sorted places: "children" first, and
    "edges" before "meta" - whose first `,"meta":` is the key itself, since only the
    content string and created_at come before it and a JSON string holds no bare quote.
    Bytes already holding an interior are returned as they are."""
    if record.startswith(_CHILDREN_ENTRY):
        return record
    at = record.find(_META_KEY)
    if not record.startswith(b"{") or at < 0:
        return record  # not a stored genesis record: left for the hash check to refuse
    return b"".join((_CHILDREN_ENTRY, _EMPTY_INTERIOR_BYTES, b",", record[1:at], b',"edges":',
                     _EMPTY_INTERIOR_BYTES, record[at:]))


def edge_body(*, type: str, src: str, dst: str, world: str | None, props: Mapping[str, Any]) -> bytes:
    """`canonical(edge_record(...))`, written out directly; the ends are checked hex ids,
    `type` a checked type name and `props` in normal form. Keys in sorted order: dst,
    props, src, type, v, world."""
    return edge_body_of(type=type, src=src, dst=dst, world=world, props_json=props_json(props))


def edge_body_of(*, type: str, src: str, dst: str, world: str | None, props_json: str) -> bytes:
    """`edge_body` from the canonical JSON of the props (`props_json`), as the store keeps
    them: an edge's id re-derives from its row without parsing anything."""
    where = "null" if world is None else f'"{world}"'
    return (f'{{"dst":"{dst}","props":{props_json},"src":"{src}","type":"{type}",'
            f'"v":{ENCODING_VERSION},"world":{where}}}').encode()


def props_json(value: Mapping[str, Any]) -> str:
    """The canonical JSON of props (or meta) already in normal form."""
    return _mapping(value)


def _mapping(value: Mapping[str, Any]) -> str:
    return "{}" if not value else _ENCODER.encode(dict(value))


def node_record(
    *,
    type: str,
    name: str,
    content: str,
    meta: Mapping[str, Any],
    provenance: Mapping[str, Any],
    created_at: int,
    children_root: str,
    n_children: int,
    edges_root: str,
    n_edges: int,
) -> dict[str, Any]:
    """The record whose canonical bytes name a node (genesis or a world version)."""
    return {
        "v": ENCODING_VERSION,
        "type": type,
        "name": name,
        "content": content,
        "meta": meta,
        "prov": provenance,
        "created_at": created_at,
        "children": {"root": children_root, "n": n_children},
        "edges": {"root": edges_root, "n": n_edges},
    }


def edge_record(
    *, type: str, src: str, dst: str, world: str | None, props: Mapping[str, Any]
) -> dict[str, Any]:
    return {"v": ENCODING_VERSION, "type": type, "src": src, "dst": dst, "world": world, "props": props}


def node_id(body: bytes) -> str:
    return blake3(_NODE_TAG + body).hexdigest()


def edge_id(body: bytes) -> str:
    return blake3(_EDGE_TAG + body).hexdigest()


def proposal_id(edge_id: str, seq: int) -> str:
    """A merge proposal is named by the same_as edge that staged it and its transaction."""
    return blake3(_PROPOSAL_TAG + f"{edge_id}:{seq}".encode()).hexdigest()


def summary_fingerprint(version: str, summarized) -> str:
    """What a consolidator summary stands for: the world's version id and the sorted
    anchors whose text it used (so validity changes alone also change it)."""
    record = canonical({"world": version, "summarized": sorted(set(summarized))})
    return blake3(_FINGERPRINT_TAG + record).hexdigest()


def leaf_digest(sorted_members: list[bytes]) -> bytes:
    return blake3(_LEAF_TAG + b"".join(sorted_members)).digest()


def branch_digest(children: list[bytes]) -> bytes:
    return blake3(_BRANCH_TAG + b"".join(children)).digest()


EMPTY_ROOT: bytes = leaf_digest([])
EMPTY_ROOT_HEX: str = EMPTY_ROOT.hex()
_EMPTY_INTERIOR = f'{{"n":0,"root":"{EMPTY_ROOT_HEX}"}}'
_EMPTY_INTERIOR_BYTES = _EMPTY_INTERIOR.encode()


def with_interior(body: bytes, children_root: str, n_children: int, edges_root: str, n_edges: int) -> bytes:
    """Re-encode a stored node body with another interior: how versions are derived."""
    record = json.loads(body)
    record["children"] = {"root": children_root, "n": n_children}
    record["edges"] = {"root": edges_root, "n": n_edges}
    return canonical(record)


def erased_version_id(previous: str, children_root: str, n_children: int, edges_root: str, n_edges: int) -> str:
    """The version id of an erased world's interior (see the module docstring)."""
    record = {"after": previous, "children": {"root": children_root, "n": n_children},
              "edges": {"root": edges_root, "n": n_edges}}
    return blake3(_ERASED_TAG + canonical_normal(record)).hexdigest()


def is_full_id(text: str) -> bool:
    return _FULL_ID.fullmatch(text) is not None


def check_prefix(text: str, min_len: int = 8) -> str:
    """Validate an id or id prefix given by a caller; returns it lower-cased."""
    if not isinstance(text, str):
        raise InvalidInput("an id must be a string of hex characters")
    lowered = text.strip().lower()
    if not lowered or not set(lowered) <= _HEX:
        raise InvalidInput(f"{text!r} is not an id: ids are hex strings")
    if len(lowered) > HEX_LEN:
        raise InvalidInput(f"{text!r} is longer than a {HEX_LEN}-character id")
    if len(lowered) < min_len:
        raise InvalidInput(f"an id prefix needs at least {min_len} hex characters, got {len(lowered)}")
    return lowered
