"""Topic worlds: each scope's memories and turns grouped by what they are about.

    TopicPass(db, now).run(report)         # cluster every scope that changed enough
    join(w, scope, anchor, vector)         # at write time: into the nearest topic
    topic_root(scope)                      # the scope's root topic (its anchor is derived)

Shape. Every scope with topics holds one root topic world, `Node("Topic", name="Topics",
meta={"scope": <scope anchor>, "root": True})`, whose anchor is a function of the scope's
alone (so recall finds it without a lookup). The root contains the top level of topics;
a topic contains either topics of the level below or members (current Memory and Turn
nodes of the scope), never both. With at most FANOUT topics of the first level, they are
the root's children; with more, the topics themselves are clustered into a level above,
and so on until a level has at most FANOUT topics. Topics are ordinary worlds: nodes of
type "Topic" that hold their children by contains edges written through the reconciler,
so they are hashed, versioned and verified like any world; the composer keeps each one's
effective vector as the mean of its children's (a topic has no content, so composition
is the mean pool). They never span scopes: a topic is made inside one scope's root from
that scope's members only, and a memory written to several scopes joins a topic in each.
Summaries of topics are the consolidator's ordinary summaries (summaries.py).

Clustering (`cluster`), per scope, from what the store holds and no model:
  - a k-nearest-neighbour graph over the members' effective vectors (KNN neighbours,
    edge weight the cosine; exact below EXACT_MAX members, else an HNSW index built for
    the pass), and
  - entity co-occurrence: members that refer_to the same entity are linked in a chain
    (each to the next ENTITY_LINKS in rowid order, weight ENTITY_WEIGHT), for entities
    that at least two and at most ENTITY_SHARE of the scope's members name - the
    participants of a conversation name half of it and say nothing about its topics;
  - Leiden (leidenalg over igraph; RB configuration model at RESOLUTION, seed 0, so the
    same graph gives the same topics); a community of more than TOPIC_MAX members is
    clustered again on its own, at UPPER_RESOLUTION. The configuration model's resolution
    depends on the graph's size: at a conversation's few hundred members RESOLUTION gives
    communities of about 5 to 20 and none needs splitting; at 50k members it gives large
    communities that the split cuts to at most TOPIC_MAX.
Levels above cluster the topics' mean vectors the same way (no entity links) at
UPPER_RESOLUTION, with at most FANOUT topics each. RESOLUTION was chosen by
leave-one-conversation-out on the dev conversations (docs/retrieval.md): the finest of 1, 3,
10 and 30, about 13 members a topic, won.

Upkeep. Write time: `join` puts a new memory or turn into the topic nearest to its vector,
descending from the root one level at a time (a cosine over at most FANOUT vectors per
level), inside the write's own transaction. Background: the pass re-clusters a scope when
members came or went since its last clustering by at least RECLUSTER_SHARE of its size (or
it has no topics yet and at least MIN_MEMBERS members), then reconciles: each new cluster
keeps the existing topic it shares most members with (greedily, largest overlap first),
so topics keep their identity and only moved members change edges; clusters left over
become new topics, and topics left over are emptied, unlinked and retired. Writes go in
transactions of at most `batch` edge changes. Re-running it on an unchanged store writes
nothing.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from worlddb.core.errors import Conflict, InvalidInput, NotFound
from worlddb.core.records import Edge, Node
from worlddb.core.store import ROWID_OF, Store
from worlddb.graph.database import WorldDB, Writer
from worlddb.vectors.hnsw import EFFECTIVE

from .report import Report

log = logging.getLogger(__name__)

TOPIC = "Topic"
#: the node types a topic gathers
MEMBER_TYPES = ("Memory", "Turn")
#: see the module docstring
KNN = 10
ENTITY_LINKS = 2
ENTITY_WEIGHT = 0.5
ENTITY_SHARE = 0.05
RESOLUTION = 10.0
UPPER_RESOLUTION = 1.0
TOPIC_MAX = 48
FANOUT = 32
MIN_MEMBERS = 8
RECLUSTER_SHARE = 0.1
EXACT_MAX = 4096
_META_KEY = "topics:"


def is_topic(view) -> bool:
    """Whether a node (record or view) is a topic world of this module: a Topic that names
    its scope (a Topic made by hand is an ordinary world)."""
    return view.type == TOPIC and "scope" in view.meta


def topic_root(scope: str) -> Node:
    """The genesis record of a scope's root topic: a function of the scope's anchor alone."""
    return Node(TOPIC, name="Topics", meta={"scope": scope, "root": True})


@lru_cache(maxsize=4096)
def _root_anchor(scope: str) -> str:
    """`topic_root(scope).id`, hashed once per scope (every write into the scope asks)."""
    return topic_root(scope).id


# ---------------------------------------------------------------------------- reads


def children(conn, world: str, *, topics: bool, retired: bool = False) -> list[tuple[int, str]]:
    """(rowid, anchor) of the children of `world` that are topics (or members), without
    the retired ones unless `retired`. Driven from the world's contains edges (edges_src):
    at most FANOUT rows for a topic that holds topics, TOPIC_MAX or so for one that holds
    members."""
    kinds = (TOPIC,) if topics else MEMBER_TYPES
    rows = conn.execute(
        "SELECT n.rowid, n.anchor FROM edges e JOIN nodes n ON n.rowid = e.dst "
        f"WHERE e.src = {ROWID_OF} AND e.type='contains' AND e.seq_removed IS NULL "
        f"AND (n.type || '') IN ({','.join('?' * len(kinds))}) {'' if retired else 'AND n.retired_at IS NULL'} "
        "ORDER BY n.rowid", (world, *kinds))
    return rows.fetchall()


def vectors_of(store: Store, rowids: Sequence[int]) -> dict[int, np.ndarray]:
    """rowid -> effective vector, for those of `rowids` that have one."""
    return {rowid: np.frombuffer(blob, dtype=np.float32) for rowid, blob in store.vectors(rowids, EFFECTIVE).items()}


def join(w: Writer, scope: str, anchor: str, vector: np.ndarray) -> str | None:
    """Put `anchor` (a member just written into `scope`) into the topic nearest to
    `vector`, descending from the scope's root; returns that topic, or None when the scope
    has no topics yet (the next pass places it)."""
    conn = w.tx.conn
    world = _root_anchor(scope)
    if w.tx.rowid(world) is None:
        return None
    found = None
    while True:
        below = children(conn, world, topics=True)
        if not below:
            break
        vectors = vectors_of(w.store, [rowid for rowid, _ in below])
        scored = [(float(vectors[rowid] @ vector), anchor_) for rowid, anchor_ in below if rowid in vectors]
        if not scored:
            break
        world = found = max(scored, key=lambda s: (s[0], s[1]))[1]
    if found is not None:
        w.link(Edge("contains", found, anchor))
    return found


# ---------------------------------------------------------------------------- clustering


def _knn(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(neighbours, cosines), each n x k, self excluded."""
    n = len(x)
    k = min(k, n - 1)
    if n <= EXACT_MAX:
        sims = x @ x.T
        np.fill_diagonal(sims, -np.inf)
        order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        return order, np.take_along_axis(sims, order, axis=1)
    import hnswlib

    index = hnswlib.Index(space="ip", dim=x.shape[1])
    index.init_index(max_elements=n, M=16, ef_construction=100, random_seed=0)
    index.set_num_threads(1)  # the graph, and so the topics, must not depend on thread timing
    index.add_items(x, np.arange(n))
    index.set_ef(max(64, 2 * k))
    labels, distances = index.knn_query(x, k=k + 1)
    order = np.empty((n, k), dtype=np.int64)
    sims = np.empty((n, k), dtype=np.float32)
    for i in range(n):
        keep = [j for j in range(k + 1) if labels[i, j] != i][:k]
        order[i], sims[i] = labels[i, keep], 1.0 - distances[i, keep]
    return order, sims


