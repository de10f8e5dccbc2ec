"""The records of the graph: frozen values with no I/O.

`Node` and `Edge` are what callers write; their ids are derived from their canonical
encoding (worlddb.core.ids) and never assigned. `NodeView` and `EdgeView` are what reads
return: the immutable record plus the mutable projection (validity, transaction time,
world membership, retirement) that the hash does not cover. `is_blank` is the one test of
a text that shows nothing (a memory, a message's content): whitespace and invisible characters
alone (format characters, Unicode's default-ignorables, the Braille blank); `has_invisible`
finds one in a name. No record holds a NUL character (U+0000) in its text, name, metadata,
provenance or edge props: PostgreSQL's text cannot, and both backends refuse it alike
(InvalidInput, `nul_refused`), before anything is written.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from worlddb.core import ids
from worlddb.core.errors import InvalidInput

#: Largest text a node may carry, in characters. Long documents belong in several nodes.
MAX_TEXT_CHARS = 32_000
MAX_NAME_CHARS = 512
MAX_META_BYTES = 16_384
#: the node types that hold one text a reader gets back: what recall and the text index (FTS
#: rows, vectors) work with
TEXT_TYPES = ("Memory", "Turn", "Summary")
#: the text nodes a caller writes (memories and conversation turns): what memory_list lists,
#: memory_list_scopes, memory_retire_all and memory_purge_scope count, and memory_amend replaces.
#: A Summary is the consolidator's, derived from them and rewritten by it.
MEMORY_TYPES = ("Memory", "Turn")
#: matched whole (fullmatch): "$" also matches before a final newline
_TYPE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,63}")


_EMPTY: Mapping[str, Any] = MappingProxyType({})


class _cached:
    """A computed attribute, stored on the instance at first use. functools.cached_property
    does the same but (until Python 3.12) takes a lock on every first use - a cost paid per
    record on the write path, for records that are never shared between threads while
    being made."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.fn(instance)
        return value


#: the frozen form of small flat mappings seen lately (edge props such as {"role": "mention"}
#: repeat across many records): (key, type, value) triples -> the read-only mapping
_FLAT: dict[tuple, Mapping[str, Any]] = {}
_FLAT_MAX = 4_096
_SCALARS = (str, int, bool, type(None))  # not float: 0.0 and -0.0 are equal but encode apart


def _frozen(mapping: Mapping[str, Any] | None, what: str) -> Mapping[str, Any]:
    if mapping is None:
        return _EMPTY
    if type(mapping) is not dict and not isinstance(mapping, Mapping):
        raise InvalidInput(f"{what} must be a JSON object")
    if not mapping:
        return _EMPTY
    key = None
    if type(mapping) is dict and len(mapping) <= 4:
        # types in the key: True and 1 are equal (and hash alike) but encode differently
        items = tuple((k, type(v), v) for k, v in mapping.items())
        if all(type(k) is str and t in _SCALARS for k, t, _ in items):
            key = items
            found = _FLAT.get(key)
            if found is not None:
                return found
    normal = ids.normalize(mapping)
    if _holds_nul(normal):
        raise InvalidInput(nul_refused(what))
    if _size_bound(normal) > MAX_META_BYTES and len(ids.canonical_normal(normal)) > MAX_META_BYTES:
        raise InvalidInput(f"{what} is larger than {MAX_META_BYTES} bytes once encoded")
    frozen = MappingProxyType(normal)
    if key is not None:
        if len(_FLAT) >= _FLAT_MAX:
            _FLAT.clear()
        _FLAT[key] = frozen
    return frozen


def nul_refused(what: str) -> str:
    """The one wording of a text refused for holding a NUL character, on every backend."""
    return f"{what} contains a NUL character (U+0000), which is never stored"


