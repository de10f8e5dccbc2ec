"""Recall's graph step: fused scores spread along precedes edges, read only as far as needed.

Turns of a conversation are chained by precedes edges, and an answer usually sits next to
the turn that matches the question. Each node's fused score S is raised by PROPAGATION
times the best score within WINDOW precedes-hops of it, and those neighbours join the
candidates (S = 0 for a node no lane found):

    S'(d) = O(d) + PROPAGATION * max{ S(e) : e within WINDOW hops of d }

where O(d), what a node keeps of its own score, is S(d) unless a prior lowers it alone (a
turn that asks: worlddb.retrieval.brevity); O <= S always, so a question that matches still
lifts the turns that answer it by its whole score.

`propagate` computes S' for every candidate and neighbour: the definition. `ranked`
yields the same nodes with the same S' in the same order (S' descending, then rowid),
but reads neighbourhoods for the best-scored candidates only, and more only when its
consumer reads past what they settle - recall wants ten results out of several hundred
candidates. Why that is exact: with the neighbourhoods of the top candidates read, let s
be the best score of a candidate not read, and compute every node's S' from what is
known (neighbours not yet seen count as 0). A node whose computed S' exceeds
(1 + PROPAGATION) * s has it exactly: a read candidate knows all its neighbours, and any
other node has O <= S <= s, so its best known neighbour scores above s and no unread one can
beat it. Every other node's true S' is at most (1 + PROPAGATION) * s. So the nodes above
that bound, in their order, are exactly the head of the full ranking. The lifting
neighbour reported for a node is its best-scored one (ties to the lowest rowid), the
same in both.

The factor is a parameter: recall spreads an aggregation question's scores less
(AGGREGATE_PROPAGATION; worlddb.retrieval.recall), and the bound above holds for any factor.

Nodes without precedes edges (plain memories) are unaffected. A store without live
precedes edges is told by one probe of a partial index (`has_precedes`), and its
candidates come out in fused order without any neighbourhood read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator

PROPAGATION = 0.5
#: the factor for a question that asks for a list, a count or a span (docs/retrieval.md)
AGGREGATE_PROPAGATION = 0.35
WINDOW = 2
#: candidates whose neighbourhoods `ranked` reads first; doubled while more are needed
FIRST_READ = 32

#: precedes edges touching a batch of rowids, each direction driven from the rowids through
#: edges_src / edges_dst (an OR across the two joined ends would scan every edge)
NEIGHBOURS_SQL = (
    "SELECT e.src, e.dst FROM edges e WHERE e.src IN ({marks}) AND e.type='precedes' AND e.seq_removed IS NULL "
    "UNION ALL "
    "SELECT e.src, e.dst FROM edges e WHERE e.dst IN ({marks}) AND e.type='precedes' AND e.seq_removed IS NULL"
)


#: answered from the partial index edges_precedes, whatever the size of the edges table
HAS_PRECEDES_SQL = "SELECT 1 FROM edges {hint} WHERE type || '' = 'precedes' AND seq_removed IS NULL LIMIT 1"


def has_precedes(conn) -> bool:
    """Whether any live precedes edge exists."""
    sql = HAS_PRECEDES_SQL.format(hint=conn.backend.index_hint("edges_precedes"))
    return conn.execute(sql).fetchone() is not None


def neighbourhoods(conn, rowids: Iterable[int]) -> dict[int, set[int]]:
    """rowid -> rowids within WINDOW precedes-hops, in both directions (symmetric): complete
    for each of `rowids`; other nodes list only those of `rowids` they are near."""
    rowids = list(rowids)
    frontier = {r: {r} for r in rowids}
    reach: dict[int, set[int]] = {r: set() for r in rowids}
    adjacency: dict[int, set[int]] = {}
    # adjacency also learns edges of nodes it was not asked about (the far end of a fetched
    # edge); only nodes in `fetched` have their full neighbour set
    fetched: set[int] = set()
    wanted = set(rowids)
    for _ in range(WINDOW):
        missing = [r for r in wanted if r not in fetched]
        fetched.update(missing)
        for start in range(0, len(missing), 400):
            chunk = missing[start:start + 400]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(NEIGHBOURS_SQL.format(marks=marks), chunk + chunk)
            for r in chunk:
                adjacency.setdefault(r, set())
            for a, b in rows:
                adjacency.setdefault(a, set()).add(b)
                adjacency.setdefault(b, set()).add(a)
        wanted = set()
        for origin, front in frontier.items():
            nxt = {n for f in front for n in adjacency.get(f, ())} - reach[origin] - {origin}
            reach[origin] |= nxt
            frontier[origin] = nxt
            wanted |= nxt
    symmetric: dict[int, set[int]] = defaultdict(set)
    for origin, found in reach.items():
        for other in found:
            symmetric[origin].add(other)
            symmetric[other].add(origin)
    return symmetric


def _best(near: Iterable[int], scores: dict[int, float]) -> tuple[float, int | None]:
    """The best score among `near` and whose it is (ties to the lowest rowid)."""
    best, source = 0.0, None
    for other in near:
        score = scores.get(other, 0.0)
        if score > best or (score == best and source is not None and other < source):
            best, source = score, other
    return best, source


def propagate(conn, scores: dict[int, float], spread: float = PROPAGATION, own: dict[int, float] | None = None
              ) -> tuple[dict[int, float], dict[int, int]]:
    """S' of every candidate and neighbour (with `spread` as the factor), and the neighbour
    that lifted each; `own` (O, default `scores`) what each candidate keeps of its own score."""
    if not scores:
        return {}, {}
    own = scores if own is None else own
    near = neighbourhoods(conn, scores)
    final: dict[int, float] = {}
    lifted: dict[int, int] = {}
    for node in set(scores) | set(near):
        best, source = _best(near.get(node, ()), scores)
        final[node] = own.get(node, 0.0) + spread * best
        if source is not None:
            lifted[node] = source
    return final, lifted


def ranked(conn, scores: dict[int, float],
           admit: Callable[[list[int]], set[int]] | None = None, spread: float = PROPAGATION,
           own: dict[int, float] | None = None) -> Iterator[tuple[int, float, int | None]]:
    """(rowid, S', lifting neighbour or None) in the order of `propagate`'s S' with the same
    `spread` and `own` (descending, then rowid), reading neighbourhoods lazily (module
    docstring). `admit(rowids)` returns which of the given non-candidates may join (the
    others are skipped). `own` must not exceed `scores` anywhere."""
    own = scores if own is None else own
    if not has_precedes(conn):
        yield from ((node, own[node], None) for node in sorted(own, key=lambda r: (-own[r], r)))
        return
    order = sorted(scores, key=lambda r: (-scores[r], r))
    read = 0
    emitted: set[int] = set()
    admitted: dict[int, bool] = {}
    near: dict[int, set[int]] = defaultdict(set)
    while True:
        upto = len(order) if read >= len(order) else min(len(order), max(FIRST_READ, 2 * read))
        for node, others in neighbourhoods(conn, order[read:upto]).items():
            near[node] |= others
        read = upto
        done = read >= len(order)
        # no node not above this bound can be ranked yet (module docstring)
        bound = (1 + spread) * scores[order[read]] if not done else float("-inf")
        known: list[tuple[float, int, int | None]] = []
        for node in set(order[:read]) | set(near):
            if node not in emitted:
                best, source = _best(near.get(node, ()), scores)
                final = own.get(node, 0.0) + spread * best
                if final > bound:
                    known.append((final, node, source))
        joining = [node for _, node, _ in known if node not in scores and node not in admitted]
        if joining:
            allowed = admit(joining) if admit is not None else set(joining)
            admitted.update((node, node in allowed) for node in joining)
        for final, node, source in sorted(known, key=lambda item: (-item[0], item[1])):
            emitted.add(node)
            if node in scores or admitted[node]:
                yield node, final, source
        if done:
            return