def cluster(x: np.ndarray, groups: Iterable[Sequence[int]] = (), *, max_size: int | None = None,
            resolution: float | None = None) -> list[list[int]]:
    """Communities of the rows of `x` (unit vectors): Leiden over their kNN graph plus a
    chain through each of `groups` (members naming one entity). Sorted, deterministic."""
    import igraph
    import leidenalg

    max_size = TOPIC_MAX if max_size is None else max_size
    n = len(x)
    if n <= 1:
        return [list(range(n))] if n else []
    weights: dict[tuple[int, int], float] = defaultdict(float)
    order, sims = _knn(x, KNN)
    for i in range(n):
        for j, sim in zip(order[i].tolist(), sims[i].tolist()):
            a, b = (i, j) if i < j else (j, i)
            weights[a, b] = max(weights[a, b], max(0.0, sim))
    for group in groups:
        for pos, i in enumerate(group):
            for j in group[pos + 1:pos + 1 + ENTITY_LINKS]:
                a, b = (i, j) if i < j else (j, i)
                weights[a, b] += ENTITY_WEIGHT
    edges = sorted(pair for pair, weight in weights.items() if weight > 0)
    graph = igraph.Graph(n=n, edges=edges)
    graph.es["weight"] = [weights[pair] for pair in edges]
    return sorted(_communities(graph, list(range(n)), RESOLUTION if resolution is None else resolution, max_size,
                               leidenalg))


