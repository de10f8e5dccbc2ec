"""The claims index for memories written before it: a resumable pass in bounded batches.

    report = backfill(db)                  # `worlddb backfill-claims`: until none is left
    task = BackfillTask(path).start()      # the server: the same, on a thread of its own

Schema 9 added the claims index (worlddb.memory.claims), which every memory write fills;
memories written before have no rows, so the update judge and recall's slot step could find
them by their vectors only. Migration 10 (worlddb.core.schema) cannot read slot claims - the
schema sits below the slot reader - so it only marks the pass as due: meta
`claims_backfill` holds the highest rowid of a memory the pass has still to read. A store
made at schema 10 or later never has the key, and never runs the pass.

Contract
- What it records: for each memory the pass reads, the rows a memory_write of it records
  now - `slot_readings.claim_keys` of its text, its current stored facts (as the update judge reads
  a stored memory's, `slot_readings.stored_facts`), its `user` (the first user scope the write
  named, from its provenance) and its speaker (`slot_readings.speaker_of` its metadata) - in every
  scope world that contains it, through
  `claims.record`; and its text's reading as such a write keeps it (`readings.record`,
  replacing a row another reader recorded; migration 12 makes the pass due again for the
  readings of nodes written before the table). Only current memories (not erased, validity open now, as the index's
  readers keep them): a memory's validity only ever closes, so a row of one that is no longer
  current would never be read.
- Conversation turns are read too (reader 10 on): each turn's claims as the write of its
  session records them (`slot_readings.turn_reading`, in the turn's speaker's voice; no facts;
  under the turn range's attributes, reader 12 on).
  Below, "memory" stands for either.
- Batches: newest first, BATCH memories at a time. Each batch's claims are read outside any
  transaction; then one short write transaction (the store's write lock: SQLite's
  BEGIN IMMEDIATE, PostgreSQL's advisory lock) inserts its rows and moves the cursor below
  it, or deletes the key after the last batch. A batch holds the lock for its inserts only.
- Crash-safe and idempotent: the rows and the cursor move commit together, so an
  interrupted pass resumes at the first batch not committed; rows are inserted with ON
  CONFLICT DO NOTHING, and a pass over a store without the key does nothing. A batch whose
  cursor another pass moved meanwhile writes nothing (the other pass did it); a memory
  erased meanwhile is skipped (its erasure deleted its rows).
- A new reader: when the slot reader learns to read a claim, the rows of memories written
  before it lack that claim. The store records which reader (`slot_readings.CLAIMS_READER`) its
  rows are from, under the meta key READER_KEY (set to this code's when a store is made: migration 11);
  `mark_stale`, run where the pass runs (the
  server's start, `worlddb backfill-claims`), makes the pass due again from the newest
  memory when the store's reader is older than this code's (or unrecorded: a store from
  before the key), and records this one. An older reader never marks a store a newer one
  recorded. The pass only adds rows, and a row proves nothing about a memory
  (worlddb.memory.claims), so a claim a new reader no longer makes costs a candidate the
  judge reads and dismisses, nothing more.
- The background task (`BackfillTask`) runs on a daemon thread with its own connection to
  the same file or database, pausing PAUSE_SECS between batches so that it shares the
  interpreter with the server's requests; it ends when the key is gone. A batch that fails
  with a WorldDBError (the file stayed locked) is logged and retried after RETRY_SECS.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from worlddb.core.errors import WorldDBError
from worlddb.core.schema import CLAIMS_BACKFILL_KEY, CLAIMS_READER_KEY
from worlddb.core.store import Store
from worlddb.core.timeutil import now_us
from worlddb.extract.slots import ReadingParts
from worlddb.graph.database import WorldDB
from worlddb.retrieval import claims as claims_index

from . import claims, readings, slot_readings

log = logging.getLogger(__name__)

#: memories per batch (one write transaction each)
BATCH = 200
#: the background task's pause between batches
PAUSE_SECS = 0.05
#: the background task's wait after a batch failed (e.g. the store stayed locked)
RETRY_SECS = 5.0

#: down the rowids from the cursor; (type || '') keeps SQLite off the type index, which would
#: read every memory of the store and sort them, at every batch
_BATCH_SQL = ("SELECT rowid, anchor FROM nodes WHERE rowid <= ? AND (type || '') IN ('Memory', 'Turn') "
              "AND erased_at IS NULL "
              "AND (valid_to IS NULL OR valid_to > ?) ORDER BY rowid DESC LIMIT ?")
_SCOPES_SQL = ("SELECT s.kind, s.sid, s.anchor FROM closure c JOIN nodes w ON w.rowid = c.world "
               "JOIN scopes s ON s.anchor = w.anchor WHERE c.node = ? ORDER BY s.kind, s.sid")
_SET = "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"


@dataclass
class Report:
    """What a pass did: memories read, claim rows recorded (one per key and scope world,
    whether or not the row was there already), batches committed, and whether it is done."""

    memories: int = 0
    claims: int = 0
    batches: int = 0
    seconds: float = 0.0
    done: bool = False

    def summary(self) -> dict:
        return {"memories": self.memories, "claims": self.claims, "batches": self.batches,
                "seconds": round(self.seconds, 3), "done": self.done}


#: the meta key naming the reader (slot_readings.CLAIMS_READER) the store's claims rows are from
READER_KEY = CLAIMS_READER_KEY


def mark_stale(db: WorldDB) -> bool:
    """Make the pass due from the newest memory if the store's claims rows are from an older
    reader than this code's, or from an unrecorded one, and record this code's; whether it
    did. A store without memories only records the reader."""
    if _reader(db.store.meta_get(READER_KEY)) >= slot_readings.CLAIMS_READER:
        return False
    with db.write("claims_reader") as w:
        conn = w.tx.conn
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (READER_KEY,)).fetchone()
        if _reader(row[0] if row else None) >= slot_readings.CLAIMS_READER:
            return False  # another process recorded it meanwhile
        top = conn.execute("SELECT max(rowid) FROM nodes WHERE type IN ('Memory', 'Turn')").fetchone()[0]
        if top is not None:
            conn.execute(_SET, (CLAIMS_BACKFILL_KEY, str(top)))
        conn.execute(_SET, (READER_KEY, str(slot_readings.CLAIMS_READER)))
    return top is not None


def _reader(value: str | None) -> int:
    return int(value) if value is not None and value.isdigit() else 0


def pending(store: Store) -> int | None:
    """The highest rowid of a memory the pass has still to read; None when none is left."""
    value = store.meta_get(CLAIMS_BACKFILL_KEY)
    return int(value) if value is not None else None


@dataclass(frozen=True)
class _Memory:
    rowid: int
    anchor: str
    worlds: tuple[str, ...]
    keys: frozenset
    #: its text's slot reading, kept (worlddb.memory.readings), and the voice it was read in
    reading: ReadingParts
    voice: readings.Voice


def step(db: WorldDB, batch: int = BATCH) -> tuple[int, int] | None:
    """One batch: (memories read, claim rows recorded); None when nothing is left to do."""
    store = db.store
    cursor = pending(store)
    if cursor is None:
        return None
    rows = store.conn.execute(_BATCH_SQL, (cursor, now_us(), batch)).fetchall()
    found = _read(store, rows)
    last = len(rows) < batch
    with db.write("claims_backfill") as w:
        conn = w.tx.conn
        now = conn.execute("SELECT value FROM meta WHERE key = ?", (CLAIMS_BACKFILL_KEY,)).fetchone()
        if now is None or int(now[0]) != cursor:
            return 0, 0  # another pass moved on meanwhile and recorded these
        live = {r[0] for r in conn.execute(
            f"SELECT rowid FROM nodes WHERE rowid IN ({','.join('?' * len(found))}) AND erased_at IS NULL",
            [m.rowid for m in found])} if found else set()
        recorded = 0
        for memory in found:
            if memory.rowid in live:
                claims.record(w, memory.worlds, memory.anchor, memory.keys)
                readings.record(w, memory.anchor, memory.reading, *memory.voice)
                recorded += len(memory.keys) * len(memory.worlds)
        if last:
            conn.execute("DELETE FROM meta WHERE key = ?", (CLAIMS_BACKFILL_KEY,))
        else:
            conn.execute(_SET, (CLAIMS_BACKFILL_KEY, str(rows[-1][0] - 1)))
    return len(rows), recorded


def _read(store: Store, rows: list) -> list[_Memory]:
    """The claims of a batch's memories, as a write of each records them (outside the lock)."""
    views = store.get_many([anchor for _, anchor in rows])
    out = []
    for rowid, anchor in rows:
        view = views.get(anchor)
        if view is None or view.content is None:
            continue
        scopes = store.conn.execute(_SCOPES_SQL, (rowid,)).fetchall()
        if not scopes:
            continue
        user = _user(view.provenance, scopes)
        if view.type == "Turn":
            speaker = view.meta.get("speaker") or ""
            whole = slot_readings.turn_reading(view.content, speaker, user)
            keys = claims_index.for_turn(claims_index.keys(whole, view.content))
            reading = ReadingParts.of(whole)
        else:
            speaker = slot_readings.speaker_of(view.meta)
            reading = slot_readings.text_parts(view.content, user, speaker)
            keys = slot_readings.claim_keys(view.content, slot_readings.stored_facts(store, anchor), user, speaker)
        out.append(_Memory(rowid, anchor, tuple(world for _, _, world in scopes), keys, reading, (user, speaker)))
    return out


