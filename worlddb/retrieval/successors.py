"""Recall's successor step: a newer text that changed a candidate comes just ahead of it.

A memory the update judge found changed by a newer one either closes (the newer one
supersedes it: hidden from a plain recall) or stays current and names the newer one (the newer
one revises it: changed it in part, or in words the rules cannot read - worlddb.memory.updates).
A revised memory keeps every word the question matched ("We cut releases every Thursday
afternoon" for "What day do we release?"), and the newer one ("We moved release day to
Tuesdays") may share fewer: left to the lanes, the older statement answers first. So, in a
recall pinned to no time, each candidate that a newer text supersedes or revises is preceded
by that text: where the newer one ranks lower, or the lanes did not find it, it moves, or is
brought, to just ahead of the candidate, with its lane "successor" naming the place (1 is
first) the changed candidate held. A newer text changed again brings its own successor ahead of
it, so a chain reads from its current end back, newest first. A successor joins only if it lies
inside the asked scopes, is shown under the recall's pins and passes the read plan's hides,
exactly as the lanes' candidates do; the changed candidate keeps its marks (superseded_by,
revised_by), so the agent still sees what it was. A revision is a change of part of the
candidate, and where the question names people the part matters: a text that only revised a
candidate and refers to none of them does not precede it ("I'm vegetarian, and Yuki can't eat
shellfish", revised by "I'm pescatarian now", for "What can't Yuki eat?"; "My dentist is Dr.
Alvarez", revised by "Alvarez moved her practice", for "What does Robert Chen do?"): it changed
what was said of someone else. A superseding text replaced the candidate whole, and precedes it
whoever the question names.

Contract: ``order(anchors, newer)`` is the pure reordering: `anchors` best first and `newer`
(anchor -> the admitted anchors that changed it, newest first) in, the new order out as
(anchor, place of the candidate it was brought ahead of, or None). ``newer_texts(store,
candidates, admit)`` reads the edges, following chains at most DEPTH steps, and
``about(store, newer, people)`` drops the revisions about someone else; both only read.

Stand-ins: in a recall pinned to no time, a superseded text is hidden, and the lanes that
matched it best would leave its place to whatever they matched next ("Our package registry is
Artifactory" for "Where do we publish packages?", superseded by "We replaced Artifactory with
Nexus"). ``standing_in(store, closed, admit)`` gives, for each closed text,
the newest text shown at the end of its supersedes chain (DEPTH steps at most, through texts
superseded in their turn): recall shows that one in the closed text's place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from worlddb.core.records import NodeView
from worlddb.core.store import Store
from worlddb.graph.edge_reads import edges_touching

#: the edge types by which a newer text changed an older one (src the newer, dst the older)
CHANGES = ("supersedes", "revises")
#: how many steps of a chain are followed back from one candidate
DEPTH = 4


def order(anchors: Sequence[str], newer: dict[str, list[str]]) -> list[tuple[str, int | None]]:
    """`anchors` (best first) with each one's successors (`newer`) just ahead of it, unless a
    successor stands ahead of it already: (anchor, the 1-based place in `anchors` of the
    candidate it was brought ahead of, or None where it keeps its own turn)."""
    place = {anchor: i for i, anchor in enumerate(anchors, start=1)}
    out: list[tuple[str, int | None]] = []
    done: set[str] = set()

    def emit(anchor: str, ahead_of: int | None) -> None:
        done.add(anchor)
        for successor in newer.get(anchor, ()):
            if successor not in done:
                emit(successor, ahead_of if anchor not in place else place[anchor])
        out.append((anchor, ahead_of))

    for anchor in anchors:
        if anchor not in done:
            emit(anchor, None)
    return out


def newer_texts(store: Store, candidates: dict[str, NodeView],
                admit: Callable[[list[str]], dict[str, NodeView]]) -> tuple[dict[str, list[str]], dict[str, NodeView]]:
    """(anchor -> the texts shown that supersede or revise it, newest first; the views of
    those brought in) for the `candidates` (anchor -> view, admitted already) and, DEPTH
    steps back, for their successors. `admit` takes would-be successors and returns the views
    of those a reader may be shown (scopes, pins, plan hides); one not admitted is not
    followed further."""
    newer: dict[str, list[str]] = {}
    views = dict(candidates)
    frontier, seen = list(candidates), set(candidates)
    for _ in range(DEPTH):
        edges = [e for kind in CHANGES for e in edges_touching(store, frontier, kind, "in")]
        fresh = [a for a in dict.fromkeys(e.src for e in edges) if a not in seen]
        seen.update(fresh)
        views.update(admit(fresh) if fresh else {})
        by_dst: dict[str, list[str]] = {}
        for edge in edges:
            if edge.src in views and edge.src not in by_dst.get(edge.dst, []):
                by_dst.setdefault(edge.dst, []).append(edge.src)
        for dst, srcs in by_dst.items():
            newer[dst] = sorted(srcs, key=lambda a: (-views[a].valid_from, -views[a].created_at, a))
        frontier = [a for a in fresh if a in views]
        if not frontier:
            break
    return newer, {a: v for a, v in views.items() if a not in candidates}


def standing_in(store: Store, closed: Sequence[str],
                admit: Callable[[list[str]], dict[str, NodeView]]) -> dict[str, NodeView]:
    """closed anchor -> the view of the newest admitted text that superseded it, directly or
    through texts superseded in their turn (DEPTH steps at most); a closed text nothing shown
    replaced (retired, or its successor out of the reader's scopes) has none."""
    newer: dict[str, list[str]] = {}
    seen, frontier = set(closed), list(dict.fromkeys(closed))
    for _ in range(DEPTH):
        if not frontier:
            break
        edges = edges_touching(store, frontier, "supersedes", "in")
        for edge in edges:
            newer.setdefault(edge.dst, []).append(edge.src)
        frontier = [a for a in dict.fromkeys(e.src for e in edges) if a not in seen]
        seen.update(frontier)
    reached = list(dict.fromkeys(src for srcs in newer.values() for src in srcs))
    shown = admit(reached) if reached else {}
    best: dict[str, NodeView] = {}
    for origin in closed:
        stack, visited = list(newer.get(origin, ())), set()
        while stack:
            anchor = stack.pop()
            if anchor in visited:
                continue
            visited.add(anchor)
            stack += newer.get(anchor, ())
            view = shown.get(anchor)
            if view is not None and (origin not in best or _later(view, best[origin])):
                best[origin] = view
    return best


def _later(view: NodeView, other: NodeView) -> bool:
    return (view.valid_from, view.created_at, view.anchor) > (other.valid_from, other.created_at, other.anchor)


def about(store: Store, newer: dict[str, list[str]], people: frozenset[str]) -> dict[str, list[str]]:
    """`newer` without the revisions about other people than the question names: where
    `people` (the entities of the people it names, with their accepted same_as classes) is not
    empty, a text that revised a candidate and refers to none of them is no successor of it.
    Superseding texts stay."""
    if not people or not newer:
        return newer
    revisers = list(dict.fromkeys(a for srcs in newer.values() for a in srcs))
    named = {edge.src for edge in edges_touching(store, revisers, "refers_to", "out") if edge.dst in people}
    whole = {(edge.dst, edge.src) for edge in edges_touching(store, list(newer), "supersedes", "in")}
    out: dict[str, list[str]] = {}
    for dst, srcs in newer.items():
        kept = [src for src in srcs if src in named or (dst, src) in whole]
        if kept:
            out[dst] = kept
    return out
