"""The built-in update judge: what a new statement means for each current one about the same thing.

Contract: ``BuiltinJudge().judge(new, candidates)`` returns one ``Verdict`` per candidate, in
order. It is deterministic, performs no I/O and looks only at the statements it is given
(their slot readings, worlddb.extract.slots; their valid-from times; their text). Outcomes:

    update     one replaces the other (same slot, a changed value): valid time orders them, so
               the caller writes a supersedes edge from the later one - the new statement, or
               the candidate when the new one is stated for an earlier time about the same
               subject (history written after what followed it)
    conflict   they disagree and time does not settle it (both for the same time, a fixed fact
               such as a birthday changed without a correction cue, or a correction, or a
               person named otherwise, stated for an earlier time): a contradicts edge
    duplicate  the same statement again: nothing new is written
    related    the same slot, compatible or undecided (a second language, a value repeated in
               other words, a slot whose value cannot be read): reported, nothing written
    unrelated  nothing in common that the rules can see

A wrong update hides a true memory, so the rules decide only on a slot both statements name:
  - a single-valued attribute whose value differs -> update (or conflict, above);
  - a multi-valued attribute (allergies, pets, languages) changes only when the new statement
    says the old value ended ("the fish died", "I'm not allergic to cats anymore"), or says
    it replaces it ("instead", "switched", a correction) - and then only for the closest
    candidate of that slot; for one whose spec says so (a car: `Attribute.replaced_on_change`),
    a change cue ("I drive a Tesla now", "my new car") says it too;
  - a repeating time moved for one occasion ("This week yoga is on Tuesday" of "every Monday")
    is an exception that leaves the schedule as it was: related;
  - a new subject that names a relative the candidate's does not ("my wife's yoga", `owners`)
    is someone else's, as a candidate's relative's thing is not what a text of the speaker's
    own alone changes ("My yoga moved to Monday", worlddb.extract.whose), and "my other
    sister" is not the sister spoken of before;
  - an additive cue ("also", "too", "another") keeps both current, but for a count, whose new
    total it explains ("Adopted another cat, which makes three");
  - a partner named where one was single ("I'm single", then "I'm seeing Caleb") changes it,
    and being single again ends a partner;
  - a negation of the same value ("I'm not vegan anymore") is a change, as is one of a value the
    candidate's text describes ("I no longer work at the law firm" of "Whitman & Hale, a law firm");
  - two names of one person are one value of a slot whose value is a person ("My partner Alex",
    then "Alexander Reyes is my partner": the same partner, named in full; not "Maria Reyes").
Open slots (worlddb.extract.open_slots: "our wifi password is ...", "Sarah prefers tea") are
judged the same way, with two more conditions: their contexts must be the same ("at work" and
"at home" are two slots), and a single-valued one changes only to a value of the same kind (an
identifier for an identifier, a name for a name), else the candidate is related. A replacement
with no slot of its own ("I switched to Neovim") changes the candidate whose value it names
("from VS Code", "instead of VS Code"); naming none, it changes the one candidate holding a
name-valued open slot of a named role ("I use VS Code as my editor"), a thing used for a purpose
("I use VS Code for coding", when the replacement names no purpose) or a preference ("Raj prefers
Python") for the same subject and context - only when that is the only such candidate and the
nearest of all. Otherwise such candidates are related.
The model-backed judge (worlddb.anthropic.judge) implements the same seam
(worlddb.protocols.UpdateJudge) and falls back to this one.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

# (the reader's catalogue and subject rules, not the reader: a process that only stores or reads
# what is stored - the command line's `auth`, `identity`, `export` - never compiles its rules)
from worlddb.extract._slot_catalogue import (
    CATALOGUE,
    ME,
    Reading,
    SlotClaim,
    attribute_for_relation,
    is_fixed,
    names_person,
)
from worlddb.extract._slot_values import (
    ambiguous_first_names,
    kin_of,
    kin_says,
    kin_word,
    owners,
    same_name,
    same_person,
    same_subject,
    same_value,
)
from worlddb.extract.given_names import is_given_name
from worlddb.extract.open_slots import (
    IDENT_NOUNS,
    PREFERS,
    REPLACES,
    ROLE_HEADS,
    USES,
    is_open,
    is_single,
    lower_name,
    value_kind,
)
from worlddb.extract.whose import names, whose

__all__ = ["OUTCOMES", "THING_TIMES", "BuiltinJudge", "Outcome", "Statement", "Verdict", "comparable", "covered"]

Outcome = Literal["update", "conflict", "duplicate", "related", "unrelated"]
OUTCOMES: tuple[Outcome, ...] = ("update", "conflict", "duplicate", "related", "unrelated")
#: attributes an ended claim of one also ends in the other ("quit his job" ends a role too)
_FAMILIES = ({"employer", "role"}, {"partner", "marital_status"})
#: words of a job title that say its rank: a title that gains or loses one is another role
#: ("senior product manager" after "product manager"), where its words within the other's are one
_RANKS = frozenset("senior sr junior jr lead principal staff chief head associate assistant deputy vice executive "
                   "intern trainee apprentice".split())
#: a candidate this similar (cosine of the whole texts) and saying the same words is a duplicate
DUPLICATE_SIMILARITY = 0.97


@dataclass(frozen=True, slots=True)
class Statement:
    """One memory as the judge sees it. ``valid_from`` is in microseconds since the epoch;
    ``similarity`` is the cosine of its vector to the new statement's (0 when not known)."""

    id: str
    text: str
    valid_from: int
    reading: Reading
    similarity: float = 0.0


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    reason: str = ""


