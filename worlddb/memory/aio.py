"""AsyncEngine: the memory API for async callers (the MCP server), one thread per database.

The engine is synchronous sqlite3 on purpose: a write runs dozens of statements, and
per-statement async (aiosqlite) measured ~10x slower per write here than running the whole
operation on one thread (bench/aio_overhead.py). So each call is one hop onto the
engine's own worker thread, where operations run one at a time, in arrival order:
no two ever interleave on the connection, and a cancelled caller cannot interrupt a
write half way (the operation finishes or rolls back on its own).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, Callable

from worlddb.memory.engine import Engine


class AsyncEngine:
    def __init__(self, engine: Engine, executor: ThreadPoolExecutor):
        self.engine = engine
        self._executor = executor

    @classmethod
    async def open(cls, path: str | Path, **options: Any) -> "AsyncEngine":
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="worlddb")
        loop = asyncio.get_running_loop()
        try:
            engine = await loop.run_in_executor(executor, partial(Engine.open, path, **options))
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(engine, executor)

    async def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run fn(engine, *args, **kwargs) on the engine thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, partial(fn, self.engine, *args, **kwargs))

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self.engine.close)
        self._executor.shutdown(wait=True)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        # engine.write_memory(...) -> await aengine.write_memory(...), same arguments
        method = getattr(Engine, name, None)
        if method is None or name.startswith("_") or not callable(method):
            raise AttributeError(name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await self.run(method, *args, **kwargs)

        call.__name__ = name
        return call
