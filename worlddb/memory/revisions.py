"""What a change leaves alone: whether an update of a stored memory covers it or revises it in
part, and which of a revised memory's facts stay current (for worlddb.memory.updates and the
turn judge, worlddb.memory.turn_updates).

An update covers an old memory unless the old one, read in full, says something the change does
not: a claim about the change's subject or another in a slot the change does not speak of ("I
live in Austin and work at Dell", then "I moved to Denver"), a fact of a relation no slot is
about ("I like jazz"), who the subject of the change is to someone ("my sister Maria", then
"Maria moved to Portland"), what it says of the one a changed relation named ("my girlfriend Sam
is a nurse", then "Sam and I broke up"), or a sentence of news of someone else that no slot
reads ("My daughter just started kindergarten": worlddb.extract.others_news;
`changed_only_in_part`). A revised memory stays current and only
its facts in the changed attributes end, except those of a subject the change does not speak
of (`left_alone`). Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from worlddb.extract.judge import Statement, covered
from worlddb.extract.open_slots import REPLACES, is_open
from worlddb.extract.open_slots import is_single as is_single_open
from worlddb.extract.others_news import others_news
from worlddb.extract.slots import (
    CATALOGUE,
    Reading,
    ReadingParts,
    SlotClaim,
    kin_word,
    names_another,
    normalise_subject,
    same_person,
    same_subject,
    same_value,
)

from .naming import Naming, renamed
from .services import Services
from .slot_readings import fact_claim, facts_of, reading_of, speaker_of, stored_facts, view_reading


def left_alone(services: Services, new: Reading, revised: list[tuple[str, frozenset[str]]],
               user: str | None) -> frozenset[str]:
    """The facts of `revised` memories in a changed attribute whose subject the new memory does
    not speak of: "Ana started at Nikon" ends Ana's job in "I work at Dell and my sister Ana
    works at Canon", not the user's (Assessment.keep)."""
    changed = {old: attrs for old, attrs in revised if attrs}
    if not changed:
        return frozenset()
    views = services.store.get_many(changed)
    spoken = {normalise_subject(n.subject) for n in new.claims}
    keep = set()
    for old, found in facts_of(services.store, changed).items():
        speaker = speaker_of(views[old].meta) if old in views else None
        others = old in views and names_another(views[old].content or "", user)
        claims = [(anchor, fact_claim(fact, user, speaker, others=others)) for anchor, fact in found]
        # whom the memory says "my sister" is ("my sister Maria"), where the change speaks of "my sister"
        known = {normalise_subject(c.value) for _, c in claims if c is not None and any(
            c.attribute.startswith("has_") and kin_word(c.attribute[len("has_"):]) == s for s in spoken)}
        for anchor, claim in claims:
            if claim is not None and claim.attribute in changed[old] and _plainly_other(claim, new.claims) \
                    and not any(same_subject(claim.subject, k) for k in known):
                keep.add(anchor)
    return frozenset(keep)