class BuiltinJudge:
    """The rules above. ``single`` names attributes (or relations) that hold one value at a
    time beyond the catalogue's; ``multi`` the reverse."""

    name = "builtin"

    def __init__(self, single: Iterable[str] = (), multi: Iterable[str] = ()):
        named = {name for rel in single for name in (rel, attribute_for_relation(rel))}
        self.single = frozenset(a for a, spec in CATALOGUE.items() if spec.single) | named
        self.single -= frozenset(multi)

    def judge(self, new: Statement, candidates: Sequence[Statement]) -> list[Verdict]:
        # "Ana" is Ana Souza only when no other Ana's full name is in view
        ambiguous = ambiguous_first_names(c for s in (new, *candidates) for c in s.reading.claims)
        kin = kin_of(new.text)  # what the new text says its people are, read once for every candidate
        verdicts = [self._one(new, old, ambiguous, kin) for old in candidates]
        verdicts = _replacements(new, candidates, verdicts)
        verdicts = _one_of_several_kin(new, candidates, verdicts)
        verdicts = _one_thing_called_off(new, candidates, verdicts)
        return _closest_only(new, candidates, verdicts)

    def only_repeats(self, new: Statement) -> bool:
        """A statement without slot claims can only be a duplicate of a candidate (the same
        words, or nearly the same words at DUPLICATE_SIMILARITY), whatever the candidate's
        reading (worlddb.protocols.UpdateJudge)."""
        return not new.reading.claims

    # ------------------------------------------------------------------ one candidate
    def _one(self, new: Statement, old: Statement, ambiguous: frozenset[str] = frozenset(),
             new_kin: dict | None = None) -> Verdict:
        if _same_text(new.text, old.text) or (old.similarity >= DUPLICATE_SIMILARITY
                                               and _same_words(new.text, old.text)):
            return Verdict("duplicate", "the same statement")
        kin = (kin_of(new.text) if new_kin is None else new_kin, kin_of(old.text))
        kinds = [(kind, n, o) for n in new.reading.claims for o in old.reading.claims
                 if (kind := self._pair(new.reading, old.reading, n, o, ambiguous, kin, old.text, new.text))
                 is not None]
        changes = [(k, n, o) for k, n, o in kinds
                   if k in ("end", "flip", "differ", "replace") and not _one_occasion(new.text, n, o)]
        if changes:
            kind, n, o = changes[0]
            return _change(new, old, kind, n, o)
        if kinds:
            if all(k == "same" for k, _, _ in kinds):
                return Verdict("related", "the same slot and value, in other words")
            return Verdict("related", "the same slot: " + ", ".join(sorted({n.attribute for _, n, _ in kinds})))
        return Verdict("unrelated")

    def _pair(self, new: Reading, old: Reading, n: SlotClaim, o: SlotClaim,
              ambiguous: frozenset[str] = frozenset(), kin: tuple[dict, dict] = ({}, {}),
              old_text: str = "", new_text: str = "") -> str | None:
        """How claim `n` of the new statement bears on claim `o` of an old one, or None. `kin`:
        what each statement says its named people are to its speaker (slots.kin_of): "my
        brother" is "my brother Sam", and "my cousin Sam" is someone else. `old_text` is the old
        statement's text, which may describe its value ("Whitman & Hale, a corporate law firm"),
        and `new_text` the new one's, which may say the thing is the speaker's own (`_own_thing`)."""
        by_kin = kin_says(n.subject, o.subject, *kin)
        if by_kin is False or not (by_kin or same_subject(n.subject, o.subject) or same_person(n, o, ambiguous)):
            return None
        if owners(n.subject) - owners(o.subject):
            return None  # "My wife's yoga moved" changes no yoga of the speaker's ("her lessons" may be the daughter's)
        if _own_thing(new_text, owners(o.subject) - owners(n.subject)):
            return None  # "My yoga moved to Monday" changes no yoga of the wife's
        if is_open(n.attribute) or is_open(o.attribute):
            return _open_pair(new, n, o)
        if _called_off(n, o):
            return "end"
        family = n.attribute == o.attribute or any({n.attribute, o.attribute} <= f for f in _FAMILIES)
        if not family or (n.qualifier and o.qualifier and n.qualifier != o.qualifier):
            return None
        if n.ended:
            if o.positive and not o.ended and (not n.value or _overlap(n.value, o.value) or _one_person(n, o)):
                return "end"
            return "related"
        if n.attribute != o.attribute or o.ended:
            return _single_or_partnered(n, o)
        if not n.value or not o.value:
            return "related"
        if same_value(n.value, o.value) and not _other_role(n, o) or _one_person(n, o):
            return "same" if n.positive == o.positive else "flip"
        if not n.positive and o.positive and _describes(n.value, old_text):
            return "flip"  # "I no longer work at the law firm" of "a paralegal at Whitman & Hale, a law firm"
        if not n.positive or not o.positive:
            return "related"
        if new.additive and n.attribute != "count":  # "another tabby, which makes three cats": a new total
            return "compatible"
        if n.attribute in self.single:
            return "differ"
        replaces = {"exclusive", "correction"} & new.cues or ("change" in new.cues and (
            "exclusive" in old.cues or _replaced_on_change(n.attribute)))
        return "replace" if replaces else "compatible"


