"""The claims index, written: what each memory claims, recorded with the memory.

Contract: `record(w, worlds, anchor, keys)` writes, inside a write's transaction, one row of
the `claims` table (worlddb.core.schema) per scope world of the new memory and per key of
`keys(reading)` (worlddb.retrieval.claims, which reads the index and says what a key is).
memory_write, write_memories, import and amend record their memories' claims, and every
session its turns' (worlddb.memory.turn_updates). The index only widens what its readers
look at: a row proves nothing about a memory.
"""

from __future__ import annotations

from collections.abc import Iterable

from worlddb.graph.database import Writer
from worlddb.retrieval.claims import Key


def record(w: Writer, worlds: Iterable[str], anchor: str, found: Iterable[Key]) -> None:
    """Index the claims of the memory or turn `anchor`, just written into `worlds`."""
    found = sorted(found)
    if not found:
        return
    node = w.tx.rowid(anchor)
    rows = [(w.tx.rowid(world), subject, attribute, node) for world in worlds for subject, attribute in found]
    w.tx.conn.executemany("INSERT INTO claims(world, subject, attribute, node) VALUES (?,?,?,?) "
                          "ON CONFLICT DO NOTHING", rows)