def changed_only_in_part(services: Services, new: Reading, old: Statement, user: str | None,
                          kept: Mapping[str, ReadingParts], naming: Naming | None = None,
                          starts: int | None = None) -> frozenset[str] | None:
    """For a memory the new one updates: None if the update covers it, else the attributes
    (with their families) the new memory changes. It covers it unless the new memory speaks of
    a subject of the old one, and the old one, read in full, claims something about that subject
    or another ("I work at Dell and my sister lives in Paris", then "I started at HP"), in a
    slot (an attribute of the catalogue, a relation the judge holds single-valued, or a
    single-valued open slot) that neither the new memory nor a current one that already
    revises it (and began by `starts`, when the new one begins) speaks of for that subject
    (slots of one family count as one; a replacement with no slot of its own, "I switched to
    Neovim", speaks of every open slot, and of any slot holding the value it names as left:
    "I switched from Spanish to Italian"). A fact that restates a slot in other terms ("is_a
    nurse") is no such claim, but one of a relation no slot is about is (where one is from, what
    one likes or joined: `_fact_of_its_own`); nor is one about whom a changed slot named, in a
    slot that says where it held ("Bob is my manager at Dell": Bob's job there says who the
    manager was, `HELD_AT`), though anything else said of them is ("my girlfriend Sam is a
    nurse", then "Sam and I broke up"). So is a sentence of news of someone close that the
    reader reads nothing from, about no subject the change speaks of and naming nothing it ends
    or claims ("I work at Google. My daughter just started kindergarten.":
    worlddb.extract.others_news), but not one that refers back to what changed ("I live in
    Austin and love it here", "My kids love it there"). And one of any
    relation that says who the subject of the change is to another ("my sister Maria", "my
    husband Ravi"), which the new memory does not say again, is: "Maria moved to Portland"
    leaves her still the speaker's sister (`_introduces`).
    So a memory whose every slot has been changed, one revision at a time, is superseded by the
    last."""
    slots = CATALOGUE.keys() | getattr(services.judge, "single", frozenset())
    changers = list(new.claims)
    for edge in services.store.edges(dst=old.id, type="revises"):
        view = services.store.get(edge.src)
        if view is not None and view.valid_to is None and (starts is None or view.valid_from <= starts):
            changers.extend(reading_of(view.content or "", stored_facts(services.store, view.anchor), user,
                                     speaker=speaker_of(view.meta)).claims)
    stored = services.store.get(old.id)
    full = view_reading(services, stored, user, None, kept) if stored is not None else reading_of(
        old.text, stored_facts(services.store, old.id), user)
    full = renamed(full, naming.same) if naming is not None else full
    spoken = {normalise_subject(n.subject) for n in new.claims}
    changed = covered(n.attribute for n in new.claims)
    if not any(one_subject(n, claim) for claim in full.claims for n in new.claims):
        # no subject of the old memory is the new one's, but maybe one the old one says who it is
        # ("My sister Maria lives in Seattle", then "My sister moved to Portland"): else the update stands
        return changed if any(_introduces(c, spoken, new.claims, changers) for c in full.claims) else None
    # whom a changed slot named, and the slots of theirs that say where it held: "Bob Smith is my
    # manager at Dell", then "Priya is my manager now": Bob's job there says who the manager was
    named = {(normalise_subject(c.value), held) for c in full.claims
             if c.attribute in changed and any(one_subject(n, c) for n in new.claims)
             for held in HELD_AT.get(c.attribute, ())}
    for claim in full.claims:
        if _introduces(claim, spoken, new.claims, changers):
            return changed
        if not _is_slot(claim.attribute, slots) and not _fact_of_its_own(claim):
            continue
        if not any(one_subject(n, claim) for n in new.claims) and (
                not _plainly_other(claim, new.claims)
                or any(same_subject(claim.subject, s) and claim.attribute == held for s, held in named)):
            continue  # maybe the same person by another name, or where a changed relation held: no second statement
        about = [n for n in changers if one_subject(n, claim)]
        # a medicine stopped ends its dose too: the slot qualified by a value that ended
        of = CATALOGUE[claim.attribute].of if claim.attribute in CATALOGUE else ""
        if of and any(n.attribute == of and (n.ended or not n.positive) and same_value(n.value, claim.qualifier)
                      for n in about):
            continue
        if claim.attribute not in covered({n.attribute for n in about}) and not any(
                n.attribute == REPLACES and (is_open(claim.attribute) or n.ended and same_value(n.value, claim.value))
                for n in about):
            return changed
        # one of several values ended ("Rex passed away") leaves the others of the slot ("a cat named Tom")
        ending = [n for n in about if n.attribute == claim.attribute]
        if claim.attribute in CATALOGUE and not CATALOGUE[claim.attribute].single and ending and all(
                (n.ended or not n.positive) and n.value and not same_value(n.value, claim.value) for n in ending):
            return changed
    return changed if _news_of_another(old.text, full, new, changed, spoken) else None


