"""The claims index, read: which current memories and conversation turns of a scope claim
something about a subject's slot.

The `claims` table (worlddb.core.schema) holds one row per scope world of a memory or turn
and per key of what it claims; memory_write, the other memory writes and every session's
turns record them (worlddb.memory.claims). `claiming(store, worlds, keys, ...)` reads the
current memories and turns of those worlds holding one of the keys (of the given node types,
if any: a turn's rows are kept under its attributes prefixed with TURN), newest first, by the
table's primary key alone (world, subject, attribute): it never reads a scope's other
memories, so it costs the same in a scope of ten memories as in one of a million. Three
readers use it: the update judge, for the memories a new one may change
(worlddb.memory.updates); the turn judge, for the turns and memories a new turn may change
and the turns a new memory may change (worlddb.memory.turn_updates); and recall's slot step,
for the memories and turns that state the slot a question asks about
(worlddb.retrieval.slot_preference).

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
from worlddb.extract.open_slots import is_single
from worlddb.extract.slots import CATALOGUE, Reading, kin_of

from .lanes import eligible

Key = tuple[str, str]


def key(subject: str, attribute: str) -> Key | None:
    """The index key of a claim - or of a question - about `attribute` of `subject`: (subject
    head, attribute); None without either."""
    words = subject.split()
    return (words[-1], attribute) if words and attribute else None


def single_valued(attribute: str) -> bool:
    """Whether a slot holds one value at a time: the catalogue's say (a home, an employer; not
    activities or pets), and open slots by their shape (worlddb.extract.open_slots)."""
    spec = CATALOGUE.get(attribute)
    return spec.single if spec is not None else is_single(attribute)


def keys(reading: Reading, text: str = "") -> frozenset[Key]:
    """The claims index keys of a text's reading: one per claim, one more for a person's full
    name under its first name, which a later claim about "Ana" asks for, and one under each kin
    word `text` (the text read) gives the person ("My brother Sam works at Intel" under
    "brother" too, which a later "My brother left Intel" asks for)."""
    out = set()
    kin = kin_of(text) if text else {}
    for claim in reading.claims:
        found = key(claim.subject, claim.attribute)
        if found is None:
            continue
        out.add(found)
        words = claim.subject.split()
        if claim.named and len(words) > 1:
            out.add((words[0], claim.attribute))
        for word in kin.get(claim.subject, ()):
            out.add((word, claim.attribute))
    return frozenset(out)


#: the attribute prefix of a conversation turn's rows: a turn's claims and a memory's are two
#: ranges of the table's key, so each reader reads only the kind it asks for, however many
#: rows of the other kind the same subject and attribute hold
TURN = "turn:"
#: the node types whose rows each range holds
_RANGES = (("Memory", ""), ("Turn", TURN))


def for_turn(found: frozenset[Key]) -> frozenset[Key]:
    """The rows a conversation turn's claims `found` are recorded under."""
    return frozenset((subject, TURN + attribute) for subject, attribute in found)


def claiming(store: Store, worlds: list[str], wanted: Iterable[Key], *, limit: int, now: int,
             types: tuple[str, ...] | None = None) -> list[int]:
    """Rowids of the current memories and turns of `worlds` (newest first, at most `limit`;
    of the node `types` only, if given) holding a claim about the subject of one of the
    `wanted` keys in an attribute of that key's attribute family."""
    prefixes = [prefix for kind, prefix in _RANGES if types is None or kind in types]
    pairs = sorted({(subject, prefix + attribute) for subject, wanted_attribute in wanted
                    for attribute in comparable({wanted_attribute}) for prefix in prefixes})
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
