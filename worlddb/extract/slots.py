"""Slots: which single thing about whom a statement (or a question) is about, read by rules.

Contract: ``read(text)`` returns a ``Reading``: zero or more ``SlotClaim``s and the update cues
the text carries; ``read_parts(text)`` returns the ``ReadingParts`` it is assembled from, whose
``reading(attributes)`` is ``read(text, attributes=attributes)`` without reading the text again
(worlddb.memory.readings keeps them); ``asked(question)`` returns the ``SlotKey``s a question asks about. Both are
deterministic, perform no I/O, never look at the store and never raise for a ``str``. They are
the model-free half of update detection (worlddb.extract.judge decides what two readings mean
for each other; worlddb.memory.updates finds the memories to compare).

A claim is (subject, attribute, value): the subject is ``"me"`` for the speaker or user (I, we,
my, our), a lower-cased name for a named person ("nora"), a kinship word for an unnamed relative
("father"), or a normalised noun phrase for a thing ("standup", "grant proposal", "japan trip").
A clause whose subject is "you" (the other party) or a word that names no one ("It", "Been
playing long?", "Hoping ...") claims nothing.
A claim whose subject the text writes as a name is ``named``: a first name alone and a full name
that begins with it may then be one person (``same_person``; the caller says which first names
are ambiguous).
The attribute comes from a catalogue (``CATALOGUE``) of what people tell an assistant about
themselves and their world: where someone lives, works, their role, partner, diet, phone and
email, the time of a named meeting, the deadline of a named deliverable, the status of a
project, favourite things, ... Each attribute says whether it holds one value at a time
(``single``) and whether that value changes over time or is a fixed fact that only a correction
changes (``mutable``). ``value`` is the value as written ("" when the text names the slot but
not its value, as in "I sold the old car"). ``positive`` is False for a negated claim ("I'm not
vegan anymore"); ``ended`` marks a claim that a value stopped holding ("after the breakup",
"the fish died", "I quit the Sunday league"), whatever replaces it.

Cues (``Reading.cues``):
    change      moved, switched, now, these days, new, no longer, anymore, update: ...
    correction  correction, actually, I had it wrong, not what I wrote, I meant ...
    additive    also, too, as well, another, a second, added, in addition: a compatible addition
    exclusive   instead, replaced, main, only, switched: the new value pushes out the old one

The rules read patterns and lexicons (occupations, diets, vehicle and phone makes, event and
deliverable nouns, kinship words), never particular sentences. Precision is preferred to recall:
a claim read wrongly can end a true memory, so a rule that is unsure reads nothing.

Every write reads its text, so the reading is kept cheap without changing it: a rule (or cue)
runs only where the literals its pattern needs occur in the text (worlddb.extract.literals
derives them from the pattern; a rule left out could not have matched). Most texts leave all
but a few of the ~120 rules out.
"""

from __future__ import annotations

# the reader lives in private modules, listed here so that each imports only modules above it:
#   _slot_catalogue      the catalogue (Attribute, CATALOGUE, RELATION_ALIASES) and the types
#   _slot_words          the lexicons: word lists and the pattern pieces built from them
#   _slot_values         subjects and values: normalise_subject, same_*, voice, the value cutter
#   _slot_rules          the rule table (_Rule, _RULES) and the checks its rules name
#   _slot_prefilter      which rules can match a text (the literal index)
#   _slot_cues           the update cues
#   _slot_clause_subject who a clause is about (pronouns and their antecedents)
#   _slot_reader         read: a text's clauses, matches and claims
#   _slot_questions      asked: the slots a question asks about
from worlddb.extract._slot_catalogue import (
    CATALOGUE,
    Attribute,
    Reading,
    SlotClaim,
    SlotKey,
    attribute_for_relation,
    is_fixed,
    names_person,
)
from worlddb.extract._slot_catalogue import ME as ME
from worlddb.extract._slot_catalogue import RELATION_ALIASES as RELATION_ALIASES
from worlddb.extract._slot_questions import asked
from worlddb.extract._slot_questions import slot_words as slot_words
from worlddb.extract._slot_reader import ReadingParts, read, read_parts

# the reader's cache, which bench/slot_reader.py clears on installations from before the split too
from worlddb.extract._slot_reader import _read as _read
from worlddb.extract._slot_values import (
    ambiguous_first_names,
    kin_of,
    kin_says,
    kin_word,
    names_another,
    normalise_subject,
    owners,
    same_name,
    same_person,
    same_subject,
    same_value,
    two_people,
    voice,
)
from worlddb.extract._slot_words import FUTURE_TIME as FUTURE_TIME
from worlddb.extract._slot_words import NAMED_TIME as NAMED_TIME
from worlddb.extract._slot_words import corporate as corporate

__all__ = [
    "CATALOGUE", "FUTURE_TIME", "NAMED_TIME", "Attribute", "Reading", "ReadingParts", "SlotClaim", "SlotKey",
    "ambiguous_first_names", "asked",
    "attribute_for_relation", "is_fixed", "kin_of", "kin_says", "kin_word", "names_another", "normalise_subject",
    "names_person", "owners", "read", "read_parts",
    "same_name", "same_person", "same_subject", "same_value", "two_people", "voice", "corporate",
]
