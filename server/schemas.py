"""The tools' JSON schemas as a client lists them: what the SDK derives, minus its noise.

Contract: `lean(schema)` returns a new JSON schema that accepts and rejects exactly what
`schema` does, without two things pydantic writes into every schema it derives and that a
client passes on to the model with every request: a generated `title` on each property and
model ("Valid From" for `valid_from`), and a nullable type spelt `anyOf` of it and null,
which becomes the type list `["string", "null"]`. Property names are kept even when one is
called "title". The tool descriptions and every `description` stay whole: they are what the
model is meant to read. `WorldDBServer.add_tool` applies it to the input and output schemas,
once per tool made.
"""

from __future__ import annotations

from typing import Any

__all__ = ["lean"]

#: the keys whose values map names to schemas (a property called "title" is no title)
_NAMED = frozenset({"properties", "$defs", "definitions", "patternProperties"})


def lean(schema: Any) -> Any:
    """`schema` without generated titles, its nullable types as type lists (the docstring)."""
    return _lean(schema, named=False)


def _lean(node: Any, *, named: bool) -> Any:
    if isinstance(node, list):
        return [_lean(item, named=False) for item in node]
    if not isinstance(node, dict):
        return node
    if named:
        return {name: _lean(sub, named=False) for name, sub in node.items()}
    out = {key: _lean(value, named=key in _NAMED) for key, value in node.items()
           if not (key == "title" and isinstance(value, str))}
    alternatives = out.get("anyOf")
    if isinstance(alternatives, list) and len(alternatives) == 2 and {"type": "null"} in alternatives:
        other = next(alt for alt in alternatives if alt != {"type": "null"})
        if isinstance(other, dict) and set(other) == {"type"} and isinstance(other["type"], str):
            del out["anyOf"]
            out["type"] = [other["type"], "null"]
    return out