#: a value that repeats ("every Monday", "on Tuesdays"), and the words that say a time holds once
_RECURRING = re.compile(r"\b(?:every|each)\b|\bof\s+the\s+month\b"
                        r"|\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|week(?:day|end))s\b", re.I)
_ONE_OCCASION = re.compile(r"\b(?:(?:this|next)\s+(?:week|time|month|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|today"
                           r"|tonight|tomorrow|just\s+(?:this|once)|only\s+this)\b", re.I)


def _own_thing(new_text: str, theirs: frozenset[str]) -> bool:
    """Whether a text is news of the speaker's own alone (worlddb.extract.whose: "My dentist
    appointment got moved", "We pushed the wedding back") and names none of the relatives
    `theirs` whose thing the old claim's subject says it is: then the two things are two."""
    return bool(theirs) and bool(new_text) and ME in whose(new_text) and not names(new_text, theirs)


def _one_occasion(new_text: str, n: SlotClaim, o: SlotClaim) -> bool:
    """Whether `n` moves one occasion of `o`'s repeating time ("This week yoga is on Tuesday" of
    "every Monday"): an exception, which leaves the schedule as it was."""
    return (n.attribute == o.attribute == "when" and bool(_RECURRING.search(o.value))
            and not _RECURRING.search(n.value) and bool(_ONE_OCCASION.search(new_text)))


def _replaced_on_change(attribute: str) -> bool:
    spec = CATALOGUE.get(attribute)
    return spec is not None and spec.replaced_on_change


