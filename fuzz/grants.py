"""Principals with partial grants, and the rule that none of them sees past its grant.

`PRINCIPALS` hold grants over the fuzzed scopes: one exact key, a kind pattern, two exact keys of
different kinds. A memory operation may run as one of them (its `as`, an index; fuzz.memory_ops):
the model then predicts NotFound for a scope outside the grant and Forbidden for amending or
retiring a memory that is also in one, and the result must pass `scan`.

After every operation `check` has one principal (in turn, by step) make every read the MCP tools
make - memory_list_scopes, memory_list in each granted scope, memory_recall of a memory's marker
word, memory_read of a text node it may see and of one it may not (NotFound), and the entity
reads (read_entity, find_entities, merge proposals) - and `scan` walks every result: each node id
in it that belongs to a scope must be inside a granted one (a memory also in other scopes is seen
through the granted one), and each scope key it names must be granted (or its world be inside a granted one: the graph
layer may nest one scope's world in another's, which then holds all of it). A node in no scope at all
(graph-layer structure the owner unlinked from every scope, say a session whose turn another
session in a granted scope still holds) is no scope's, and may be named.
"""

from __future__ import annotations

import random
import re
from dataclasses import fields, is_dataclass

from fuzz.model import TEXT_TYPES
from fuzz.vocabulary import NAMES, SCOPES, Violation
from worlddb.core.errors import InvalidInput, NotFound
from worlddb.memory.access import Access
from worlddb.memory.scopes import ScopeSet

PRINCIPALS = (
    Access("p-alice", ("user:alice",)),
    Access("p-agents", ("agent:*",)),
    Access("p-bob-run", ("user:bob", "run:r 1")),
)
_SCOPE_KEY = re.compile(r"^(user|agent|app|run):")


def principal(op: dict) -> Access | None:
    """The Access an operation runs as: None (the file's owner) or one of PRINCIPALS."""
    index = op.get("as")
    return None if index is None else PRINCIPALS[index % len(PRINCIPALS)]


def granted_keys(access: Access) -> list[str]:
    return [f"{kind}:{sid}" for kind, sid in SCOPES if access.allows(f"{kind}:{sid}")]


def seen_by(h, access: Access) -> set[str]:
    """The worlds of the scopes the principal is granted, and every node inside them."""
    model = h.model
    worlds = [world for key, world in model.scopes.items() if access.allows(key)]
    return set(worlds).union(*[model.closure(w) for w in worlds])


def scan(h, access: Access, what: str, result, seen: set[str] | None = None) -> None:
    """Raise Violation if `result` names a node of an ungranted scope (and of no granted one)
    or an ungranted scope key, anywhere in it (records, lists, dicts: keys and values)."""
    seen = seen_by(h, access) if seen is None else seen
    nodes, owned = h.model.nodes, seen_by(h, Access.owner())
    for text in _strings(result):
        if text in nodes and text not in seen and text in owned:
            raise Violation(f"{what} as {access.principal} named {nodes[text].type} {text[:12]}, "
                            f"outside its grant {list(access.grants)}")
        if _SCOPE_KEY.match(text) and not access.allows(text) and h.model.scopes.get(text) not in seen:
            raise Violation(f"{what} as {access.principal} named scope {text}, outside its grant "
                            f"{list(access.grants)}")


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            yield from _strings(getattr(value, f.name))


def check(h) -> None:
    """One principal's reads after an operation (see the module docstring)."""
    access = PRINCIPALS[h.steps % len(PRINCIPALS)]
    model, engine, rng = h.model, h.engine, random.Random(h.steps * 13 + 5)
    seen = seen_by(h, access)
    scan(h, access, "list_scopes", engine.list_scopes(access=access), seen)
    keys = [k for k in granted_keys(access) if k in model.scopes]
    if not keys:
        return
    scopes = ScopeSet(tuple(tuple(k.split(":", 1)) for k in keys))
    for key in keys:
        one = ScopeSet((tuple(key.split(":", 1)),))
        scan(h, access, f"list_memories({key})", engine.list_memories(one, limit=500, include_retired=True,
                                                                         access=access), seen)
    marked = [n for n in model.nodes.values() if n.marker]
    if marked:
        target = rng.choice(marked)
        scan(h, access, f"recall({target.marker})",
             engine.recall(target.marker, scopes, limit=50, include_retired=True, access=access), seen)
    # in the model's order (that of the operations), never the ids' (memory ids depend on the clock)
    texts = [n for n in model.nodes if n in seen and model.nodes[n].type in TEXT_TYPES]
    if texts:
        anchor = rng.choice(texts)
        scan(h, access, "read_memory", _read(lambda: engine.read_memory(anchor, scopes, access=access)), seen)
    hidden = [n for n in model.nodes if n not in seen and model.nodes[n].type in (*TEXT_TYPES, "Entity")]
    if hidden:
        anchor = rng.choice(hidden)
        reader = engine.read_memory if model.nodes[anchor].type in TEXT_TYPES else engine.read_entity
        try:
            reader(anchor, scopes, access=access)
        except NotFound:
            pass
        else:
            raise Violation(f"{access.principal} read {model.nodes[anchor].type} {anchor[:12]}, outside its grant")
    entities = [n for n in model.nodes if n in seen and model.nodes[n].type == "Entity"]
    if entities:
        anchor = rng.choice(entities)
        scan(h, access, "read_entity", _read(lambda: engine.read_entity(anchor, scopes, include_retired=True,
                                                                         access=access)), seen)
    scan(h, access, "find_entities", engine.find_entities(rng.choice(NAMES), scopes, access=access), seen)
    scan(h, access, "merge_proposals", engine.merge_proposals(scopes, status=None, access=access), seen)


def _read(call):
    """A read of a node the principal may see; one the engine declines to read as such (an
    erased or retired node, a node of another kind) gives nothing to scan."""
    try:
        return call()
    except (NotFound, InvalidInput):
        return None
