"""One batch ahead: the model's step of the next batch runs while this batch commits.

The bulk paths (`worlddb import`, `Engine.ingest_conversation`) write batch after batch, and
each batch's first step - extraction and the embedding model (`write.prepare`,
`ingest.prepare_session`, `messages.prepare_messages`) - reads nothing from the store. So
`one_ahead(step, batches)` runs that step for batch k + 1 on a worker thread while the
caller completes and commits batch k on its own thread. The model releases the GIL, so on
two cores the commit no longer waits for the model, nor the model for the commit.

What a caller sees is what it would see with the steps run one after the other:
- commits stay on the caller's thread, in the batches' order, each against the store as the
  commits before it left it (what a batch decides - update judgments, entity resolution -
  is decided in its commit, never in the step run ahead);
- a step that fails raises when its batch's turn comes, after every batch before it has
  committed, so what is written before an error is the same;
- when the caller stops early (an error of its own; close the generator, as
  `contextlib.closing` does), the step running ahead is waited for and its result dropped:
  it wrote nothing.
At most one step runs ahead: the batch being committed and the next are all that is held.

`beside(fn, ...)` is the same idea inside one write: it runs one part on a thread of a small
shared pool while the caller does the other, where neither depends on the other - a session's
model part while the caller reads its turns for entities and slot claims
(`ingest.prepare_session`), or a memory's reading while the caller runs the model over its
texts (`write.prepare`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

__all__ = ["beside", "one_ahead"]

#: threads of the pool `beside` runs on: one write's part at a time each, as many as
#: AsyncEngine prepares at once (MODEL_THREADS)
BESIDE_THREADS = 2
_beside_pool: ThreadPoolExecutor | None = None
_beside_lock = threading.Lock()

B = TypeVar("B")
P = TypeVar("P")


def one_ahead(step: Callable[[B], P], batches: Iterable[B]) -> Iterator[tuple[B, Callable[[], P]]]:
    """Each batch with a function that returns its step's result (raising the step's error),
    the step of the next batch already running on a worker thread."""
    source = iter(batches)
    current = next(source, _END)
    if current is _END:
        return
    with ThreadPoolExecutor(1, thread_name_prefix="worlddb-ahead") as worker:
        running: Future = worker.submit(step, current)
        while current is not _END:
            following = next(source, _END)
            upcoming = worker.submit(step, following) if following is not _END else None
            yield current, running.result
            current, running = following, upcoming  # type: ignore[assignment]


_END = object()


def beside(fn: Callable[..., P], *args, **kwargs) -> Future:
    """`fn(*args, **kwargs)` started on a thread of a shared pool (made on first use), for
    the caller to collect with `.result()` once its own part is done."""
    global _beside_pool
    with _beside_lock:
        if _beside_pool is None:
            _beside_pool = ThreadPoolExecutor(BESIDE_THREADS, thread_name_prefix="worlddb-beside")
        return _beside_pool.submit(fn, *args, **kwargs)