def _one_person(n: SlotClaim, o: SlotClaim) -> bool:
    """Whether two values of a slot whose value is a person (a partner, a manager) name one person:
    a given name and a full name that begins with it or with its long form ("Alex" / "Alexander
    Reyes": slots.same_name). A different person of the same surname is another value."""
    return names_person(n) and n.attribute == o.attribute and same_name(n.value, o.value)


def _other_role(n: SlotClaim, o: SlotClaim) -> bool:
    """Whether two job titles whose words lie one within the other are still two roles: their head
    nouns differ ("nurse practitioner" is no "nurse") or their ranks do (`_RANKS`: "senior product
    manager" is a promotion from "product manager"); "software engineer" and "engineer" are one."""
    if n.attribute != "role" or o.attribute != "role":
        return False
    a, b = re.findall(r"[a-z]+", n.value.lower()), re.findall(r"[a-z]+", o.value.lower())
    return bool(a and b) and (a[-1] != b[-1] or set(a) & _RANKS != set(b) & _RANKS)


def _single_or_partnered(n: SlotClaim, o: SlotClaim) -> str | None:
    """A partner named where one was single ("I'm single", then "I'm seeing Caleb") changes it;
    being single again ends a partner. Either way both are current, positive claims."""
    if not (n.positive and o.positive and not n.ended and not o.ended and n.value and o.value):
        return None
    if n.attribute == "partner" and o.attribute == "marital_status" and o.value.lower() == "single":
        return "end"
    if n.attribute == "marital_status" and n.value.lower() == "single" and o.attribute == "partner":
        return "end"
    return None


def _change(new: Statement, old: Statement, kind: str, n: SlotClaim, o: SlotClaim) -> Verdict:
    """The verdict for a change of claim `o` of `old` to claim `n` of `new` (see the module docstring)."""
    to = "(ended)" if n.ended or not n.positive or not n.value else n.value
    what = f"{n.subject}/{n.attribute}: {o.value or '?'} -> {to}"
    correction = "correction" in new.reading.cues
    if new.valid_from == old.valid_from and not correction:
        return Verdict("conflict", f"{what}, both for the same time")
    if kind == "differ" and is_fixed(n) and not correction:
        return Verdict("conflict", f"{what}: a fixed fact changed without a correction")
    if new.valid_from < old.valid_from:
        # a correction of what held before the candidate began, or one person by two names ("Ana
        # Lima" then, "Ana" later, maybe another Ana): time does not say which holds
        if correction or not same_subject(n.subject, o.subject):
            return Verdict("conflict", f"{what}, stated for an earlier time")
        return Verdict("update", f"{what}, stated for an earlier time: the candidate ends it")
    return Verdict("update", what + (" (replaces)" if kind == "replace" else ""))


def _open_pair(new: Reading, n: SlotClaim, o: SlotClaim) -> str | None:
    """How an open slot's claim `n` bears on `o` (both about one subject), or None. A replacement
    (`REPLACES`) is decided over all candidates at once (`_replacements`)."""
    if n.attribute != o.attribute or REPLACES in (n.attribute, o.attribute):
        return None
    if n.qualifier != o.qualifier or o.ended:
        return "related"
    if n.ended:
        return "end" if _overlap(n.value, o.value) else "related"
    if same_value(n.value, o.value):
        return "same"
    if new.additive:
        return "compatible"
    if is_single(n.attribute):
        return "differ" if _kind(n) == _kind(o) else "related"
    return "replace" if {"exclusive", "correction"} & new.cues else "compatible"


def _head(attribute: str) -> str:
    """The head noun of an open slot's noun phrase: "password" of "np:wifi password" and of "np:password"."""
    return attribute.split(":", 1)[-1].split()[-1]


def _kind(claim: SlotClaim) -> str:
    """An open value's kind (open_slots.value_kind), a tool's name in lower case ("pnpm") being a
    name; in a slot of an identifier (a password, a username) every value is one ("sunflower",
    then "tulip42")."""
    if _head(claim.attribute) in IDENT_NOUNS:
        return "id"
    kind = value_kind(claim.value)
    if kind == "word" and lower_name(claim.value):
        return "name"
    return kind


