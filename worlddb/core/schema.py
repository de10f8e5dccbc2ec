"""The database schema, as numbered migrations tracked in PRAGMA user_version.

Migration N takes a database from user_version N-1 to N, inside one transaction. A new
file is made at the latest layout at once, from what the migrations make of an empty
database (`migrate`, `_latest`).
Opening a file whose user_version is higher than the last migration known here is
refused with SchemaError: an older WorldDB must not write into a newer layout.

Tables, in the order a write touches them. Tables that name a node name it by its rowid
(`nodes.rowid`), except where noted; ids that are hashes are 32-byte BLOBs, except node
anchors and version ids, which callers name as 64-hex text:
  tx            one row per committed write transaction: seq (transaction order) and at
                (transaction time, microseconds, strictly increasing)
  nodes         one row per node, keyed by its anchor (genesis id): its genesis record
                (`record`, without the empty interior: ids.genesis_record; NULL once
                erased, with erased_at set), and the mutable projection - current version
                (NULL while it is the anchor), validity, transaction time, parent world,
                retirement
  validity_log  every closure of a node's validity: the transaction that recorded it, the end
                it gives, why, and its cause (the id of the edge whose write ended the node,
                '' for none), and the transaction that withdrew it once that edge was removed
                (seq_withdrawn, NULL while it stands). A node's valid_to is the earliest end
                of its standing closures, so validity can be read as known at any transaction
                time (by anchor)
  versions      every version of every world: the interior roots at each transaction
                (by anchor)
  members       the current interior of each world (kind 0: child version ids, 1: edge ids)
  member_log    every change of every interior, replayed by verify
  trie          the Merkle hash trie nodes over members (worlddb.core.trie)
  closure       current containment closure: (ancestor world, descendant node)
  edges         edge rows, written only by the reconciler; removal is a timestamp. The
                record is not stored: the id re-derives from type, ends, world and props
                (canonical JSON, NULL for none)
  proposals     same_as merge proposals and their decisions (by anchor)
  scopes        registered scopes (kind, id) and their anchors
  fts           FTS5 index over the text of Turn/Memory/Summary/Fact nodes (rowid: the node's)
  vectors       which node holds which embedding: content, effective, entity-name and
                sentence-unit rows, each naming its bytes in vector_data (NULL once cleared);
                each row's id labels it in the in-memory HNSW index
  vector_data   the bytes of each distinct vector of a node, stored once however many of
                the node's rows name it (a one-sentence memory's content, effective and
                sentence vectors are the same); the model that made them is meta embed_model
  token_df      how many text nodes contain each wordpiece (for model-free query vectors)
  compose       per-world running sums from which its composed embedding is derived (by anchor)
  resolver_names  the entity resolver's normalised names and aliases per scope, with their
                phonetic keys (worlddb.resolver); emptied, not deleted, when an entity is
                erased, so every process's in-memory name index sees the change by seq
  sessions      conversations a caller writes by its own session id (memory_write with
                messages): per scope and id, the Session world, its latest turn and how many
                turns it holds, so the next call continues the same world and chain
  principals    named bearer tokens for HTTP callers (worlddb.memory.principals): the SHA-256
                of each token (never the token), the scopes it is granted, whether it may purge,
                and when it was revoked
  claims        what each memory claims (worlddb.memory.claims): per scope world, the head
                word of a claim's subject ("me", "nora", "standup") and its attribute
                ("home"), and the memory's rowid; deleted with the memory's content
  readings      each memory's and turn's slot reading as its write read it
                (worlddb.memory.readings): its claims and cues, and the reader, user and
                speaker they were read by and for, one JSON row per node; deleted with the
                node's content

SQL that other modules run against these tables goes through the fragments and helpers
of worlddb.core.store (node and edge columns, the inside-a-world condition, anchors to
rowids), so that the layout is known here and there only.
"""

from __future__ import annotations

import functools
import json
import sqlite3

from worlddb.core import ids
from worlddb.core.errors import SchemaError

