"""The tables the built-in readers build on first use, built now.

Contract: `warm()` builds, once per process, what the extractor, the slot reader and the
resolver's name tables would otherwise build inside the first write after a server starts:
the date parser's English tables (worlddb.extract.temporal), the rules' and cues' literal
indexes (worlddb.extract.slots), the literal sets of the temporal and fact patterns
(worlddb.extract.temporal, worlddb.extract.builtin), the English word list
(worlddb.extract.lexicon) and the given-name table (worlddb.extract.given_names). It reads
only the installed packages' data, caches no text, and is a no-op the second time. Built lazily,
they cost the first memory_write after start about 0.4 s of CPU, against 6-7 ms for the writes
after it (a store of 10k memories).

It leaves the slot rules' patterns to compile on first use (worlddb.extract._slot_rules): the
literal indexes pass a text only to the rules whose words it holds, so a write compiles the
few it needs (a first write 5-20 of 242, 50-100 ms), where compiling all of them took 1.3 s
of CPU at every start, and a call that came meanwhile waited for it.

`patterns()` are the patterns whose literal sets (worlddb.extract.literals) the readers use;
`python -m worlddb.extract.warmup` writes their sets to the table the package ships
(literals.TABLE_PATH), which tests/extract/test_warmup.py checks against the patterns as they are.
"""

from __future__ import annotations

import json
import re

from worlddb.extract import (
    _slot_cues,
    _slot_prefilter,
    _slot_reader,
    _slot_rules,
    builtin,
    given_names,
    lexicon,
    literals,
    temporal,
)

__all__ = ["patterns", "warm", "write_table"]


def warm() -> None:
    temporal.warm()
    builtin._fact_needs()
    _slot_prefilter._needs()
    _slot_cues._cue_needs()
    _slot_reader._animate()
    lexicon._entries()
    given_names._table()


def patterns() -> list[re.Pattern[str]]:
    """Every pattern the readers find the literal sets of: the slot rules, the cues, the date
    patterns and the fact patterns (a slot rule's pattern is read uncompiled)."""
    return ([rule.pattern for rule in _slot_rules._RULES] + [rx for _kind, rx in _slot_cues._CUES]
            + [rx for rx, _gran, _kind in temporal._COMPILED] + [rx for rx, _ in builtin._FACT_PATTERNS]
            + [rx for rx, _ in builtin._COORDINATED] + [builtin._MY_KIN_NAME, builtin._NAME_IS_MY_KIN])


def write_table() -> int:
    """Write the literal sets of `patterns()` to the shipped table; the number of patterns."""
    sets = {literals.key(rx): [sorted(strings) for strings in literals.derive(rx)] for rx in patterns()}
    lines = [f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in sorted(sets.items())]
    literals.TABLE_PATH.parent.mkdir(exist_ok=True)
    literals.TABLE_PATH.write_text(f'{{"algorithm": {literals.ALGORITHM}, "sets": {{\n' + ",\n".join(lines) + "\n}}\n",
                                   encoding="utf-8")
    return len(sets)


if __name__ == "__main__":
    print(f"{write_table()} patterns -> {literals.TABLE_PATH}")
