"""The reconciler: the only path by which an edge row is written or removed.

`Reconciler.insert(tx, edge)` and `.delete(tx, edge)` look up the edge type's handler
(unknown types are refused), check the endpoints, run the handler's on_insert/on_delete
against an `EdgeContext` bound to the open transaction, then write or remove the row.
Edges a handler derives, or removes, are queued and dispatched the same way, in order,
inside the same transaction. Any refusal or error propagates out of the transaction, so
the edge row, every side effect and every node written in that transaction roll back
together.

What a write did is collected in a `Receipt`: edges written/removed, validity closed,
merge proposals staged, conflicts recorded.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from worlddb.core import ids
from worlddb.core.errors import InvalidInput, NotFound, Refused
from worlddb.core.records import Edge, EdgeView, NodeView
from worlddb.core.store import ROWID_OF
from worlddb.core.txn import Tx

#: A single write may trigger at most this many derived edge operations.
MAX_CASCADE = 10_000
#: ids a receipt lists of nodes written, edges written and edges removed, each; a bulk load
#: writes millions, which a receipt kept by its caller would otherwise hold on to
RECEIPT_IDS = 10_000


@dataclass
class Receipt:
    """What one write did. `nodes`, `edges` and `removed` list at most RECEIPT_IDS ids
    each, the first ones written; `left_out` counts the ids past that (a bulk load)."""

    seq: int = 0
    at: int = 0
    nodes: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    closed: list[tuple[str, int]] = field(default_factory=list)
    proposals: list[str] = field(default_factory=list)
    conflicts: list[tuple[str, str]] = field(default_factory=list)
    left_out: int = 0

    def note(self, ids: list[str], one: str) -> None:
        """Add `one` to the list `ids` of this receipt, or count it past RECEIPT_IDS."""
        if len(ids) < RECEIPT_IDS:
            ids.append(one)
        else:
            self.left_out += 1


class Reconciler:
    def __init__(self, registry):
        self.registry = registry

    def insert(self, tx: Tx, receipt: Receipt, edge: Edge, *, valid_from: int | None = None,
               valid_to: int | None = None) -> bool:
        queue: deque = deque([("insert", edge, valid_from, valid_to)])
        first = self._drain(tx, receipt, queue)
        return first

    def delete(self, tx: Tx, receipt: Receipt, edge: Edge) -> bool:
        return self._drain(tx, receipt, deque([("delete", edge, None, None)]))

    def _drain(self, tx: Tx, receipt: Receipt, queue: deque) -> bool:
        first_result: bool | None = None
        steps = 0
        while queue:
            steps += 1
            if steps > MAX_CASCADE:
                raise Refused(f"a single write may not cascade into more than {MAX_CASCADE} edge operations")
            op, edge, valid_from, valid_to = queue.popleft()
            if op == "insert":
                done = self._insert_one(tx, receipt, queue, edge, valid_from, valid_to)
            else:
                done = self._delete_one(tx, receipt, queue, edge)
            if first_result is None:
                first_result = done
        return bool(first_result)

    def _insert_one(self, tx: Tx, receipt: Receipt, queue: deque, edge: Edge,
                    valid_from: int | None, valid_to: int | None) -> bool:
        handler = self.registry.get(edge.type)
        for end in (edge.src, edge.dst):
            if tx.rowid(end) is None:
                raise NotFound(f"{edge.type} edge: no node has id {end}")
        if edge.world is not None:
            if tx.rowid(edge.world) is None:
                raise NotFound(f"{edge.type} edge: no world has id {edge.world}")
            for end in (edge.src, edge.dst):
                if not _within(tx, end, edge.world):
                    raise InvalidInput(f"{edge.type} edge: {end} is not inside world {edge.world}")
        if tx.edge_live(edge):
            return False  # the same edge is already live: asserting it again changes nothing
        if valid_to is not None and valid_from is not None and valid_to < valid_from:
            raise InvalidInput("edge valid_to is earlier than its valid_from")
        # An edge without a stated valid_from holds for as long as its ends do; handlers
        # that need a moment (functional relations) use the transaction time.
        start = tx.at if valid_from is None else valid_from
        handler.on_insert(_Context(tx, receipt, queue, edge, start), edge)
        tx._insert_edge_row(edge, valid_from, valid_to)
        receipt.note(receipt.edges, edge.id)
        return True

    def _delete_one(self, tx: Tx, receipt: Receipt, queue: deque, edge: Edge) -> bool:
        handler = self.registry.get(edge.type)
        if not tx.edge_live(edge):
            return False
        handler.on_delete(_Context(tx, receipt, queue, edge, tx.at), edge)
        tx._remove_edge_row(edge)
        receipt.note(receipt.removed, edge.id)
        return True


def _within(tx: Tx, node: str, world: str) -> bool:
    return tx.within(node, world)


class _Context:
    """The EdgeContext handed to handlers (see handlers.base for the contract)."""

    def __init__(self, tx: Tx, receipt: Receipt, queue: deque, edge: Edge, edge_valid_from: int):
        self._tx = tx
        self._edge = edge
        self._receipt = receipt
        self._queue = queue
        self.at = tx.at
        self.edge_valid_from = edge_valid_from

    def node(self, anchor: str) -> NodeView | None:
        return self._tx.store.get(anchor)

    def edges(self, *, src: str | None = None, dst: str | None = None, type: str | None = None) -> list[EdgeView]:
        return self._tx.store.edges(src=src, dst=dst, type=type)

    def reaches(self, start: str, edge_type: str, target: str) -> bool:
        row = self._tx.conn.execute(
            f"WITH RECURSIVE walk(a) AS (SELECT {ROWID_OF} UNION SELECT e.dst FROM edges e JOIN walk ON e.src = walk.a "
            f"WHERE e.type=? AND e.seq_removed IS NULL) SELECT 1 FROM walk WHERE a = {ROWID_OF} LIMIT 1",
            (start, edge_type, target),
        ).fetchone()
        return row is not None

    def within(self, node: str, world: str) -> bool:
        return _within(self._tx, node, world)

    def close_validity(self, anchor: str, to: int, reason: str) -> bool:
        return self._tx.close_validity(anchor, to, reason, cause=self._edge.id)

    def withdraw_closures(self) -> list[str]:
        return self._tx.withdraw(self._edge.id)

    def close_edge_validity(self, edge_id: str, to: int) -> bool:
        return self._tx.close_edge_validity(edge_id, to)

    def add_child(self, world: str, child: str) -> None:
        self._tx.add_child(world, child)

    def remove_child(self, world: str, child: str) -> None:
        self._tx.remove_child(world, child)

    def derive(self, edge: Edge, *, valid_from: int | None = None) -> None:
        self._queue.append(("insert", edge, valid_from, None))

    def remove(self, edge: Edge) -> None:
        self._queue.append(("delete", edge, None, None))

    def stage_merge(self, a: str, b: str, *, tier: str | None, score: float | None, evidence: Any) -> str:
        edge_id = self._edge.id
        proposal = ids.proposal_id(edge_id, self._tx.seq)
        self._tx.conn.execute(
            "INSERT INTO proposals(id, edge_id, a, b, status, tier, score, evidence, seq_created) "
            "VALUES (?,?,?,?,'pending',?,?,?,?) ON CONFLICT DO NOTHING",
            (proposal, edge_id, a, b, tier, score, json.dumps(ids.normalize(evidence), sort_keys=True),
             self._tx.seq),
        )
        self._receipt.proposals.append(proposal)
        return proposal

    def withdraw_merge(self, edge: Edge) -> None:
        # by edge id, not by the pair: another same_as edge between the same two nodes
        # (another tier's evidence) keeps its own proposal, accepted or pending
        self._tx.conn.execute(
            "UPDATE proposals SET status='rejected', seq_decided=?, reason='withdrawn' "
            "WHERE edge_id=? AND status!='rejected'",
            (self._tx.seq, edge.id),
        )

    def note_conflict(self, a: str, b: str) -> None:
        self._receipt.conflicts.append((a, b))

    def refuse(self, message: str) -> None:
        raise Refused(message)

