"""How a subject-relation-object fact is stored, in one place.

A fact is a `Fact` node whose name is the relation and whose content is its text
(the caller's, or "subject relation object"). Its meta records the relation and, for
an object that is not an entity, the literal value. It refers_to its subject entity
(props role=subject) and, when the object is an entity, to it (role=object):

    Fact(name="lives_in", content="Alice lives in Denver",
         meta={"relation": "lives_in", "subject": "<anchor>", "object": "<anchor>"})
      -refers_to{role: subject}-> Entity Alice
      -refers_to{role: object}->  Entity Denver

Readers (the memory API, the consolidator's contradiction sweep) find a subject's
facts by following refers_to edges with role=subject into the Fact nodes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from worlddb.core.errors import InvalidInput
from worlddb.core.records import Edge, Node, NodeView
from worlddb.core.store import Store

_RELATION = re.compile(r"[a-z][a-z0-9_]{0,63}")


def normalize_relation(relation: str) -> str:
    """'Lives In' / 'lives-in' / 'lives in' -> 'lives_in'. Refuses anything else."""
    if not isinstance(relation, str):
        raise InvalidInput("a fact's relation must be a string")
    slug = re.sub(r"[\s\-]+", "_", relation.strip().lower())
    if not _RELATION.fullmatch(slug):
        raise InvalidInput(f"relation {relation!r} must be words of letters, digits or underscores")
    return slug


@dataclass(frozen=True)
class FactRef:
    anchor: str
    subject: str
    relation: str
    object: str  # an entity anchor, or the literal value
    object_is_entity: bool


def fact_node(*, subject: str, relation: str, obj: str, object_is_entity: bool, text: str | None,
              subject_name: str, object_name: str, provenance: dict, created_at: int) -> Node:
    relation = normalize_relation(relation)
    content = text.strip() if text and text.strip() else f"{subject_name} {relation.replace('_', ' ')} {object_name}"
    meta = {"relation": relation, "subject": subject, "object": obj, "object_is_entity": object_is_entity}
    return Node("Fact", name=relation, content=content, meta=meta, provenance=provenance, created_at=created_at)


def fact_edges(fact: Node) -> list[Edge]:
    meta = fact.meta
    edges = [Edge("refers_to", fact.id, meta["subject"], props={"role": "subject"})]
    if meta["object_is_entity"] and meta["object"] != meta["subject"]:
        edges.append(Edge("refers_to", fact.id, meta["object"], props={"role": "object"}))
    return edges


def as_fact(view: NodeView) -> FactRef | None:
    meta = view.meta
    if view.type != "Fact" or "relation" not in meta or "subject" not in meta:
        return None
    return FactRef(view.anchor, meta["subject"], meta["relation"], meta["object"], bool(meta.get("object_is_entity")))


def facts_about(store: Store, subject: str, relation: str | None = None) -> list[FactRef]:
    """Facts whose subject is `subject` (live refers_to edges), optionally of one relation, in
    the order their edges were written. Only Fact nodes' edges are read: most of what refers to
    an entity is memories naming it."""
    anchors = store.ends(subject, "refers_to", "in", node_type="Fact", name=relation)
    views = store.get_many(anchors)
    out = []
    for view in (views[a] for a in anchors if a in views):
        ref = as_fact(view)
        if ref is not None and ref.subject == subject and (relation is None or ref.relation == relation):
            out.append(ref)
    return out


def subjects_with(store: Store, relations: Iterable[str]) -> list[str]:
    """Entities that are the subject of at least one fact of the given relations."""
    relations = list(relations)
    if not relations:
        return []
    rows = store.conn.execute(
        f"SELECT n.record FROM nodes n WHERE n.type='Fact' AND n.name IN ({','.join('?' * len(relations))}) "
        "AND n.record IS NOT NULL", relations)
    subjects = (json.loads(record).get("meta", {}).get("subject") for (record,) in rows)
    return list(dict.fromkeys(s for s in subjects if isinstance(s, str) and s))
