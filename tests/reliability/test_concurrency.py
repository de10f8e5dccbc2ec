"""Concurrency: eight clients at once over streamable HTTP, eight principals with tokens of
their own on one HTTP server, and two stdio server processes on one database file (two
desktop windows). No error, no lost or duplicated memory, no principal shown another's data,
and each process's next recall sees the other's writes and retirements (bench.concurrency;
`python -m bench.concurrency --clients 8 --writes 200` and `--principals 8 --calls 200` are
the long variants). On PostgreSQL, three HTTP servers share one store: each write is
recalled through another server's next call, and every server lists exactly the
acknowledged memories (`--db postgresql://... --servers 3` is the long variant)."""

from __future__ import annotations

from bench import concurrency
from tests import pg


async def test_eight_http_clients_interleaving_writes_and_recalls_lose_and_duplicate_nothing(tmp_path):
    summary = await concurrency.run_http(tmp_path / "http.db", clients=8, writes=20)
    assert summary["writes"] == 160
    # each write's own recall, and another client's latest write once there is one
    assert 160 + 120 <= summary["recalls"] <= 320


async def test_eight_principals_at_once_never_see_each_others_data(tmp_path):
    summary = await concurrency.run_principals(tmp_path / "tenants.db", principals=8, calls=15)
    assert summary["calls"] == 120 and summary["leaks"] == 0
    # the intruder calls ran, were refused as if the scope or id did not exist, and changed nothing
    assert summary["refused_as_expected"] >= 8
    assert summary["answers"] + summary["refused_as_expected"] == 120


async def test_two_stdio_servers_on_one_file_see_each_others_writes_on_their_next_call(tmp_path):
    # the real default model, as a desktop install runs it
    summary = await concurrency.run_two_stdio(tmp_path / "two.db", writes=20, embedder="minilm")
    assert summary["writes"] == 40
    assert summary["recalls"] == 40  # every step recalled the other window's latest write


async def test_three_http_servers_on_one_postgresql_store_see_every_write_on_their_next_call(tmp_path):
    url = pg.new_database()
    try:
        summary = await concurrency.run_http(url, clients=2, writes=5, servers=3, logs=tmp_path)
    finally:
        pg.drop_database(url)
    assert summary["writes"] == 30 and summary["servers"] == 3
    # each write's own recall, and then another server's client's latest write
    assert 30 + 24 <= summary["recalls"] <= 60
