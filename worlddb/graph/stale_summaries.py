"""Summaries end with the texts they quote, in the write that ends one of those texts.

A consolidator's Summary node (worlddb.consolidator.summaries, linked Summary -summarizes->
World) quotes the content of its world and of everything inside it, the summaries of
sub-worlds included. When one of those texts stops holding - a memory or turn retired,
superseded or amended, a fact retired with its memory, everything a purged scope held
alone - the summaries that may quote it must not stay current until the next
consolidation pass writes new ones. So every write transaction, before it commits, ends
the current summaries of what it closed (`Tx.closed`, every tightening of a valid_to):

  - which: for each closed node that is not itself a Summary, the summaries of the node
    itself (of a world, or of whatever a summarizes edge points at) and, when it has content
    of its own, those of every world that holds it, at any depth. A world with no content (a
    topic) quotes nothing of its own: closing one ends its own summaries only, not those of
    the worlds above it;
  - how: a text closed by the transaction's time (retired, superseded now, closed in the
    past) retires the summary, as retire_all retires one, so no read returns or ranks it -
    recall, memory_read's current state, the global lane's bm25 over topic summaries, and
    reads pinned to a time; a text that ends later (a planned change) closes the summary's
    validity at that same time (or where the summary begins, if that is later still), so it
    ends with what it quotes.

Summaries the consolidator itself closes (a new one superseding the old) end nothing. The
next pass summarizes the world again from what is current: its fingerprint has changed.
"""

from __future__ import annotations

from worlddb.core.store import list_params, list_sql, rowids_sql

#: the retire reason of a summary that quoted a text which stopped holding
REASON = "a text it summarizes stopped holding"

SUMMARY = "Summary"

#: (closed node, world whose summary may quote it)
Pair = tuple[str, str]


def end_stale_summaries(w) -> None:
    """End, through `w` (the transaction's Writer, worlddb.graph.database), every current
    summary quoting a text its transaction closed (module docstring)."""
    ends: dict[str, int] = {}
    for anchor, to in w.tx.closed:
        ends[anchor] = min(to, ends.get(anchor, to))
    if not ends:
        return
    stale: dict[str, int] = {}
    for node, summary in _summaries_of(w, _quoting(w, list(ends))):
        stale[summary] = min(ends[node], stale.get(summary, ends[node]))
    views = w.store.get_many(stale)
    for summary, to in sorted(stale.items()):
        view = views[summary]
        if to <= w.at:
            w.retire(summary, REASON)
            continue
        to = max(to, view.valid_from)  # a summary that begins later still ends as it begins
        if view.valid_to is None or to < view.valid_to:
            w.close(summary, to, "a text it summarizes ends")


def _quoting(w, closed: list[str]) -> list[Pair]:
    """The node itself, and the worlds holding it when it has content of its own (a world
    without content, a topic, quotes nothing); Summary nodes are left out."""
    views = w.store.get_many(closed)
    closed = [anchor for anchor in closed if anchor in views and views[anchor].type != SUMMARY]
    quoted = [anchor for anchor in closed if views[anchor].content]
    pairs = [(anchor, anchor) for anchor in closed]
    if quoted:
        pairs += w.tx.conn.execute(
            f"SELECT n.anchor, h.anchor FROM closure c JOIN nodes n ON n.rowid = c.node "
            f"JOIN nodes h ON h.rowid = c.world WHERE c.node IN {rowids_sql(len(quoted))}",
            list_params(quoted)).fetchall()
    return pairs


def _summaries_of(w, pairs: list[Pair]) -> list[Pair]:
    """(closed node, summary) for every summary of a pair's world that is not retired and is
    still open at the transaction's time."""
    if not pairs:
        return []
    worlds = sorted({world for _, world in pairs})
    rows = w.tx.conn.execute(
        "SELECT d.anchor, s.anchor FROM edges e JOIN nodes s ON s.rowid = e.src JOIN nodes d ON d.rowid = e.dst "
        f"WHERE e.type = 'summarizes' AND e.seq_removed IS NULL AND d.anchor IN ({list_sql(len(worlds))}) "
        f"AND s.type = '{SUMMARY}' AND s.retired_at IS NULL AND (s.valid_to IS NULL OR s.valid_to > ?)",
        [*list_params(worlds), w.at]).fetchall()
    by_world: dict[str, list[str]] = {}
    for world, summary in rows:
        by_world.setdefault(world, []).append(summary)
    return [(node, summary) for node, world in pairs for summary in by_world.get(world, ())]