def _replacements(new: Statement, candidates: Sequence[Statement], verdicts: list[Verdict]) -> list[Verdict]:
    """Verdicts for the new statement's replacement claims (a value with no slot of its own):
    an ended one changes a candidate holding the value it names in an open slot (the most similar
    of several, `_closest_only`); a positive
    one, naming none, changes the one candidate holding a name of a named role for the same
    subject and context, if it is the only one and the nearest candidate of all; the other
    candidates it might be about become related. Candidates another claim already decided keep
    their verdict."""
    claims = [c for c in new.reading.claims if c.attribute == REPLACES]
    if not claims or new.reading.additive:
        return verdicts
    verdicts = list(verdicts)
    named_old = [c for c in claims if c.ended]
    shown = next((c for c in claims if not c.ended), claims[0])
    for n in claims:
        if n.ended:
            hits = {i: o for i, c in enumerate(candidates) for o in c.reading.claims
                    if _replaceable(n, o, any_slot=True) and same_value(n.value, o.value)}
        elif not named_old:
            hits = {i: o for i, c in enumerate(candidates) for o in c.reading.claims
                    if _replaceable(n, o, any_slot=False) and value_kind(o.value) == value_kind(n.value)}
            nearest = max((c.similarity for c in candidates), default=0.0)
            if len(hits) != 1 or candidates[next(iter(hits))].similarity < nearest:
                hits = dict.fromkeys(hits)  # undecided: related only
        else:
            continue
        for i, o in hits.items():
            if verdicts[i].outcome not in ("unrelated", "related"):
                continue
            if o is None:
                verdicts[i] = Verdict("related", f"{n.subject}: a replacement that may be about {candidates[i].id}")
            else:
                verdicts[i] = _change(new, candidates[i], "replace", replace(shown, attribute=o.attribute), o)
    return verdicts


def _replaceable(n: SlotClaim, o: SlotClaim, *, any_slot: bool) -> bool:
    """Whether a replacement claim `n` may be about claim `o`: an open slot's current value for
    the same subject and context, of a named role (np:, not an identifier's) unless `any_slot`;
    with `any_slot`, where `n` names the value it leaves, also the value of a catalogue slot of
    several values for the same subject ("Switched from Spanish to Italian" of "I'm learning
    Spanish"). A slot of one value (a job, a home) changes only as its own rules read it: "I quit
    Hulu and got YouTube TV instead" leaves the job at Hulu. A role a person holds (`ROLE_HEADS`)
    is replaced, naming no old value, only by a given name: "I've switched to Hoka Cliftons"
    leaves "My coach is Mark"."""
    if o.attribute == REPLACES or not o.positive or o.ended:
        return False
    if not is_open(o.attribute):
        spec = CATALOGUE.get(o.attribute)
        return (any_slot and n.ended and spec is not None and not spec.single
                and same_subject(n.subject, o.subject))
    # naming no old value, it is about a thing one uses ("as my editor", "for coding") or prefers
    # ("Raj prefers Python"), never an identifier's value ("the wifi password is Sunflower": one
    # does not switch to a password)
    if not (any_slot or o.attribute.startswith("np:") and _head(o.attribute) not in IDENT_NOUNS
            or _for_a_purpose(o) or o.attribute.split(":")[0] == PREFERS):
        return False
    if not any_slot and _head(o.attribute) in ROLE_HEADS and not is_given_name(n.value.split()[0] if n.value else ""):
        return False
    # ("I switched to Neovim" names no purpose; it may be about the thing used for coding)
    same_context = n.qualifier == o.qualifier or (not n.qualifier and _for_a_purpose(o))
    return same_subject(n.subject, o.subject) and same_context and (n.ended or not same_value(n.value, o.value))


def _for_a_purpose(o: SlotClaim) -> bool:
    """A thing used for one purpose ("I use VS Code for coding"): one at a time, as a role's."""
    return o.attribute == USES and o.qualifier.endswith("ing")


