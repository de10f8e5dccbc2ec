"""Canonical encoding: the same logical node always gets the same id; any change does not."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worlddb.core import ids
from worlddb.core.errors import InvalidInput
from worlddb.core.records import Edge, Node

hex_keys = st.binary(min_size=32, max_size=32).map(bytes.hex)

#: a record holds no NUL (refused: tests/core/test_backends.py); every other character is encoded here
no_nul = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
json_scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(no_nul, max_size=20) | st.floats(
    allow_nan=False, allow_infinity=False
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(no_nul, max_size=8), inner, max_size=4),
    max_leaves=12,
)
metas = st.dictionaries(st.text(no_nul, max_size=8), json_values, max_size=5)


def _node(**overrides):
    fields = dict(type="Memory", content="Alice moved to Denver", name="move", meta={"a": 1, "b": [1, 2]},
                  provenance={"scope": ["user:alice"], "tool": "memory_write"}, created_at=1_700_000_000_000_000)
    fields.update(overrides)
    return Node(**fields)


@given(metas)
def test_dict_order_does_not_change_the_id(meta):
    reordered = dict(reversed(list(meta.items())))
    assert _node(meta=meta).id == _node(meta=reordered).id


@given(st.text(no_nul, max_size=30), metas)
def test_unicode_normalisation_does_not_change_the_id(text, meta):
    decomposed = unicodedata.normalize("NFD", text)
    composed = unicodedata.normalize("NFC", text)
    assert _node(content=decomposed, name=decomposed).id == _node(content=composed, name=composed).id
    nfd_meta = {unicodedata.normalize("NFD", k): v for k, v in meta.items()}
    if len(nfd_meta) == len(meta):
        assert _node(meta=nfd_meta).id == _node(meta=meta).id


@given(metas)
def test_record_round_trips_through_its_body(meta):
    node = _node(meta=meta)
    again = Node.from_body(node.body)
    assert again.id == node.id
    assert ids.node_id(node.body) == node.id


@pytest.mark.parametrize(
    "field, value",
    [
        ("type", "Fact"),
        ("content", "Alice moved to Boulder"),
        ("name", "moved"),
        ("meta", {"a": 2, "b": [1, 2]}),
        ("meta", {"a": 1, "b": [2, 1]}),
        ("provenance", {"scope": ["user:bob"], "tool": "memory_write"}),
        ("created_at", 1_700_000_000_000_001),
    ],
)
def test_any_change_to_a_covered_field_changes_the_id(field, value):
    assert _node(**{field: value}).id != _node().id


@given(st.text(no_nul, min_size=1, max_size=40), st.text(no_nul, min_size=1, max_size=40))
def test_distinct_contents_get_distinct_ids(a, b):
    if unicodedata.normalize("NFC", a) != unicodedata.normalize("NFC", b):
        assert _node(content=a).id != _node(content=b).id


def test_ids_are_64_hex_blake3_and_domain_separated():
    node = _node()
    edge = Edge("refers_to", node.id, node.id)
    assert ids.is_full_id(node.id) and ids.is_full_id(edge.id)
    # the same bytes under different tags must never collide
    assert ids.node_id(edge.body) != edge.id
    assert ids.edge_id(node.body) != node.id


def test_edge_identity_covers_ends_type_world_and_props():
    a, b, w = _node().id, _node(content="x").id, _node(content="w").id
    base = Edge("causes", a, b)
    assert Edge("causes", a, b).id == base.id
    for other in (Edge("causes", b, a), Edge("implies", a, b), Edge("causes", a, b, world=w),
                  Edge("causes", a, b, props={"inferred": True})):
        assert other.id != base.id


@pytest.mark.parametrize(
    "bad",
    [
        dict(meta={"x": float("nan")}),
        dict(meta={"x": float("inf")}),
        dict(content="broken \ud800 surrogate"),
        dict(meta={1: "non-string key"}),
        dict(meta={"x": object()}),
        dict(type=""),
        dict(type="has space"),
        dict(content="x" * 32_001),
        dict(created_at=1.5),
    ],
)
def test_unencodable_input_is_refused_clearly(bad):
    with pytest.raises(InvalidInput):
        _node(**bad)


def test_keys_that_collide_after_normalisation_are_refused():
    with pytest.raises(InvalidInput, match="twice"):
        _node(meta={"\u00e9": 1, "e\u0301": 2})


@pytest.mark.parametrize("prefix, ok", [("abcdef01", True), ("ABCDEF01", True), ("abc", False),
                                        ("xyz12345", False), ("a" * 65, False), ("", False)])
def test_id_prefixes_are_checked(prefix, ok):
    if ok:
        assert ids.check_prefix(prefix) == prefix.lower()
    else:
        with pytest.raises(InvalidInput):
            ids.check_prefix(prefix)


# -- the direct encodings Node.body / Edge.body use must be the canonical encoding itself
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)
flat_meta = st.dictionaries(texts, st.none() | st.booleans() | st.integers() | texts | st.floats(
    allow_nan=False, allow_infinity=False) | st.lists(st.integers(), max_size=3), max_size=4)


@settings(max_examples=200, deadline=None)
@given(texts, texts, flat_meta, flat_meta, st.integers(min_value=-(2**62), max_value=2**62))
def test_node_bodies_are_the_canonical_encoding_of_their_record(content, name, meta, prov, created_at):
    node = Node("Memory", content=content, name=name, meta=meta, provenance=prov, created_at=created_at)
    record = ids.node_record(type=node.type, name=node.name, content=node.content, meta=dict(node.meta),
                             provenance=dict(node.provenance), created_at=node.created_at,
                             children_root=ids.EMPTY_ROOT_HEX, n_children=0, edges_root=ids.EMPTY_ROOT_HEX,
                             n_edges=0)
    assert node.body == ids.canonical(record)


@settings(max_examples=200, deadline=None)
@given(hex_keys, hex_keys, st.none() | hex_keys, flat_meta)
def test_edge_bodies_are_the_canonical_encoding_of_their_record(src, dst, world, props):
    edge = Edge("refers_to", src, dst, world=world, props=props)
    record = ids.edge_record(type=edge.type, src=src, dst=dst, world=world, props=dict(edge.props))
    assert edge.body == ids.canonical(record)


def test_props_too_large_once_encoded_are_still_refused():
    from worlddb.core.errors import InvalidInput

    with pytest.raises(InvalidInput):
        Edge("refers_to", "a" * 64, "b" * 64, props={"note": "\x01" * 3_000})  # 6 bytes per char escaped


def test_an_erased_worlds_version_commits_to_its_predecessor_and_interior():
    from blake3 import blake3

    previous, root = "a" * 64, ids.EMPTY_ROOT_HEX
    got = ids.erased_version_id(previous, root, 0, root, 0)
    record = ids.canonical({"after": previous, "children": {"root": root, "n": 0}, "edges": {"root": root, "n": 0}})
    assert got == blake3(b"worlddb.erased.v1\x00" + record).hexdigest()
    assert ids.erased_version_id("b" * 64, root, 0, root, 0) != got
    assert ids.erased_version_id(previous, "c" * 64, 1, root, 0) != got
    assert ids.erased_version_id(previous, root, 0, "c" * 64, 1) != got