def _user(provenance, scopes: list) -> str | None:
    """The `user` a write of the memory read its claims with: the first user scope it named
    (write._plan), else the first user scope that holds it."""
    named = slot_readings.user_named(provenance)
    return named if named is not None else next((sid for kind, sid, _ in scopes if kind == "user"), None)


def backfill(db: WorldDB, *, batch: int = BATCH, pause: float = 0.0,
             stopping: Callable[[], bool] = lambda: False) -> Report:
    """Run batches until none is left (or `stopping()` says so between two)."""
    report, started = Report(), time.perf_counter()
    while not stopping():
        done = step(db, batch)
        if done is None:
            report.done = True
            break
        report.memories += done[0]
        report.claims += done[1]
        report.batches += 1
        if pause:
            time.sleep(pause)
    report.seconds = time.perf_counter() - started
    return report


class BackfillTask:
    """The pass on a daemon thread with a connection of its own, until it is done or stopped."""

    def __init__(self, path: str | Path, *, registry=None, batch: int = BATCH, pause: float = PAUSE_SECS):
        self.path, self.registry, self.batch, self.pause = str(path), registry, batch, pause
        self.report = Report()
        self.last_error: BaseException | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> BackfillTask:
        """Open the task's connection (an unreadable store raises here) and start the thread."""
        db = WorldDB.open(self.path, registry=self.registry)
        self._thread = threading.Thread(target=self._run, args=(db,), name="worlddb-claims-backfill", daemon=True)
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the pass to end; whether it has."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running

    def stop(self, timeout: float | None = 30.0) -> None:
        """Stop after the batch in progress (committed or not: the next pass resumes either way)."""
        self._stopping.set()
        self.join(timeout)

    def _run(self, db: WorldDB) -> None:
        try:
            while not self._stopping.is_set():
                try:
                    report = backfill(db, batch=self.batch, pause=self.pause, stopping=self._stopping.is_set)
                except WorldDBError as exc:
                    log.warning("the claims backfill will retry in %s s: %s", RETRY_SECS, exc)
                    self.last_error = exc
                    self._stopping.wait(RETRY_SECS)
                    continue
                self.report.memories += report.memories
                self.report.claims += report.claims
                self.report.batches += report.batches
                self.report.seconds += report.seconds
                self.report.done = report.done
                if report.done:
                    log.info("claims backfill done: %s", report.summary())
                    return
        except BaseException as exc:
            self.last_error = exc  # not a WorldDBError: a bug; kept, then raised so the thread reports it
            raise
        finally:
            db.close()