def _communities(graph, names: list[int], resolution: float, max_size: int, leidenalg) -> list[list[int]]:
    """Leiden communities of `graph` (vertex i is names[i]); one larger than `max_size` is
    split by clustering its own subgraph again at UPPER_RESOLUTION (at the first level's
    resolution a small subgraph falls apart into single members; leidenalg's own size
    bound is not enforced by its optimiser), and a community that will not split is cut
    into runs of `max_size` in rowid order."""
    partition = leidenalg.find_partition(graph, leidenalg.RBConfigurationVertexPartition, weights="weight",
                                         resolution_parameter=resolution, seed=0)
    found: dict[int, list[int]] = defaultdict(list)
    for i, community in enumerate(partition.membership):
        found[community].append(i)
    out: list[list[int]] = []
    for members in found.values():
        if len(members) <= max_size:
            out.append([names[i] for i in members])
        elif len(found) == 1:
            out += [[names[i] for i in members[s:s + max_size]] for s in range(0, len(members), max_size)]
        else:
            out += _communities(graph.induced_subgraph(members), [names[i] for i in members],
                                min(resolution, UPPER_RESOLUTION), max_size, leidenalg)
    return out


def hierarchy(x: np.ndarray, groups: Iterable[Sequence[int]] = ()) -> list[list[list[int]]]:
    """Levels of topics, lowest first: level 0 groups rows of `x`, each level above groups
    the topics of the one below (by their mean vectors), until one has at most FANOUT."""
    levels = [cluster(x, groups)]
    below = x
    while len(levels[-1]) > FANOUT:
        means = np.stack([below[members].mean(axis=0) for members in levels[-1]])
        means /= np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)
        above = cluster(means, max_size=FANOUT, resolution=UPPER_RESOLUTION)
        if len(above) >= len(levels[-1]):  # no coarser grouping: runs of FANOUT in order
            above = [list(range(s, min(s + FANOUT, len(means)))) for s in range(0, len(means), FANOUT)]
        levels.append(above)
        below = means
    return levels


# ---------------------------------------------------------------------------- the pass


@dataclass
class _Plan:
    """The desired tree of one scope: per topic (existing anchor or new key), its children."""

    parent: dict[str, str]          # topic -> its parent (the root or a topic)
    children: dict[str, list[str]]  # topic -> children anchors (members or topics)
    level: dict[str, int]


