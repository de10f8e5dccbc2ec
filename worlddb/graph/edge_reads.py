"""Edges read for many nodes at once: what a query attaches to the nodes it returns, and
the edges a whole frontier expands along.

Edge types annotate through their handlers' query rewrite: `contradicts` asks for
"conflicts", `supersedes` for "superseded_by", `same_as` for "equivalents". A seed
expanded one hop returns a hub and its neighbours, and asking each node in turn cost
four statements per node, each a random walk in the large edge indexes of a big file.
Here every question is asked once for all nodes:

- `edges_touching(store, anchors, type, direction, known_at)`: the edges of one type (None:
  any) with an end among `anchors`, live at `known_at` (None: now), in rowid order. The
  types in `schema.MARKED_TYPES` are read from their own partial indexes (schema 3),
  which stay small because these types are rare.
- `equivalents(store, anchors)`: for each of `anchors` that has an accepted same_as
  proposal, its whole equivalence class (itself included). Anchors left out are alone in
  their class.

- `hidden(store, plan, anchors)`: which of `anchors` a hide of the read plan removes (a
  node with a live edge of a type and direction a handler's query rewrite named).

All only read; which of the named nodes a caller may show is the caller's business.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from worlddb.core import schema
from worlddb.core.errors import InvalidInput
from worlddb.core.plan import QueryPlan
from worlddb.core.records import EdgeView
from worlddb.core.store import (
    EDGE_COLUMNS,
    EDGE_JOINS,
    Store,
    edge_view,
    list_params,
    live_params,
    live_sql,
    rowids_sql,
)
from worlddb.graph.identity import equivalence_class

#: ids bound per statement (SQLite's default limit is 32766; smaller keeps plans cheap)
CHUNK = 500


def edges_touching(store: Store, anchors: Iterable[str], edge_type: str | None, direction: str,
                   known_at: int | None = None) -> list[EdgeView]:
    """Edges of `edge_type` (None: any type) whose src ("out") or dst ("in") is one of
    `anchors`; in rowid order within each chunk of CHUNK anchors, so in rowid order for
    each anchor."""
    batch = list(dict.fromkeys(anchors))
    typed = [] if edge_type is None else [edge_type]
    pinned = live_params(known_at)
    out: list[EdgeView] = []
    for start in range(0, len(batch), CHUNK):
        chunk = batch[start:start + CHUNK]
        rows = store.conn.execute(statement(edge_type, direction, len(chunk), known_at is not None,
                                            store.backend.index_hint),
                                  [*list_params(chunk), *typed, *pinned])
        out += [edge_view(row) for row in rows]
    return out


def statement(edge_type: str | None, direction: str, count: int, pinned: bool, hint=None) -> str:
    """edges_touching's SQL for `count` anchors; bind the anchors, the type unless it is
    None, and known_at twice when pinned. `hint`: the backend's index_hint (default
    SQLite's)."""
    if direction not in ("out", "in"):
        raise InvalidInput(f"direction must be 'out' or 'in', not {direction!r}")
    end = "src" if direction == "out" else "dst"
    # The partial index is named, not left to the planner: a file migrated to schema 3
    # has statistics for the big edge indexes and none yet for the new ones, and SQLite
    # then takes the big ones. Naming it requires repeating its condition word for word.
    # Other types read the plain (src, type) / (dst, type) indexes.
    table, marked = "edges e", ""
    if edge_type in schema.MARKED_TYPES:
        named = f"INDEXED BY edges_marked_{end}" if hint is None else hint(f"edges_marked_{end}")
        table, marked = f"edges e {named}", f" AND e.{schema.MARKED}"
    typed = "" if edge_type is None else " AND e.type=?"
    return (f"SELECT {EDGE_COLUMNS} FROM {table} {EDGE_JOINS} WHERE e.{end} IN {rowids_sql(count)}"
            f"{typed}{marked} AND {live_sql(pinned, 'e')} ORDER BY e.rowid")


def equivalents(store: Store, anchors: Sequence[str]) -> dict[str, set[str]]:
    """Equivalence classes of those of `anchors` that belong to one with another node."""
    batch = list(dict.fromkeys(anchors))
    joined: set[str] = set()
    for start in range(0, len(batch), CHUNK):
        chunk = batch[start:start + CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = store.conn.execute(
            f"SELECT a FROM proposals WHERE a IN ({marks}) AND status='accepted' "
            f"UNION SELECT b FROM proposals WHERE b IN ({marks}) AND status='accepted'", [*chunk, *chunk])
        joined.update(row[0] for row in rows)
    out: dict[str, set[str]] = {}
    for anchor in batch:
        if anchor in joined and anchor not in out:
            members = equivalence_class(store, anchor)
            out.update((m, members) for m in members if m in joined)
    return out


def hidden(store: Store, plan: QueryPlan, anchors: Sequence[str]) -> set[str]:
    """Which of `anchors` the plan's hides remove."""
    out: set[str] = set()
    if not plan.hides or not anchors:
        return out
    wanted = set(anchors)
    for hide in plan.hides:
        for way in ("in", "out") if hide.direction == "both" else (hide.direction,):
            for edge in edges_touching(store, anchors, hide.edge_type, way, plan.known_at):
                end = edge.dst if way == "in" else edge.src
                if end in wanted:
                    out.add(end)
    return out
