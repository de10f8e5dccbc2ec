"""What a read shows of the edges around the memories it returns, as the read plan says.

Recall, memory_list and memory_read build their plan with `Registry.rewrite`
(services.db.plan): each edge type's handler states what its edges mean at read time
(worlddb.core.plan): which nodes to hide, and which other nodes to name on each returned
one, under which key. This module carries that out for a page of nodes at once, one query per
edge type and direction (worlddb.graph.edge_reads):

    marks(store, plan, anchors, worlds)       anchor -> key -> the other ends it names

(What a hide removes is worlddb.graph.edge_reads.hidden, which recall's ranking also uses.)

A mark names only nodes inside the scopes read (an edge may lead into another scope, whose
ids a reader of this one must not learn) and, unless the mark allows closed ones, nodes shown
under the same pins. It names them in the order they begin (valid_from, earliest first; of two
at the same time, by id), not the order their edges were written: history written late ("I live
in Chicago" from before "I live in Austin", both after "I live in Boston") takes its place in
Boston's `superseded_by` ahead of Austin, so the first named is what came next.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from worlddb.core.plan import QueryPlan
from worlddb.core.records import NodeView
from worlddb.core.store import Store
from worlddb.graph.edge_reads import edges_touching, hidden

#: mark keys that have fields of their own on Hit, MemoryOut and MemoryDetail
FIELDS = ("superseded_by", "supersedes", "conflicts")

__all__ = ["FIELDS", "extra", "hidden", "marks"]


def marks(store: Store, plan: QueryPlan, anchors: Sequence[str], worlds: list[str]) -> dict[str, dict[str, list[str]]]:
    if not anchors or not plan.marks:
        return {}
    named: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    closed_ok: dict[str, bool] = {}
    for mark in plan.marks:
        closed_ok[mark.key] = closed_ok.get(mark.key, True) and mark.closed_ok
        for way in ("out", "in") if mark.direction == "both" else (mark.direction,):
            for edge in edges_touching(store, anchors, mark.edge_type, way, plan.known_at):
                mine, other = (edge.src, edge.dst) if way == "out" else (edge.dst, edge.src)
                if other != mine and other not in named[mine][mark.key]:
                    named[mine][mark.key].append(other)
    others = {o for keys in named.values() for found in keys.values() for o in found}
    if not others:
        return {}
    inside = store.in_worlds(worlds, others)
    views = store.get_many(inside)
    shown = {a for a, v in views.items()
             if store.visible(v, plan.as_of, plan.known_at, include_closed=False) is not None}
    out: dict[str, dict[str, list[str]]] = {}
    for mine, keys in named.items():
        kept = {key: _by_start([o for o in found if o in inside and (closed_ok[key] or o in shown)], views)
                for key, found in keys.items()}
        kept = {key: found for key, found in kept.items() if found}
        if kept:
            out[mine] = kept
    return out


def _by_start(anchors: list[str], views: Mapping[str, NodeView]) -> list[str]:
    """`anchors` in the order they begin, earliest first (ties by id)."""
    return sorted(anchors, key=lambda a: (views[a].valid_from if a in views else 0, a))


def extra(found: dict[str, list[str]]) -> dict[str, list[str]]:
    """The marks beyond the built-in fields, for a record's `annotations`."""
    return {key: others for key, others in found.items() if key not in FIELDS}
