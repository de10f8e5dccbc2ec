"""The database schema, as numbered migrations tracked in PRAGMA user_version.

Migration N takes a database from user_version N-1 to N, inside one transaction.
Opening a file whose user_version is higher than the last migration known here is
refused with SchemaError: an older WorldDB must not write into a newer layout.

Tables, in the order a write touches them:
  tx            one row per committed write transaction: seq (transaction order) and at
                (transaction time, microseconds, strictly increasing)
  blobs         immutable canonical record bytes keyed by id; erasure keeps the id as a
                tombstone (body NULL, erased_at set)
  nodes         the mutable projection of each node, keyed by its anchor (genesis id):
                current version, validity, transaction time, parent world, retirement
  validity_log  every tightening of a node's valid_to, with the transaction that did it,
                so validity can be read as known at any transaction time
  versions      every version of every world: the interior roots at each transaction
  members       the current interior of each world (kind 0: child ids, 1: edge ids)
  member_log    every change of every interior, replayed by verify
  trie          the Merkle hash trie nodes over members (worlddb.core.trie)
  closure       current containment closure: (ancestor world, descendant anchor)
  edges         edge rows, written only by the reconciler; removal is a timestamp
  proposals     same_as merge proposals and their decisions
  scopes        registered scopes (kind, id) and their anchors
  fts           FTS5 index over the text of Turn/Memory/Summary/Fact nodes
  vectors       which node holds which embedding: content, effective, entity-name and
                sentence-unit rows, each naming its bytes in vector_data (NULL once cleared);
                each row's id labels it in the in-memory HNSW index
  vector_data   the bytes of each distinct vector of a node, stored once however many of
                the node's rows name it (a one-sentence memory's content, effective and
                sentence vectors are the same); the model that made them is meta embed_model
  token_df      how many text nodes contain each wordpiece (for model-free query vectors)
  compose       per-world running sums from which its composed embedding is derived
  resolver_names  the entity resolver's normalised names and aliases per scope, with their
                phonetic keys (worlddb.resolver); emptied, not deleted, when an entity is
                erased, so every process's in-memory name index sees the change by seq
  sessions      conversations a caller writes by its own session id (memory_write with
                messages): per scope and id, the Session world, its latest turn and how many
                turns it holds, so the next call continues the same world and chain
"""

from __future__ import annotations

import sqlite3

from worlddb.core.errors import SchemaError

#: The condition of schema 3's partial indexes; a query reads them by repeating it word for
#: word (SQLite uses a partial index only when the query's WHERE holds the same term). It
#: names the type through `type || ''` for the reason given at migration 2. Shipped
#: migrations never change, so neither does this text.
MARKED_TYPES = ("contradicts", "supersedes")
MARKED = "type || '' IN ('contradicts', 'supersedes')"

#: reads vector rows with their bytes (schema 4): `v` the row, `d.vec` its bytes, NULL once
#: the vector was cleared
VECTOR_FROM = "vectors v LEFT JOIN vector_data d ON d.id = v.data"

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
]

LATEST = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema to LATEST; returns the version found before migrating."""
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
        for number in range(current + 1, LATEST + 1):
            for statement in MIGRATIONS[number - 1]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return found


def _has_foreign_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()
    return row[0] > 0
