"""The stdio transport's pipes, read and written on the event loop: no thread per line.

    async with loop_pipes() as pipes:           # None: the loop cannot watch these descriptors
        async with stdio_server(*pipes) as (read_stream, write_stream): ...

Contract
- What goes over the wire is exactly what the SDK's own stdio transport
  (mcp.server.stdio.stdio_server) reads and writes: `loop_pipes` only hands it the two
  streams it otherwise makes itself. Lines are split at "\\n" and decoded as UTF-8 with
  undecodable bytes replaced, as the SDK's reader does; a line may be of any length, and the
  last one needs no newline. Each response is encoded as UTF-8 and, once `flush` returns,
  is in the pipe (the write buffer's high-water mark is 0, so `flush` waits until it is
  empty; a reader that stops reading holds the writer, never an unbounded buffer).
- While serving, fd 0 reads the null device and fd 1 writes to stderr, as the SDK arranges
  for its own transport: a stray print or a child process cannot corrupt the wire. Both
  descriptors point at the wire again afterwards, with the blocking mode they had.
- The difference is the cost. The SDK wraps the pipes in anyio.wrap_file, which runs each
  readline, write and flush on a worker thread: three thread wake-ups on every call's path
  (0.1-0.2 ms each at the median, milliseconds at the tail on a loaded machine). Here the
  loop watches the descriptors and writes to a pipe the moment it can.
- Only pipes and sockets, what a client that starts the server hands it, are taken over (the
  loop puts them in non-blocking mode while it serves, which a terminal shared with a shell
  must not be); for anything else (a terminal, a regular file) and on Windows it yields
  None, and the caller uses the SDK's transport as it is.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

__all__ = ["Lines", "Out", "loop_pipes"]

#: bytes read from stdin at a time
CHUNK = 1 << 16


class Lines:
    """The lines a StreamReader delivers, as str, for `async for`: stdio_server's stdin."""

    def __init__(self, reader: asyncio.StreamReader):
        self._reader = reader

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        pending = bytearray()
        searched = 0  # no newline in pending[:searched]: a long line is not searched again
        while True:
            chunk = await self._reader.read(CHUNK)
            if not chunk:
                if pending:
                    yield pending.decode("utf-8", errors="replace")
                return
            pending += chunk
            start = 0
            while (end := pending.find(b"\n", max(start, searched))) >= 0:
                yield pending[start:end + 1].decode("utf-8", errors="replace")
                start = end + 1
            del pending[:start]
            searched = len(pending)


class Out:
    """A pipe written by the loop: stdio_server's stdout (`write`, then `flush`)."""

    def __init__(self, writer: asyncio.StreamWriter):
        self._writer = writer

    async def write(self, text: str) -> int:
        self._writer.write(text.encode("utf-8"))
        return len(text)

    async def flush(self) -> None:
        await self._writer.drain()


def _watchable(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@asynccontextmanager
async def loop_pipes() -> AsyncIterator[tuple[Lines, Out] | None]:
    """(stdin's lines, stdout) on the running loop, fds 0 and 1 diverted meanwhile; None where
    the loop cannot watch them (the module docstring)."""
    if sys.platform == "win32" or not (_watchable(0) and _watchable(1)):
        yield None
        return
    import fcntl

    loop = asyncio.get_running_loop()
    flags = {fd: fcntl.fcntl(fd, fcntl.F_GETFL) for fd in (0, 1)}
    # the wire, on descriptors of its own above the standard range
    wire = {fd: fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3) for fd in (0, 1)}
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    read_transport = write_transport = None
    try:
        reader = asyncio.StreamReader(limit=CHUNK)
        read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                         os.fdopen(wire[0], "rb", buffering=0, closefd=False))
        write_transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                                  os.fdopen(wire[1], "wb", buffering=0, closefd=False))
        write_transport.set_write_buffer_limits(high=0)
        yield Lines(reader), Out(asyncio.StreamWriter(write_transport, protocol, None, loop))
    finally:
        for transport in (read_transport, write_transport):
            if transport is not None:
                transport.close()
        for fd in (0, 1):
            os.dup2(wire[fd], fd)
            os.close(wire[fd])
            fcntl.fcntl(fd, fcntl.F_SETFL, flags[fd])