def _news_of_another(text: str, full: Reading, new: Reading, changed: frozenset[str], spoken: set[str]) -> bool:
    """Whether the old memory's `text` has a sentence of news of someone close to its speaker
    that the reader reads nothing from ("My daughter just started kindergarten"), about no
    subject the change speaks of (`spoken`) and naming no value of a `changed` slot, old or new:
    a second statement, which the change leaves alone (worlddb.extract.others_news)."""
    values = [c.value for c in (*full.claims, *new.claims) if c.value and c.attribute in changed]
    return any(not any(same_subject(who, s) for s in spoken) for who in others_news(text, values))


#: where a relation with someone holds, said as a slot of theirs: "Bob Smith is my manager at Dell"
#: (Bob's employer) says where he managed, and goes with a change of the manager. What else a memory
#: says of the one a changed slot named stays true of them when the relation ends or passes to
#: another ("my girlfriend Sam is a nurse", then "Sam and I broke up": Sam is still a nurse)
HELD_AT: Mapping[str, frozenset[str]] = {
    "manager": frozenset({"employer", "team"}),
    "coworker": frozenset({"employer", "team"}),
    "provider": frozenset({"employer"}),
}


def _introduces(claim: SlotClaim, spoken: set[str], claims: Iterable[SlotClaim],
                changers: Iterable[SlotClaim]) -> bool:
    """Whether `claim`, of a memory a change updates, says who a subject the change speaks of
    (`spoken`: Maria, or "my sister") is to someone else ("my sister Maria": the speaker has a
    sister, Maria) and neither the change (`claims`) nor a memory that revises the old one
    (`changers`) says it again."""
    # "my sister Maria" (has_sister Maria) says who Maria is, and who "my sister" is
    kin = kin_word(claim.attribute[len("has_"):]) if claim.attribute.startswith("has_") else None
    if any(one_subject(n, claim) for n in claims) or not any(
            same_subject(normalise_subject(claim.value), s) or kin is not None and s == kin for s in spoken):
        return False
    return not any(c.attribute == claim.attribute and one_subject(c, claim) and same_value(c.value, claim.value)
                   for c in changers)


#: the relations of facts that say what a slot says in other terms ("I'm a nurse": is_a nurse, the role)
_RESTATING = frozenset({"is_a", "was_a", "works_as", "worked_as"})


def _fact_of_its_own(claim: SlotClaim) -> bool:
    """Whether `claim` is a fact's that says something no slot of the change is about: where
    one is from, what one likes or joined ("I like jazz and I work at Dell", then "I now work at
    Google": the jazz is left alone), not one that restates a slot in other terms (`_RESTATING`)."""
    attribute = claim.attribute
    return not (attribute in CATALOGUE or is_open(attribute) or attribute == REPLACES or attribute in _RESTATING)


def _is_slot(attribute: str, slots: Iterable[str]) -> bool:
    """A slot a revision keeps: the catalogue's, one the judge holds single-valued, or an open
    slot of one value (worlddb.extract.open_slots: "our wifi password is ...")."""
    return attribute in slots or is_single_open(attribute)


def _plainly_other(claim: SlotClaim, claims: Iterable[SlotClaim]) -> bool:
    """Whether `claim` is about none of the subjects of `claims`, not even one that shares a word
    of its name: a fact keyed by the entity's full name ("alice smith") and a text that names
    her by her first ("Alice moved to Munich") may well be one person."""
    words = set(claim.subject.split())
    return not any(one_subject(n, claim) or words & set(n.subject.split()) for n in claims)


def one_subject(a: SlotClaim, b: SlotClaim, ambiguous: frozenset[str] = frozenset()) -> bool:
    """Whether two claims are about one subject ("Ana" and "Ana Souza" included, but for a first
    name in `ambiguous`: slots.same_person)."""
    return same_subject(a.subject, b.subject) or same_person(a, b, ambiguous)
