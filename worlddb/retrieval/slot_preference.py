"""Recall's slot step: a question about one slot ranks the memories that state it first.

"Where do I work?" asks about (me, employer) (worlddb.extract.slots.asked). Of the best
candidates the lanes found (the page and EXTRA more), those whose text states a claim about
that slot of that subject - "Started my first week at Stripe today" - move ahead of the rest
("The office coffee machine broke" shares the topic, not the slot), newest valid-from first:
of two current statements of one slot, the later one is the likelier answer. The others keep
their order. Only Memory nodes are read this way: a conversation's turns speak for their
speaker, whose name a question uses, and their order stays the lanes'.
"""

from __future__ import annotations

from collections.abc import Sequence

from worlddb.extract.slots import SlotClaim, SlotKey, read, same_person, same_subject

#: candidates read beyond the page, so a slot's statement ranked just below it can move up
EXTRA = 10
#: attributes a question may name for one another ("When is it due?" asks when, and due)
_ALIKE = ({"when", "due"}, {"employer", "role"}, {"partner", "marital_status"})


def prefer(keys: Sequence[SlotKey], chosen: list) -> list:
    attributes = {k.attribute for k in keys}
    for group in _ALIKE:
        if attributes & group:
            attributes |= group
    stating = []
    for i, found in enumerate(chosen):
        view = found.view
        if view.type != "Memory" or not view.content:
            continue
        claims = read(view.content, attributes=attributes).claims
        if any(_answers(key, claim) for key in keys for claim in claims):
            stating.append(i)
    if not stating:
        return chosen
    first = sorted(stating, key=lambda i: (-chosen[i].view.valid_from, i))
    rest = [found for i, found in enumerate(chosen) if i not in set(stating)]
    return [chosen[i] for i in first] + rest


def _answers(key: SlotKey, claim: SlotClaim) -> bool:
    if not claim.positive and not claim.value:
        return False
    alike = key.attribute == claim.attribute or any({key.attribute, claim.attribute} <= g for g in _ALIKE)
    qualified = not key.qualifier or not claim.qualifier or key.qualifier == claim.qualifier
    # a question names a person as a name ("Where does Ana live?" asks about Ana Souza too)
    asked_of = SlotClaim(key.subject, key.attribute, named=True)
    return alike and qualified and (same_subject(key.subject, claim.subject) or same_person(asked_of, claim))
