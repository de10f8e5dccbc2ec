"""The reference model: what the store must hold, in plain dicts, with an undo journal.

The model knows the engine's promises, not its code paths: a node's validity interval
(the earliest end of the closures that stand: one made in an edge's name falls when the
edge is removed, and history as known at an earlier time never changes), when it was
ingested and retired, whether it was erased; the
live edges and what each registered type does on insert/delete; containment (and so which
scope sees what); merge proposals and the equivalence classes their acceptance makes.

Graph-layer writes are *predicted*: `Model.link`, `.add`, `.close`, ... apply a write the
way the handlers must and raise `Expect(ErrorClassName)` where the engine must refuse.
Every write is simulated between `begin()` and `commit()`/`rollback()`, so a refusal
late in a write undoes what the model did earlier in it, as the store's transaction does.

Every write ends, as it commits, the current summaries quoting a text it closed
(worlddb.graph.stale_summaries): `commit()` applies that rule to the closings it saw.

Times are integer microseconds, as the store keeps them. `visible()` is the bitemporal
rule: ingested by known_at, and the interval as known at known_at contains as_of (or,
without as_of, is still open at known_at / now).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: edge types whose handler refuses a cycle among live edges of that type
ACYCLIC = {"precedes", "subtype_of", "supersedes", "revises"}
#: edge types registered as FunctionalRelation in the fuzzed registry
FUNCTIONAL_EDGES = {"located_in"}
#: fact relations the engine is opened with as functional (newer value supersedes)
FUNCTIONAL_FACTS = {"lives_in"}
BUILTIN_EDGES = ("contains", "refers_to", "supersedes", "revises", "same_as", "contradicts", "implies",
                 "derived_from", "instance_of", "subtype_of", "causes", "precedes", "summarizes")
REGISTERED = BUILTIN_EDGES + tuple(sorted(FUNCTIONAL_EDGES))
TEXT_TYPES = ("Memory", "Turn", "Summary")
#: the texts a caller writes: what memory_list lists, the counts count and amend and retire take
#: (a Summary is the consolidator's)
MEMORY_TYPES = ("Memory", "Turn")
_MISSING = object()


class Expect(Exception):
    """The engine must refuse this write with an error of class `name` (or a subclass)."""

    def __init__(self, name: str, why: str):
        super().__init__(f"{name}: {why}")
        self.name = name
        self.why = why


@dataclass
class MNode:
    anchor: str
    type: str
    valid_from: int
    valid_to: int | None
    t_ingested: int
    log: tuple = ()              # ((tx at, valid_to, cause, withdrawn at), ...) every closure
    retired_at: int | None = None
    erased: bool = False
    indexed: bool = False        # has FTS row and vectors (written by the memory layer)
    marker: str | None = None    # a word only this node's text contains
    fact: tuple | None = None    # (subject, relation, object) of a Fact
    text: bool = True            # has content of its own (a Scope, a topic world may not)


@dataclass
class MEdge:
    id: str
    type: str
    src: str
    dst: str
    world: str | None
    props: dict
    valid_from: int | None
    valid_to: int | None
    live: bool = True


@dataclass
class MProposal:
    id: str
    a: str
    b: str
    edge_id: str
    status: str = "pending"


@dataclass
class Model:
    nodes: dict[str, MNode] = field(default_factory=dict)
    edges: dict[str, MEdge] = field(default_factory=dict)
    proposals: dict[str, MProposal] = field(default_factory=dict)
    scopes: dict[str, str] = field(default_factory=dict)   # "kind:id" -> anchor
    _journal: list | None = None
    #: (anchor, valid_to, transaction time) of every closing since begin()
    _closed: list = field(default_factory=list)

    # ------------------------------------------------------------------ journal
    def begin(self) -> None:
        self._journal = []
        self._closed = []

    def commit(self) -> None:
        """End the simulated write: first the summaries quoting what it closed end (one step
        per transaction time seen). Sealing never refuses: a world whose record was erased
        still gets new versions when its interior changes (ids.erased_version_id)."""
        ends: dict[int, dict[str, int]] = {}
        for anchor, to, at in self._closed:
            mine = ends.setdefault(at, {})
            mine[anchor] = min(to, mine.get(anchor, to))
        for at in sorted(ends):
            self._end_stale_summaries(ends[at], at)
        self._journal = None
        self._closed = []

    def _end_stale_summaries(self, ends: dict[str, int], at: int) -> None:
        """A closed node (not a Summary) ends the open, unretired summaries of itself and, when it
        has text of its own, of every world holding it: retired if it ended by `at`, else closed
        when it ends (not before the summary begins)."""
        stale: dict[str, int] = {}
        summarizes = self.live_edges("summarizes")
        for anchor, to in ends.items():
            node = self.nodes[anchor]
            if node.type == "Summary":
                continue
            worlds = {anchor} | (self.ancestors(anchor) if node.text else set())
            for e in summarizes:
                s = self.nodes[e.src]
                if e.dst in worlds and s.type == "Summary" and s.retired_at is None and (
                        s.valid_to is None or s.valid_to > at):
                    stale[e.src] = min(to, stale.get(e.src, to))
        for anchor, to in sorted(stale.items()):
            summary = self.nodes[anchor]
            if to <= at:
                self.retire(anchor, at=at)
            elif summary.valid_to is None or max(to, summary.valid_from) < summary.valid_to:
                self.close(anchor, max(to, summary.valid_from), at=at)

    def refusal(self, change) -> Expect | None:
        """Apply `change()` as a write would, return the Expect it raises (None if none),
        and undo it: for calls whose effects the harness applies only afterwards."""
        self.begin()
        try:
            change()
        except Expect as exc:
            return exc
        finally:
            self.rollback()
        return None

    def rollback(self) -> None:
        for obj, key, old in reversed(self._journal or []):
            if isinstance(obj, dict):
                if old is _MISSING:
                    obj.pop(key, None)
                else:
                    obj[key] = old
            else:
                setattr(obj, key, old)
        self._journal = None
        self._closed = []

    def _set(self, obj: Any, name: str, value: Any) -> None:
        if self._journal is not None:
            self._journal.append((obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    def _put(self, mapping: dict, key: Any, value: Any) -> None:
        if self._journal is not None:
            self._journal.append((mapping, key, mapping.get(key, _MISSING)))
        mapping[key] = value

    # ------------------------------------------------------------------ structure
    def live_edges(self, type: str | None = None):
        return [e for e in self.edges.values() if e.live and (type is None or e.type == type)]

    def parents(self, anchor: str) -> list[str]:
        return [e.src for e in self.edges.values() if e.live and e.type == "contains" and e.dst == anchor]

    def closure(self, world: str) -> set[str]:
        """Everything (transitively) inside `world`, not the world itself."""
        children: dict[str, list[str]] = {}
        for e in self.live_edges("contains"):
            children.setdefault(e.src, []).append(e.dst)
        out, stack = set(), list(children.get(world, ()))
        while stack:
            node = stack.pop()
            if node not in out:
                out.add(node)
                stack.extend(children.get(node, ()))
        return out

    def ancestors(self, anchor: str) -> set[str]:
        out, stack = set(), self.parents(anchor)
        while stack:
            node = stack.pop()
            if node not in out:
                out.add(node)
                stack.extend(self.parents(node))
        return out

    def reaches(self, start: str, edge_type: str, target: str) -> bool:
        out: dict[str, list[str]] = {}
        for e in self.live_edges(edge_type):
            out.setdefault(e.src, []).append(e.dst)
        seen, stack = set(), [start]
        while stack:
            node = stack.pop()
            if node == target:
                return True
            if node not in seen:
                seen.add(node)
                stack.extend(out.get(node, ()))
        return False

    def scope_keys_of(self, anchor: str) -> set[str]:
        above = self.ancestors(anchor)
        return {key for key, world in self.scopes.items() if world in above}

    # ------------------------------------------------------------------ time
    def valid_to_known_at(self, anchor: str, known_at: int) -> int | None:
        seen = [to for at, to, _, gone in self.nodes[anchor].log
                if at <= known_at and (gone is None or gone > known_at)]
        return min(seen) if seen else None

    def visible(self, anchor: str, as_of: int | None, known_at: int | None, include_closed: bool,
                now: int) -> bool:
        node = self.nodes[anchor]
        if known_at is not None and node.t_ingested > known_at:
            return False
        if include_closed:  # closed ones too, but none that began after as_of
            return as_of is None or node.valid_from <= as_of
        valid_to = node.valid_to if known_at is None else self.valid_to_known_at(anchor, known_at)
        if as_of is None:  # as of now (or known_at): begun and not closed by then
            at = known_at if known_at is not None else now
            return (valid_to is None or valid_to > at) and node.valid_from <= at
        return node.valid_from <= as_of and (valid_to is None or as_of < valid_to)

    # ------------------------------------------------------------------ identity
    def classes(self) -> dict[str, frozenset[str]]:
        """Equivalence class of every node named by an accepted proposal (union-find)."""
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for p in self.proposals.values():
            if p.status == "accepted":
                parent[find(p.a)] = find(p.b)
        groups: dict[str, set[str]] = {}
        for x in list(parent):
            groups.setdefault(find(x), set()).add(x)
        return {x: frozenset(g) for g in groups.values() for x in g}

    # ------------------------------------------------------------------ predicted writes
    def require(self, anchor: str) -> MNode:
        node = self.nodes.get(anchor)
        if node is None:
            raise Expect("NotFound", f"no node {anchor[:12]}")
        return node

    def add(self, anchor: str, type: str, *, at: int, valid_from: int | None, valid_to: int | None,
            **extra: Any) -> bool:
        if anchor in self.nodes:
            return False
        start = at if valid_from is None else valid_from
        if valid_to is not None and valid_to < start:
            raise Expect("InvalidInput", "valid_to before valid_from")
        log = ((at, valid_to, None, None),) if valid_to is not None else ()
        self._put(self.nodes, anchor, MNode(anchor, type, start, valid_to, at, log, **extra))
        return True

    def add_scope(self, key: str, anchor: str) -> None:
        self._put(self.scopes, key, anchor)

    def close(self, anchor: str, to: int, *, at: int, cause: str | None = None) -> bool:
        """A closure of `anchor` at `to`. Without a cause (a caller closing a node) it may only
        tighten; one in an edge's name (`cause`, the edge id) is recorded whatever the node's
        end, and counts once the earlier ones are withdrawn. True if valid_to moved."""
        node = self.require(anchor)
        if cause is None and node.valid_to is not None and to > node.valid_to:
            raise Expect("ValidityConflict", "validity may only tighten")
        if cause is None and node.valid_to is not None and to == node.valid_to:
            return False
        if to < node.valid_from:
            raise Expect("InvalidInput", "closing before the start")
        self._record(node, to, at, cause)
        if not self._settle(node):
            return False
        if self._journal is not None:
            self._closed.append((anchor, to, at))
        return True

    def _record(self, node: MNode, to: int, at: int, cause: str | None) -> None:
        # the store keeps one row per (node, transaction, cause): the tightest closing wins
        same = [e for e in node.log if e[0] == at and e[2] == cause]
        rest = [e for e in node.log if not (e[0] == at and e[2] == cause)]
        standing = [e[1] for e in same if e[3] is None]
        self._set(node, "log", tuple(rest) + ((at, min([to] + standing), cause, None),))

    def _settle(self, node: MNode) -> bool:
        """valid_to = the earliest standing closure; True if it moved."""
        ends = [to for _, to, _, gone in node.log if gone is None]
        end = min(ends) if ends else None
        if end == node.valid_to:
            return False
        self._set(node, "valid_to", end)
        return True

    def withdraw(self, cause: str, *, at: int) -> None:
        """Every standing closure made in the name of edge `cause` falls at `at`."""
        for node in self.nodes.values():
            if any(e[2] == cause and e[3] is None for e in node.log):
                self._set(node, "log", tuple((a, to, c, at if c == cause and gone is None else gone)
                                             for a, to, c, gone in node.log))
                self._settle(node)

    def retire(self, anchor: str, *, at: int) -> bool:
        """Retire now: a closure now (or at the start), recorded even behind an earlier end."""
        node = self.require(anchor)
        if node.retired_at is not None:
            return False
        end = max(at, node.valid_from)
        if node.valid_to is None or end < node.valid_to:
            self.close(anchor, end, at=at)
        else:
            self._record(node, end, at, None)
        self._set(node, "retired_at", at)
        return True

    def erase(self, anchor: str) -> None:
        self._set(self.require(anchor), "erased", True)

    def link(self, edge, *, at: int, valid_from: int | None = None, valid_to: int | None = None,
             proposal: str | None = None) -> bool:
        """Insert `edge` (a worlddb.core.records.Edge) as the reconciler and its handler must."""
        etype, src, dst, world = edge.type, edge.src, edge.dst, edge.world
        if etype not in REGISTERED:
            raise Expect("UnknownEdgeType", etype)
        for end in (src, dst):
            self.require(end)
        if world is not None:
            self.require(world)
            inside = self.closure(world)
            if src not in inside or dst not in inside:
                raise Expect("InvalidInput", "an end is not inside the edge's world")
        current = self.edges.get(edge.id)
        if current is not None and current.live:
            return False
        if valid_to is not None and valid_from is not None and valid_to < valid_from:
            raise Expect("InvalidInput", "edge valid_to before valid_from")
        start = at if valid_from is None else valid_from
        self._on_insert(edge, start, at, proposal)
        self._put(self.edges, edge.id, MEdge(edge.id, etype, src, dst, world, dict(edge.props), valid_from, valid_to))
        return True

    def _on_insert(self, edge, start: int, at: int, proposal: str | None) -> None:
        etype, src, dst = edge.type, edge.src, edge.dst
        if etype == "contains":
            if edge.world is not None:
                raise Expect("Refused", "contains edges belong to no world")
            if src == dst:
                raise Expect("Refused", "a world cannot contain itself")
            if src in self.closure(dst):
                raise Expect("Refused", "containment cycle")
            if self.nodes[dst].type == "Scope":
                raise Expect("Refused", "a scope's world is always a root")
            return
        if src == dst:
            raise Expect("Refused", f"{etype} self-loop")
        if etype == "supersedes":
            if self.reaches(dst, etype, src):
                raise Expect("Refused", "supersedes cycle")
            new, old = self.nodes[src], self.nodes[dst]
            if new.valid_from < old.valid_from:
                raise Expect("Refused", "replacement starts before the replaced node")
            self.close(dst, new.valid_from, at=at, cause=edge.id)
        elif etype in ACYCLIC and self.reaches(dst, etype, src):
            raise Expect("Refused", f"{etype} cycle")
        elif etype == "revises":
            # the older memory stays current: nothing closes (handlers/revises.py)
            if self.nodes[src].valid_from < self.nodes[dst].valid_from:
                raise Expect("Refused", "the revision becomes valid before the memory it revises")
        elif etype == "summarizes":
            if edge.world is not None:
                raise Expect("Refused", "summarizes edges belong to no world")
            if self.nodes[src].type != "Summary":
                raise Expect("Refused", "only a Summary summarizes")
        elif etype == "same_as":
            if self.nodes[src].erased or self.nodes[dst].erased:
                raise Expect("Refused", "same_as with an erased node")
            if proposal is not None:
                self._put(self.proposals, proposal, MProposal(proposal, src, dst, edge.id))
        elif etype in FUNCTIONAL_EDGES:
            for prior in sorted(self.live_edges(etype), key=lambda e: e.id):
                if prior.src != src or prior.dst == dst:
                    continue
                if prior.valid_from is not None and prior.valid_from > start:
                    raise Expect("Refused", "a later value is already recorded")
                if prior.valid_to is None or start < prior.valid_to:
                    self._set(prior, "valid_to", start)

    def unlink(self, edge, *, at: int) -> bool:
        if edge.type not in REGISTERED:
            raise Expect("UnknownEdgeType", edge.type)
        current = self.edges.get(edge.id)
        if current is None or not current.live:
            return False
        if edge.type == "same_as":
            for p in self.proposals.values():
                if p.edge_id == edge.id and p.status != "rejected":
                    self._set(p, "status", "rejected")
        if edge.type in ("supersedes", "revises"):
            self.withdraw(edge.id, at=at)  # what was closed in its name holds again
        self._set(current, "live", False)
        return True

    def decide(self, proposal_id: str, accept: bool) -> None:
        p = self.proposals.get(proposal_id)
        if p is None:
            raise Expect("NotFound", "no such proposal")
        if p.status != "pending":
            raise Expect("Conflict", f"proposal already {p.status}")
        self._set(p, "status", "accepted" if accept else "rejected")
