"""Stored readings: each memory's and turn's slot reading, kept as its write read it.

The update judge compares a new memory with its 10-20 nearest and claiming memories, and each of
those needs its slot reading (worlddb.extract.slots). Read again at every write, the candidates'
texts were most of what a write with claims spent beyond the model; yet every write already
reads its own text whole (for the claims index). This keeps that reading.

Contract
- `record(w, anchor, parts, user, speaker)` writes, inside the write's transaction, the one
  row of the `readings` table (worlddb.core.schema) of the node `anchor`: the text's own reading
  in parts (slots.read_parts: whole, and any restricted reading assembled from it exactly as
  the reader would; no facts, since a fact can end later) and the reader
  (`schema.CLAIMS_READER`), user and speaker it was read by and for. A later record of the
  same node replaces it. A turn's is its whole reading only (`ReadingParts.of`), which is all
  that is asked of a turn.
- `load(store, voices)` gives, for each anchor of `voices` whose row was recorded by this
  code's reader for the (user, speaker) `voices` names, the parts as recorded. Any other
  anchor is left out - no row, another reader's or another voice's, or a body that does not
  parse - and the caller reads its text as before, so a row can only save work, never change
  what is read.
- Written by memory_write, write_memories, import and amend (worlddb.memory.write), by every
  session's turns (worlddb.memory.ingest), and by the claims backfill for nodes written before
  (worlddb.memory.claims_backfill; migration 12 makes it due). Erasing a node's content deletes
  its row (worlddb.core.txn), since a reading quotes the text's values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from worlddb.core import schema
from worlddb.core.store import Store, list_params, rowids_sql
from worlddb.extract.slots import ReadingParts, SlotClaim
from worlddb.graph.database import Writer

#: (user, speaker): who a reading's first person was read as (slots.read's speaker_is, speaker)
Voice = tuple[str | None, str | None]

_UPSERT = "INSERT INTO readings(node, body) VALUES (?, ?) ON CONFLICT(node) DO UPDATE SET body = excluded.body"


def record(w: Writer, anchor: str, parts: ReadingParts, user: str | None, speaker: str | None) -> None:
    """Keep `parts`, the slot reading of the node `anchor` (just written, or read again by the
    claims backfill) for `user` in `speaker`'s voice."""
    w.tx.conn.execute(_UPSERT, (w.tx.rowid(anchor), encode(parts, user, speaker)))


def load(store: Store, voices: Mapping[str, Voice]) -> dict[str, ReadingParts]:
    """The recorded readings of the anchors of `voices` that this code's reader made for the
    voice given (module docstring); the others are left out."""
    if not voices:
        return {}
    anchors = list(voices)
    rows = store.conn.execute(
        f"SELECT n.anchor, r.body FROM readings r JOIN nodes n ON n.rowid = r.node "
        f"WHERE r.node IN {rowids_sql(len(anchors))}", list_params(anchors)).fetchall()
    out = {}
    for anchor, body in rows:
        found = decode(body)
        if found is not None and found[0] == voices[anchor]:
            out[anchor] = found[1]
    return out


def encode(parts: ReadingParts, user: str | None, speaker: str | None) -> str:
    """A row's body: [reader, user, speaker, claims, opened, cues], each claim as the list of its
    fields."""
    return json.dumps([schema.CLAIMS_READER, user, speaker, _fields(parts.claims), _fields(parts.opened),
                       sorted(parts.cues)], separators=(",", ":"))


def decode(body: str) -> tuple[Voice, ReadingParts] | None:
    """The voice and parts of a row's body if this code's reader recorded it, else None."""
    try:
        reader, user, speaker, claims, opened, cues = json.loads(body)
        if reader != schema.CLAIMS_READER:
            return None
        return (user, speaker), ReadingParts(_claims(claims), _claims(opened), frozenset(cues))
    except (ValueError, TypeError):
        return None


def _fields(claims: tuple[SlotClaim, ...]) -> list[list]:
    return [[c.subject, c.attribute, c.value, int(c.positive), int(c.ended), c.qualifier, int(c.named)]
            for c in claims]


def _claims(rows: list[list]) -> tuple[SlotClaim, ...]:
    return tuple(SlotClaim(subject, attribute, value, bool(positive), bool(ended), qualifier, bool(named))
                 for subject, attribute, value, positive, ended, qualifier, named in rows)
