"""stdio served by the event loop itself: `worlddb serve`'s stdio transport.

The MCP SDK's stdio transport (mcp.server.stdio.stdio_server) reads each line and writes and
flushes each reply through anyio worker threads: three thread hand-offs per call, each a
queue, a wake-up of the worker and one of the event loop (a call's reply waited on all three).
Here, when the process's stdin and stdout are pipes or sockets (as every client that starts a
server gives it), the event loop reads and writes them itself, non-blocking, and the SDK's
`stdio_server` is handed them as its streams: the parsing of each line, the framing and the
serialisation of each reply stay the SDK's, byte for byte.

What the SDK's transport guarantees is kept:
- while serving, fd 0 reads the null device and fd 1 writes to stderr, so a stray print (or a
  child process) cannot corrupt the protocol; the wire is served from private duplicates, and
  fd 0 and fd 1 are given back (blocking again) when serving ends;
- lines are decoded as UTF-8 with replacement, with universal newlines (CR LF and a lone CR
  end a line, as for the SDK's text reader); replies are UTF-8, one per line;
- a reply is on the wire before the next is written: `flush` returns once every byte of it is
  handed to the pipe (the write buffer is empty), so a reply acknowledged as sent is sent.
A stdin or stdout that is neither (a regular file, a terminal), or one socket serving as both,
or a `sys.stdin` / `sys.stdout` replaced by the host program, or a descriptor that cannot be
duplicated or diverted, is served by the SDK's own transport, unchanged.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import stat
import sys
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.stdio import stdio_server

#: no line is too long to read (the SDK's reader has no limit either)
LINE_LIMIT = sys.maxsize // 4


class LineReader:
    """`async for line in reader`: the lines of a pipe, as the SDK's text reader yields them."""

    def __init__(self, reader: asyncio.StreamReader):
        self._reader = reader
        self._pending: deque[str] = deque()

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        while not self._pending:
            raw = await self._reader.readline()
            if not raw:
                raise StopAsyncIteration
            self._pending.extend(split_lines(raw.decode("utf-8", errors="replace")))
        return self._pending.popleft()


def split_lines(text: str) -> list[str]:
    """`text` (up to and including its first LF) as universal-newline lines: CR LF and a lone CR
    become LF and end a line, as Python's text reader does."""
    if "\r" not in text:
        return [text]
    parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


class LineWriter:
    """`await write(text)`, `await flush()`: replies onto a pipe, from the event loop."""

    def __init__(self, transport: asyncio.WriteTransport, protocol: Any):
        # high=0: any byte the pipe did not take at once pauses the protocol, so drain() waits
        # until the buffer is empty - flush() means written
        transport.set_write_buffer_limits(high=0)
        self._writer = asyncio.StreamWriter(transport, protocol, None, asyncio.get_running_loop())

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


def _wire(fd: int) -> os.stat_result | None:
    """fd's stat if it is a pipe or a socket (what the loop can wait on), else None."""
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return st if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode) else None


def _backed_by(stream: Any, fd: int) -> bool:
    try:
        return stream.buffer.fileno() == fd
    except (AttributeError, OSError, ValueError):
        return False


def loop_can_serve() -> bool:
    """Whether fd 0 and fd 1 are this process's own stdin and stdout, each a pipe or socket,
    and not one socket for both (a pipe transport watches its write end for the peer closing)."""
    if not (_backed_by(sys.stdin, 0) and _backed_by(sys.stdout, 1)):
        return False
    read, write = _wire(0), _wire(1)
    return read is not None and write is not None and (read.st_dev, read.st_ino) != (write.st_dev, write.st_ino)


class _Claim:
    """fd taken off the wire: it now points at `diversion`; the wire is served from `private`."""

    def __init__(self, fd: int, diversion: int):
        self.fd = fd
        self.private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        try:
            os.dup2(diversion, fd)
        except OSError:
            os.close(self.private)
            raise

    def release(self) -> None:
        """Give fd back its wire, blocking again; `private` is closed by its transport. (Should
        that fail - `private` already gone - fd keeps its diversion.)"""
        try:
            os.set_blocking(self.private, True)
            os.dup2(self.private, self.fd)
        except OSError:
            pass


class _LoopStreams:
    """fd 0 and fd 1 claimed, their wire served by the event loop; `close` gives them back."""

    def __init__(self) -> None:
        self.claims: list[_Claim] = []
        self.transports: list[asyncio.BaseTransport] = []

    async def open(self) -> tuple[LineReader, LineWriter]:
        loop = asyncio.get_running_loop()
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            self.claims.append(_Claim(0, null))
        finally:
            os.close(null)
        self.claims.append(_Claim(1, 2))
        reader = asyncio.StreamReader(limit=LINE_LIMIT)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(self.claims[0].private, "rb", buffering=0))
        self.transports.append(read_transport)
        write_transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(self.claims[1].private, "wb", buffering=0))
        self.transports.append(write_transport)
        return LineReader(reader), LineWriter(write_transport, protocol)

    def close(self) -> None:
        # closing a transport closes its private fd only on a later turn of the loop: the
        # claims are released first, while those fds are still open
        for transport in self.transports:
            transport.close()
        for claim in reversed(self.claims):
            claim.release()


@asynccontextmanager
async def serving_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The read and write streams of an MCP session over this process's stdin and stdout:
    the SDK's `stdio_server` over pipes the event loop serves, or - when they are not pipes or
    sockets, or a descriptor cannot be duplicated or diverted - the SDK's own transport."""
    wire = _LoopStreams()
    try:
        streams = await wire.open() if loop_can_serve() else None
    except OSError:
        wire.close()
        streams = None
    if streams is None:
        async with stdio_server() as sdk_streams:
            yield sdk_streams
        return
    try:
        async with stdio_server(*streams) as sdk_streams:
            yield sdk_streams
    finally:
        wire.close()


__all__ = ["LineReader", "LineWriter", "loop_can_serve", "serving_stdio", "split_lines"]