class TopicPass:
    """Topics for every scope due for them, at time `now` (module docstring)."""

    def __init__(self, db: WorldDB, now: int, *, batch: int = 200, min_members: int = MIN_MEMBERS,
                 scopes: Iterable[str] | None = None):
        self.db = db
        self.store: Store = db.store
        self.now = now
        self.batch = batch
        self.min_members = min_members
        self.only = None if scopes is None else set(scopes)

    def run(self, report: Report) -> None:
        for (scope,) in self.store.conn.execute(
                "SELECT s.anchor FROM scopes s JOIN nodes n ON n.anchor = s.anchor "
                "WHERE n.retired_at IS NULL ORDER BY s.kind, s.sid").fetchall():
            if self.only is None or scope in self.only:
                self.scope(scope, report)

    def _members(self, scope: str) -> list[tuple[int, str]]:
        return self.store.conn.execute(
            "SELECT n.rowid, n.anchor FROM closure c JOIN nodes n ON n.rowid = c.node "
            f"WHERE c.world = {ROWID_OF} AND n.type IN ({','.join('?' * len(MEMBER_TYPES))}) AND n.retired_at IS NULL "
            "AND (n.valid_to IS NULL OR n.valid_to > ?) ORDER BY n.rowid",
            (scope, *MEMBER_TYPES, self.now)).fetchall()

    def _due(self, scope: str, members: list[tuple[int, str]]) -> bool:
        if len(members) < self.min_members:
            return False
        mark = self.store.meta_get(_META_KEY + scope)
        if mark is None:
            return True
        count, top = (int(v) for v in mark.split(":"))
        came = sum(1 for rowid, _ in members if rowid > top)
        went = count + came - len(members)
        return came + went >= max(1, RECLUSTER_SHARE * count)

    def scope(self, scope: str, report: Report) -> None:
        members = self._members(scope)
        if not self._due(scope, members):
            return
        vectors = vectors_of(self.store, [rowid for rowid, _ in members])
        members = [(rowid, anchor) for rowid, anchor in members if rowid in vectors]
        if len(members) < self.min_members:
            return
        x = np.stack([vectors[rowid] for rowid, _ in members]).astype(np.float32)
        x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
        levels = hierarchy(x, self._entity_groups(members))
        root = topic_root(scope).id
        plan = self._reconcile(root, [anchor for _, anchor in members], levels)
        self._write(scope, root, plan, report)
        with self.db.write("consolidate") as w:
            w.tx.set_meta(_META_KEY + scope, f"{len(members)}:{members[-1][0]}")
        report.transactions += 1

    def _entity_groups(self, members: list[tuple[int, str]]) -> list[list[int]]:
        position = {rowid: i for i, (rowid, _) in enumerate(members)}
        named: dict[int, list[int]] = defaultdict(list)
        rowids = [rowid for rowid, _ in members]
        for start in range(0, len(rowids), 500):
            chunk = rowids[start:start + 500]
            for src, dst in self.store.conn.execute(
                    f"SELECT src, dst FROM edges WHERE src IN ({','.join('?' * len(chunk))}) "
                    "AND type='refers_to' AND seq_removed IS NULL", chunk):
                named[dst].append(position[src])
        most = max(2, int(ENTITY_SHARE * len(members)))
        return [sorted(set(group)) for _, group in sorted(named.items()) if 2 <= len(set(group)) <= most]

    def _existing(self, root: str) -> tuple[dict[str, list[str]], dict[str, int]]:
        """The current topics under `root`: anchor -> children anchors, and each one's
        level counted from 0 (the topics that hold members)."""
        conn = self.store.conn
        kids: dict[str, list[str]] = {}
        if self.store.rowid(root) is None:
            return kids, {}
        frontier = [root]
        while frontier:
            below_all = []
            for topic in frontier:
                below = [a for _, a in children(conn, topic, topics=True)]
                if topic != root:
                    kids[topic] = below or [a for _, a in children(conn, topic, topics=False)]
                below_all += below
            frontier = below_all
        views = self.store.get_many(kids)
        return kids, {t: int(views[t].meta.get("level", 1)) - 1 for t in kids}

    def _reconcile(self, root: str, anchors: list[str], levels: list[list[list[int]]]) -> _Plan:
        old, old_level = self._existing(root)
        plan = _Plan(parent={}, children={}, level={})
        items = anchors  # what the clusters of this level group
        for depth, clusters in enumerate(levels):
            groups = [[items[i] for i in members] for members in clusters]
            candidates = {t: set(c) for t, c in old.items() if old_level.get(t) == depth}
            names = _match(groups, candidates, f"new:{depth}:")
            for name, group in zip(names, groups):
                plan.children[name] = group
                plan.level[name] = depth
                if depth > 0:
                    for child in group:
                        plan.parent[child] = name
            items = names
        for name in items:
            plan.parent[name] = root
        return plan

    def _write(self, scope: str, root: str, plan: _Plan, report: Report) -> None:
        store = self.store
        old, _ = self._existing(root)
        pending: list[tuple[str, Node | Edge | str, str | None]] = []
        if store.rowid(root) is None:
            pending.append(("add", topic_root(scope), scope))
        made: dict[str, str] = {}

        def real(name: str) -> str:
            return made.get(name, name)

        # new topics top level first, each made inside its parent (which exists by then)
        for name in sorted((n for n in plan.children if n.startswith("new:")), key=lambda n: -plan.level[n]):
            seed = min(plan.children[name]) if plan.level[name] == 0 else name
            node = Node(TOPIC, name=f"Topic (level {plan.level[name] + 1})",
                        meta={"scope": scope, "level": plan.level[name] + 1, "seed": seed},
                        provenance={"source": "consolidator"}, created_at=self.now)
            made[name] = node.id
            pending.append(("add", node, real(plan.parent[name])))
        for name, kids in plan.children.items():
            topic = real(name)
            want = [real(k) for k in kids]
            have = set() if name in made else self._current(topic)
            pending += [("link", Edge("contains", topic, k), None) for k in want if k not in have]
            pending += [("unlink", Edge("contains", topic, k), None) for k in sorted(have - set(want))]
        top_have = {a for _, a in children(store.conn, root, topics=True)} if store.rowid(root) else set()
        top_want = {real(n) for n, parent in plan.parent.items() if parent == root}
        pending += [("link", Edge("contains", root, t), None) for t in sorted(top_want - top_have)]
        pending += [("unlink", Edge("contains", root, t), None) for t in sorted(top_have - top_want)]
        gone = sorted(set(old) - {real(n) for n in plan.children})
        for topic in gone:
            pending += [("unlink", Edge("contains", parent, topic), None) for parent in store.parents(topic)]
            pending += [("unlink", Edge("contains", topic, k), None) for k in sorted(self._current(topic))]
            pending.append(("retire", topic, None))
        self._apply(pending, report)
        report.topics += list(made.values())
        report.topics_retired += gone

    def _current(self, topic: str) -> set[str]:
        conn = self.store.conn
        return ({a for _, a in children(conn, topic, topics=True, retired=True)}
                | {a for _, a in children(conn, topic, topics=False, retired=True)})

    def _apply(self, pending: list, report: Report) -> None:
        for start in range(0, len(pending), self.batch):
            chunk = pending[start:start + self.batch]
            try:
                self._commit(chunk, report)
            except (Conflict, InvalidInput, NotFound):
                for one in chunk:  # only what was refused is lost
                    try:
                        self._commit([one], report)
                    except (Conflict, InvalidInput, NotFound) as exc:
                        what = one[1]
                        report.refused.append((what if isinstance(what, str) else what.id, str(exc)))

    def _commit(self, chunk: list, report: Report) -> None:
        with self.db.write("consolidate") as w:
            for op, what, parent in chunk:
                if op == "add":
                    w.add(what, valid_from=self.now, parents=[parent] if parent else [])
                elif op == "link":
                    report.topic_moves += int(w.link(what))
                elif op == "unlink":
                    report.topic_moves += int(w.unlink(what))
                else:
                    w.retire(what, "its members moved to other topics")
        report.transactions += 1


def _match(groups: list[list[str]], candidates: dict[str, set[str]], prefix: str) -> list[str]:
    """For each group, the existing topic it keeps (largest overlaps first, each topic
    once), else a new name `prefix` + its index."""
    pairs = []
    for i, group in enumerate(groups):
        members = set(group)
        for topic, had in candidates.items():
            shared = len(members & had)
            if shared:
                pairs.append((-shared, i, topic))
    pairs.sort()
    names: list[str | None] = [None] * len(groups)
    used: set[str] = set()
    for _, i, topic in pairs:
        if names[i] is None and topic not in used:
            names[i] = topic
            used.add(topic)
    return [name if name is not None else f"{prefix}{i}" for i, name in enumerate(names)]
