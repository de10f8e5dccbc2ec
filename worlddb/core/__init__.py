"""The core: what a WorldDB file is, with no opinion about memories.

    errors.py    the one exception tree, and the one place sqlite3 errors are translated
    timeutil.py  microsecond timestamps and ISO-8601 parsing
    ids.py       canonical encoding and blake3 ids of every record
    trie.py      the 16-ary Merkle hash trie over a world's interior
    records.py   Node, Edge and the views reads return
    plan.py      QueryPlan: what a read must respect, as edge handlers rewrite it
    schema.py    numbered migrations of the SQLite layout
    store.py     the file: reads, and the write transaction boundary
    txn.py       one write transaction: projection, validity, interiors, versions
"""
