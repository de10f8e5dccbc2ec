"""HNSW snapshots: a reopened store starts from the saved graph, and only when it may."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from worlddb.core.records import Node
from worlddb.core.store import Store
from worlddb.graph.database import WorldDB
from worlddb.graph.reembed import reembed
from worlddb.vectors import hnsw_snapshots
from worlddb.vectors.embedder import HashEmbedder
from worlddb.vectors.hnsw import EFFECTIVE, AnnIndex

pytestmark = pytest.mark.sqlite_only(
    "HNSW snapshots are files beside a SQLite store; PostgreSQL keeps its vector index in the database")

MODEL, DIM = "test-model", 16


def _vectors(n: int, seed: int) -> np.ndarray:
    matrix = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _write(db: WorldDB, vectors: np.ndarray, tag: str) -> list[str]:
    anchors = []
    with db.write() as w:
        scope = w.scope("user", "alice")
        for i, vec in enumerate(vectors):
            anchor = w.add(Node("Memory", content=f"{tag} note {i}"), parents=[scope])
            w.put_vector(anchor, EFFECTIVE, MODEL, vec.tobytes(), DIM)
            anchors.append(anchor)
    return anchors


def _index(path, snapshots=True) -> AnnIndex:
    store = Store.open(path)
    return AnnIndex(store, EFFECTIVE, snapshot_min=1,
                    snapshots=hnsw_snapshots.directory_for(str(path)) if snapshots else None)


def _answers(index: AnnIndex, queries: np.ndarray, k: int = 5) -> list[list[int]]:
    return [[node for node, _ in index.search(q, k)] for q in queries]


@pytest.fixture
def stored(db_path):
    """A store with 300 vectors, its snapshot written by a first index."""
    vectors = _vectors(300, seed=1)
    with WorldDB.open(db_path) as db:
        anchors = _write(db, vectors, "first")
    first = _index(db_path)
    assert first.sync() == 300 and first.source == "rebuilt"
    assert first.save_snapshot()
    yield first, anchors, vectors
    first.store.close()


def test_reopened_index_starts_from_its_snapshot_with_the_same_answers(db_path, stored):
    first, anchors, vectors = stored
    queries = _vectors(20, seed=2)
    second = _index(db_path)
    second.sync()
    assert second.source == "snapshot"
    assert len(second) == 300
    assert _answers(second, queries) == _answers(first, queries)
    own = [second.search(vec, 1)[0][0] for vec in vectors[:50]]
    assert own == [second.store.rowid(a) for a in anchors[:50]]
    second.store.close()


def test_writes_after_a_snapshot_are_caught_up_from_sql(db_path, stored):
    _, anchors, _ = stored
    later = _vectors(10, seed=3)
    replacement = _vectors(1, seed=4)[0]
    with WorldDB.open(db_path) as db:
        added = _write(db, later, "later")
        with db.write() as w:
            w.put_vector(anchors[0], EFFECTIVE, MODEL, replacement.tobytes(), DIM)
    second = _index(db_path)
    second.sync()
    assert second.source == "snapshot" and len(second) == 310
    assert second.search(later[3], 1)[0][0] == second.store.rowid(added[3])
    best, score = second.search(replacement, 1)[0]
    assert best == second.store.rowid(anchors[0]) and score == pytest.approx(1.0, abs=1e-5)
    second.store.close()


def test_a_snapshot_is_rewritten_only_once_enough_has_changed(db_path, stored):
    with WorldDB.open(db_path) as db:
        _write(db, _vectors(3, seed=5), "few")
    second = _index(db_path)
    second.sync()
    assert not second.snapshot_due()  # 3 changes on 300 vectors: catching up is cheaper
    assert not second.save_snapshot()
    assert second.save_snapshot(force=True)
    with WorldDB.open(db_path) as db:
        _write(db, _vectors(20, seed=6), "many")
    second.sync()
    assert second.snapshot_due()
    second.store.close()


def test_erasure_removes_snapshots_and_no_later_one_holds_the_erased_vector(db_path, stored):
    first, anchors, vectors = stored
    directory = hnsw_snapshots.directory_for(str(db_path))
    secret = vectors[7].tobytes()
    assert any(secret in p.read_bytes() for p in directory.glob("*.hnsw"))
    with WorldDB.open(db_path) as db:
        with db.write() as w:
            w.erase(anchors[7])
    assert hnsw_snapshots.read_header(directory, EFFECTIVE) is None
    assert first.save_snapshot()  # catches up on the erasure first
    graphs = list(directory.glob("*.hnsw"))
    assert graphs and not any(secret in p.read_bytes() for p in graphs)
    third = _index(db_path)
    third.sync()
    assert third.source == "snapshot" and len(third) == 299
    assert first.store.rowid(anchors[7]) not in third.nodes()
    third.store.close()


def _flip_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [
    pytest.param(lambda d: _flip_byte(next(d.glob("*.hnsw"))), id="graph byte flipped"),
    pytest.param(lambda d: next(d.glob("*.npy")).write_bytes(b"short"), id="table truncated"),
    pytest.param(lambda d: (d / "effective.json").write_text("{not json"), id="header garbled"),
    pytest.param(lambda d: next(d.glob("*.hnsw")).unlink(), id="graph missing"),
])
def test_a_damaged_snapshot_is_ignored_and_the_index_rebuilt(db_path, stored, damage):
    first, anchors, vectors = stored
    damage(hnsw_snapshots.directory_for(str(db_path)))
    second = _index(db_path)
    second.sync()
    assert second.source == "rebuilt" and len(second) == 300
    assert second.search(vectors[5], 1)[0][0] == second.store.rowid(anchors[5])
    assert second.snapshot_due() and second.save_snapshot()  # the damaged one is replaced
    second.store.close()
    third = _index(db_path)
    third.sync()
    assert third.source == "snapshot" and len(third) == 300
    third.store.close()


def test_a_snapshot_from_another_history_is_not_used(tmp_path, db_path, stored):
    # the same writes into a fresh database: same seqs, other transaction times
    other = tmp_path / "other" / "memory.db"
    with WorldDB.open(other) as db:
        _write(db, _vectors(300, seed=9), "other")
    shutil.copytree(hnsw_snapshots.directory_for(str(db_path)), hnsw_snapshots.directory_for(str(other)))
    index = _index(other)
    index.sync()
    assert index.source == "rebuilt"
    index.store.close()


def test_a_snapshot_restored_after_a_reembed_is_not_used(tmp_path, db_path, stored):
    directory = hnsw_snapshots.directory_for(str(db_path))
    kept = shutil.copytree(directory, tmp_path / "kept")
    with WorldDB.open(db_path) as db:
        reembed(db, HashEmbedder(dim=32))
    assert hnsw_snapshots.read_header(directory, EFFECTIVE) is None  # reembed discards snapshots itself
    shutil.copytree(kept, directory, dirs_exist_ok=True)
    index = _index(db_path)
    index.sync()
    assert index.source == "rebuilt" and len(index) == 300 and index.model == "hash-v1-32"
    index.store.close()


def test_closing_a_large_store_saves_its_index_and_reopening_loads_it(db_path):
    vectors = _vectors(2_100, seed=11)
    with WorldDB.open(db_path) as db:
        _write(db, vectors, "bulk")
        assert db.ann(EFFECTIVE).sync() == 2_100
    assert hnsw_snapshots.read_header(hnsw_snapshots.directory_for(str(db_path)), EFFECTIVE) is not None
    with WorldDB.open(db_path) as db:
        index = db.ann(EFFECTIVE)
        index.sync()
        assert index.source == "snapshot" and len(index) == 2_100


def test_a_small_store_writes_no_snapshot(db_path):
    with WorldDB.open(db_path) as db:
        _write(db, _vectors(50, seed=12), "small")
        db.ann(EFFECTIVE).sync()
    assert not hnsw_snapshots.directory_for(str(db_path)).exists()


def test_an_in_memory_database_has_no_snapshot_directory():
    with WorldDB.open(":memory:") as db:
        assert db.ann_snapshots is None


def test_a_save_removes_scratch_files_of_saves_whose_process_died(db_path, stored):
    first, _, _ = stored
    directory = hnsw_snapshots.directory_for(str(db_path))
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    abandoned = directory / f".effective-{finished.pid}-0badc0de.hnsw"
    in_progress = directory / f".effective-{os.getpid()}-0000beef.hnsw"
    for path in (abandoned, in_progress):
        path.write_bytes(b"partial graph")
    assert first.save_snapshot(force=True)
    assert not abandoned.exists() and in_progress.exists()


def test_a_save_removes_old_scratch_files_whatever_their_pid(db_path, stored):
    # pids are reused (and cannot be probed on Windows): an hours-old scratch file is abandoned
    first, _, _ = stored
    directory = hnsw_snapshots.directory_for(str(db_path))
    stale = directory / f".effective-{os.getpid()}-5ca1ab1e.hnsw"
    stale.write_bytes(b"partial graph")
    hours_ago = stale.stat().st_mtime - 2 * hnsw_snapshots.ABANDONED_AFTER_S
    os.utime(stale, (hours_ago, hours_ago))
    assert first.save_snapshot(force=True)
    assert not stale.exists()


def test_verify_checks_the_snapshots_beside_the_file(db_path, stored):
    with WorldDB.open(db_path) as db:
        report = db.verify()
        assert report.ok and report.snapshots == 1
    _flip_byte(next(hnsw_snapshots.directory_for(str(db_path)).glob("*.hnsw")))
    with WorldDB.open(db_path) as db:
        report = db.verify()
    assert [(m.kind, m.id) for m in report.mismatches] == [("snapshot", "effective")]
    assert "not used" in report.mismatches[0].detail


def test_verify_reports_a_snapshot_that_stands_for_rows_it_never_saw(db_path, stored):
    # a vector row committed under a seq the snapshot had already passed
    conn = sqlite3.connect(db_path)
    with conn:
        data = conn.execute("INSERT INTO vector_data(vec) SELECT vec FROM vector_data LIMIT 1").lastrowid
        conn.execute("INSERT INTO vectors(node, kind, ord, data, seq) VALUES (99999, ?, 0, ?, 1)", (EFFECTIVE, data))
    conn.close()
    with WorldDB.open(db_path) as db:
        report = db.verify()
    assert [(m.kind, m.id) for m in report.mismatches] == [("snapshot", "effective")]
    assert "differs from the stored vectors in 1 nodes" in report.mismatches[0].detail


def test_a_snapshot_that_cannot_be_written_costs_nothing_but_the_snapshot(db_path, caplog):
    hnsw_snapshots.directory_for(str(db_path)).write_text("a file where the snapshot directory should be")
    vectors = _vectors(2_100, seed=13)
    with WorldDB.open(db_path) as db:
        anchors = _write(db, vectors, "blocked")
        index = db.ann(EFFECTIVE)
        index.sync()
        assert not index.save_snapshot(force=True)
        assert index.search(vectors[3], 1)[0][0] == db.store.rowid(anchors[3])
    # closing tried again, and failed the same way, without raising
    assert "could not write the HNSW snapshot" in caplog.text


# Another process holding the snapshot lock: shared (loading) or exclusive (saving).
_HOLD = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX if sys.argv[2] == "save" else fcntl.LOCK_SH)
print("held", flush=True)
sys.stdin.read()
"""

