"""Learning what a memory-layer call wrote, and checking it against what the call may do.

After a successful call, `adopt(h, last_seq, ...)` reads every node, edge and proposal the
call's transactions added and brings them into the model:
- a new node must not be born retired, and is adopted open (closings are predicted);
- containment may only come from the worlds the call named (its scopes, or for ingest the
  sessions it created);
- every new edge is replayed through the model's handlers, in the order the engine wrote
  it, so a learned edge that the handlers must refuse is a violation, and supersedes edges
  close what they must;
- a memory that supersedes another closes the facts drawn from it where it begins, and a
  revision those of its facts the engine found about the changed slots (checked to be the
  revised memory's own, closed where the revision starts), each in the name of its edge;
- functional facts are *predicted* (supersede a current value when newer, contradict it
  otherwise) in write order and compared with the edges the engine actually wrote;
- every proposal the resolver staged pairs two entities of one and the same scope;
- no memory call removes an edge, but an amend the supersedes and revises edges of the memory
  it amends: what that memory ended holds again unless the new text ends it (replayed through
  the model, which withdraws what was closed in their names).
"""

from __future__ import annotations

from fuzz.model import FUNCTIONAL_FACTS, MEMORY_TYPES, Expect
from fuzz.vocabulary import Violation
from worlddb.core.records import Edge


def adopt(h, last: int, *, parents: set[str], marker: str | None = None, amended: tuple | None = None):
    """Learn the rows written since seq `last`; returns (new node anchors in order, new edges)."""
    conn, model = h.store.conn, h.model
    removed = [(h.store.edge(bytes(i).hex()).edge, at) for i, at in conn.execute(
        "SELECT id, t_removed FROM edges WHERE seq_removed > ? ORDER BY seq_removed, rowid", (last,))]
    undone = [e for e, _ in removed if amended and e.src == amended[0] and e.type in ("supersedes", "revises")]
    if len(undone) != len(removed):
        raise Violation(f"a memory call removed edges {[e.type for e, _ in removed]}")
    rows = conn.execute("SELECT anchor, type, valid_from, valid_to, t_ingested, retired_at FROM nodes "
                        "WHERE seq > ? ORDER BY rowid", (last,)).fetchall()
    new = []
    model.begin()
    for anchor, ntype, vf, _vt, ingested, retired in rows:
        if retired is not None:
            raise Violation(f"new {ntype} {anchor[:12]} is born retired")
        view = h.store.get(anchor)
        extra = {"text": bool(view.content)}
        if ntype in ("Memory", "Turn"):
            extra |= {"indexed": True, "marker": marker if ntype == "Memory" else None}
        if ntype == "Fact":
            meta = view.meta
            extra |= {"fact": (meta.get("subject"), meta.get("relation"), meta.get("object"))}
        # born open: any closing in the same call is predicted below, and compared after
        model.add(anchor, ntype, at=ingested, valid_from=vf, valid_to=None, **extra)
        if ntype == "Scope":
            model.add_scope(h.store.get(anchor).name, anchor)
        new.append(anchor)
    proposals = {edge_id: pid for pid, edge_id in conn.execute(
        "SELECT id, edge_id FROM proposals WHERE seq_created > ?", (last,))}
    new_facts = [a for a in new if model.nodes[a].type == "Fact"]
    edges, replaced, revised = [], [], []
    try:
        for edge, at in removed:
            model.unlink(edge, at=at)
        for view in h.store.edges_added_after(last):
            edge, vf, vt, added = view.edge, view.valid_from, view.valid_to, view.t_added
            edges.append(edge)
            new_session = edge.src in new and model.nodes[edge.src].type == "Session"
            if edge.type == "contains" and edge.src not in parents and not new_session:
                raise Violation(f"a memory call put {edge.dst[:12]} into {edge.src[:12]}, a world it did not name")
            if edge.type in ("supersedes", "contradicts") and edge.src in new_facts:
                continue  # predicted below, in the order the engine writes facts
            model.link(edge, at=added, valid_from=vf, valid_to=vt, proposal=proposals.get(edge.id))
            texts = model.nodes[edge.src].type in MEMORY_TYPES and model.nodes[edge.dst].type in MEMORY_TYPES
            if amended and edge.type == "supersedes" and edge.dst == amended[0]:
                _close_derived(h, edge, amended[1], added)
            elif edge.type == "supersedes" and texts:
                replaced.append((edge, model.nodes[edge.src].valid_from, added))
            elif edge.type == "revises" and texts:
                revised.append((edge, model.nodes[edge.src].valid_from, added))
        predicted = _functional(h, new_facts)
        # a memory the update judge found the write to replace: its facts end where the new one
        # begins, closed after the new facts are written (worlddb.memory.updates.apply)
        for edge, starts, added in replaced:
            _close_derived(h, edge, starts, added)
        for edge, starts, added in revised:
            _close_revised(h, edge, starts, added)
        model.commit()
    except Expect as exc:
        model.rollback()
        raise Violation(f"a memory call wrote what the handlers must refuse: {exc}") from None
    actual = {e.id for e in edges if e.type in ("supersedes", "contradicts") and e.src in new_facts}
    if actual != {e.id for e in predicted}:
        raise Violation(f"functional facts: engine wrote {sorted(actual)}, model expected "
                        f"{sorted(e.id for e in predicted)}")
    _check_proposals_stay_in_scope(h, proposals.values())
    return new, edges


