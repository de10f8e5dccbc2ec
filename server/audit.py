"""The audit log: one JSON line per tool call, and one per HTTP request refused for want of
a good token.

    {"at": "2025-05-01T09:00:00.123456Z", "principal": "alice-laptop", "tool": "memory_recall",
     "scopes": ["user:alice"], "outcome": "ok", "error": null, "ms": 4.2}

``principal`` is who called (a token's name, ``oauth:<sub>``, ``token``, ``anonymous`` or,
on stdio, ``owner``); ``scopes`` the scope keys the call acted on (those it named, else its
default); ``outcome`` one of ``ok``, ``error`` (``error`` then names the error's class,
never its message), ``denied`` (it named a scope outside its grant; the caller was told
only NotFound) or ``limited`` (refused by a per-principal limit); ``ms`` the time the call
took. A request refused with 401 (no token, or one that is unknown, revoked or expired)
reaches no tool: its line has ``principal`` and ``tool`` null, ``scopes`` empty and
``outcome`` ``unauthenticated``, so guessing at tokens shows in the log. A sign-in at the memory
inspector's login form (worlddb.server.inspector) writes a line with ``tool``
``inspector_login``: ``outcome`` ``ok`` with the principal it signed in, or ``unauthenticated``
with ``principal`` null for a token that opened nothing. Each action taken there that reaches
the engine writes a line as a tool call does, with ``tool`` ``inspector_retire``,
``inspector_amend``, ``inspector_accept_merge`` or ``inspector_reject_merge`` and ``scopes``
the keys of what it changed (empty when it was refused). A line never holds memory text,
queries, metadata, ids, error messages or tokens.

Lines go to stderr (`STDERR`) or are appended to a file, each written whole and flushed.
A file can be rotated two ways, and neither loses a line:
- by the server: given ``max_bytes``, a line that would take the file past it first moves
  the file to ``FILE.1`` (``FILE.1`` to ``FILE.2``, and so on; ``backups`` are kept, the
  oldest dropped; the standard library's RotatingFileHandler);
- from outside (logrotate's default, moving or deleting the file): the next line notices
  the path no longer names the open file and opens it anew (WatchedFileHandler).
A line that cannot be written (a full disk) raises, as any write would: the caller decides.
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

#: the target that writes to the process's standard error
STDERR = "-"
#: the `tool` of a line for a login at the memory inspector's form
INSPECTOR_LOGIN = "inspector_login"
#: the `tool` of a line for each action taken at the memory inspector
INSPECTOR_RETIRE = "inspector_retire"
INSPECTOR_AMEND = "inspector_amend"
INSPECTOR_ACCEPT = "inspector_accept_merge"
INSPECTOR_REJECT = "inspector_reject_merge"
#: ... and for a scope downloaded from it (what the scope remembers, as `worlddb export` writes it)
INSPECTOR_EXPORT = "inspector_export"


class _Raising:
    """A logging handler that lets a failed write raise (logging's default prints and goes on)."""

    def handleError(self, record: logging.LogRecord) -> None:
        raise  # the exception being handled by the handler's emit


class _Rotating(_Raising, logging.handlers.RotatingFileHandler):
    pass


class _Watched(_Raising, logging.handlers.WatchedFileHandler):
    pass


class Audit:
    """Where audit lines go: `STDERR`, a file path (appended to), or None for nowhere.

    :param target: `STDERR`, a file path, or None.
    :param max_bytes: rotate the file before a line would take it past this size; 0 never
        (it may still be rotated from outside).
    :param backups: how many rotated files the server keeps (FILE.1 ... FILE.N).
    """

    def __init__(self, target: str | None, *, max_bytes: int = 0, backups: int = 5):
        if max_bytes < 0 or backups < 1:
            raise ValueError("max_bytes must be >= 0 and backups >= 1")
        self.target = target
        self._lock = threading.Lock()
        self._file: logging.FileHandler | None = None
        if target not in (None, STDERR):
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            # held open for the server's life, reopened after a rotation
            self._file = (_Rotating(target, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
                          if max_bytes else _Watched(target, encoding="utf-8"))

    @property
    def enabled(self) -> bool:
        return self.target is not None

    def tool_call(self, *, principal: str, tool: str, scopes: list[str], outcome: str, error: str | None,
                  seconds: float) -> None:
        self._write(principal=principal, tool=tool, scopes=scopes, outcome=outcome, error=error, seconds=seconds)

    def unauthenticated(self, *, seconds: float) -> None:
        """A request refused with 401 before it reached any tool."""
        self._write(principal=None, tool=None, scopes=[], outcome="unauthenticated", error=None, seconds=seconds)

    def inspector_login(self, *, principal: str | None, seconds: float) -> None:
        """A login at the inspector's form: signed in as `principal`, or (None) refused."""
        self._write(principal=principal, tool=INSPECTOR_LOGIN, scopes=[],
                    outcome="ok" if principal is not None else "unauthenticated", error=None, seconds=seconds)

    def _write(self, *, principal: str | None, tool: str | None, scopes: list[str], outcome: str,
               error: str | None, seconds: float) -> None:
        if self.target is None:
            return
        line = json.dumps({
            "at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "principal": principal, "tool": tool,
            "scopes": scopes, "outcome": outcome, "error": error, "ms": round(seconds * 1000, 1),
        }, ensure_ascii=False)
        with self._lock:
            if self._file is None:
                sys.stderr.write(line + "\n")
                sys.stderr.flush()
            else:
                # after close() (a request still in flight as the server shut down) the
                # handler opens the file again: its line is kept too
                self._file.handle(logging.makeLogRecord({"msg": line}))

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                try:
                    self._file.close()
                except OSError:
                    pass  # what is left unwritten is a line whose write already raised to its caller


__all__ = ["INSPECTOR_ACCEPT", "INSPECTOR_AMEND", "INSPECTOR_EXPORT", "INSPECTOR_LOGIN", "INSPECTOR_REJECT",
           "INSPECTOR_RETIRE", "STDERR", "Audit"]