def comparable(attributes: Iterable[str]) -> frozenset[str]:
    """The attributes a claim of one of `attributes` can be compared with (its family too, and a
    thing's times for its status: a thing called off has no time any more, `_called_off`)."""
    out = set(attributes)
    for family in _FAMILIES:
        if out & family:
            out |= family
    if "status" in out:
        out |= THING_TIMES
    return frozenset(out)


#: the slots of a thing's time, which its cancellation ends (and which the update judge's last
#: resort reads only under the thing's own name: worlddb.memory.updates)
THING_TIMES = frozenset({"when", "due"})
#: the statuses of a thing that will not happen
_CALLED_OFF = re.compile(r"cancel+(?:ed)?|scrap(?:ped)?|call(?:ed)?\s+off|off", re.I)


def called_off(reading: Reading) -> frozenset[str]:
    """The subjects of `reading` said to be called off ("Cancel the dentist": "dentist")."""
    return frozenset(c.subject for c in reading.claims if c.attribute == "status" and c.positive and not c.ended
                     and _CALLED_OFF.fullmatch(c.value.strip()))


def things_reached(names: Iterable[str], things: Iterable[tuple[int, Iterable[str]]],
                   reaches: Callable[[str, str], bool]) -> dict[int, frozenset[str]]:
    """Of candidates given as (their position, the things each gives a time), those a name called
    off reaches (`reaches(name, thing)`), with the things it reaches in each."""
    names = tuple(names)
    reached = {k: frozenset(t for t in own if any(reaches(name, t) for name in names)) for k, own in things}
    return {k: hit for k, hit in reached.items() if hit}


def several_fit(reached: Mapping[int, frozenset[str]]) -> bool:
    """Whether two things or more fit a called-off name (`things_reached`): which one is not said,
    so none ends. The one rule for the judge's own cancellations (`_one_thing_called_off`) and
    for a thing called off by a word the judge does not read as its name
    (worlddb.memory.updates.cancelled)."""
    return len(frozenset().union(*reached.values())) >= 2


def _one_thing_called_off(new: Statement, candidates: Sequence[Statement], verdicts: list[Verdict]) -> list[Verdict]:
    """A thing called off by a name that two scheduled things only reach by a word of theirs
    ("Cancel the appointment" of a vet's and a dentist's appointment): which one is not said, so
    neither ends (each is related). A name that is the thing's own ("the dentist appointment")
    ends it as before."""
    names = called_off(new.reading)
    if not names:
        return verdicts
    timed = ((k, (o.subject for o in old.reading.claims if o.attribute in THING_TIMES and o.positive and not o.ended))
             for k, (old, verdict) in enumerate(zip(candidates, verdicts)) if verdict.outcome == "update")
    reached = things_reached(names, timed, lambda name, thing: name != thing and same_subject(name, thing))
    if not several_fit(reached):
        return verdicts
    return [Verdict("related", "a thing called off by a name several scheduled things fit") if k in reached else v
            for k, v in enumerate(verdicts)]


def _called_off(n: SlotClaim, o: SlotClaim) -> bool:
    """Whether `n` says the thing whose time `o` states will not happen ("The team offsite got
    cancelled" of "The team offsite is on Friday"): it ends that time."""
    return (n.attribute == "status" and n.positive and not n.ended and bool(_CALLED_OFF.fullmatch(n.value.strip()))
            and o.attribute in THING_TIMES and o.positive and not o.ended)


#: the slots of its family a change of one leaves as they were: a new role ("promoted to staff
#: engineer") is held where the old one was, where a new employer ends the role held at the old
_LEAVES = {"role": frozenset({"employer"})}


def covered(attributes: Iterable[str]) -> frozenset[str]:
    """The attributes a change of `attributes` changes: their families (`comparable`), less
    what a change of one of them leaves (`_LEAVES`) that none of them names."""
    named = set(attributes)
    return comparable(named) - {x for a in named for x in _LEAVES.get(a, ()) if x not in named}


