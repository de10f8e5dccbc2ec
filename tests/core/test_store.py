"""The store: dedup, worlds and their Merkle trail, validity, bitemporal reads, durability."""

from __future__ import annotations

import sqlite3

import pytest

from worlddb.core import schema
from worlddb.core.errors import InvalidInput, NotFound, SchemaError, ValidityConflict
from worlddb.core.records import Edge, Node
from worlddb.core.txn import Tx
from worlddb.graph.database import WorldDB

T0 = 1_700_000_000_000_000
DAY = 86_400_000_000


def memory(text: str, at: int = T0) -> Node:
    return Node(type="Memory", content=text, created_at=at)


def test_writing_the_same_node_twice_stores_it_once(db):
    node = memory("Alice likes tea")
    with db.write() as w:
        w.add(node)
    with db.write() as w:
        w.add(node)
    assert w.receipt.nodes == []
    assert db.store.conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 1
    assert db.store.conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 1


def test_a_change_three_levels_down_gives_every_ancestor_a_new_version(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
        session = w.add(Node("Session", name="2024-05-01", created_at=T0), parents=[scope])
        topic = w.add(Node("Topic", name="travel", created_at=T0), parents=[session])
        w.add(memory("first"), parents=[topic])
    before = {a: db.get(a).version for a in (scope, session, topic)}
    with db.write() as w:
        leaf = w.add(memory("second", T0 + 1), parents=[topic])
    after = {a: db.get(a).version for a in (scope, session, topic)}
    assert all(before[a] != after[a] for a in before)
    # the world's anchor never changes, and each version is recorded once per transaction
    assert [seq for seq, _ in db.store.versions(topic)][-1] == w.receipt.seq
    assert db.get(leaf).version == leaf
    # each ancestor's new version is its genesis record with the new interior, and re-derives
    assert db.verify().ok


def test_versions_of_a_world_are_a_trail_of_distinct_ids(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
    seen = []
    for i in range(5):
        with db.write() as w:
            w.add(memory(f"m{i}", T0 + i), parents=[scope])
        seen.append(db.get(scope).version)
    assert len(set(seen)) == 5
    assert [vid for _, vid in db.store.versions(scope)] == seen


def test_scope_anchor_is_a_function_of_kind_and_id(tmp_path):
    anchors = []
    for name in ("a.db", "b.db"):
        with WorldDB.open(tmp_path / name) as other, other.write() as w:
            anchors.append(w.scope("user", "alice"))
    assert anchors[0] == anchors[1]
    with WorldDB.open(tmp_path / "c.db") as other, other.write() as w:
        assert w.scope("agent", "alice") != anchors[0]


def test_reopening_from_disk_reads_everything_back(db_path):
    with WorldDB.open(db_path) as first:
        with first.write() as w:
            scope = w.scope("user", "alice")
            a = w.add(memory("Alice lives in Austin"), parents=[scope], valid_from=T0)
            b = w.add(memory("Alice moved to Denver", T0 + DAY), parents=[scope], valid_from=T0 + DAY)
            w.link(Edge("supersedes", b, a))
        version = first.get(scope).version
    with WorldDB.open(db_path) as again:
        old, new = again.get(a), again.get(b)
        assert (old.content, old.valid_to) == ("Alice lives in Austin", T0 + DAY)
        assert new.content == "Alice moved to Denver" and new.valid_to is None
        assert again.get(scope).version == version
        assert set(again.store.children(scope)) == {a, b}
        assert [e.dst for e in again.store.edges(src=b, type="supersedes")] == [a]
        assert again.verify().ok


def test_valid_to_only_tightens(db):
    with db.write() as w:
        a = w.add(memory("x"), valid_from=T0)
    with db.write() as w:
        assert w.close(a, T0 + 10 * DAY)
    with db.write() as w:
        assert w.close(a, T0 + 5 * DAY)
    with pytest.raises(ValidityConflict):
        with db.write() as w:
            w.close(a, T0 + 6 * DAY)
    with db.write() as w:
        assert not w.close(a, T0 + 5 * DAY)  # the same end again changes nothing
    assert db.get(a).valid_to == T0 + 5 * DAY


def test_validity_cannot_end_before_it_starts(db):
    with db.write() as w:
        a = w.add(memory("x"), valid_from=T0)
    with pytest.raises(InvalidInput):
        with db.write() as w:
            w.close(a, T0 - 1)
    with pytest.raises(InvalidInput):
        with db.write() as w:
            w.add(memory("y"), valid_from=T0, valid_to=T0 - 1)


def test_reads_can_pin_valid_time_and_transaction_time(db):
    with db.write() as w:
        a = w.add(memory("Austin"), valid_from=T0)
    known_before_close = w.receipt.at
    with db.write() as w:
        w.close(a, T0 + DAY)
    view = db.get(a)
    store = db.store
    assert store.visible(view, as_of=T0 + 1, known_at=None, include_closed=False) is not None
    assert store.visible(view, as_of=T0 + 2 * DAY, known_at=None, include_closed=False) is None
    # as the store knew it before the close, the memory was still open
    then = store.visible(view, as_of=T0 + 2 * DAY, known_at=known_before_close, include_closed=False)
    assert then is not None and then.valid_to is None
    # before it was ingested at all, it is invisible whatever the valid time
    assert store.visible(view, as_of=T0 + 1, known_at=known_before_close - 1, include_closed=True) is None
    # hidden by default once closed, returned with its closed interval on request
    closed = store.visible(view, as_of=None, known_at=None, include_closed=True)
    assert closed.valid_to == T0 + DAY


def test_retire_closes_validity_once(db):
    with db.write() as w:
        a = w.add(memory("x"), valid_from=T0)
    with db.write() as w:
        assert w.retire(a, "wrong")
    with db.write() as w:
        assert not w.retire(a, "again")
    view = db.get(a)
    assert view.retired and view.retire_reason == "wrong" and view.valid_to is not None


def test_unknown_ids_are_not_found(db):
    with pytest.raises(NotFound):
        with db.write() as w:
            w.retire("ab" * 32)
    with pytest.raises(NotFound):
        db.resolve_id("abcdef0123")


def test_failed_write_leaves_nothing_behind(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
    version = db.get(scope).version
    with pytest.raises(NotFound):
        with db.write() as w:
            w.add(memory("doomed"), parents=[scope])
            w.link(Edge("refers_to", scope, "cd" * 32))
    assert db.get(memory("doomed").id) is None
    assert db.get(scope).version == version
    assert db.verify().ok


@pytest.mark.sqlite_only("SQLite's user_version; tests/core/test_backends.py refuses a newer PostgreSQL schema")
def test_a_database_from_a_newer_worlddb_is_refused(db_path):
    WorldDB.open(db_path).close()
    conn = sqlite3.connect(db_path)
    conn.execute(f"PRAGMA user_version = {schema.LATEST + 1}")
    conn.close()
    with pytest.raises(SchemaError, match="newer"):
        WorldDB.open(db_path)


def test_a_foreign_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users(id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaError):
        WorldDB.open(path)


@pytest.mark.sqlite_only("SQLite's journal mode and user_version PRAGMAs")
def test_database_runs_in_wal_mode(db):
    assert db.store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.LATEST


def test_an_old_version_id_still_names_its_world(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
        w.add(memory("a"), parents=[scope])
    old_version = db.get(scope).version
    with db.write() as w:
        w.add(memory("b", T0 + 1), parents=[scope])
    assert db.resolve_id(old_version) == scope
    assert db.resolve_id(scope[:10]) == scope


def _layout(path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' "
                            "ORDER BY type, name").fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("version", range(1, schema.LATEST))
def test_a_database_of_an_older_schema_gains_the_later_layout_on_open(tmp_path, monkeypatch, version):
    fresh = tmp_path / "fresh.db"
    WorldDB.open(fresh).close()
    old = tmp_path / "old.db"
    with monkeypatch.context() as patched:  # the WorldDB of schema `version`
        patched.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:version])
        patched.setattr(schema, "LATEST", version)
        WorldDB.open(old).close()
    # migrations 8 and 10 write a meta row only; 9 adds a table: every file older than 9 lacks it
    if version < 9:
        assert _layout(old) != _layout(fresh)
    db = WorldDB.open(old)
    try:
        assert db.store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.LATEST
    finally:
        db.close()
    assert _layout(old) == _layout(fresh)


@pytest.mark.sqlite_only("SQLite's statement cache (sqlite_stmt)")
def test_typed_edge_lookups_are_not_recompiled_at_each_execution(db):
    # a partial index whose condition compares type with a constant would make SQLite
    # recompile every statement binding `type = ?` whenever the binding changes
    conn = db.store.conn
    try:
        conn.execute("SELECT count(*) FROM sqlite_stmt").fetchone()
    except sqlite3.OperationalError:
        pytest.skip("this SQLite is built without the sqlite_stmt table")
    with db.write() as w:
        scope = w.scope("user", "alice")
        w.add(memory("a"), parents=[scope])
    types = ("contains", "precedes", "refers_to", "contradicts", "supersedes")
    for i in range(10):
        db.store.edges(src=scope, type=types[i % len(types)])
    rows = conn.execute("SELECT reprep, run FROM sqlite_stmt WHERE sql LIKE '%WHERE e.src = (SELECT rowid FROM nodes "
                        "WHERE anchor=?) AND e.type=?%' "
                        "AND sql NOT LIKE '%sqlite_stmt%'")
    (reprep, run), = rows.fetchall()
    assert run == 10 and reprep == 0


def test_a_new_file_gets_the_page_size_and_an_old_one_keeps_its_own(tmp_path):
    WorldDB.open(tmp_path / "new.db").close()
    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("VACUUM")
    conn.close()
    WorldDB.open(old).close()
    sizes = {}
    for name in ("new.db", "old.db"):
        conn = sqlite3.connect(tmp_path / name)
        sizes[name] = conn.execute("PRAGMA page_size").fetchone()[0]
        conn.close()
    assert sizes == {"new.db": schema.PAGE_SIZE, "old.db": 4096}


@pytest.mark.sqlite_only("builds a file of schema 7 by running SQLite's migrations up to it")
@pytest.mark.parametrize("with_sentences", [True, False])
def test_migration_8_records_the_dated_form_in_a_file_with_sentence_vectors(tmp_path, monkeypatch, with_sentences):
    path = tmp_path / "seven.db"
    with monkeypatch.context() as patched:  # the WorldDB of schema 7
        patched.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:7])
        patched.setattr(schema, "LATEST", 7)
        db = WorldDB.open(path)
        with db.write() as w:
            scope = w.scope("user", "alice")
            anchor = w.add(memory("Tomatoes need sun.", T0), parents=[scope])
            if with_sentences:
                w.put_vectors(anchor, "hash-v1-4", 4, [(3, 0, bytes(16))])
        db.close()
    db = WorldDB.open(path)
    try:
        assert db.store.meta_get("vector_text") == ("dated" if with_sentences else None)
    finally:
        db.close()


