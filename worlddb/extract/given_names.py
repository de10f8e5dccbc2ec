"""English given names and their nicknames: which words are given names, which names are one
another's short or long form.

Contract: ``related(name)`` is the set of lower-case names that are a nickname of ``name`` or of
which ``name`` is a nickname - one step either way ("bob" -> {"robert", "rob", "bobby", "bert"},
"robert" -> {"bob", "bill", "rob", ...}) - never ``name`` itself; empty for a name the table does
not hold. Two names two steps apart ("liz" and "beth", both short for "elizabeth") are not
related: a short form shared by many long ones ("al": 14 of them) would otherwise relate half the
table. ``is_given_name(word)`` says whether the table holds ``word``. Both are case-insensitive,
pure, and never raise for a ``str``.

The table is the ``nicknames`` package's (Apache-2.0; about 2,200 names in 2,700 hand-curated
name/nickname pairs), read once on first use and kept as frozen sets (0.8 MB), so a lookup costs a
dict probe: the resolver asks on every write. The first use pays for importing the package and
reading its CSV: 20-80 ms measured on the 2-core development machine, depending on its load.
"""

from __future__ import annotations

from functools import cache

__all__ = ["is_given_name", "related"]


@cache
def _table() -> dict[str, frozenset[str]]:
    from nicknames import NickNamer  # imported on first use: most extractions never ask

    namer = NickNamer()
    names = {*namer.nickname_lookup, *namer.canonical_lookup}
    out = {}
    for name in names:
        if name.isalpha():  # the table's few initials ("l.r.") are no given names
            near = {n for n in namer.nicknames_of(name) | namer.canonicals_of(name) if n.isalpha()}
            out[name] = frozenset(near - {name})
    return out


def related(name: str) -> frozenset[str]:
    """The names one nickname step from ``name`` (see the module contract)."""
    return _table().get(name.strip().lower(), frozenset())


def is_given_name(word: str) -> bool:
    """Whether the nickname table holds ``word`` as a name."""
    return word.strip().lower() in _table()