# Another server on the same file: it writes a vector, catches up and saves, again and again.
_SAVER = """
import sys
import time
import numpy as np
from worlddb.vectors import hnsw_snapshots
from worlddb.vectors.hnsw import EFFECTIVE, AnnIndex
from worlddb.graph.database import WorldDB
from worlddb.core.records import Node
path, rounds = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(5)
with WorldDB.open(path) as db:
    index = AnnIndex(db.store, EFFECTIVE, snapshot_min=1, snapshots=hnsw_snapshots.directory_for(path))
    for i in range(rounds):
        vec = rng.standard_normal(16).astype(np.float32)
        with db.write() as w:
            anchor = w.add(Node("Memory", content=f"saver note {i}"), parents=[w.scope("user", "alice")])
            w.put_vector(anchor, EFFECTIVE, "test-model", (vec / np.linalg.norm(vec)).tobytes(), 16)
        index.sync()
        assert index.save_snapshot(force=True) in (True, False)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="advisory locks are POSIX here")
@pytest.mark.parametrize("other", ["save", "load"])
def test_a_save_while_another_process_saves_or_loads_is_skipped_and_writes_nothing(db_path, stored, other):
    first, _, _ = stored
    directory = hnsw_snapshots.directory_for(str(db_path))
    before = sorted((p.name, p.read_bytes()) for p in directory.iterdir())
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(directory / hnsw_snapshots.LOCK_FILE), other],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert first.save_snapshot(force=True) is False
        assert sorted((p.name, p.read_bytes()) for p in directory.iterdir()) == before
    finally:
        holder.communicate("")
    assert first.save_snapshot(force=True) is True


@pytest.mark.skipif(sys.platform == "win32", reason="advisory locks are POSIX here")
def test_opening_while_another_process_keeps_saving_always_starts_from_a_snapshot(db_path, stored):
    # each save writes new files and deletes the ones the last header named; a load that
    # read that header just before would find its files gone and rebuild from SQL
    rounds = 60
    saver = subprocess.Popen([sys.executable, "-c", _SAVER, str(db_path), str(rounds)],
                             stderr=subprocess.PIPE, text=True)
    sources = []
    try:
        while saver.poll() is None:
            index = _index(db_path)
            assert index.load_snapshot(), "a load fell back to a rebuild"
            sources.append(index.source)
            index.store.close()
    finally:
        _, err = saver.communicate()
    assert saver.returncode == 0, err
    assert sources and set(sources) == {"snapshot"}


@pytest.mark.skipif(sys.platform == "win32", reason="advisory locks are POSIX here")
def test_a_load_waits_for_a_save_in_progress_but_not_for_ever(db_path, stored, monkeypatch):
    first, _, _ = stored
    directory = hnsw_snapshots.directory_for(str(db_path))
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(directory / hnsw_snapshots.LOCK_FILE), "save"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(hnsw_snapshots, "LOAD_WAIT_S", 0.3)
        second = _index(db_path)
        started = time.monotonic()
        assert second.load_snapshot()  # the files are intact: the stuck saver changed nothing
        assert time.monotonic() - started >= 0.3
        second.store.close()
    finally:
        holder.communicate("")


@pytest.mark.skipif(sys.platform == "win32", reason="advisory locks are POSIX here")
def test_a_file_system_without_advisory_locks_still_loads_and_saves_snapshots(db_path, stored, monkeypatch):
    first, _, _ = stored

    def unsupported(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(hnsw_snapshots.fcntl, "flock", unsupported)
    second = _index(db_path)
    assert second.load_snapshot() and second.source == "snapshot"
    assert first.save_snapshot(force=True)
    second.store.close()


def test_a_snapshot_keeps_the_labels_that_share_an_element_with_an_equal_vector(db_path):
    vectors = _vectors(200, seed=21)
    with WorldDB.open(db_path) as db:
        same = _write(db, np.repeat(vectors[:1], 40, axis=0), "same")
        _write(db, vectors[1:], "other")
    first = _index(db_path)
    first.sync()
    assert first.save_snapshot()
    header = hnsw_snapshots.read_header(hnsw_snapshots.directory_for(str(db_path)), EFFECTIVE)
    assert (header.elements, header.twins) == (200, 39)
    second = _index(db_path)
    try:
        second.sync()
        assert second.source == "snapshot" and len(second) == 239 and second.nodes() == first.nodes()
        queries = np.vstack([vectors[:1], _vectors(20, seed=22)])
        assert _answers(second, queries, k=45) == _answers(first, queries, k=45)
        assert {node for node, _ in second.search(vectors[0], 40)} == {second.store.rowid(a) for a in same}
    finally:
        first.store.close()
        second.store.close()


def test_a_snapshot_table_from_before_twins_is_still_loaded(db_path, stored):
    first, anchors, vectors = stored
    directory = hnsw_snapshots.directory_for(str(db_path))
    header = hnsw_snapshots.read_header(directory, EFFECTIVE)
    table = directory / f"effective-{header.table[:16]}.npy"
    rows = np.load(table)
    table.unlink()
    np.save(table, rows[:, :3])  # label, node, live: the table as written before twins
    digest = hnsw_snapshots._digest(table)
    table.rename(directory / f"effective-{digest[:16]}.npy")
    record = {**header.__dict__, "table": digest}
    del record["twins"]
    (directory / "effective.json").write_text(json.dumps({"format": hnsw_snapshots.FORMAT, **record}))
    second = _index(db_path)
    try:
        second.sync()
        assert second.source == "snapshot" and len(second) == 300
        assert _answers(second, vectors[:20]) == _answers(first, vectors[:20])
    finally:
        second.store.close()
