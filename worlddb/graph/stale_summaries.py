"""Summaries end with the texts they quote, in the write that ends one of those texts.

A consolidator's Summary node (worlddb.consolidator.summaries, linked Summary -summarizes->
World) quotes the content of its world and of everything inside it, the summaries of
sub-worlds included. When one of those texts stops holding - a memory or turn retired,
superseded or amended, a fact retired with its memory, everything a purged scope held
alone - the summaries that may quote it must not stay current until the next
consolidation pass writes new ones. So every write transaction, before it commits, ends
the current summaries of what it closed (`Tx.closed`, every tightening of a valid_to):

  - which: for each closed node that is not itself a Summary, the summaries of the node
    itself (when it is a world) and, when it has content of its own, those of every world
    that holds it, at any depth. A world with no content (a topic) quotes nothing of its
    own: closing one ends its own summaries only, not those of the worlds above it;
  - how: a text closed by the transaction's time (retired, superseded now, closed in the
    past) retires the summary, as retire_all retires one, so no read returns or ranks it -
    recall, memory_read's current state, the global lane's bm25 over topic summaries, and
    reads pinned to a time; a text that ends later (a planned change) closes the summary's
    validity at that same time, so it ends with what it quotes.

Summaries the consolidator itself closes (a new one superseding the old) end nothing. The
next pass summarizes the world again from what is current: its fingerprint has changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from worlddb.core.store import list_params, list_sql

if TYPE_CHECKING:
    from worlddb.graph.database import Writer

#: the retire reason of a summary that quoted a text which stopped holding
REASON = "a text it summarizes stopped holding"

SUMMARY = "Summary"

#: (closed node, world whose summary may quote it)
Pair = tuple[str, str]


def end_stale_summaries(w: Writer) -> None:
    """End, through `w`, every current summary quoting a text its transaction closed
    (module docstring)."""
    ends: dict[str, int] = {}
    for anchor, to in w.tx.closed:
        ends[anchor] = min(to, ends.get(anchor, to))
    if not ends:
        return
    stale: dict[str, tuple[int, int | None]] = {}
    for node, summary, valid_to in _summaries_of(w, _quoting(w, list(ends))):
        to = min(ends[node], stale.get(summary, (ends[node], None))[0])
        stale[summary] = (to, valid_to)
    for summary, (to, valid_to) in sorted(stale.items()):
        if to <= w.at:
            w.retire(summary, REASON)
        elif valid_to is None or to < valid_to:
            w.close(summary, to, "a text it summarizes ends")


def _quoting(w: Writer, closed: list[str]) -> list[Pair]:
    """The node itself, and the worlds holding it when it has content of its own (a world
    without content quotes nothing); Summary nodes are left out."""
    conn = w.tx.conn
    rows = conn.execute(f"SELECT rowid, anchor, n_children FROM nodes WHERE anchor IN ({list_sql(len(closed))}) "
                        f"AND type != '{SUMMARY}'", list_params(closed)).fetchall()
    worlds = w.store.get_many(anchor for _, anchor, n_children in rows if n_children)
    quoted = [rowid for rowid, anchor, n_children in rows
              if not n_children or (anchor in worlds and worlds[anchor].content)]
    pairs = [(anchor, anchor) for _, anchor, _ in rows]
    if quoted:
        pairs += conn.execute(
            f"SELECT n.anchor, h.anchor FROM closure c JOIN nodes n ON n.rowid = c.node "
            f"JOIN nodes h ON h.rowid = c.world WHERE c.node IN ({list_sql(len(quoted))})",
            list_params(quoted)).fetchall()
    return pairs


def _summaries_of(w: Writer, pairs: list[Pair]) -> list[tuple[str, str, int | None]]:
    """(closed node, summary, the summary's valid_to) for every summary of a pair's world
    that is not retired and still open at the transaction's time."""
    if not pairs:
        return []
    worlds = sorted({world for _, world in pairs})
    rows = w.tx.conn.execute(
        "SELECT d.anchor, s.anchor, s.valid_to FROM edges e JOIN nodes s ON s.rowid = e.src "
        f"JOIN nodes d ON d.rowid = e.dst WHERE e.type = 'summarizes' AND e.seq_removed IS NULL "
        f"AND d.anchor IN ({list_sql(len(worlds))}) AND s.type = '{SUMMARY}' AND s.retired_at IS NULL "
        "AND (s.valid_to IS NULL OR s.valid_to > ?)",
        [*list_params(worlds), w.at]).fetchall()
    by_world: dict[str, list[tuple[str, int | None]]] = {}
    for world, summary, valid_to in rows:
        by_world.setdefault(world, []).append((summary, valid_to))
    return [(node, *found) for node, world in pairs for found in by_world.get(world, ())]
