"""The memory API: the Engine behind the nine MCP tools, and the operations it calls.

    engine.py       Engine: checks arguments, holds the services, calls an operation
    aio.py          AsyncEngine: the same API, one thread per database, for async callers
    services.py     Services: what every operation works with
    scopes.py       ScopeSet, and the scoped reads every operation starts with
    access.py       Access: the scopes a caller is granted, checked on every call
    principals.py   tokens and their grants, kept in the database file
    write.py        memory_write: extract -> resolve -> reconcile -> commit
    ingest.py       conversations: Session worlds of Turn nodes chained by precedes
    messages.py     memory_write with messages: a conversation's turns, continued by session id
    importing.py    `worlddb import`: files of memories in batched transactions
    search.py       memory_recall: ranked memories as the page a reader gets
    reading.py      memory_list and memory_read
    entities.py     entities read in full, merge proposals listed and decided, export
    corrections.py  memory_amend, memory_retire, memory_retire_all
    purge.py        memory_purge_scope, with erase
    results.py      the records every operation returns (the tools' output schemas)
"""