def test_a_scope_named_twice_in_one_write_is_made_once(db):
    with db.write() as w:
        first, again = w.scope("user", "alice"), w.scope("user", "alice")
        other = w.scope("user", "bob")
    assert first == again != other
    assert w.receipt.nodes == [first, other]
    with db.write() as w:
        assert w.scope("user", "alice") == first
        with pytest.raises(InvalidInput):
            w.scope("user", "")
    assert w.receipt.nodes == []
    assert db.store.conn.execute("SELECT count(*) FROM scopes").fetchone()[0] == 2


def test_a_scope_is_remembered_once_found_committed_and_never_from_a_write_that_rolled_back(db, monkeypatch):
    store = db.store
    with pytest.raises(RuntimeError):
        with db.write() as w:
            doomed = w.scope("user", "alice")
            assert store.scope_anchor("user", "alice") == doomed  # the open write's own row
            raise RuntimeError("roll back")
    assert store.scope_anchor("user", "alice") is None
    assert store.committed_scope("user", "alice") is None
    with db.write() as w:
        made = w.scope("user", "alice")
        assert w.receipt.nodes == [made]
    assert made == doomed
    assert store.committed_scope("user", "alice") is None  # not read since it was made
    assert store.scope_anchor("user", "alice") == made
    assert store.committed_scope("user", "alice") == made
    # a later write takes the remembered scope without writing its node again
    added: list[str] = []
    add_node = Tx.add_node
    monkeypatch.setattr(Tx, "add_node", lambda tx, node, **kw: added.append(node.type) or add_node(tx, node, **kw))
    with db.write() as w:
        assert w.scope("user", "alice") == made
        w.add(memory("later"), parents=[made])
    assert added == ["Memory"]
    assert w.receipt.nodes == [memory("later").id]
    assert store.conn.execute("SELECT count(*) FROM scopes").fetchone()[0] == 1
    assert db.verify().ok


