"""The graph: the WorldDB facade over one file, and everything that reads or writes its worlds.

    database.py    WorldDB and Writer: every change goes through db.write(), every edge
                   through its handler
    reconciler.py  dispatches each edge write and removal to its type's handler
    stale_summaries.py  a write that closes a text ends the summaries quoting it
    query.py       the query pipeline: seeds, expand, where_connected, filter -> a subgraph
    edge_reads.py  the annotations every read attaches (conflicts, replacements, equivalents)
    text_index.py  what a text node's index rows are: its FTS text, vectors, wordpiece counts
    lexical.py     BM25 over those FTS rows, at a cost near the size of the answer
    anyword.py     the any-word plan that keeps FTS5 from scoring texts that cannot win
    facts.py       Fact nodes: subject, relation, object
    identity.py    same_as proposals, their decisions and equivalence classes
    verify.py      re-derive every id and world version from the stored bytes
    reembed.py     recompute every vector with another model, in one transaction
"""