def _one_of_several_kin(new: Statement, candidates: Sequence[Statement], verdicts: list[Verdict]) -> list[Verdict]:
    """A change said of a relative by the kin word alone ("My sister just moved to Faro") where the
    candidates it would change name two or more people by that word ("My sister Ana lives in
    Porto", "My sister Maria lives in Lisbon") changes none of them: which sister is not said.
    Those candidates become related."""
    bare = {c.subject for c in new.reading.claims if not c.named and kin_word(c.subject) == c.subject}
    if not bare:
        return verdicts
    changing = [i for i, v in enumerate(verdicts) if v.outcome in ("update", "conflict")]
    for word in bare:
        named = {i: {name.split()[0] for name, kins in kin_of(candidates[i].text).items() if word in kins}
                 for i in changing}
        if len(set().union(*named.values())) > 1:
            for i, names in named.items():
                if names:
                    verdicts[i] = Verdict("related", f"one of several people the text calls {word}")
    return verdicts


def _closest_only(new: Statement, candidates: Sequence[Statement], verdicts: list[Verdict]) -> list[Verdict]:
    """A statement that replaces one value of a multi-valued slot replaces one memory: of several
    candidates it would replace, the most similar; the others become related."""
    replacing = [i for i, v in enumerate(verdicts) if v.outcome == "update" and v.reason.endswith("(replaces)")]
    if len(replacing) > 1:
        best = max(replacing, key=lambda i: candidates[i].similarity)
        for i in replacing:
            if i != best:
                verdicts[i] = Verdict("related", "another value of the same slot")
    return verdicts


_WORDS = re.compile(r"\w+")


@lru_cache(maxsize=4096)
def _norm(text: str) -> str:
    """The words of `text`, case folded, one space apart. Remembered: the judge compares the new
    text with each of its candidates, and a stored memory is a candidate of many writes."""
    return " ".join(_WORDS.findall(text.casefold()))


def _same_text(a: str, b: str) -> bool:
    return _norm(a) == _norm(b)


#: words whose change alters what a statement says, never a rewording of it
#: (text is split at apostrophes, so "don't" is "don" and "t"; "dont" written without one is listed)
_MEANING = re.compile(r"\d|^(?:not?|never|none|nobody|nothing|neither|nor|without|cannot|t|dont|doesnt|didnt|cant"
                      r"|wont|isnt|arent|wasnt|werent|havent|hasnt|hadnt|shouldnt|wouldnt|couldnt)$")


def _same_words(a: str, b: str) -> bool:
    """Nearly the same words in the same order: at most one word in ten changed (at least
    one), none of them a number or a negation. "server 0 note 1" and "server 1 note 0" share
    their words but not their order; "the launch is on Friday" and "the launch is not on
    Friday" differ by one word that reverses it."""
    wa, wb = _norm(a).split(), _norm(b).split()
    if not wa or not wb:
        return False
    changed = [w for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes()
               if tag != "equal" for w in (*wa[i1:i2], *wb[j1:j2])]
    allowed = max(1, len(set(wa) | set(wb)) // 10)
    return len(changed) <= allowed and not any(_MEANING.search(w) for w in changed)


_STOP = {"the", "a", "an", "my", "our", "old", "his", "her", "their", "of", "in", "at", "on"}


def _content_words(text: str) -> set[str]:
    """The words of `text` that name something: no article or preposition, three letters or more."""
    return {w for w in re.findall(r"\w+", text.lower()) if w not in _STOP and len(w) > 2}


def _describes(value: str, text: str) -> bool:
    """Whether a value with no name in it ("the law firm") is a description `text` gives: its
    content words are all words of the text. A named value is compared by name, never this way."""
    if re.search(r"\b[A-Z]", value) or not text:
        return False
    words = _content_words(value)
    return bool(words) and words <= set(re.findall(r"\w+", text.lower()))


def _overlap(ended: str, value: str) -> bool:
    """Whether an ended value names the old one: the same value, or a shared content word
    ("the Sunday league" / "a recreational soccer league every Sunday") and, where both hold
    names, a shared name."""
    if same_value(ended, value):
        return True
    # two names of one kind are two things ("the Boston marathon" is not "the Chicago marathon")
    names_a, names_b = set(re.findall(r"\b[A-Z]\w+", ended)), set(re.findall(r"\b[A-Z]\w+", value))
    if names_a and names_b and not names_a & names_b:
        return False
    return bool(_content_words(ended) & _content_words(value))
