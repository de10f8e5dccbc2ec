"""The consolidator in the background: a daemon thread on a schedule, with run-now.

    task = ConsolidatorTask("memory.db", interval_secs=3600, min_age_secs=3600,
                            functional={"lives_in"})
    task.start()
    report = task.run_now()          # a pass now; waits for it and returns its Report
    task.stop()

Contract
- The task opens a WorldDB connection of its own on the same file at start() and only
  its thread uses it (the engine is synchronous sqlite3), so the caller's connection is
  never shared. Bad options or an unreadable file raise from start() itself. SQLite's WAL
  lets readers go on while a pass runs, and a pass takes the write lock only for one
  short transaction at a time (see engine.Consolidator).
- Passes run every `interval_secs` after start (not at start, unless `run_at_start`), and
  whenever `run_now()` asks. A request made while a pass is running is served by the next
  pass, so run_now() always reflects writes made before it was called.
- A pass that fails with a WorldDBError (e.g. the file stayed locked) is logged, kept in
  `last_error`, raised by the run_now() that asked for it, and the schedule goes on. Any
  other exception is a bug: it is kept in `last_error`, wakes every waiter, and ends the
  thread (raised again in the thread so it is reported, never swallowed).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from worlddb.core.errors import Conflict, InvalidInput, WorldDBError
from worlddb.graph.database import WorldDB

from .consolidator import Consolidator
from .report import Report

log = logging.getLogger(__name__)


class ConsolidatorTask:
    def __init__(self, path: str | Path, *, interval_secs: float = 3600.0, registry=None,
                 run_at_start: bool = False, **options):
        """`options` go to `Consolidator` (summarizer, min_age_secs, functional, ...)."""
        if interval_secs <= 0:
            raise InvalidInput("interval_secs must be positive")
        self.path = str(path)
        self.interval_secs = interval_secs
        self.registry = registry
        self.run_at_start = run_at_start
        self.options = options
        self.passes = 0
        self.last_report: Report | None = None
        self.last_error: BaseException | None = None
        self._cond = threading.Condition()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._requested = 0
        self._served = 0
        self._results: dict[int, tuple[Report | None, BaseException | None]] = {}
        self._thread: threading.Thread | None = None
        self._alive = False

    @property
    def running(self) -> bool:
        return self._alive

    def start(self) -> None:
        """Open the task's connection and start the thread. Bad options or an unreadable
        file raise here, in the caller's thread; a second start is refused (Conflict)."""
        if self._thread is not None and self._thread.is_alive():
            raise Conflict("the consolidator task is already running")
        db = WorldDB.open(self.path, registry=self.registry)
        try:
            consolidator = Consolidator(db, **self.options)
        except BaseException:
            db.close()
            raise
        self._alive = True
        self._stopping.clear()
        self._wake.clear()
        if self.run_at_start:
            self._wake.set()
        # From here on only the thread uses this connection (sqlite3 allows the hand-over:
        # the store opens it with check_same_thread=False).
        self._thread = threading.Thread(target=self._loop, args=(consolidator,), name="worlddb-consolidator",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 30.0) -> None:
        """Ask the thread to stop after the pass in progress, and wait for it."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise Conflict(f"the consolidator did not stop within {timeout} s")
            self._thread = None

    def run_now(self, *, wait: bool = True, timeout: float | None = None) -> Report | None:
        """Ask for a pass now. With `wait`, block until a pass that started after this call
        has finished and return its Report (or raise its WorldDBError)."""
        if not self.running:
            raise Conflict("the consolidator task is not running; call start() first")
        with self._cond:
            self._requested += 1
            ticket = self._requested
        self._wake.set()
        if not wait:
            return None
        with self._cond:
            if not self._cond.wait_for(lambda: self._served >= ticket or not self.running, timeout):
                raise Conflict(f"no consolidation pass finished within {timeout} s")
            if self._served < ticket:
                raise Conflict(f"the consolidator stopped before running the pass: {self.last_error!r}")
            report, error = self._results[self._served]
        if error is not None:
            raise error
        return report

    def _loop(self, consolidator: Consolidator) -> None:
        try:
            while True:
                self._wake.wait(self.interval_secs)
                if self._stopping.is_set():
                    return
                self._wake.clear()
                self._one_pass(consolidator)
        except BaseException as exc:
            self.last_error = exc  # not a WorldDBError: a bug; kept, then raised so the thread reports it
            raise
        finally:
            consolidator.db.close()
            with self._cond:
                self._alive = False
                self._cond.notify_all()

    def _one_pass(self, consolidator: Consolidator) -> None:
        with self._cond:
            serving = self._requested
        report, error = None, None
        try:
            report = consolidator.run()
        except WorldDBError as exc:
            log.warning("consolidation pass failed: %s", exc)
            error = exc
        with self._cond:
            self.passes += 1
            self.last_report = report if report is not None else self.last_report
            self.last_error = error
            self._served = max(self._served, serving)
            self._results = {self._served: (report, error)}
            self._cond.notify_all()