def _holds_nul(value: Any) -> bool:
    """Whether a normalised value (a string, or a mapping or list of them, keys included)
    holds a NUL character."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any("\x00" in key or _holds_nul(item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return any(_holds_nul(item) for item in value)
    return False


def _size_bound(normal: dict) -> int:
    """An upper bound of the encoded size of a flat mapping of scalars (JSON escapes a
    character into at most 6 bytes); anything nested gets no bound, only the exact size."""
    total = 2
    for key, value in normal.items():
        if isinstance(value, str):
            total += 6 * len(value) + 3
        elif value is None or isinstance(value, bool):
            total += 5
        elif isinstance(value, int):
            total += value.bit_length() // 3 + 2  # decimal digits <= bits / 3.32, plus a sign
        else:
            return MAX_META_BYTES + 1
        total += 6 * len(key) + 4
    return total


#: id() of a frozen props mapping -> (the mapping, its canonical JSON); the mapping is held,
#: so its id is not reused while it is here
_PROPS_JSON: dict[int, tuple[Mapping[str, Any], str]] = {}

#: type names already checked (there are few)
_TYPE_NAMES: set[str] = set()


def check_type_name(value: str, what: str = "type") -> str:
    if type(value) is str and value in _TYPE_NAMES:
        return value
    if not isinstance(value, str) or not _TYPE_RE.fullmatch(value):
        raise InvalidInput(
            f"{what} {value!r} must start with a letter and use at most 64 letters, digits or _.:-"
        )
    if len(_TYPE_NAMES) < 4_096:
        _TYPE_NAMES.add(value)
    return value


#: what shows nothing though it is no whitespace: Unicode's Default_Ignorable_Code_Point
#: (DerivedCoreProperties.txt: format characters, the combining grapheme joiner U+034F, the Hangul
#: fillers U+115F, U+1160, U+3164, U+FFA0, Khmer's inherent vowels U+17B4-5, variation selectors,
#: tags, and the code points reserved among them), and U+2800 BRAILLE PATTERN BLANK, shown as a space
_INVISIBLE_RANGES = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800),
                     (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
                     (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
INVISIBLE = frozenset(chr(c) for lo, hi in _INVISIBLE_RANGES for c in range(lo, hi + 1))


def is_invisible(char: str) -> bool:
    """Whether one character shows nothing and is no whitespace: a format character (Unicode
    category Cf: zero-width spaces and joiners, the byte order mark, direction marks and
    overrides) or another of INVISIBLE (variation selectors, Hangul fillers, the Braille blank)."""
    return char in INVISIBLE or unicodedata.category(char) == "Cf"


def is_blank(text: str) -> bool:
    """Whether `text` shows nothing: it holds only whitespace and invisible characters
    (`is_invisible`), which `str.strip` keeps. Only the test: a text that is not blank is stored
    as it was given."""
    return all(c.isspace() or is_invisible(c) for c in text)


def has_invisible(name: str) -> bool:
    """Whether a name (a scope id) holds a character that shows nothing (`is_invisible`): two
    names that read the same would be two scopes, and a direction override makes one read as
    another."""
    return any(is_invisible(c) for c in name)


def has_control(name: str) -> bool:
    """Whether a name (of an entity, a speaker) holds a control character (Unicode category Cc:
    a NUL, an escape, U+0085 NEXT LINE, U+009B) or a line or paragraph separator: a name is one
    line of text, and PostgreSQL stores no NUL."""
    return any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in name)


@dataclass(frozen=True, eq=False)
class Node:
    """A node as written: its genesis record. `id` is also its stable anchor."""

    type: str
    content: str = ""
    name: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)
    provenance: Mapping[str, Any] = field(default_factory=dict)
    created_at: int = 0

    def __post_init__(self) -> None:
        check_type_name(self.type)
        if not isinstance(self.content, str) or not isinstance(self.name, str):
            raise InvalidInput("name and content must be strings")
        if len(self.content) > MAX_TEXT_CHARS:
            raise InvalidInput(f"text is {len(self.content)} characters; the limit is {MAX_TEXT_CHARS}")
        if len(self.name) > MAX_NAME_CHARS:
            raise InvalidInput(f"name is {len(self.name)} characters; the limit is {MAX_NAME_CHARS}")
        if isinstance(self.created_at, bool) or not isinstance(self.created_at, int):
            raise InvalidInput("created_at must be integer microseconds")
        if "\x00" in self.content or "\x00" in self.name:
            raise InvalidInput(nul_refused("text" if "\x00" in self.content else "name"))
        object.__setattr__(self, "content", ids.normalize(self.content))
        object.__setattr__(self, "name", ids.normalize(self.name))
        object.__setattr__(self, "meta", _frozen(self.meta, "metadata"))
        object.__setattr__(self, "provenance", _frozen(self.provenance, "provenance"))

    @_cached
    def record(self) -> bytes:
        """What the store keeps of the genesis record: its canonical bytes without the
        empty interior (ids.genesis_record). Every field was normalised when the node was
        made, so the record is written out directly."""
        return ids.genesis_record(type=self.type, name=self.name, content=self.content, meta=self.meta,
                                  provenance=self.provenance, created_at=self.created_at)

    @_cached
    def body(self) -> bytes:
        """The canonical bytes of the genesis record (empty interior), which its id hashes."""
        return ids.genesis_body(self.record)

    @_cached
    def id(self) -> str:
        return ids.node_id(self.body)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    @classmethod
    def from_body(cls, body: bytes) -> Node:
        record = json.loads(body)
        return cls(
            type=record["type"],
            content=record["content"],
            name=record["name"],
            meta=record["meta"],
            provenance=record["prov"],
            created_at=record["created_at"],
        )


#: the props of a same_as edge once an end is erased: the evidence it quoted (the names
#: compared) is content of the erased node. The edge keeps its id; verify counts it as a tombstone.
ERASED_PROPS = '{"erased":true}'


@dataclass(frozen=True, eq=False)
class Edge:
    """A typed, directed relation between two anchors, optionally inside a world."""

    type: str
    src: str
    dst: str
    world: str | None = None
    props: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_type_name(self.type, "edge type")
        for end in (self.src, self.dst) + ((self.world,) if self.world is not None else ()):
            if not isinstance(end, str) or not ids.is_full_id(end):
                raise InvalidInput(f"edge endpoint {end!r} is not a full 64-character id")
        object.__setattr__(self, "props", _frozen(self.props, "edge props"))

    @_cached
    def props_json(self) -> str:
        """The canonical JSON of the props, as the store keeps them."""
        if not self.props:
            return "{}"
        found = _PROPS_JSON.get(id(self.props))
        if found is not None and found[0] is self.props:
            return found[1]  # the same frozen mapping (_FLAT) as an edge made before
        text = ids.props_json(self.props)
        if len(_PROPS_JSON) >= _FLAT_MAX:
            _PROPS_JSON.clear()
        _PROPS_JSON[id(self.props)] = (self.props, text)
        return text

    @_cached
    def body(self) -> bytes:
        # type and ends are checked ASCII, props normalised in __post_init__
        return ids.edge_body_of(type=self.type, src=self.src, dst=self.dst, world=self.world,
                                props_json=self.props_json)

    @_cached
    def id(self) -> str:
        return ids.edge_id(self.body)

    @property
    def inferred(self) -> bool:
        return bool(self.props.get("inferred"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Edge) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    @classmethod
    def from_body(cls, body: bytes) -> Edge:
        record = json.loads(body)
        return cls(type=record["type"], src=record["src"], dst=record["dst"], world=record["world"],
                   props=record["props"])

    @classmethod
    def stored(cls, edge_id: bytes, type: str, src: str, dst: str, world: str | None, props_json: str | None
               ) -> Edge:
        """An edge as the store holds it: its columns, taken as written (they were checked
        then), with its id from the row rather than hashed again."""
        edge = object.__new__(cls)
        props = json.loads(props_json) if props_json else None
        for name, value in (("type", type), ("src", src), ("dst", dst), ("world", world),
                            ("props", MappingProxyType(props) if props else _EMPTY)):
            object.__setattr__(edge, name, value)
        edge.__dict__["props_json"] = props_json or "{}"
        edge.__dict__["id"] = edge_id.hex()
        return edge


@dataclass(frozen=True)
class NodeView:
    """A node as read: the record plus its projection. Times are microseconds (UTC)."""

    anchor: str
    version: str
    type: str
    name: str
    content: str | None  # None once erased
    meta: Mapping[str, Any]
    provenance: Mapping[str, Any]
    created_at: int
    valid_from: int
    valid_to: int | None
    t_ingested: int
    parent: str | None
    retired_at: int | None
    retire_reason: str | None
    n_children: int
    n_edges: int
    erased: bool = False

    @property
    def id(self) -> str:
        return self.anchor

    def valid_at(self, t: int) -> bool:
        return self.valid_from <= t and (self.valid_to is None or t < self.valid_to)

    @property
    def retired(self) -> bool:
        return self.retired_at is not None


@dataclass(frozen=True)
class EdgeView:
    """An edge as read: the record plus when it was added/removed and its valid time."""

    edge: Edge
    t_added: int
    t_removed: int | None
    valid_from: int | None
    valid_to: int | None

    @property
    def id(self) -> str:
        return self.edge.id

    @property
    def type(self) -> str:
        return self.edge.type

    @property
    def src(self) -> str:
        return self.edge.src

    @property
    def dst(self) -> str:
        return self.edge.dst

    @property
    def world(self) -> str | None:
        return self.edge.world

    @property
    def props(self) -> Mapping[str, Any]:
        return self.edge.props

    def live_at(self, known_at: int | None) -> bool:
        """Whether the store held this edge at transaction time `known_at` (None: now)."""
        if known_at is None:
            return self.t_removed is None
        return self.t_added <= known_at and (self.t_removed is None or known_at < self.t_removed)

    def valid_at(self, t: int | None) -> bool:
        if t is None:
            return self.valid_to is None
        lo_ok = self.valid_from is None or self.valid_from <= t
        return lo_ok and (self.valid_to is None or t < self.valid_to)
