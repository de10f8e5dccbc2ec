"""Two servers writing into one world of one PostgreSQL store at once.

The store's write lock (a transaction-scoped advisory lock, worlddb.core.backends.postgres)
is what keeps each world's versions one linear history: the second writer waits for the
first to commit, then reads its commit and builds on it. Without the lock, both would read
the same last transaction and version - which is shown below, not assumed.
"""

from __future__ import annotations

import threading
import time

import pytest

from tests import pg
from tests.support import ALICE, open_engine
from worlddb.core.backends.postgres import PostgresBackend
from worlddb.core.errors import IntegrityError, StorageError
from worlddb.core.records import Node
from worlddb.graph.database import WorldDB


@pytest.fixture
def url():
    target = pg.new_database()
    yield target
    pg.drop_database(target)


def _note(text: str) -> Node:
    return Node(type="Memory", content=text, created_at=1)


def _write_while_another_holds_the_lock(url: str):
    """Server A opens a write into user:alice and holds it; server B writes into the same
    world meanwhile. Returns (A's seq, B's result or error, whether B finished before A
    committed, the world's version seqs)."""
    a, b = WorldDB.open(url), WorldDB.open(url)
    try:
        with a.write() as w:
            alice = w.scope("user", "alice")
        outcome: dict = {}

        def second() -> None:
            try:
                with b.write() as w2:
                    w2.add(_note("from B"), parents=[w2.scope("user", "alice")])
                outcome["seq"] = w2.receipt.seq
            except Exception as exc:  # reported to the test
                outcome["error"] = exc
            outcome["done_at"] = time.monotonic()

        with a.write() as w:
            w.add(_note("from A"), parents=[alice])
            thread = threading.Thread(target=second)
            thread.start()
            time.sleep(0.5)
            committed_at = time.monotonic()
        thread.join(30)
        finished_first = outcome.get("done_at", committed_at + 1) < committed_at
        seqs = [seq for seq, _ in a.store.versions(alice)]
        return w.receipt.seq, outcome, finished_first, seqs, a.verify()
    finally:
        a.close()
        b.close()


def test_a_second_writer_waits_for_the_first_and_builds_on_its_version(url):
    seq_a, outcome, finished_first, seqs, report = _write_while_another_holds_the_lock(url)
    assert "error" not in outcome and not finished_first
    assert outcome["seq"] == seq_a + 1
    assert seqs[-2:] == [seq_a, seq_a + 1]  # one version per transaction, in commit order
    assert report.ok, report.mismatches


def test_without_the_lock_the_second_writer_collides(url, monkeypatch):
    monkeypatch.setattr(PostgresBackend, "begin", lambda self, conn: conn.execute("BEGIN"))
    _, outcome, _, _, report = _write_while_another_holds_the_lock(url)
    # both read the same last transaction: B's transaction row collides with A's
    assert isinstance(outcome.get("error"), (IntegrityError, StorageError))
    assert report.ok


def test_two_engines_writing_into_one_world_lose_nothing(url):
    engines = [open_engine(url), open_engine(url)]
    written: list[list[str]] = [[], []]
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        try:
            for n in range(8):
                written[i].append(engines[i].write_memory(f"server {'ab'[i]} filed kayak report number {n}", ALICE).id)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    try:
        assert errors == []
        listed = {m.id for m in engines[1].list_memories(ALICE, limit=100).memories}
        assert listed == set(written[0]) | set(written[1]) and len(listed) == 16
        store = engines[0].store
        world = store.scope_anchor("user", "alice")
        seqs = [seq for seq, _ in store.versions(world)]
        assert seqs == sorted(set(seqs))
        memories = store.conn.execute(
            "SELECT count(*) FROM nodes n JOIN nodes w ON w.rowid = n.parent WHERE w.anchor = ? AND n.type = 'Memory'",
            (world,)).fetchone()[0]
        assert memories == 16  # every write is a child of the world once (verify checks n_children)
        assert engines[0].services.db.verify().ok
    finally:
        for engine in engines:
            engine.close()


def test_two_servers_writing_the_same_record_store_it_once(url):
    """Content addressing: the same node from two servers at once is one row, one child."""
    dbs = [WorldDB.open(url), WorldDB.open(url)]
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def writer(db: WorldDB) -> None:
        try:
            barrier.wait(10)
            for _ in range(3):
                with db.write() as w:
                    w.add(_note("the same note, twice"), parents=[w.scope("user", "alice")])
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(db,)) for db in dbs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    try:
        assert errors == []
        anchor = _note("the same note, twice").id
        store = dbs[0].store
        assert store.conn.execute("SELECT count(*) FROM nodes WHERE anchor = ?", (anchor,)).fetchone()[0] == 1
        assert store.get(store.scope_anchor("user", "alice")).n_children == 1
        assert dbs[1].verify().ok
    finally:
        for db in dbs:
            db.close()


def test_one_consolidation_pass_runs_at_a_time_across_servers(url):
    """Background work meant to run once takes a session advisory lock: a second server's
    pass, started while the first holds it, skips; once released, a pass runs again."""
    from worlddb.consolidator.consolidator import RUN_LOCK, Consolidator

    first, second = WorldDB.open(url), WorldDB.open(url)
    try:
        assert first.store.backend.try_lock(first.store.conn, RUN_LOCK)  # a pass in progress on server A
        assert not second.store.backend.try_lock(second.store.conn, RUN_LOCK)
        assert Consolidator(second, min_age_secs=0).run().skipped
        first.store.backend.unlock(first.store.conn, RUN_LOCK)
        report = Consolidator(second, min_age_secs=0).run()
        assert not report.skipped
        assert first.store.backend.try_lock(first.store.conn, RUN_LOCK)  # B's pass let go of it
        first.store.backend.unlock(first.store.conn, RUN_LOCK)
    finally:
        first.close()
        second.close()


def test_a_runner_lock_lost_with_its_connection_stops_the_run(url):
    """A session lock lives as long as its connection. When the server drops the
    connection of the runner holding it (a restart, a fail-over, an idle-connection kill),
    the lock is released, and another server's runner may take it; the store replaces the
    broken connection before its next statement. The runner that held the lock must not
    carry on unlocked on that replacement: every statement fails until it lets go."""
    from worlddb.consolidator.consolidator import RUN_LOCK

    first, second = WorldDB.open(url), WorldDB.open(url)
    backend, a, b = first.store.backend, first.store.conn, second.store.conn
    try:
        assert backend.try_lock(a, RUN_LOCK)
        assert not backend.try_lock(b, RUN_LOCK)
        pid = a.execute("SELECT pg_backend_pid()").fetchone()[0]
        assert b.execute("SELECT pg_terminate_backend(?)", (pid,)).fetchone()[0]
        deadline = time.monotonic() + 10
        while not backend.try_lock(b, RUN_LOCK):  # the lock went with the session
            assert time.monotonic() < deadline, "the dropped session kept its lock"
            time.sleep(0.05)
        with pytest.raises(backend.Error):  # the statement that meets the dead connection
            a.execute("SELECT 1")
        for _ in range(2):  # and every later one, on the replacement connection
            with pytest.raises(StorageError, match="runner lock .* was lost"):
                first.store.get("0" * 64)
        backend.unlock(a, RUN_LOCK)  # the run ends: the store serves again, unlocked
        assert a.execute("SELECT 1").fetchone()[0] == 1
        assert not backend.try_lock(a, RUN_LOCK)  # the other server's runner holds it now
        backend.unlock(b, RUN_LOCK)
        assert backend.try_lock(a, RUN_LOCK)
        backend.unlock(a, RUN_LOCK)
    finally:
        first.close()
        second.close()