#: every table of a store at the latest schema, on both backends, less the tables a backend
#: derives from them (SQLite's fts5 shadow tables, PostgreSQL's fts_stats and schema_version):
#: what erasure compacts on PostgreSQL (worlddb.core.backends.postgres) and what a copy carries
#: (worlddb.core.copy); tests/core/test_copy.py holds it to both backends' layouts
TABLES = ("meta", "tx", "nodes", "validity_log", "versions", "members", "member_log", "trie", "closure", "edges",
          "proposals", "scopes", "fts", "vectors", "vector_data", "token_df", "compose", "resolver_names",
          "sessions", "principals", "claims", "readings")

#: The condition of schema 3's partial indexes; a query reads them by repeating it word for
#: word (SQLite uses a partial index only when the query's WHERE holds the same term). It
#: names the type through `type || ''` for the reason given at migration 2. Shipped
#: migrations never change, so neither does this text.
MARKED_TYPES = ("contradicts", "supersedes")
MARKED = "type || '' IN ('contradicts', 'supersedes')"

#: The page size of a new file. A vector row (384 float32s, 1.5 KB) leaves a quarter of a
#: 4 KiB page unused (two fit), and vectors are most of a file; 8 KiB pages hold five. At
#: 50k nodes this made the file 12 % smaller and a bulk load 5-10 % cheaper in CPU (load
#: alternating with 4 KiB, in one run). SQLite cannot change the page size of a file in WAL
#: mode, so files made with 4 KiB pages keep them.
PAGE_SIZE = 8192

#: reads vector rows with their bytes (schema 4): `v` the row, `d.vec` its bytes, NULL once
#: the vector was cleared
VECTOR_FROM = "vectors v LEFT JOIN vector_data d ON d.id = v.data"

#: migration 8, the same on every backend
VECTOR_TEXT_DATED = ("INSERT INTO meta(key, value) SELECT 'vector_text', 'dated' "
                     "WHERE EXISTS (SELECT 1 FROM vectors WHERE kind = 3)")

#: the meta key of the claims backfill (migration 10): the highest rowid of a memory whose
#: claims may be missing from the index, absent once none is left (worlddb.memory.claims_backfill)
CLAIMS_BACKFILL_KEY = "claims_backfill"
#: migration 10, the same on every backend
CLAIMS_BACKFILL_PENDING = (f"INSERT INTO meta(key, value) SELECT '{CLAIMS_BACKFILL_KEY}', CAST(max(rowid) AS TEXT) "
                           "FROM nodes WHERE type = 'Memory' HAVING count(*) > 0")

#: the meta key naming the slot reader the store's claims rows are from (worlddb.memory.claims_backfill)
CLAIMS_READER_KEY = "claims_reader"
#: the slot reader whose claims rows this code records: `worlddb.memory.slot_readings.CLAIMS_READER`
#: (whose comment says when to raise it) is this number, kept here so that a new store is made
#: recording it
CLAIMS_READER = 68
#: migration 11, the same on every backend: a store made by this code (no memories or turns
#: yet) is recorded as read by this code's reader; one upgraded with memories or turns is left
#: unrecorded, so the claims backfill reads it again (reader 1 was the first to be recorded)
CLAIMS_READER_NEW = (f"INSERT INTO meta(key, value) SELECT '{CLAIMS_READER_KEY}', '{CLAIMS_READER}' "
                     "WHERE NOT EXISTS (SELECT 1 FROM nodes WHERE type IN ('Memory', 'Turn'))")

