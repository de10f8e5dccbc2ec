"""The embedding model's rewritten graph, kept on disk from one process to the next.

Rewriting the model's graph for integer products (worlddb.vectors.integer_graph) needs the
`onnx` package, whose import alone takes about 1.4 s of CPU, and the rewrite itself about
0.25 s: most of what constructing the embedder costs, paid again by every process for the
same graph from the same file. `integer_graph_of` makes it once and leaves it in the user's
cache directory; later processes read it back without importing `onnx`.

- Where: `$WORLDDB_CACHE_DIR`, else `$XDG_CACHE_HOME/worlddb`, else `~/.cache/worlddb`.
- The file's name says what the graph was made from: the model file's sha256 (the caller has
  checked it against its pin), and a digest of the rewrite's own source and the versions of
  `onnx` and `numpy` that made it. A new model, a changed rewrite or another `onnx` never
  reads an older graph; they make their own file.
- The file begins with the sha256 of the graph it holds. A file that does not match (cut
  short, changed on disk) is never used: the graph is made again and the file replaced.
- A file is written under a temporary name in the same directory and renamed into place, so
  processes that start at once each write a whole file, and a reader sees one whole file.
- A cache that cannot be written (a read-only home, a full disk) costs only time: the graph
  is made in memory as before, and the reason is logged at debug level. One that can be read
  but not written is still read.
- A file read is touched, and a process that writes a new file removes the cached graphs no
  process has read for `UNUSED_DAYS` (those an upgrade left behind), so the directory does not
  grow by a graph with every upgrade, while installations that share it keep their own.

What the graph computes is still checked where it is used: the embedder runs its canary
texts on the session built from it and falls back to the fp32 graph if they differ.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import tempfile
import time
from pathlib import Path

from worlddb.vectors import integer_graph

__all__ = ["cache_dir", "integer_graph_of"]

log = logging.getLogger(__name__)

#: the bytes a cached file begins with: the sha256 of the graph that follows
_DIGEST = 32
#: a cached graph no process has read for this many days is removed when another is written
UNUSED_DAYS = 30


def cache_dir() -> Path:
    """The directory cached graphs are kept in (see the module docstring)."""
    if os.environ.get("WORLDDB_CACHE_DIR"):
        return Path(os.environ["WORLDDB_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "worlddb"


def _maker_digest() -> str:
    """What else than the model the rewritten graph depends on: the rewrite's source and the
    versions of the packages that build and serialise it."""
    made_by = hashlib.sha256(Path(integer_graph.__file__).read_bytes())
    for package in ("onnx", "numpy"):
        try:
            version = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            version = "none"
        made_by.update(f"\0{package} {version}".encode())
    return made_by.hexdigest()


def _read(path: Path) -> bytes | None:
    """The graph a cached file holds, or None when there is none or it does not match its digest."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    graph = data[_DIGEST:]
    if len(data) <= _DIGEST or hashlib.sha256(graph).digest() != data[:_DIGEST]:
        log.debug("cached graph %s does not match its digest; making it again", path)
        return None
    try:
        os.utime(path)  # in use: not one to remove (`_remove_unused`)
    except OSError as e:  # (a cache this user may read but not write is still used)
        log.debug("could not mark the cached graph %s as read: %s", path, e)
    return graph


def _remove_unused(directory: Path, keep: Path) -> None:
    """Remove the cached graphs other than `keep` that no process has read for UNUSED_DAYS."""
    cutoff = time.time() - UNUSED_DAYS * 86400
    for old in directory.glob("integer-graph-*.onnx"):
        try:
            if old != keep and old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError as e:  # (another process removed it first, or may not)
            log.debug("could not remove the unused cached graph %s: %s", old, e)


def _write(path: Path, graph: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(hashlib.sha256(graph).digest())
            out.write(graph)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def integer_graph_of(model_path: Path, model_sha256: str) -> bytes | None:
    """`integer_graph.rewrite` of the model at `model_path`, whose sha256 the caller has checked
    is `model_sha256`: read from the cache when it holds it, else made and left there. None when
    the rewrite does not know the graph (nothing is cached then)."""
    try:
        path = cache_dir() / f"integer-graph-{model_sha256.lower()[:32]}-{_maker_digest()[:32]}.onnx"
        cached = _read(path)
    except (OSError, RuntimeError) as e:  # (RuntimeError: Path.home() with no home to find)
        log.debug("no cached graph (%s); making it", e)
        path, cached = None, None
    if cached is not None:
        return cached
    graph = integer_graph.rewrite(model_path.read_bytes())
    if graph is not None and path is not None:
        try:
            _write(path, graph)
            _remove_unused(path.parent, path)
        except OSError as e:
            log.debug("could not cache the rewritten graph at %s: %s", path, e)
    return graph
