"""The tables the built-in readers build on first use, built now.

Contract: `warm()` builds, once per process, what the extractor, the slot reader and the
resolver's name tables would otherwise build inside the first write after a server starts:
the date parser's English tables (worlddb.extract.temporal), the slot rules' compiled patterns
(compiled on first use: worlddb.extract._slot_rules) and the rules' and cues' literal indexes
(worlddb.extract.slots), the literal sets of the temporal and fact patterns
(worlddb.extract.temporal, worlddb.extract.builtin), the English word list
(worlddb.extract.lexicon) and the given-name table (worlddb.extract.given_names). It reads
only the installed packages' data, caches no text, and is a no-op the second time. Built lazily, these cost the first
memory_write after start about 0.2 s (and 0.6 s under a profiler), against 6-7 ms for the
writes after it (a store of 10k memories).
"""

from __future__ import annotations

from worlddb.extract import (
    _slot_cues,
    _slot_prefilter,
    _slot_reader,
    _slot_rules,
    builtin,
    given_names,
    lexicon,
    temporal,
)

__all__ = ["warm"]


def warm() -> None:
    temporal.warm()
    builtin._fact_needs()
    _slot_prefilter._needs()
    for rule in _slot_rules._RULES:
        rule.pattern.compiled()
    _slot_cues._cue_needs()
    _slot_reader._animate()
    lexicon._entries()
    given_names._table()