#: migration 12, the same on every backend: the claims backfill is due again from the newest
#: memory or turn, so that those written before the readings table get their rows
READINGS_PENDING = (f"INSERT INTO meta(key, value) SELECT '{CLAIMS_BACKFILL_KEY}', CAST(max(rowid) AS TEXT) "
                    "FROM nodes WHERE type IN ('Memory', 'Turn') HAVING count(*) > 0 "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value")

#: the closures an edge's removal withdraws are found by their cause (schema 13)
VALIDITY_CAUSE_INDEX = "CREATE INDEX IF NOT EXISTS validity_log_cause ON validity_log(cause) WHERE cause <> ''"

MIGRATIONS: list[list[str]] = [
    # 1: the initial layout
    [
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
        "CREATE TABLE tx(seq INTEGER PRIMARY KEY, at INTEGER NOT NULL UNIQUE, kind TEXT NOT NULL)",
        "CREATE TABLE blobs(id TEXT PRIMARY KEY, body BLOB, erased_at INTEGER) WITHOUT ROWID",
        """CREATE TABLE nodes(
            rowid INTEGER PRIMARY KEY,
            anchor TEXT NOT NULL UNIQUE,
            version TEXT NOT NULL,
            type TEXT NOT NULL,
            name TEXT NOT NULL,
            parent TEXT,
            valid_from INTEGER NOT NULL,
            valid_to INTEGER,
            created_at INTEGER NOT NULL,
            t_ingested INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            retired_at INTEGER,
            retire_reason TEXT,
            n_children INTEGER NOT NULL DEFAULT 0,
            n_edges INTEGER NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX nodes_type ON nodes(type, valid_to)",
        "CREATE INDEX nodes_parent ON nodes(parent)",
        "CREATE INDEX nodes_version ON nodes(version)",
        """CREATE TABLE validity_log(
            anchor TEXT NOT NULL, seq INTEGER NOT NULL, valid_to INTEGER NOT NULL,
            reason TEXT NOT NULL, cause TEXT, PRIMARY KEY(anchor, seq)) WITHOUT ROWID""",
        """CREATE TABLE versions(
            anchor TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
            children_root BLOB NOT NULL, n_children INTEGER NOT NULL,
            edges_root BLOB NOT NULL, n_edges INTEGER NOT NULL,
            PRIMARY KEY(anchor, seq)) WITHOUT ROWID""",
        "CREATE INDEX versions_id ON versions(id)",
        "CREATE TABLE members(world TEXT NOT NULL, kind INTEGER NOT NULL, key TEXT NOT NULL, "
        "PRIMARY KEY(world, kind, key)) WITHOUT ROWID",
        "CREATE TABLE member_log(seq INTEGER NOT NULL, world TEXT NOT NULL, kind INTEGER NOT NULL, "
        "key TEXT NOT NULL, op INTEGER NOT NULL)",
        "CREATE INDEX member_log_world ON member_log(world, seq)",
        "CREATE TABLE trie(world TEXT NOT NULL, kind INTEGER NOT NULL, prefix TEXT NOT NULL, "
        "digest BLOB NOT NULL, count INTEGER NOT NULL, PRIMARY KEY(world, kind, prefix)) WITHOUT ROWID",
        "CREATE TABLE closure(world TEXT NOT NULL, node TEXT NOT NULL, PRIMARY KEY(world, node)) WITHOUT ROWID",
        "CREATE INDEX closure_node ON closure(node, world)",
        """CREATE TABLE edges(
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL, type TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL,
            world TEXT, body BLOB NOT NULL,
            seq_added INTEGER NOT NULL, t_added INTEGER NOT NULL,
            seq_removed INTEGER, t_removed INTEGER,
            valid_from INTEGER, valid_to INTEGER
        )""",
        "CREATE UNIQUE INDEX edges_live ON edges(id) WHERE seq_removed IS NULL",
        "CREATE INDEX edges_src ON edges(src, type)",
        "CREATE INDEX edges_dst ON edges(dst, type)",
        """CREATE TABLE proposals(
            id TEXT PRIMARY KEY, edge_id TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,
            status TEXT NOT NULL CHECK(status IN ('pending','accepted','rejected')),
            tier TEXT, score REAL, evidence TEXT NOT NULL,
            seq_created INTEGER NOT NULL, seq_decided INTEGER, reason TEXT) WITHOUT ROWID""",
        "CREATE INDEX proposals_a ON proposals(a, status)",
        "CREATE INDEX proposals_b ON proposals(b, status)",
        "CREATE TABLE scopes(kind TEXT NOT NULL, sid TEXT NOT NULL, anchor TEXT NOT NULL UNIQUE, "
        "PRIMARY KEY(kind, sid)) WITHOUT ROWID",
        "CREATE VIRTUAL TABLE fts USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')",
        """CREATE TABLE vectors(
            id INTEGER PRIMARY KEY, node INTEGER NOT NULL, kind INTEGER NOT NULL, ord INTEGER NOT NULL DEFAULT 0,
            model TEXT NOT NULL, dim INTEGER NOT NULL, vec BLOB, seq INTEGER NOT NULL,
            UNIQUE(node, kind, ord))""",
        "CREATE INDEX vectors_seq ON vectors(kind, seq)",
        "CREATE TABLE token_df(token INTEGER PRIMARY KEY, df INTEGER NOT NULL)",
        """CREATE TABLE compose(
            world TEXT PRIMARY KEY, n INTEGER NOT NULL, mean_sum BLOB NOT NULL,
            weight_sum REAL NOT NULL, attn_sum BLOB NOT NULL) WITHOUT ROWID""",
        """CREATE TABLE resolver_names(
            id INTEGER PRIMARY KEY,
            node INTEGER NOT NULL, scope INTEGER NOT NULL, kind INTEGER NOT NULL,
            norm TEXT, phon TEXT, etype TEXT, seq INTEGER NOT NULL)""",
        "CREATE INDEX resolver_names_norm ON resolver_names(scope, norm)",
        "CREATE INDEX resolver_names_phon ON resolver_names(scope, phon)",
        "CREATE INDEX resolver_names_node ON resolver_names(node)",
        "CREATE INDEX resolver_names_seq ON resolver_names(seq)",
    ],
    # 2: live precedes edges alone, so recall can tell in one probe that a store has none
    # (memories written one by one) and skip reading neighbourhoods for every candidate.
    # The condition names the type through an expression no other query uses: against a
    # plain `type = 'precedes'`, SQLite recompiles every statement that binds `type = ?`
    # at each execution, to see whether the bound value makes this index usable - which
    # doubled the cost of typed edge lookups.
    [
        "CREATE INDEX edges_precedes ON edges(src) WHERE type || '' = 'precedes' AND seq_removed IS NULL",
    ],
    # 3: the edge types a query annotates every returned node with (worlddb.graph.edge_reads),
    # in indexes of their own. They are rare next to contains and refers_to, so these
    # indexes stay small and cached, and asking about a hub's many neighbours costs no
    # page reads in the large edge indexes. Removed edges stay in: reads pinned to an
    # earlier transaction time need them.
    [
        f"CREATE INDEX edges_marked_src ON edges(src, type) WHERE {MARKED}",
        f"CREATE INDEX edges_marked_dst ON edges(dst, type) WHERE {MARKED}",
    ],
    # 4: each distinct vector of a node stored once. A memory of one sentence held its
    # content, effective and sentence vector as three identical 1.5 KB rows, and an entity
    # its name and effective vector as two: 17 % of a 100k-node file. The rows stay (their
    # ids are the HNSW labels, and a snapshot taken before this migration still stands for
    # them); their bytes move to vector_data, under the id of the first row that held them.
    # The model and dimension were the same in every row: meta embed_model/embed_dim hold them.
    [
        "CREATE TABLE vector_data(id INTEGER PRIMARY KEY, vec BLOB NOT NULL)",
        "INSERT INTO vector_data(id, vec) SELECT v.id, v.vec FROM vectors v WHERE v.vec IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM vectors o WHERE o.node = v.node AND o.vec = v.vec AND o.id < v.id)",
        """CREATE TABLE vectors_4(
            id INTEGER PRIMARY KEY, node INTEGER NOT NULL, kind INTEGER NOT NULL, ord INTEGER NOT NULL DEFAULT 0,
            data INTEGER, seq INTEGER NOT NULL, UNIQUE(node, kind, ord))""",
        "INSERT INTO vectors_4(id, node, kind, ord, data, seq) SELECT v.id, v.node, v.kind, v.ord, "
        "(SELECT min(o.id) FROM vectors o WHERE o.node = v.node AND o.vec = v.vec), v.seq FROM vectors v",
        "DROP TABLE vectors",
        "ALTER TABLE vectors_4 RENAME TO vectors",
        "CREATE INDEX vectors_seq ON vectors(kind, seq)",
    ],
    # 5: a caller's session id -> its Session world in each scope (nodes.rowid of the scope
    # world, of the session world and of its latest turn), read and updated inside the write
    # that continues it (worlddb.memory.ingest)
    [
        """CREATE TABLE sessions(
            scope INTEGER NOT NULL, ref TEXT NOT NULL, session INTEGER NOT NULL,
            last_turn INTEGER NOT NULL, turns INTEGER NOT NULL,
            PRIMARY KEY(scope, ref)) WITHOUT ROWID""",
    ],
    # 6: tables that name nodes name them by rowid, and edge ids are 32-byte BLOBs. Every
    # edge row held three 64-hex ids and its canonical record (the ids again): replaying
    # the rows of a bulk load capped it near 4,200 nodes/s, and a 1M-node file was 8.5 GiB.
    # - nodes takes in blobs: one row per node, the genesis record (without its empty
    #   interior, ids.genesis_record) in `record`, NULL once erased (erased_at says when).
    #   `version` is NULL while it is the anchor (a node whose interior never changed), and
    #   `parent` is a rowid. Nothing reads nodes by version or parent through an index.
    # - edges: src, dst and world are node rowids; the record goes (its id re-derives from
    #   the columns and `props`, the canonical JSON of the props, NULL when there are none).
    # - closure, members, member_log and trie: worlds (and closure's nodes) as rowids,
    #   member keys as 32-byte BLOBs (their byte order is the hex order the trie walks).
    # Row ids are kept: FTS rows, vectors and resolver names name nodes by rowid, and
    # member_log's order within a transaction is its replay order.
    [
        """CREATE TABLE nodes_6(
            rowid INTEGER PRIMARY KEY,
            anchor TEXT NOT NULL UNIQUE,
            version TEXT,
            type TEXT NOT NULL,
            name TEXT NOT NULL,
            parent INTEGER,
            valid_from INTEGER NOT NULL,
            valid_to INTEGER,
            created_at INTEGER NOT NULL,
            t_ingested INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            retired_at INTEGER,
            retire_reason TEXT,
            n_children INTEGER NOT NULL DEFAULT 0,
            n_edges INTEGER NOT NULL DEFAULT 0,
            erased_at INTEGER,
            record BLOB
        )""",
        "INSERT INTO nodes_6 SELECT n.rowid, n.anchor, nullif(n.version, n.anchor), n.type, n.name, "
        "(SELECT p.rowid FROM nodes p WHERE p.anchor = n.parent), n.valid_from, n.valid_to, n.created_at, "
        "n.t_ingested, n.seq, n.retired_at, n.retire_reason, n.n_children, n.n_edges, b.erased_at, "
        "worlddb_record(b.body) FROM nodes n LEFT JOIN blobs b ON b.id = n.anchor",
        """CREATE TABLE edges_6(
            rowid INTEGER PRIMARY KEY,
            id BLOB NOT NULL, type TEXT NOT NULL, src INTEGER NOT NULL, dst INTEGER NOT NULL, world INTEGER,
            props TEXT, seq_added INTEGER NOT NULL, t_added INTEGER NOT NULL,
            seq_removed INTEGER, t_removed INTEGER, valid_from INTEGER, valid_to INTEGER
        )""",
        "INSERT INTO edges_6 SELECT e.rowid, worlddb_unhex(e.id), e.type, s.rowid, d.rowid, "
        "(SELECT w.rowid FROM nodes_6 w WHERE w.anchor = e.world), worlddb_props(e.body), e.seq_added, e.t_added, "
        "e.seq_removed, e.t_removed, e.valid_from, e.valid_to "
        "FROM edges e JOIN nodes_6 s ON s.anchor = e.src JOIN nodes_6 d ON d.anchor = e.dst",
        "CREATE TABLE closure_6(world INTEGER NOT NULL, node INTEGER NOT NULL, PRIMARY KEY(world, node)) WITHOUT ROWID",
        "INSERT INTO closure_6 SELECT w.rowid, n.rowid FROM closure c JOIN nodes_6 w ON w.anchor = c.world "
        "JOIN nodes_6 n ON n.anchor = c.node",
        "CREATE TABLE members_6(world INTEGER NOT NULL, kind INTEGER NOT NULL, key BLOB NOT NULL, "
        "PRIMARY KEY(world, kind, key)) WITHOUT ROWID",
        "INSERT INTO members_6 SELECT w.rowid, m.kind, worlddb_unhex(m.key) FROM members m "
        "JOIN nodes_6 w ON w.anchor = m.world",
        "CREATE TABLE member_log_6(seq INTEGER NOT NULL, world INTEGER NOT NULL, kind INTEGER NOT NULL, "
        "key BLOB NOT NULL, op INTEGER NOT NULL)",
        "INSERT INTO member_log_6(rowid, seq, world, kind, key, op) SELECT m.rowid, m.seq, w.rowid, m.kind, "
        "worlddb_unhex(m.key), m.op FROM member_log m JOIN nodes_6 w ON w.anchor = m.world ORDER BY m.rowid",
        "CREATE TABLE trie_6(world INTEGER NOT NULL, kind INTEGER NOT NULL, prefix TEXT NOT NULL, "
        "digest BLOB NOT NULL, count INTEGER NOT NULL, PRIMARY KEY(world, kind, prefix)) WITHOUT ROWID",
        "INSERT INTO trie_6 SELECT w.rowid, t.kind, t.prefix, t.digest, t.count FROM trie t "
        "JOIN nodes_6 w ON w.anchor = t.world",
        "DROP TABLE blobs",
        "DROP TABLE nodes",
        "DROP TABLE edges",
        "DROP TABLE closure",
        "DROP TABLE members",
        "DROP TABLE member_log",
        "DROP TABLE trie",
        "ALTER TABLE nodes_6 RENAME TO nodes",
        "ALTER TABLE edges_6 RENAME TO edges",
        "ALTER TABLE closure_6 RENAME TO closure",
        "ALTER TABLE members_6 RENAME TO members",
        "ALTER TABLE member_log_6 RENAME TO member_log",
        "ALTER TABLE trie_6 RENAME TO trie",
        "CREATE INDEX nodes_type ON nodes(type, valid_to)",
        "CREATE UNIQUE INDEX edges_live ON edges(id) WHERE seq_removed IS NULL",
        "CREATE INDEX edges_src ON edges(src, type)",
        "CREATE INDEX edges_dst ON edges(dst, type)",
        "CREATE INDEX edges_precedes ON edges(src) WHERE type || '' = 'precedes' AND seq_removed IS NULL",
        f"CREATE INDEX edges_marked_src ON edges(src, type) WHERE {MARKED}",
        f"CREATE INDEX edges_marked_dst ON edges(dst, type) WHERE {MARKED}",
        "CREATE INDEX closure_node ON closure(node, world)",
        "CREATE INDEX member_log_world ON member_log(world, seq)",
    ],
    # 7: principals, so that one HTTP server can serve several callers, each seeing only the
    # scopes it is granted. Only a digest of each token is stored; grants is a JSON array of
    # scope keys and patterns (worlddb.memory.access). A revoked principal keeps its row.
    [
        """CREATE TABLE principals(
            name TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL UNIQUE, grants TEXT NOT NULL,
            admin INTEGER NOT NULL, created_at INTEGER NOT NULL, revoked_at INTEGER) WITHOUT ROWID""",
    ],
    # 8: the form of the texts a store's text vectors were made from is recorded in meta
    # vector_text (worlddb.graph.text_index): every store with sentence vectors (kind 3) made
    # them with the date in the text ('dated'). A store without any records its form with
    # its first text vector; an older WorldDB, which knows only one form, cannot open either.
    [VECTOR_TEXT_DATED],
    # 9: what each memory claims, by subject and attribute (worlddb.memory.claims): a write
    # finds the current memories that claim something about what it claims without reading
    # the rest of its scopes. A memory's rows go when its content is erased. Memories written
    # before have none (they are found by their vectors, as before).
    [
        "CREATE TABLE claims(world INTEGER NOT NULL, subject TEXT NOT NULL, attribute TEXT NOT NULL, "
        "node INTEGER NOT NULL, PRIMARY KEY(world, subject, attribute, node)) WITHOUT ROWID",
        "CREATE INDEX claims_node ON claims(node)",
    ],
    # 10: the memories written before the claims index get their rows after all, by a pass
    # that reads their slot claims - which the schema cannot (worlddb.memory.claims_backfill, run by
    # the server in the background and by `worlddb backfill-claims`). This marks the pass as
    # due in a store that holds memories: meta claims_backfill is the highest rowid it has
    # left to read, and it reads downwards. A store made at this schema never runs it; one
    # made at schema 9 runs it once, adding nothing a write left out.
    [CLAIMS_BACKFILL_PENDING],
    # 11: which slot reader recorded a store's claims rows, so that a store written before the
    # reader learnt a claim is read again (worlddb.memory.claims_backfill.mark_stale)
    [CLAIMS_READER_NEW],
    # 12: each memory's and turn's slot reading, kept as its write read it, so that the update
    # judge reads a candidate's claims without reading its text again (worlddb.memory.readings);
    # the claims backfill is due again, to read those written before
    [
        "CREATE TABLE readings(node INTEGER PRIMARY KEY, body TEXT NOT NULL)",
        READINGS_PENDING,
    ],
    # 13: a closure names its cause and can be withdrawn: a memory retired or amended away ends
    # nothing any more, and what it alone ended is current again (worlddb.memory.succession). So
    # a node may carry several closures of one transaction, one per cause, and those recorded
    # before have none ('').
    [
        """CREATE TABLE validity_log_13(
            anchor TEXT NOT NULL, seq INTEGER NOT NULL, valid_to INTEGER NOT NULL,
            reason TEXT NOT NULL, cause TEXT NOT NULL DEFAULT '', seq_withdrawn INTEGER,
            PRIMARY KEY(anchor, seq, cause)) WITHOUT ROWID""",
        "INSERT INTO validity_log_13(anchor, seq, valid_to, reason, cause) "
        "SELECT anchor, seq, valid_to, reason, coalesce(cause, '') FROM validity_log",
        "DROP TABLE validity_log",
        "ALTER TABLE validity_log_13 RENAME TO validity_log",
        VALIDITY_CAUSE_INDEX,
    ],
]

LATEST = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema to LATEST; returns the version found before migrating. A new file is
    given the latest layout at once (`_create`); one at an older version runs the migrations
    after its own, in order."""
    found = conn.execute("PRAGMA user_version").fetchone()[0]
    if found > LATEST:
        raise SchemaError(
            f"this database has schema version {found}, newer than this WorldDB understands "
            f"(up to {LATEST}); upgrade worlddb to open it"
        )
    if found == LATEST:
        return found
    if found == 0 and _has_foreign_tables(conn):
        raise SchemaError("this SQLite file already holds tables that are not WorldDB's")
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Re-read under the write lock: another process may have migrated meanwhile.
        current = conn.execute("PRAGMA user_version").fetchone()[0]
        if current == 0:
            _create(conn)
        else:
            _run_migrations(conn, current)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return found


def _run_migrations(conn: sqlite3.Connection, current: int) -> None:
    """The migrations after `current`, each followed by its user_version, in the caller's transaction."""
    _functions(conn)
    for number in range(current + 1, LATEST + 1):
        for statement in MIGRATIONS[number - 1]:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")


def _create(conn: sqlite3.Connection) -> None:
    """A new file's layout and rows at LATEST, in the caller's transaction: what the migrations
    leave in an empty database (`_latest`), made by one statement per table and index rather
    than by replaying the migrations' table rebuilds (about 5 ms against 20-25 ms)."""
    statements, rows = _latest(LATEST)
    for statement in statements:
        conn.execute(statement)
    for insert, values in rows:
        conn.executemany(insert, values)
    conn.execute(f"PRAGMA user_version = {LATEST}")


@functools.cache
def _latest(latest: int) -> tuple[tuple[str, ...], tuple[tuple[str, tuple[tuple, ...]], ...]]:
    """What the migrations up to `latest` (LATEST: a test stands in for an older WorldDB by
    shortening MIGRATIONS) make of an empty database, read back from one in memory (so the
    migrations stay the only statement of the layout): the statement of each table, index and
    virtual table in the order they were made, less what SQLite makes itself (its own
    `sqlite_` tables, automatic indexes, a virtual table's shadow tables), and an INSERT with
    the rows the migrations wrote, per table that holds any. tests/core/test_migration.py
    holds a new file to the migrated one, table for table and row for row."""
    template = sqlite3.connect(":memory:", isolation_level=None)
    try:
        template.execute("BEGIN")
        _run_migrations(template, 0)
        template.execute("COMMIT")
        made = template.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
                                "AND name NOT LIKE 'sqlite%' ORDER BY rowid").fetchall()
        virtual = [name for kind, name, sql in made if kind == "table" and sql.upper().startswith("CREATE VIRTUAL")]
        made = [(kind, name, sql) for kind, name, sql in made
                if not any(name.startswith(f"{v}_") for v in virtual)]
        rows = []
        for kind, name, _sql in made:
            if kind != "table" or name in virtual:
                continue
            values = tuple(template.execute(f'SELECT * FROM "{name}"').fetchall())
            if values:
                marks = ", ".join("?" * len(values[0]))
                rows.append((f'INSERT INTO "{name}" VALUES ({marks})', values))
        return tuple(sql for _kind, _name, sql in made), tuple(rows)
    finally:
        template.close()


def _functions(conn: sqlite3.Connection) -> None:
    """SQL functions the migrations use, for what SQLite's own cannot do exactly."""
    conn.create_function("worlddb_unhex", 1, lambda text: None if text is None else bytes.fromhex(text),
                         deterministic=True)
    conn.create_function("worlddb_record", 1, _genesis_record, deterministic=True)
    conn.create_function("worlddb_props", 1, _edge_props, deterministic=True)


def _genesis_record(body: bytes | None) -> bytes | None:
    """A stored genesis body without its empty interior (schema 5); bytes that are not a
    canonical genesis record (tampered ones) are kept as they are, for verify to report."""
    if body is None:
        return None
    body = bytes(body)
    try:
        record = json.loads(body)
        empty = {"root": ids.EMPTY_ROOT_HEX, "n": 0}
        if record.get("children") != empty or record.get("edges") != empty:
            return body
        del record["children"], record["edges"]
        stored = ids.canonical(record)
    except (ValueError, TypeError, AttributeError):
        return body
    return stored if ids.genesis_body(stored) == body else body


def _edge_props(body: bytes | None) -> str | None:
    """The canonical JSON of a stored edge record's props; NULL for none (and for a record
    that does not parse: its id then does not re-derive, which verify reports)."""
    try:
        props = json.loads(bytes(body))["props"]
        return ids.props_json(ids.normalize(props)) if props else None
    except (ValueError, TypeError, KeyError, ids.InvalidInput):
        return None


def _has_foreign_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()
    return row[0] > 0
