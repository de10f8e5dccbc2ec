"""Recall's slot step: a question about one slot ranks the memories that state it first.

"Where do I work?" asks about (me, employer) (worlddb.extract.slots.asked). Of the best
candidates the lanes found (the page and EXTRA more), those whose text states a claim about that
slot of that subject - "Started my first week at Stripe today", or its end: "I quit my job
yesterday" - move ahead of the rest ("The office coffee machine broke" shares the topic, not
the slot; a relative's thing, "my sister's dentist appointment", is not one's own), newest
valid-from first (and of
two at the same time, such as the turns of one session, the one said or written later): of two
current statements of one slot, the later one is the likelier answer (one that only says a
value is held no longer, and changed nothing, "I lived in Boston", is history: after the
others). A slot that holds several
values at once ("What are my hobbies?" asks about (me, activity)) differs: a newer hobby does
not replace an older one, so of its statements only those that changed something (superseded
or revised a memory or turn: "the fish died, so we got a hamster") come first, newest first;
the rest follow in the lanes' order; then those that only say a value is held no longer ("I
stopped climbing": history, not what is), newest first, unless the question names that value
("Do I still go climbing?"); and one another of them revised or superseded goes last. A
question about what held before, asked with the history ("What was my old job?",
worlddb.retrieval.past), puts the statements a later one replaced first instead, newest first:
of a slot stated many times since, newest first would leave the replaced one off the page.
The others keep their order. Each moved candidate carries its place among them as the lane
"slot", so a reader can tell why a hit stands above one with a higher fused score. Memories and conversation turns are
read this way, each in its speaker's voice (a turn's speaker, a memory's metadata `speaker` or
`role`): a named speaker's "I" is that person ("Where does Caroline live?" finds Caroline's "I
moved to Denver"), the user's (role "user", or the scope's user by name) is the "me" of "Where
do I live?", and an assistant's or a tool's turn claims nothing about anyone. A first name alone
states the slot of the full name it begins ("Ana moved to Lisbon" answers "Where does Ana Souza
live?"), unless it begins several full names the scopes know (`ambiguous`: recall asks
worlddb.resolver.Resolver.namesakes, as the update judge does): then it answers for neither. A question may ask
about an open slot ("What browser do I use?" asks about (me, np:browser)); a memory that names a
new value with no slot of its own ("I switched to Vivaldi") states the open slot of a memory it
superseded or revised, and a memory the rules read nothing in, or nothing of the parts of the
one it changed, states any asked slot of a memory it revised (a change the rules could not read,
worlddb.memory.updates; "I cancelled the dentist appointment", its status, of "My dentist
appointment is Monday at 2pm", its time). A person's turn does the same with what it revised
(worlddb.memory.turn_updates): "Sorry, I meant Thursday, not Tuesday", which marked "My dentist
appointment is on Tuesday at 3pm", answers "When is my dentist appointment?" first, as it does
written as memories. So a memory or turn that changed a statement of the asked slot comes before
it, as the successor step put it (worlddb.retrieval.successors), unless it reads as a change of
another part of that statement, or names every value that statement gives the asked slot as it
was (`_kept`: "User's salary at Helio Health was raised to 180k" changed the pay beside "works at
Helio Health", not the employer). A statement of a slot of one value made in a change of another
slot ("User sold the Honda Civic before moving to Seattle", which ended the car) comes just after
the older statement of the same value ("User moved to Seattle"), not ahead of it for being newer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from worlddb.core.records import NodeView
from worlddb.extract import GENERIC_ROLES
from worlddb.extract.open_slots import REPLACES, is_open, is_single
from worlddb.extract.slots import SlotClaim, SlotKey, owners, read, same_person, same_subject, voice
from worlddb.graph.text_index import STOPWORDS, speaker_of

from .claims import single_valued

#: candidates read beyond the page, so a slot's statement ranked just below it can move up
EXTRA = 10
_WORD = re.compile(r"\w+")
#: a value's words and numbers, apart ("50mcg" is 50 and mcg, as "50 mcg" is)
_PIECES = re.compile(r"\d+|[^\W\d_]+")
#: what, just before a value, says it is not (or no longer) the value
_NOT_BEFORE = re.compile(r"\b(?:not|no|never|longer|instead\s+of|rather\s+than|from|left|quit)\W+(?:\w+\W+){0,2}$",
                         re.I)
#: attributes a question may name for one another ("When is it due?" asks when, and due; "What dose of
#: lisinopril do I take?" asks the medicine, and its dose)
_ALIKE = ({"when", "due"}, {"employer", "role"}, {"partner", "marital_status"}, {"medication", "dose"})


def prefer(keys: Sequence[SlotKey], chosen: list, *, user: str | None = None,
           replaced: Callable[[NodeView], list[NodeView]] | None = None, query: str = "",
           changed_by: Callable[[NodeView], list[NodeView]] | None = None,
           ambiguous: frozenset[str] = frozenset(), before: bool = False) -> list:
    """`chosen` (recall's Ranked candidates) with the memories and turns stating one of the asked
    slots `keys` first, newest first, each with its place among them as lane "slot". `user`: the
    scope's user, whose own name as a memory's speaker is "me". `replaced`: the current-or-not
    memories a memory supersedes or revises, for a replacement with no slot of its own
    (`_takes_over`); `changed_by`, its converse (the memories that supersede or revise one).
    `query`: the question; of a slot of several values, the statements of a
    value it names come first ("metformin dose": the metformin one, not another medicine).
    `ambiguous`: first names that begin several full names the scopes know
    (worlddb.resolver.Resolver.namesakes), which name none of them alone (`_answers`). `before`: the
    question asks what held before, with the history shown (worlddb.retrieval.past): the
    statements a later memory or turn replaced (`changed_by`) come first, newest first."""
    attributes = {k.attribute for k in keys}
    for group in _ALIKE:
        if attributes & group:
            attributes |= group
    stating, named, ended = [], set(), set()
    values: dict[int, set[str]] = {}
    asked_words = set(_WORD.findall(query.casefold()))
    for i, found in enumerate(chosen):
        claims = _claims(found.view, attributes, user)
        answers = [claim for claim in claims if any(_answers(key, claim, ambiguous) for key in keys)]
        values[i] = {claim.value.casefold() for claim in answers if claim.positive and claim.value}
        if answers or (replaced is not None
                       and _takes_over(found.view, keys, attributes, user, replaced, changed_by, ambiguous)):
            stating.append(i)
        if any(claim.value and set(_WORD.findall(claim.value.casefold())) <= asked_words for claim in answers):
            named.add(i)
        if answers and not any(claim.positive for claim in answers):
            ended.add(i)
    if not stating:
        return chosen
    newest = sorted(stating, key=lambda i: (-chosen[i].view.valid_from, -chosen[i].view.created_at, i))
    if not any(single_valued(k.attribute) for k in keys):  # as asked: a medicine's dose is one of several medicines
        # a slot holding several values at once (hobbies, pets): a statement that changed another
        # ("the fish died, so we got a hamster") is the news and comes first, newest first; the
        # rest hold together, so no one of them is likelier for being newer: they keep the lanes'
        # order, and one another of them revised or superseded comes after the rest
        changes, gone = _changes_among([chosen[i].view for i in stating], replaced)
        # of those that hold together, one of a value the question names is what it asks about
        # ("metformin dose"); a change still comes first ("Am I still on sertraline?" after "my
        # doctor switched me to escitalopram"). One that only says a value is held no longer ("I
        # stopped climbing", "our fish died") is history, not what is: after the values held, newest
        # first, unless it is of a value the question names ("Do I still climb?")
        past = (ended - named) - {i for i in stating if chosen[i].view.anchor in gone - changes}
        held = [i for i in stating if chosen[i].view.anchor not in changes | gone and i not in past]
        first = [i for i in newest if chosen[i].view.anchor in changes and i not in past] + \
            [i for i in held if i in named] + [i for i in held if i not in named] + \
            [i for i in newest if i in past] + [i for i in stating if chosen[i].view.anchor in gone - changes]
    else:
        # of two said at the same time (the turns of one session), the one said later; but one
        # that only says a value is held no longer and changed nothing ("I lived in Boston",
        # written after "I live in Denver") is history, not the news: after the others
        changes, _ = _changes_among([chosen[i].view for i in stating if i in ended], replaced)
        past = {i for i in ended if chosen[i].view.anchor not in changes} if replaced is not None else set()
        first = [i for i in newest if i not in past] + [i for i in newest if i in past]
        if replaced is not None:
            first = _after_its_value(first, chosen, values, lambda view: _changed_other(view, keys, attributes, user,
                                                                                        replaced, ambiguous))
    if before and changed_by is not None:
        # "What was my old job?": what a later one replaced is the answer, the newest of it the one
        # right before what holds now; the page deals each history out so too (worlddb.memory.search)
        replaced_since = {i for i in stating if changed_by(chosen[i].view)}
        first = [i for i in newest if i in replaced_since] + [i for i in first if i not in replaced_since]
    rest = [found for i, found in enumerate(chosen) if i not in set(stating)]
    return [replace(chosen[i], lanes={**chosen[i].lanes, "slot": place})
            for place, i in enumerate(first, start=1)] + rest


def _after_its_value(first: list[int], chosen: list, values: dict[int, set[str]],
                     changed_other: Callable[[NodeView], bool]) -> list[int]:
    """`first` (indexes of `chosen`, newest first) with each statement that changed another slot
    (`changed_other`: "User sold the Honda Civic before moving to Seattle", which ended the car)
    moved to just after the older statement of the same value that comes after it ("User moved
    to Seattle"): it says the asked slot on the way to its own news, and is no likelier for being
    newer."""
    order = list(first)
    for i in first:
        if not values[i] or not changed_other(chosen[i].view):
            continue
        at = order.index(i)
        later = [j for j in order[at + 1:] if values[j] & values[i] and not changed_other(chosen[j].view)]
        if later:
            order.remove(i)
            order.insert(order.index(later[-1]) + 1, i)
    return order


def _changed_other(view: NodeView, keys: Sequence[SlotKey], attributes: set[str], user: str | None,
                   replaced: Callable[[NodeView], list[NodeView]], ambiguous: frozenset[str]) -> bool:
    """Whether `view` superseded or revised memories or turns and none of them states an asked
    slot: its change was of another slot."""
    olds = [old for old in replaced(view) if old.anchor != view.anchor]
    return bool(olds) and not any(_answers(key, claim, ambiguous) for old in olds
                                  for claim in _claims(old, attributes, user) for key in keys)


def _changes_among(views: Sequence[NodeView],
                   replaced: Callable[[NodeView], list[NodeView]] | None) -> tuple[set[str], set[str]]:
    """(the anchors of `views` that supersede or revise a memory or turn, those of `views` that
    another of them supersedes or revises)."""
    if replaced is None:
        return set(), set()
    mine, changes, gone = {v.anchor for v in views}, set(), set()
    for view in views:
        olds = [old.anchor for old in replaced(view) if old.anchor != view.anchor]
        if olds:
            changes.add(view.anchor)
        gone.update(a for a in olds if a in mine)
    return changes, gone


def _claims(view: NodeView, attributes: set[str] | None, user: str | None = None) -> tuple[SlotClaim, ...]:
    """The claims (of `attributes`; None: of any) of a memory or a turn, in its speaker's voice
    (slots.read's `speaker`): a named speaker's "I" is that person - a turn's speaker, or the
    one a memory's metadata names (text_index.speaker_of) unless that is the `user`; the
    user's is "me"; a turn of an assistant or a tool, or of no one, states nothing about
    anyone."""
    if view.type not in ("Memory", "Turn") or not view.content:
        return ()
    speaker = speaker_of(view)
    if view.type == "Turn":
        if not _speaks(view):
            return ()
    elif voice(speaker, user) is None:
        speaker = None
    return read(view.content, attributes=attributes, speaker=speaker).claims


def _takes_over(view: NodeView, keys: Sequence[SlotKey], attributes: set[str], user: str | None,
                replaced: Callable[[NodeView], list[NodeView]],
                changed_by: Callable[[NodeView], list[NodeView]] | None = None,
                ambiguous: frozenset[str] = frozenset()) -> bool:
    """Whether a memory, or a person's turn, that states no asked slot itself replaced one that
    does, and so states it now: one that names a new value with no slot of its own ("I switched
    to Vivaldi") replaced one stating an asked open slot ("I use Firefox as my browser"), which
    the update judge gave it (worlddb.extract.judge); or one the rules read nothing in, or
    nothing of the parts of the one it revised (`_apart`), revised one stating any asked slot, a
    change the update judge could only take as about that memory as a whole
    (worlddb.memory.updates: "We finished rewriting the public API in Elixir" after "The public
    API is written in Ruby"). A memory that reads as another slot's change ("We moved to Nantes"
    revising "I live in Lyon and work at Renault") takes over nothing of the part it left alone;
    nor does one read apart from it, of a memory that says several things, take over a part it
    did not touch (`_touched`). A turn is read as a memory is (a turn marks what it changes,
    turn_updates); an assistant's or a tool's says nothing of anyone, so it takes over
    nothing."""
    if view.type not in ("Memory", "Turn") or (view.type == "Turn" and not _speaks(view)):
        return False
    olds = replaced(view)  # one edge read, and most memories replaced none: before any reading
    if not olds:
        return False
    open_keys = [k for k in keys if is_single(k.attribute)]
    mine = [c for c in _claims(view, {REPLACES}, user)
            if c.attribute == REPLACES and c.positive and not c.ended] if open_keys else []
    own = () if mine else _claims(view, None, user)
    for old in olds:
        theirs = _claims(old, attributes, user)
        if mine and any(_answers(key, c, ambiguous) and any(same_subject(m.subject, c.subject) for m in mine)
                        for key in open_keys for c in theirs):
            return True
        asked_of_old = [c for c in theirs if any(_answers(key, c, ambiguous) for key in keys)]
        # (what a change says again is the asked slot's own value: not the role beside the employer asked)
        own_values = [c for c in asked_of_old if c.attribute in {k.attribute for k in keys}] or asked_of_old
        if not mine and asked_of_old and _apart(own, old, user) \
                and _touched(view, old, keys, user, changed_by, ambiguous) and not _kept(view, own_values):
            return True
    return False


def _kept(view: NodeView, claims: Sequence[SlotClaim]) -> bool:
    """Whether a change says again, and not as what is no longer so, every value the changed
    memory gives the asked slot: "User's salary at Helio Health was raised to 180k", of "User works
    at Helio Health as a data engineer, earning 150k", names the employer as it was, and changed
    the pay beside it ("Sorry, I meant Thursday, not Tuesday" names the old day as what it is not)."""
    said = view.content or ""
    values = [c.value for c in claims if c.positive and c.value]
    return bool(values) and all(_says(said, value) for value in values)


def _says(text: str, value: str) -> bool:
    """Whether `text` names `value` whole, not after a word that says it no longer holds."""
    pieces = _PIECES.findall(value)
    if not pieces:
        return False
    at = re.compile(r"\b" + r"\W+".join(re.escape(p) for p in pieces) + r"\b", re.I)
    return any(not _NOT_BEFORE.search(text[:m.start()]) for m in at.finditer(text))


def _apart(own: Sequence[SlotClaim], old: NodeView, user: str | None) -> bool:
    """Whether a change whose claims are `own` reads as a change of none of the parts of `old`
    it changed: it reads nothing ("We finished the port"), or only slots `old` does not state
    ("I cancelled the dentist appointment" of "My dentist appointment is Monday at 2pm": its
    status, where `old` said its time). Such a change is about `old` as a whole (`_touched`
    says which part of one that says several things); one that reads as a part `old` states
    ("We moved to Nantes" of "I live in Lyon and work at Renault") is about that part alone."""
    parts = {(c.subject, _part(c.attribute)) for c in _claims(old, None, user)}
    return not any(same_subject(c.subject, subject) and _part(c.attribute) == part
                   for c in own for subject, part in parts)


def _speaks(turn: NodeView) -> bool:
    """Whether a turn is a person's, whose claims the rules read (`_claims`): not an assistant's,
    a tool's or no one's."""
    speaker = (speaker_of(turn) or "").strip()
    return bool(speaker) and speaker.casefold() not in GENERIC_ROLES - {"user"}


def _touched(view: NodeView, old: NodeView, keys: Sequence[SlotKey], user: str | None,
             changed_by: Callable[[NodeView], list[NodeView]] | None, ambiguous: frozenset[str] = frozenset()) -> bool:
    """Whether a change `view` of `old` read apart from it (`_apart`), where `old` states an asked
    slot, is about that part of it. A memory of one slot is changed whole. Of one that says
    several things ("I live in Austin and work as a nurse at St. David's"), the change is about
    the parts whose values it says again ("I'm now a nurse practitioner at UCHealth": the job,
    not the home); where it repeats none, about every part no other change of `old` reads as
    its own ("I moved to Denver" took the home)."""
    claims = _claims(old, None, user)
    # one part may be read as several slots: alike ones ("10 mg of lisinopril": the medicine and its
    # dose) and an open slot beside the catalogue's that says its value again ("My levothyroxine dose
    # is 50 mcg"); an open slot of a value of its own is a part of its own ("I'm Sam, I work at Mercy")
    closed = [c for c in claims if not is_open(c.attribute)]
    held = set().union(*(_PIECES.findall(c.value.casefold()) for c in closed if c.value))
    every = closed + [c for c in claims if is_open(c.attribute) and c.value
                      and closed and not set(_PIECES.findall(c.value.casefold())) & held] or list(claims)
    if len({(c.subject, _part(c.attribute)) for c in every}) <= 1:
        return True
    said = set(_WORD.findall(view.content.casefold())) - STOPWORDS
    repeated = [c for c in every if c.value and set(_WORD.findall(c.value.casefold())) & said]
    if repeated:
        return any(_answers(key, c, ambiguous) for key in keys for c in repeated)
    others = [v for v in (changed_by(old) if changed_by is not None else ()) if v.anchor != view.anchor]
    return not any(_answers(key, c, ambiguous) for v in others for c in _claims(v, None, user) for key in keys)


def _part(attribute: str) -> frozenset[str]:
    """The attributes that `attribute` is one part of a statement with (its _ALIKE group)."""
    return next((frozenset(group) for group in _ALIKE if attribute in group), frozenset({attribute}))


def _answers(key: SlotKey, claim: SlotClaim, ambiguous: frozenset[str] = frozenset()) -> bool:
    """Whether `claim` states the asked slot: a value of it, a value it no longer has ("I left
    Dell"), or its end ("I quit my job": where its speaker works is now nowhere). A relative's
    thing is theirs: "my sister's dentist appointment" answers no question about one's own. A
    first name alone is the person whose full name begins with it, unless it is `ambiguous`:
    "Sam moved to Vancouver" answers neither "Where does Sam Lee live?" nor the same of Sam Patel."""
    if not claim.positive and not claim.value and not claim.ended:
        return False
    if owners(key.subject) != owners(claim.subject):
        return False
    alike = key.attribute == claim.attribute or any({key.attribute, claim.attribute} <= g for g in _ALIKE)
    qualified = not key.qualifier or not claim.qualifier or key.qualifier == claim.qualifier
    # a question names a person as a name ("Where does Ana live?" asks about Ana Souza too)
    asked_of = SlotClaim(key.subject, key.attribute, named=True)
    return alike and qualified and (same_subject(key.subject, claim.subject)
                                    or same_person(asked_of, claim, ambiguous))
