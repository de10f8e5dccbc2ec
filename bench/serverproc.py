"""`worlddb serve` as a child process, and MCP clients for it: what the reliability tests
and the crash/soak scripts drive.

    with HttpServer(db, embedder="hash") as server:       # waits until the port accepts
        async with Client(server.url) as client: ...
        server.kill()                                      # SIGKILL, no goodbye
    async with Client(stdio_params(db)) as client:         # the way a desktop app starts it
        os.kill(stdio_pid(db), signal.SIGKILL)

The server is started exactly as a user would start it (`python -m worlddb.cli serve ...`,
the interpreter of this environment), with its stderr kept in a file for inspection.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: environment a stdio child gets (the MCP client passes an allow-list plus this)
CHILD_ENV = ("PATH", "HOME", "LANG", "TMPDIR", "XDG_CACHE_HOME", "WORLDDB_CACHE_DIR")
#: serve options for load generators that drive an HTTP server as one principal from many
#: clients at once: the per-principal limits (worlddb.server.limits) would refuse them
UNLIMITED = ("--rate-limit", "0", "--max-in-flight", "0")


def serve_args(db: str | Path, *, transport: str = "stdio", port: int | None = None, embedder: str = "hash",
               default_user: str | None = "u", extra: tuple[str, ...] = ()) -> list[str]:
    where = str(db) if "://" in str(db) else str(Path(db).resolve())  # the child may run elsewhere
    args = ["-m", "worlddb.cli", "serve", "--db", where, "--embedder", embedder, "--transport", transport]
    if default_user:
        args += ["--default-user", default_user]
    if port is not None:
        args += ["--port", str(port)]
    return args + list(extra)


def child_env(**extra: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in CHILD_ENV if k in os.environ}
    env.update(extra)
    return env


def stdio_params(db: str | Path, *, embedder: str = "hash", default_user: str | None = "u",
                 extra: tuple[str, ...] = (), env: dict[str, str] | None = None, python: str | None = None):
    """How a stdio client starts `worlddb serve` on `db`; `python`: another interpreter (and so
    another installation of worlddb) than this one."""
    from mcp import StdioServerParameters

    args = serve_args(db, embedder=embedder, default_user=default_user, extra=extra)
    return StdioServerParameters(command=python or sys.executable, args=args, env=child_env(**(env or {})),
                                 cwd=working_dir(python))


def working_dir(python: str | None) -> str | None:
    """Where a child run by `python` must start. `python -m` puts its working directory first
    on the import path, so another installation's interpreter started in this checkout would
    import this checkout's worlddb beside its own `server` package: it starts in the temporary
    directory instead. None (stay here) for this environment's own interpreter."""
    return None if python is None or python == sys.executable else tempfile.gettempdir()


def stdio_pid(db: str | Path, timeout: float = 10.0) -> int:
    """The pid of this process's `worlddb serve` child for `db` (a stdio client started it)."""
    import psutil

    needle = str(db)
    deadline = time.monotonic() + timeout
    while True:
        for child in psutil.Process().children(recursive=True):
            try:
                cmd = child.cmdline()
            except psutil.Error:
                continue
            if "serve" in cmd and needle in cmd:
                return child.pid
        if time.monotonic() > deadline:
            raise RuntimeError(f"no worlddb serve child for {db}")
        time.sleep(0.02)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class HttpServer:
    """`worlddb serve --transport http` on a free loopback port."""

    def __init__(self, db: str | Path, *, embedder: str = "hash", default_user: str | None = "u",
                 extra: tuple[str, ...] = (), env: dict[str, str] | None = None, log: str | Path | None = None,
                 port: int | None = None):
        self.db = str(db)
        self.port = port or free_port()
        self.args = serve_args(db, transport="http", port=self.port, embedder=embedder, default_user=default_user,
                               extra=extra)
        self.env = {**os.environ, **(env or {})}
        self.log_path = Path(log) if log else Path(str(db) + f".http-{self.port}.log")
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 60.0) -> HttpServer:
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([sys.executable, *self.args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=log, env=self.env)
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.log()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                if time.monotonic() > deadline:
                    self.kill()
                    raise RuntimeError(f"server did not listen within {timeout} s") from None
                time.sleep(0.02)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM (graceful: the engine closes); SIGKILL if it does not exit in time."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.returncode

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> HttpServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


class ToolFailed(AssertionError):
    """A tool call answered with isError where success was expected."""


async def call(client, tool: str, **arguments: Any) -> dict:
    """Call a tool; its structured result, or ToolFailed with the server's message."""
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise ToolFailed(f"{tool} failed: {result.content[0].text if result.content else '?'}")
    return result.structured_content


async def call_error(client, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail; the error text it answered with."""
    result = await client.call_tool(tool, arguments)
    if not result.is_error:
        raise AssertionError(f"{tool}({arguments!r:.200}) succeeded: {result.structured_content!r:.300}")
    return result.content[0].text
