"""Snapshots of the HNSW indexes on disk, so that opening a large store does not rebuild them.

An `AnnIndex` (worlddb.vectors.hnsw) is a cache of the `vectors` table. Building it from SQL costs
about as much as the load that wrote the vectors (minutes at a million nodes); loading a
saved graph costs a read of the file. A snapshot records, beside the hnswlib graph, the
label -> node map, which labels were deleted, and the position in the write history the
graph reflects: the highest vector `seq` it applied and that transaction's time (`tx.at`).
Whoever loads a snapshot catches up from that seq like any other reader, so a snapshot
taken before later writes is still correct after `sync()`.

Layout, next to the database file (as SQLite puts `-wal` and `-shm`):

    memory.db-ann/effective.json                 header (what follows is trusted only if it matches)
    memory.db-ann/effective-<digest>.hnsw        the hnswlib graph
    memory.db-ann/effective-<digest>.npy         label, node, live flag and element, one row per label

The table's rows are first the graph's elements (their element is themselves), then the live
labels kept out of the graph as twins of an element with an equal vector (the header's
`twins`); a table of three columns, from before twins, has only the former.

The data files are named by the blake3 digest of their bytes, and the header, which
names both digests, is replaced atomically last: a reader sees the old snapshot or the
new one, never half of each, and a file that does not hash to its name is not used.

A snapshot is used only if its header matches the store it is opened against: the same
kind, embedding model and graph parameters, and a transaction at the recorded seq with
the recorded time (a file restored from a backup, or a different database moved to the
same path, fails that). Anything else - a missing, torn, corrupt or stale snapshot - is
logged and the index is rebuilt from SQL, exactly as if no snapshot existed: a snapshot
can cost a rebuild, never a wrong answer.

Erased content must not outlive its erasure on disk either: `discard()` removes every
snapshot of the database (worlddb.graph.database calls it when a write erases content, inside the
transaction and again after the commit), and an index overwrites a deleted vector's data
in its graph, so the next snapshot does not hold it (worlddb.vectors.hnsw).

Several processes may share a database (each desktop client window starts its own
server), so saves and loads are serialized by an advisory lock on `<dir>/.lock`: a load
holds it shared from reading the header until its files are open, and waits for a save in
progress; a save holds it exclusively, and is skipped - a snapshot is only a cache - when
another process is saving or loading. Without it, a save could delete the files a load
had just found named in the header, or two saves could each keep a header naming the
other's deleted files; either cost the next open a rebuild. `discard()` takes no lock: it
runs inside write transactions, and removing headers first is safe against any reader.
Where advisory locks are unavailable (Windows, a folder this process cannot write), the
lock is skipped and such a race costs a rebuild, never a wrong answer; so does a load
that found the lock held for LOAD_WAIT_S and went ahead.

This module only reads and writes files; what a snapshot holds and when one is taken is
decided by worlddb.vectors.hnsw.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import blake3
import hnswlib
import numpy as np

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

log = logging.getLogger("worlddb.vectors.hnsw")

FORMAT = "worlddb.vectors.hnsw.v1"
#: a save takes seconds even at a million nodes; scratch files this old are abandoned
ABANDONED_AFTER_S = 3600.0
KIND_NAMES = {0: "content", 1: "effective", 2: "name", 3: "unit"}
LOCK_FILE = ".lock"
#: how long a load waits for a save in progress (one takes ~14 s at a million nodes); a
#: process that holds the lock longer is stuck, and waiting on would only stall the opening
LOAD_WAIT_S = 120.0


def directory_for(db_path: str) -> Path | None:
    """Where the snapshots of the database at `db_path` live (None for in-memory databases,
    and for a PostgreSQL URL: its vector index lives in the database)."""
    if not db_path or db_path == ":memory:" or db_path.startswith("file:") or "://" in db_path:
        return None
    return Path(db_path + "-ann")


@dataclass(frozen=True)
class Header:
    kind: int
    model: str
    dim: int
    M: int
    ef_construction: int
    seen_seq: int
    seen_at: int
    elements: int
    graph: str
    table: str
    #: rows of the table past the graph's elements: live labels kept out of the graph as
    #: twins of an element with an equal vector (worlddb.vectors.hnsw); absent before them
    twins: int = 0

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, **self.__dict__}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Header:
        record = json.loads(text)
        if record.pop("format", None) != FORMAT:
            raise ValueError("not a worlddb.vectors.hnsw.v1 header")
        return cls(**record)


@dataclass(frozen=True)
class Loaded:
    header: Header
    index: hnswlib.Index
    labels: np.ndarray
    nodes: np.ndarray
    live: np.ndarray
    #: (label, node, element) of each twin
    twins: np.ndarray


@contextmanager
def reading(directory: Path | None) -> Iterator[None]:
    """Hold off saves (of any process) while a snapshot's header and files are read."""
    if directory is None or not directory.is_dir():
        yield
        return
    with _locked(directory, exclusive=False, wait=LOAD_WAIT_S) as held:
        if not held:
            log.warning("the HNSW snapshots in %s stayed locked for %.0f s; reading them anyway",
                        directory, LOAD_WAIT_S)
        yield


