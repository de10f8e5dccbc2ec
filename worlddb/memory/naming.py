"""How the scopes name the people a new memory speaks of, for the update judge
(worlddb.memory.updates) to read its candidates as it reads the new memory.

- A first name that begins the full names of several people of the scopes (the resolver's
  names: worlddb.resolver.Resolver.namesakes) names none of them in particular: "Ana moved to
  Lisbon" is neither Ana Souza's nor Ana Lima's change (`ambiguous_first_names`, `unnamed`).
- The names an accepted identity joins (worlddb.graph.identity) are one subject: what was said
  of Bob Smith is about Robert Smith once an operator accepted the two as one (`identities`,
  `renamed`); and one value of a slot whose value is a person: "My partner Alex" names the
  partner "Alexander Reyes is my partner" names, once the two are one.
- A name said to have died, where the text says nothing of pets, is read as the end of the
  speaker's pet of that name ("Rex passed away": `with_pets_lost`); it can end nothing else.

`Naming` carries the first two for one write. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from worlddb.extract.slots import Reading, SlotClaim, names_person, normalise_subject
from worlddb.extract.unread_change import died
from worlddb.graph import identity

from .services import Services


@dataclass(frozen=True)
class Naming:
    """How the scopes name the people a new memory speaks of, for reading its candidates: the
    first names that begin the full names of several of them (`ambiguous_first_names`), and
    the other names an accepted identity gives someone the new memory names, each to the name it
    uses (`identities`): "Bob Smith lives in Austin" is about Robert Smith once the two are one."""

    ambiguous: frozenset[str] = frozenset()
    same: Mapping[str, str] = field(default_factory=dict)

    def of(self, reading: Reading) -> Reading:
        """A candidate's reading as the judge compares it with the new memory's."""
        return renamed(unnamed(reading, self.ambiguous), self.same)


def ambiguous_first_names(services: Services, worlds: list[str], reading: Reading) -> frozenset[str]:
    """The first names of `reading`'s named subjects that begin the full names of two or more
    people of the scopes (worlddb.resolver.Resolver.namesakes, as recall's slot step reads them):
    "Ana" is then neither Ana Souza nor Ana Lima."""
    return services.resolver.namesakes(worlds, {claim.subject.split()[0] for claim in reading.claims if claim.named})


def identities(services: Services, worlds: list[str], reading: Reading) -> dict[str, str]:
    """Each other name (and alias) of the people a new memory names, where an accepted same_as
    proposal joins them (worlddb.graph.identity) -> the name the new memory uses: a change said
    of Robert Smith is about what was said of Bob Smith. The named subjects are looked up, and
    the people slots' values name (slots.names_person: "Alexander Reyes is my partner"), under
    the subject key of that name: "My partner Alex" names the same partner once the two are one."""
    store, out = services.store, {}
    names = [(c.subject, c.subject) for c in reading.claims if c.named]
    names += [(c.value, normalise_subject(c.value)) for c in reading.claims if c.value and names_person(c)]
    for name, key in dict.fromkeys(names):
        for members in identity.classes_of(store, services.resolver.entities_named(worlds, name)):
            if len(members) < 2:
                continue
            for view in store.get_many(members).values():
                aliases = view.meta.get("aliases")
                for other in (view.name or "", *(a for a in aliases or () if isinstance(a, str))):
                    other_key = normalise_subject(other)
                    if other_key and other_key != key:
                        out.setdefault(other_key, key)
    return out


def renamed(reading: Reading, same: Mapping[str, str]) -> Reading:
    """`reading`, its claims about another name of someone the new memory names (`identities`)
    made about the name the new memory uses, and a person a slot's value names by another name
    named so too."""
    if not same:
        return reading
    claims = tuple(_renamed(c, same) for c in reading.claims)
    return reading if claims == reading.claims else Reading(claims, reading.cues)


def _renamed(claim: SlotClaim, same: Mapping[str, str]) -> SlotClaim:
    if claim.subject in same:
        claim = replace(claim, subject=same[claim.subject])
    if claim.value and names_person(claim) and (key := normalise_subject(claim.value)) in same:
        claim = replace(claim, value=same[key])
    return claim


def unnamed(reading: Reading, ambiguous: frozenset[str]) -> Reading:
    """`reading`, its claims about a subject whose first name is `ambiguous` no longer taken
    for names (slots.same_person): such a claim matches only the same words."""
    if not ambiguous or not any(c.named and c.subject.split()[0] in ambiguous for c in reading.claims):
        return reading
    claims = tuple(replace(c, named=False) if c.named and c.subject.split()[0] in ambiguous else c
                   for c in reading.claims)
    return Reading(claims, reading.cues)


def with_pets_lost(reading: Reading, text: str, speaker: str) -> Reading:
    """`reading`, with an ended pet of the speaker's for each name `text` says died where it
    says nothing of pets ("Rex passed away": extract.unread_change.died): the judge then ends
    the memory of a pet of that name ("I have a dog named Rex"), and no memory that names no
    such pet. (Only the judge reads it: it is no claim the store records.)"""
    if any(c.attribute == "pet" for c in reading.claims):
        return reading
    gone = died(text)
    if not gone:
        return reading
    return Reading(reading.claims + tuple(SlotClaim(speaker, "pet", name, positive=False, ended=True) for name in gone),
                   reading.cues)
