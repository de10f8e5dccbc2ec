"""bench.server_cpu: a write's CPU over stdio, split by the server's threads, adds up."""

from __future__ import annotations

import os
import sys
import threading

from bench.mcp import prefill
from bench.server_cpu import medians, one_server, thread_cpu


def test_every_thread_of_a_process_is_read():
    assert os.getpid() in thread_cpu(os.getpid())  # the main thread's id is the process's
    assert threading.get_native_id() in thread_cpu(os.getpid())


async def test_a_write_s_cpu_is_the_sum_of_its_threads(tmp_path):
    path = tmp_path / "small.db"
    prefill(path, 50, "hash", seed=3)
    row = await one_server(path, "hash", sys.executable, writes=5, seed=4)
    assert row["cpu_ms"] > 0 and row["by_thread_ms"]["main"] > 0  # the event loop serves every call
    assert abs(sum(row["by_thread_ms"].values()) - row["cpu_ms"]) < 0.05 * len(row["by_thread_ms"])
    assert medians([row, row])["cpu_ms"] == row["cpu_ms"]
