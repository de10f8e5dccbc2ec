"""The claims index, read: which current memories of a scope claim something about a
subject's slot.

The `claims` table (worlddb.core.schema) holds one row per scope world of a memory and per
key of what the memory claims; memory_write and the other memory writes record them
(worlddb.memory.claims). `claiming(store, worlds, keys, ...)` reads the current memories of
those worlds holding one of the keys, newest first, by the table's primary key alone (world,
subject, attribute): it never reads a scope's other memories, so it costs the same in a
scope of ten memories as in one of a million. Two readers use it: the update judge, for the
memories a new one may change (worlddb.memory.updates), and recall's slot step, for the
memories that state the slot a question asks about (worlddb.retrieval.slot_preference).

A key is (subject head, attribute) of a slot claim (worlddb.extract.slots): the subject's last
word ("me", "nora", "standup" for "team standup"), because two subject keys name the same thing
only if their last words agree (slots.same_subject), and the attribute as read ("home",
"employer"). A person's full name is also kept under its first name ("ana" for "Ana Souza"),
because "Ana" alone may be the same person (slots.same_person). A reader asks for the attributes
of a family (judge.comparable), so a key never needs more than one attribute. A row proves
nothing about a memory (each reader reads the memory itself), and the rows of a memory that
stopped being current stay (the read keeps only current memories)."""

from __future__ import annotations

from collections.abc import Iterable

from worlddb.core.store import Store, list_params, rowids_sql
from worlddb.extract.judge import comparable
from worlddb.extract.slots import Reading

from .lanes import eligible

Key = tuple[str, str]


def key(subject: str, attribute: str) -> Key | None:
    """The index key of a claim - or of a question - about `attribute` of `subject`: (subject
    head, attribute); None without either."""
    words = subject.split()
    return (words[-1], attribute) if words and attribute else None


def keys(reading: Reading) -> frozenset[Key]:
    """The claims index keys of a text's reading: one per claim, and one more for a person's
    full name under its first name, which a later claim about "Ana" asks for."""
    out = set()
    for claim in reading.claims:
        found = key(claim.subject, claim.attribute)
        if found is None:
            continue
        out.add(found)
        words = claim.subject.split()
        if claim.named and len(words) > 1:
            out.add((words[0], claim.attribute))
    return frozenset(out)


def claiming(store: Store, worlds: list[str], wanted: Iterable[Key], *, limit: int, now: int) -> list[int]:
    """Rowids of the current memories of `worlds` (newest first, at most `limit`) holding a
    claim about the subject of one of the `wanted` keys in an attribute of that key's
    attribute family."""
    pairs = sorted({(subject, attribute) for subject, wanted_attribute in wanted
                    for attribute in comparable({wanted_attribute})})
    if not pairs or not worlds:
        return []
    found: list[int] = []
    # one indexed range per pair; a subject and attribute of few rows each, newest first
    for subject, attribute in pairs:
        rows = store.conn.execute(
            f"SELECT node FROM claims WHERE world IN {rowids_sql(len(worlds))} AND subject = ? AND attribute = ? "
            f"ORDER BY node DESC LIMIT ?", (*list_params(worlds), subject, attribute, limit))
        found += [row[0] for row in rows]
    found = sorted(set(found), reverse=True)
    allowed = eligible(store, worlds, found, now)
    return [rowid for rowid in found if rowid in allowed][:limit]
