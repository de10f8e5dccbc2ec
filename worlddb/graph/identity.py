"""Merge proposals and identity: nothing is ever merged without an explicit decision.

A same_as edge stages a pending proposal (handlers/same_as.py). `accept_merge` and
`reject_merge` record the decision in the same transaction as the caller's other
writes; a decided proposal cannot be decided again. Equivalence classes are the
connected components of *accepted* proposals, read undirected, so acceptance is
symmetric and transitive without storing the reverse edge. `export_identity` lists every
member of a node's class with its record and provenance, for an erasure or access request.

Reads for many nodes at once: `proposals_touching` (the proposals with an end among some
nodes), `proposals_within` (those whose two ends both lie inside some worlds: what a reader
of those worlds may see and decide) and `classes_of` (the distinct classes of some nodes).
Which of the nodes they name a caller may be shown is the caller's business.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from worlddb.core.errors import Conflict, NotFound
from worlddb.core.store import Store, list_params, within_sql


@dataclass(frozen=True)
class Proposal:
    id: str
    a: str
    b: str
    status: str
    tier: str | None
    score: float | None
    evidence: Any
    reason: str | None


_COLUMNS = "id, a, b, status, tier, score, evidence, reason"
#: ids bound per statement
_CHUNK = 400


def proposal(store: Store, proposal_id: str) -> Proposal:
    row = store.conn.execute(f"SELECT {_COLUMNS} FROM proposals WHERE id=?", (proposal_id,)).fetchone()
    if row is None:
        raise NotFound(f"no merge proposal has id {proposal_id}")
    return _proposal(row)


def proposals(store: Store, anchor: str | None = None, status: str | None = None) -> list[Proposal]:
    clauses, params = [], []
    if anchor is not None:
        clauses.append("(a=? OR b=?)")
        params += [anchor, anchor]
    if status is not None:
        clauses.append("status=?")
        params.append(status)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = store.conn.execute(
        f"SELECT {_COLUMNS} FROM proposals {where} ORDER BY seq_created, id",
        params,
    )
    return [_proposal(row) for row in rows]


def proposals_touching(store: Store, anchors: Iterable[str], status: str | None = None) -> list[Proposal]:
    """Proposals with `a` or `b` among `anchors`, oldest first, each once."""
    batch = list(dict.fromkeys(anchors))
    typed, extra = (" AND status=?", [status]) if status is not None else ("", [])
    rows: dict[str, tuple] = {}
    for start in range(0, len(batch), _CHUNK):
        chunk = batch[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for row in store.conn.execute(
                f"SELECT {_COLUMNS}, seq_created FROM proposals WHERE a IN ({marks}){typed} "
                f"UNION SELECT {_COLUMNS}, seq_created FROM proposals WHERE b IN ({marks}){typed}",
                [*chunk, *extra, *chunk, *extra]):
            rows[row[0]] = row
    return [_proposal(row) for row in sorted(rows.values(), key=lambda r: (r[8], r[0]))]


def proposals_within(store: Store, worlds: Sequence[str], status: str | None = None, *,
                     prefix: str | None = None, limit: int | None = None) -> list[Proposal]:
    """Proposals whose two ends both lie inside `worlds` (each in one of them), newest
    first; only those whose id starts with `prefix` (lowercase hex) if given."""
    worlds = list(worlds)
    if not worlds:
        return []
    clauses, params = [], []
    if status is not None:
        clauses.append("p.status=?")
        params.append(status)
    if prefix is not None:
        clauses.append("p.id >= ? AND p.id < ?")
        params += [prefix, prefix + "g"]
    for end in ("a", "b"):
        clauses.append(within_sql(f"p.{end}", len(worlds)))
        params += list_params(worlds)
    columns = ", ".join(f"p.{c}" for c in _COLUMNS.split(", "))
    # no LIMIT clause at all without a limit (SQLite reads LIMIT -1 as none; PostgreSQL refuses it)
    bound = "" if limit is None else " LIMIT ?"
    rows = store.conn.execute(
        f"SELECT {columns} FROM proposals p WHERE {' AND '.join(clauses)} ORDER BY p.seq_created DESC, p.id{bound}",
        [*params] if limit is None else [*params, limit])
    return [_proposal(row) for row in rows]


def decide(writer, proposal_id: str, accept: bool, reason: str | None = None) -> Proposal:
    """Accept or reject a pending proposal inside `writer`'s transaction."""
    current = proposal(writer.store, proposal_id)
    if current.status != "pending":
        raise Conflict(f"merge proposal {proposal_id} was already {current.status}")
    writer.tx.conn.execute(
        "UPDATE proposals SET status=?, seq_decided=?, reason=? WHERE id=?",
        ("accepted" if accept else "rejected", writer.tx.seq, reason, proposal_id),
    )
    return proposal(writer.store, proposal_id)


def accept_merge(writer, proposal_id: str) -> Proposal:
    """Accept a pending proposal: its two nodes join one equivalence class."""
    return decide(writer, proposal_id, True)


def reject_merge(writer, proposal_id: str, reason: str | None = None) -> Proposal:
    """Reject a pending proposal: its two nodes stay independent."""
    return decide(writer, proposal_id, False, reason)


def equivalence_class(store: Store, anchor: str) -> set[str]:
    """Every node connected to `anchor` by accepted same_as proposals, itself included."""
    rows = store.conn.execute(
        "WITH RECURSIVE cls(n) AS (SELECT ? UNION "
        "SELECT CASE WHEN p.a = cls.n THEN p.b ELSE p.a END FROM proposals p JOIN cls "
        "ON (p.a = cls.n OR p.b = cls.n) WHERE p.status='accepted') SELECT n FROM cls",
        (anchor,),
    )
    return {row[0] for row in rows}


def classes_of(store: Store, anchors: Iterable[str]) -> list[frozenset[str]]:
    """The distinct equivalence classes of `anchors`, in the order each first appears; a
    node without an accepted proposal is a class of its own."""
    out: list[frozenset[str]] = []
    seen: set[str] = set()
    for anchor in dict.fromkeys(anchors):
        if anchor in seen:
            continue
        members = frozenset(equivalence_class(store, anchor))
        seen |= members
        out.append(members)
    return out


def export_identity(store: Store, anchor: str) -> dict[str, Any]:
    """Everything the store holds about the identity `anchor` belongs to."""
    store.require(anchor)
    members = sorted(equivalence_class(store, anchor))
    views = store.get_many(members)
    out = []
    for member in members:
        view = views[member]
        out.append({
            "id": member,
            "type": view.type,
            "name": view.name,
            "meta": dict(view.meta),
            "provenance": dict(view.provenance),
            "scopes": sorted(store.ancestors(member)),
            "t_ingested": view.t_ingested,
            "erased": view.erased,
            "mentioned_by": [e.src for e in store.edges(dst=member, type="refers_to")],
        })
    decisions = [p.__dict__ for p in proposals(store) if p.a in members or p.b in members]
    return {"id": anchor, "members": out, "proposals": decisions}


def _proposal(row) -> Proposal:
    return Proposal(
        id=row[0], a=row[1], b=row[2], status=row[3], tier=row[4], score=row[5],
        evidence=json.loads(row[6]), reason=row[7],
    )