def _close_derived(h, edge: Edge, starts: int, at: int) -> None:
    """A superseded (or amended) memory's facts, all but retired ones, end where its replacement
    starts, in the name of the supersedes edge."""
    for e in [e for e in h.model.live_edges("derived_from") if e.dst == edge.dst]:
        node = h.model.nodes[e.src]
        if node.retired_at is None:
            h.model.close(e.src, max(starts, node.valid_from), at=at, cause=edge.id)


def _close_revised(h, edge: Edge, starts: int, at: int) -> None:
    """A revised memory's facts about the slots its revision changed end where the revision
    starts (worlddb.memory.updates.apply), in the name of the revises edge. Which slots changed
    is the slot reader's reading, so the engine's choice of facts is taken (the closures it
    recorded in the edge's name) - but only among the revised memory's own facts, and only
    closed at that time."""
    own = {e.src for e in h.model.live_edges("derived_from") if e.dst == edge.dst}
    rows = h.store.conn.execute("SELECT anchor, valid_to FROM validity_log WHERE cause = ? AND seq_withdrawn IS NULL",
                                (edge.id,)).fetchall()
    for anchor, to in rows:
        node = h.model.nodes.get(anchor)
        if anchor not in own or node.retired_at is not None or to != max(starts, node.valid_from):
            raise Violation(f"revised memory {edge.dst[:12]}: {anchor[:12]} closed at {to} in the revision's "
                            f"name, not one of its facts closed where the revision starts")
        h.model.close(anchor, to, at=at, cause=edge.id)


def _functional(h, new_facts: list[str]) -> list[Edge]:
    """The supersedes/contradicts edges functional facts must get, applied in write order."""
    model, out = h.model, []
    for i, anchor in enumerate(new_facts):
        fact = model.nodes[anchor]
        later = set(new_facts[i:])
        subject, relation, obj = fact.fact
        if relation not in FUNCTIONAL_FACTS:
            continue
        about = {e.src for e in model.live_edges("refers_to") if e.dst == subject and e.props.get("role") == "subject"}
        for prior in sorted(about):
            p = model.nodes[prior]
            if prior in later or p.fact is None or p.erased or p.fact[:2] != (subject, relation):
                continue  # itself, one written after it, or not a value of this relation
            if p.valid_to is not None or p.fact[2] == obj:
                continue
            kind = "supersedes" if fact.valid_from > p.valid_from else "contradicts"
            edge = Edge(kind, anchor, prior)
            model.link(edge, at=fact.t_ingested)
            out.append(edge)
    return out


def _check_proposals_stay_in_scope(h, proposal_ids) -> None:
    for pid in proposal_ids:
        p = h.model.proposals[pid]
        if not any(p.a in h.model.closure(w) and p.b in h.model.closure(w) for w in h.model.scopes.values()):
            raise Violation(f"proposal {pid[:12]} pairs entities of different scopes")