def test_a_rowid_is_remembered_once_committed_and_never_from_a_write_that_rolled_back(db):
    store = db.store
    with db.write() as w:
        scope = w.scope("user", "alice")
    doomed = memory("doomed")
    with pytest.raises(RuntimeError):
        with db.write() as w:
            w.add(doomed, parents=[scope])
            assert store.rowid(doomed.id) is not None  # the open write's own row
            raise RuntimeError("roll back")
    assert doomed.id not in store._rowids
    assert store.rowid(doomed.id) is None
    # another node may now take the rowid the rolled-back one had; each anchor keeps its own
    with db.write() as w:
        kept = w.add(memory("kept"), parents=[scope])
        made = w.add(doomed, parents=[scope])
    for anchor in (scope, kept, made):
        row = store.conn.execute("SELECT rowid FROM nodes WHERE anchor=?", (anchor,)).fetchone()[0]
        assert store._rowids[anchor] == row == store.rowid(anchor)


def test_a_transaction_remembers_names_and_forgets_them_when_it_erases(db):
    entity = Node("Entity", name="Ana", meta={"entity_type": "person"}, created_at=T0)
    with db.write() as w:
        scope = w.scope("user", "alice")
        anchor = w.add(entity, valid_from=0, parents=[scope])
        assert w.tx.name_and_meta(anchor) == ("Ana", {"entity_type": "person"})
        assert w.tx.name_and_meta("0" * 64) is None
        w.erase(anchor)
        view = db.get(anchor)
        assert w.tx.name_and_meta(anchor) == (view.name, view.meta) == ("", {})


