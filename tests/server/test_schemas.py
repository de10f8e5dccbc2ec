"""worlddb.server.schemas: the tools' schemas without generated titles, accepting the same."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from worlddb.server.schemas import lean

from .helpers import ok

SCHEMA = {
    "title": "memory_recallArguments", "type": "object", "required": ["query"],
    "properties": {
        "query": {"title": "Query", "type": "string", "description": "What to look for"},
        "title": {"title": "Title", "anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "limit": {"title": "Limit", "type": "integer", "minimum": 1, "maximum": 100},
        "tags": {"anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}]},
        "hit": {"$ref": "#/$defs/Hit"},
    },
    "$defs": {"Hit": {"title": "Hit", "type": "object", "properties": {"id": {"title": "Id", "type": "string"}}}},
}


def test_titles_go_and_a_nullable_type_becomes_a_type_list():
    out = lean(SCHEMA)
    assert "title" not in out and "title" not in out["$defs"]["Hit"]
    assert out["properties"]["query"] == {"type": "string", "description": "What to look for"}
    assert out["properties"]["title"] == {"type": ["string", "null"], "default": None}  # a property called title
    assert out["properties"]["tags"] == SCHEMA["properties"]["tags"]  # not a plain type: left as it is
    assert SCHEMA["properties"]["query"]["title"] == "Query"  # the input is not changed


@pytest.mark.parametrize("instance", [
    {"query": "x"}, {"query": "x", "title": None}, {"query": "x", "title": "t", "limit": 5, "tags": ["a"]},
    {"query": "x", "hit": {"id": "abc"}}, {}, {"query": 3}, {"query": "x", "title": 3}, {"query": "x", "limit": 0},
    {"query": "x", "tags": [1]}, {"query": "x", "hit": {"id": 1}},
])
def test_the_lean_schema_accepts_exactly_what_the_full_one_does(instance):
    assert Draft202012Validator(lean(SCHEMA)).is_valid(instance) == Draft202012Validator(SCHEMA).is_valid(instance)


async def test_a_client_lists_lean_schemas_and_its_results_match_them(connect):
    async with connect() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        listed = json.dumps([[t.input_schema, t.output_schema] for t in tools.values()])
        assert '"title": "' not in listed and '"anyOf": [{"type": "string"}, {"type": "null"}]' not in listed
        assert tools["memory_recall"].input_schema["properties"]["as_of"]["description"]
        written = await ok(client, "memory_write", text="Maria works at Acme Corp in Lisbon", user_id=None)
        hits = await ok(client, "memory_recall", query="Where does Maria work?")
        for tool, result in (("memory_write", written), ("memory_recall", hits)):
            Draft202012Validator(tools[tool].output_schema).validate(result)


def test_the_suite_checks_a_schema_once_and_still_refuses_a_bad_one_every_time():
    """tests.support.check_each_schema_once keeps the metaschema check's pass, never its failure."""
    from jsonschema import SchemaError

    bad = {"type": "object", "properties": {"id": {"type": 5}}}
    for _ in range(2):
        with pytest.raises(SchemaError):
            Draft202012Validator.check_schema(bad)
    Draft202012Validator.check_schema(lean(SCHEMA))
    Draft202012Validator.check_schema(lean(SCHEMA))
    bad["properties"]["id"]["type"] = "string"  # the same dict, now valid: checked again by its content
    Draft202012Validator.check_schema(bad)
    bad["properties"]["id"]["minimum"] = "one"
    with pytest.raises(SchemaError):
        Draft202012Validator.check_schema(bad)