@contextmanager
def _locked(directory: Path, *, exclusive: bool, wait: float) -> Iterator[bool]:
    """Inside: True if the lock is held (or locking is unavailable here), False if another
    process held it for `wait` seconds. Closing the descriptor releases the lock."""
    if fcntl is None:
        yield True
        return
    try:
        fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield True  # a folder this process may read but not write: nobody here saves
        return
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
                held = True
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    held = False
                    break
                time.sleep(0.05)
            except OSError:
                held = True  # a file system without advisory locks (some network mounts)
                break
        yield held
    finally:
        os.close(fd)


def read_header(directory: Path, kind: int) -> Header | None:
    path = directory / f"{KIND_NAMES[kind]}.json"
    try:
        return Header.from_json(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as exc:
        log.warning("ignoring the HNSW snapshot header %s: %s", path, exc)
        return None


def load(directory: Path, header: Header, capacity: int) -> Loaded | None:
    """The snapshot `header` names, or None (logged) if its files are missing or altered."""
    name = KIND_NAMES[header.kind]
    graph = directory / f"{name}-{header.graph[:16]}.hnsw"
    table = directory / f"{name}-{header.table[:16]}.npy"
    try:
        if _digest(graph) != header.graph or _digest(table) != header.table:
            log.warning("the HNSW snapshot in %s does not match its header; rebuilding", directory)
            return None
        rows = np.load(table, allow_pickle=False)
        if rows.ndim != 2 or rows.shape not in ((header.elements, 3), (header.elements + header.twins, 4)):
            log.warning("the HNSW snapshot table %s has the wrong shape; rebuilding", table)
            return None
        index = hnswlib.Index(space="cosine", dim=header.dim)
        index.load_index(str(graph), max_elements=max(capacity, header.elements))
    except FileNotFoundError:
        log.info("the HNSW snapshot in %s lost a file (replaced meanwhile?); rebuilding", directory)
        return None
    except (OSError, ValueError, RuntimeError) as exc:
        log.warning("could not load the HNSW snapshot in %s: %s; rebuilding", directory, exc)
        return None
    if index.element_count != header.elements:
        log.warning("the HNSW snapshot in %s holds %d elements, its header says %d; rebuilding",
                    directory, index.element_count, header.elements)
        return None
    graph_rows, twin_rows = rows[:header.elements], rows[header.elements:]
    return Loaded(header, index, graph_rows[:, 0], graph_rows[:, 1], graph_rows[:, 2].astype(bool),
                  twin_rows[:, [0, 1, 3]] if len(twin_rows) else np.empty((0, 3), dtype=np.int64))


def save(directory: Path, header: Header, index: hnswlib.Index, labels, nodes, live,
         twins=()) -> Header | None:
    """Write a snapshot (header last, atomically); returns the header written, with digests,
    or None if another process is saving or loading snapshots here (nothing written).
    `labels`, `nodes` and `live` are the graph's elements; `twins` (label, node, element)
    the live labels kept out of it."""
    directory.mkdir(parents=True, exist_ok=True)
    with _locked(directory, exclusive=True, wait=0) as held:
        if not held:
            log.info("another process is saving or loading the HNSW snapshots in %s; not saving now", directory)
            return None
        return _save(directory, header, index, labels, nodes, live, twins)


def _save(directory: Path, header: Header, index: hnswlib.Index, labels, nodes, live, twins) -> Header:
    name = KIND_NAMES[header.kind]
    _remove_abandoned(directory)
    labels = np.asarray(labels, dtype=np.int64)
    graph_rows = np.column_stack([labels, np.asarray(nodes, dtype=np.int64), np.asarray(live, dtype=np.int64),
                                  labels]).reshape(-1, 4)
    twin_rows = np.asarray([(label, node, 1, element) for label, node, element in twins],
                           dtype=np.int64).reshape(-1, 4)
    rows = np.vstack([graph_rows, twin_rows])
    scratch = f".{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    graph_tmp, table_tmp, header_tmp = (directory / f"{scratch}{suffix}" for suffix in (".hnsw", ".npy", ".json"))
    try:
        index.save_index(str(graph_tmp))
        with open(table_tmp, "wb") as out:
            np.save(out, rows, allow_pickle=False)
        for path in (graph_tmp, table_tmp):
            _fsync(path)
        graph, table = _digest(graph_tmp), _digest(table_tmp)
        os.replace(graph_tmp, directory / f"{name}-{graph[:16]}.hnsw")
        os.replace(table_tmp, directory / f"{name}-{table[:16]}.npy")
        written = Header(**{**header.__dict__, "elements": len(graph_rows), "twins": len(twin_rows),
                            "graph": graph, "table": table})
        header_tmp.write_text(written.to_json())
        _fsync(header_tmp)
        os.replace(header_tmp, directory / f"{name}.json")
    finally:
        for path in (graph_tmp, table_tmp, header_tmp):
            path.unlink(missing_ok=True)  # what a failed save left (after a success: nothing)
    _remove_unreferenced(directory, name, written)
    return written


def discard(directory: Path | None) -> None:
    """Remove every snapshot in `directory` (headers first, so no reader trusts a half)."""
    if directory is None or not directory.is_dir():
        return
    entries = sorted(directory.iterdir(), key=lambda p: p.suffix != ".json")
    for path in entries:
        # the lock file stays: a process holding it must keep excluding the others
        if path.is_file() and path.name != LOCK_FILE:
            path.unlink(missing_ok=True)


def _remove_abandoned(directory: Path) -> None:
    """Remove scratch files of saves whose process is gone (killed mid-write): a graph at
    a million nodes is gigabytes, and nothing else would ever delete them. A scratch file
    older than ABANDONED_AFTER_S is abandoned whatever its pid says: pids are reused, and
    on Windows a pid cannot be probed harmlessly, so there age is the only test."""
    now = time.time()
    for path in directory.glob(".*-*-*.*"):
        try:
            pid = int(path.name.split("-")[1])
            age = now - path.stat().st_mtime
        except (IndexError, ValueError, OSError):
            continue
        if age > ABANDONED_AFTER_S or (os.name == "posix" and not _alive(pid)):
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """POSIX only: signal 0 asks without signalling (on Windows os.kill(pid, 0) would send
    CTRL_C_EVENT)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process, or one we may not ask about: leave its files
    return True


def _remove_unreferenced(directory: Path, name: str, header: Header) -> None:
    keep = {f"{name}-{header.graph[:16]}.hnsw", f"{name}-{header.table[:16]}.npy"}
    for path in directory.glob(f"{name}-*"):
        if path.name not in keep:
            path.unlink(missing_ok=True)  # a reader that already opened it keeps its copy


def _digest(path: Path) -> str:
    hasher = blake3.blake3(max_threads=blake3.blake3.AUTO)
    if path.stat().st_size:
        hasher.update_mmap(str(path))
    return hasher.hexdigest()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