def test_sources_gives_each_nodes_incoming_ends_of_one_type_in_one_statement(db):
    with db.write() as w:
        scope = w.scope("user", "alice")
        notes = [w.add(memory(f"note {i}"), parents=[scope]) for i in range(3)]
        facts = [w.add(Node(type="Fact", content=f"fact {i}", created_at=T0), parents=[scope]) for i in range(3)]
        w.link(Edge("derived_from", facts[0], notes[0]))
        w.link(Edge("derived_from", facts[1], notes[0]))
        w.link(Edge("derived_from", facts[2], notes[1]))
        w.link(Edge("derived_from", notes[2], notes[1]))  # not a fact
    assert db.store.sources(notes, "derived_from", node_type="Fact") == {notes[0]: facts[:2], notes[1]: [facts[2]]}
    assert db.store.sources(notes, "derived_from") == {notes[0]: facts[:2], notes[1]: [facts[2], notes[2]]}
    assert db.store.sources([], "derived_from") == {}
    assert db.store.sources(notes, "refers_to") == {}


@pytest.mark.sqlite_only("SQLite's query plans")
def test_sources_starts_from_the_nodes_asked_not_from_every_node_of_the_type(db):
    # the plan must read the edges into the nodes asked for (edges_dst), not every Fact of the
    # store through the type index and each one's edges
    conn = db.store.conn
    statements = []
    conn.set_trace_callback(statements.append)
    try:
        db.store.sources(["a" * 64, "b" * 64], "derived_from", node_type="Fact")
    finally:
        conn.set_trace_callback(None)
    sql = next(s for s in statements if "FROM edges" in s)
    plan = " | ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql))
    assert "edges_dst" in plan and "nodes_type" not in plan, plan
