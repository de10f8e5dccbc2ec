"""Reading a text into slot claims: clauses, matches, subjects, values, negation and irrealis.

Contract: ``read(text, speaker_is=..., attributes=..., speaker=...)`` returns the ``Reading``
worlddb.extract.slots describes: the text is split into clauses (``_clauses``, after
``_protect`` keeps abbreviations whole), each rule the prefilter lets through
(worlddb.extract._slot_prefilter) is matched in each clause (``_matches``), and each match
becomes a ``SlotClaim`` or nothing (``_claim``): its value cut and checked, its subject found
(worlddb.extract._slot_clause_subject), read as negated, ended or held before ("not", "no
longer", "used to", "my old ..."), and dropped when its clause is a wish, plan, condition or
question (``_IRREALIS``, ``_asks``: one that opens with an auxiliary or a question word, or with
the match's own verb and no subject, "Cancel the trip?", but for a statement that ends in a tag
question, "Living in Austin now, remember?"), when it says a change of a held value (home, job, partner,
...) for a time still to come ("I'm moving to Denver next month", "I'll start at X": ``_future``;
the old value holds until then; ``planned`` reads a text as of that time, where it holds) or when
its value is a purpose ("for coding"). Claims are
pruned to one per slot and value (``_pruned``), the open slots' claims
(worlddb.extract.open_slots) follow (less those whose value a claim states, but for a move "from
X to Y", which may be a tool's as well as a home's), and the cues come from worlddb.extract._slot_cues.
A text said in the user's voice is read with the user named in the third person turned into
the first ("User lives in Chicago", "User's manager is ...": worlddb.extract._slot_third_person);
in another speaker's text, the sentences about the user in the third person (and not about the
speaker) are read in the user's voice, the rest in the speaker's.
``_read`` keeps the latest 8,192 readings. Deterministic, no I/O, never raises for a ``str``;
``read`` raises ``TypeError`` for anything else.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from worlddb.extract._slot_catalogue import CATALOGUE, ME, Reading, SlotClaim
from worlddb.extract._slot_clause_subject import _NOT_SUBJECTS, _PEOPLE, _PRONOUNS, _SECOND, _subject
from worlddb.extract._slot_cues import _cues
from worlddb.extract._slot_prefilter import _possible
from worlddb.extract._slot_rules import _LEAVE, _occupation, _place_in, _Rule
from worlddb.extract._slot_third_person import in_first_person, names_user
from worlddb.extract._slot_values import (
    _VALUE_STOP,
    _protect,
    _restore,
    _value,
    names_another,
    normalise_subject,
    same_value,
    voice,
)
from worlddb.extract._slot_words import (
    _DELIVERABLES,
    _DRINKS,
    _EVENTS,
    _FIRST,
    _FOOD_KIND,
    _KIN,
    _OCCUPATIONS,
    _PETS,
    FUTURE_TIME,
    NAMED_TIME,
    NEGATED_BEFORE,
    STARTS_LATER,
)
from worlddb.extract.given_names import is_given_name
from worlddb.extract.lexicon import singular
from worlddb.extract.open_slots import PURPOSE, REPLACES, is_open, read_open

_SPLIT = re.compile(r"(?<!\b[A-Z])(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bMrs)(?<!\bJr)(?<!\bSr)(?<!\bMt)"
                    r"[.!?]+[\"'”’)]*(?=\s|$)|\n+|;\s+|\s+[-–—]+\s+")


def read(text: str, *, speaker_is: str | None = None, attributes: Iterable[str] | None = None,
         speaker: str | None = None, planned: bool = False) -> Reading:
    """The slot claims and update cues of `text` (see the module docstring).

    :param speaker_is: a name that also means the speaker ("alice" for the user alice), so a
        claim made about that name reads as one about "me".
    :param attributes: read only claims of these attributes (recall asks about one slot).
    :param speaker: the person who said the text, by name, when that is someone other than
        the user (a memory whose metadata names its speaker, a conversation turn): its first
        person ("I", "my", and the speaker's own name) is then that person, a named subject
        (`voice`), and a claim about `speaker_is` is about "me". Two speakers' "my name is"
        are two people's names, not one name changed.
    :param planned: the text is read as of a time still to come, when what it says will hold (a
        memory written with a later valid_from): a change it words as still to come ("We're
        moving to Seattle on January 15") is then a claim, not dropped.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    chosen = None if attributes is None else frozenset(attributes)
    name = voice(speaker, speaker_is)
    speaker_is = _user_named(text, speaker_is)
    if name is None:
        return _read(in_first_person(text), speaker_is, chosen, planned)
    own, users = _voices(text)
    reading = _read(own, speaker, chosen, planned)
    voiced = Reading(_voiced(reading.claims, name, speaker_is), reading.cues)
    if not users:
        return voiced
    theirs = _read(users, speaker_is, chosen, planned)
    return Reading(voiced.claims + theirs.claims, voiced.cues | theirs.cues)


@dataclass(frozen=True, slots=True)
class ReadingParts:
    """A text's whole reading in the parts it is assembled from, so that any restricted reading
    of it can be had without reading the text again (worlddb.memory.readings keeps them): the
    catalogue's claims, every open slot's claim before those stating a catalogue claim's value
    are dropped, and the cues. ``reading(attributes)`` is ``read(text, attributes=attributes)``
    with the same voice."""

    claims: tuple[SlotClaim, ...] = ()
    opened: tuple[SlotClaim, ...] = ()
    cues: frozenset[str] = frozenset()

    def reading(self, attributes: frozenset[str] | None = None) -> Reading:
        """The reading of the attributes given (of all, for None), as ``read`` assembles it."""
        claims = self.claims if attributes is None else tuple(c for c in self.claims if c.attribute in attributes)
        return Reading(claims + _open_kept(self.opened, claims, attributes), self.cues)

    @classmethod
    def of(cls, reading: Reading) -> ReadingParts:
        """The parts of a whole reading as ``read`` gives it: right for ``reading()``, the whole;
        a restricted one may miss an open claim the whole dropped."""
        return cls(tuple(c for c in reading.claims if not is_open(c.attribute)),
                   tuple(c for c in reading.claims if is_open(c.attribute)), reading.cues)


def read_parts(text: str, *, speaker_is: str | None = None, speaker: str | None = None) -> ReadingParts:
    """The parts of ``read(text, speaker_is=..., speaker=...)``, which ``reading()`` assembles."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    name = voice(speaker, speaker_is)
    speaker_is = _user_named(text, speaker_is)
    if name is None:
        return _parts(in_first_person(text), speaker_is)
    own, users = _voices(text)
    parts = _parts(own, speaker)
    voiced = ReadingParts(_voiced(parts.claims, name, speaker_is), _voiced(parts.opened, name, speaker_is), parts.cues)
    if not users:
        return voiced
    theirs = _parts(users, speaker_is)
    return ReadingParts(voiced.claims + theirs.claims, voiced.opened + theirs.opened, voiced.cues | theirs.cues)


#: a sentence's end: where one voice may give way to another
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
#: the speaker's own first person
_OWN = re.compile(r"\bI\b|\b(?i:me|my|mine|myself|we|us|our|ours)\b|\bI['’]")


def _voices(text: str) -> tuple[str, str]:
    """A text another speaker said, in two parts: its sentences in the speaker's own voice, and
    those that speak of the user in the third person and not of the speaker ("User lives in
    Austin", said by an assistant), turned into the user's first person (`in_first_person`)."""
    if not names_user(text):
        return text, ""
    own, users = [], []
    for sentence in _SENTENCE.split(text):
        turned = in_first_person(sentence)
        if turned != sentence and not _OWN.search(sentence):
            users.append(turned)
        else:
            own.append(sentence)
    return " ".join(own), " ".join(users)


def _user_named(text: str, speaker_is: str | None) -> str | None:
    """`speaker_is`, unless `text` names someone of the speaker's by it (`names_another`): then no
    name in it is the user."""
    return None if names_another(text, speaker_is) else speaker_is


def _voiced(claims: tuple[SlotClaim, ...], name: str, speaker_is: str | None) -> tuple[SlotClaim, ...]:
    """Claims read with the speaker as "me", in the voice of the speaker `name`: their "me" is
    that person, and the user (`speaker_is`) is "me"."""
    user = speaker_is.lower() if speaker_is else None
    return tuple(replace(c, subject=name, named=True) if c.subject == ME
                 else replace(c, subject=ME, named=False) if user is not None and c.subject == user else c
                 for c in claims)


@lru_cache(maxsize=8192)
def _read(text: str, speaker_is: str | None, attributes: frozenset[str] | None, planned: bool = False) -> Reading:
    if attributes is None:
        return _parts(text, speaker_is, planned).reading()
    protected = _protect(text)
    claims = tuple(_pruned(_claims(protected, _possible(protected, attributes), speaker_is, planned)))
    # every open claim is of an open slot: unless one is asked for, none could be kept
    asked = REPLACES in attributes or any(is_open(a) for a in attributes)
    return Reading(claims + _open_kept(_opened(text, speaker_is) if asked else (), claims, attributes), _cues(text))


@lru_cache(maxsize=8192)
def _parts(text: str, speaker_is: str | None, planned: bool = False) -> ReadingParts:
    protected = _protect(text)
    claims = tuple(_pruned(_claims(protected, _possible(protected, None), speaker_is, planned)))
    return ReadingParts(claims, _opened(text, speaker_is), _cues(text))


def _opened(text: str, speaker_is: str | None) -> tuple[SlotClaim, ...]:
    """Every open slot's claim (worlddb.extract.open_slots) of `text`."""
    out = []
    for found in read_open(text, _animate()):
        subject = ME if speaker_is and found.subject == speaker_is.lower() else found.subject
        out.append(SlotClaim(subject, found.attribute, found.value, ended=found.ended, positive=not found.ended,
                             qualifier=found.qualifier, named=found.named and subject != ME))
    return tuple(out)


def _open_kept(opened: tuple[SlotClaim, ...], claims: tuple[SlotClaim, ...],
               attributes: frozenset[str] | None) -> tuple[SlotClaim, ...]:
    """The open claims kept beside the catalogue's `claims`: those of `attributes` (if given:
    asked for a replacement, every open slot a replacement can be about), less those whose
    value a catalogue claim already states ("my new phone number is ...")."""
    replaced = attributes is not None and REPLACES in attributes
    return tuple(o for o in opened
                 if (attributes is None or o.attribute in attributes or (replaced and is_open(o.attribute)))
                 and not any(same_value(o.value, c.value) and not _moved_between(o, c, claims) for c in claims))


def _moved_between(opened: SlotClaim, claim: SlotClaim, claims: tuple[SlotClaim, ...]) -> bool:
    """Whether a replacement (`opened`) and a home (`claim`) are both read from a move "from X to
    Y" (a home left is read beside it): the rules read no gazetteer (a move between two names the
    lexicon knows neither of, "from Vim to Neovim", is no home's; one of them known is enough),
    so "I moved from Firefox to Vivaldi" may be a tool's replacement as well as a home's, and both
    are kept for the judge."""
    return opened.attribute == REPLACES and claim.attribute == "home" and opened.ended == claim.ended \
        and any(c.attribute == "home" and c.ended for c in claims)


@cache
def _animate() -> frozenset[str]:
    """Nouns naming people or animals: "my dentist is Dr Lee" is no open slot's value."""
    tools = {"editor", "driver", "server", "carrier", "assistant", "lead", "mail", "judge"}
    pets = {singular(w) for w in re.findall(r"[a-z]+", _PETS)}
    return frozenset(_KIN) | frozenset(_KIN.values()) | frozenset(_PEOPLE) | pets | (_OCCUPATIONS - tools)


def _claims(protected: str, rules: Iterable[_Rule], speaker_is: str | None, planned: bool = False) -> list[SlotClaim]:
    """The claims `rules` read in the clauses of `protected`, in clause then rule order (`planned`:
    as of the time still to come the text is about, see `read`)."""
    rules = tuple(rules)
    claims: list[SlotClaim] = []
    for clause in _clauses(protected) if rules else ():
        for rule in rules:
            for m in _matches(rule.pattern, clause):
                claim = _claim(rule, m, clause, protected, speaker_is, planned)
                listed = [] if claim is None else [claim, *_listed(rule, m, clause, claim), *_joined(m, clause, claim)]
                claims.extend(c for i, c in enumerate(listed) if c not in claims and c not in listed[:i])
    return claims


def _listed(rule: _Rule, m: re.Match[str], clause: str, claim: SlotClaim) -> Iterable[SlotClaim]:
    """The claims of the values listed after a match's own (`rule.more`): "I'm not vegetarian or
    pescatarian" says the same of each, so each is `claim` with its value."""
    pos = m.end("v")
    while rule.more is not None and (more := rule.more.match(clause, pos)) is not None:
        value = _restore(more.group("v")).strip(" .,'\"“”‘’")
        if rule.attribute == "diet":
            value = _FOOD_KIND.get(value.lower(), value)
        if rule.accept is None or rule.accept(value):
            yield replace(claim, value=value)
        pos = more.end("v")


#: a person named with "and" right before a claim's subject: "Tom and Ana moved to Lisbon", "Tom and I"
_AND_BEFORE = re.compile(r"(?:^|(?<=[\s,(]))(?P<name>(?-i:[A-Z][a-z]+))\s+and\s+$")


def _joined(m: re.Match[str], clause: str, claim: SlotClaim) -> Iterable[SlotClaim]:
    """The claim for a second person joined to the subject by "and" ("Tom and Ana moved to
    Lisbon": Tom's home too), where that person is named by a given name."""
    if "s" not in m.re.groupindex or m.start("s") < 0 or not (m.group("s") or "").strip():
        return
    before = _AND_BEFORE.search(clause, 0, m.start("s"))
    if before is not None and is_given_name(before.group("name")):
        yield replace(claim, subject=normalise_subject(before.group("name")), named=True)


def _matches(pattern: re.Pattern[str], clause: str) -> Iterable[re.Match[str]]:
    """The matches of a rule in `clause`, each looked for from the start of the value before it:
    a value may run on into a second clause the same rule reads ("My sister lives in Oslo and
    Kevin moved to Bergen": the first match's value holds Kevin's clause)."""
    pos = 0
    while pos <= len(clause):
        m = next(iter(pattern.finditer(clause, pos)), None)
        if m is None:
            return
        yield m
        value = m.start("v") if "v" in pattern.groupindex and m.start("v") >= 0 else -1
        pos = value if value > m.start() else max(m.end(), m.start() + 1)


def _clauses(text: str) -> list[str]:
    parts, start = [], 0
    for m in _SPLIT.finditer(text):
        parts.append(text[start:m.start()])
        start = m.end()
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


#: attributes whose value is kept as matched (a number, a time, a status word), not cut at a name
_LITERAL = {"phone", "email", "address", "bedtime", "waketime", "when", "due", "frequency", "amount", "count", "status",
            "reading", "marital_status", "diet", "alcohol", "smoking", "pet", "device", "car", "dose"}
#: literal values that name a product by its make and model, cut at the first function word
_NAMED_PRODUCTS = {"car", "device"}
#: an ended claim with one of these values ends whatever value the slot had ("sold the old car")
_GENERIC = {"", "car", "vehicle", "truck", "van", "suv", "job", "breakup", "break-up", "divorce", "broke up",
            "split up", "separated", "divorced", "account", "cable", "internet", "plan", "old", "bank",
            "credit union",
            # "I separated from my husband": the partner, named by the word for one
            "husband", "wife", "partner", "boyfriend", "girlfriend", "fiance", "fiancee", "fiancé", "fiancée", "spouse"}


def _claim(rule: _Rule, m: re.Match[str], clause: str, text: str, speaker_is: str | None,
           planned: bool = False) -> SlotClaim | None:
    groups = m.groupdict()
    raw = groups.get("v")
    if raw is None:
        return None
    # "My boss and Tom went to lunch": a value joined to the slot's own noun is no value of it
    if re.match(r"\s*(?:and|or|nor|but|&)\s", raw, re.I):
        return None
    context_q = ""
    if rule.context is not None:
        found = rule.context.search(text)
        if found is None:
            return None
        context_q = (found.group(1) if found.groups() else "") or ""
    if rule.unless is not None and rule.unless.search(text):
        return None
    if groups.get("r") is not None and not _occupation(groups["r"]):
        return None
    if rule.attribute in _LITERAL:
        value = raw.strip(" .,")
        if rule.attribute in _NAMED_PRODUCTS:  # "a Tesla now": a make's name ends where a function word begins
            stop = _VALUE_STOP.search(value)
            if stop and not stop.start():  # "my now": no name at all
                return None
            value = value[:stop.start()] if stop else value
    elif rule.attribute == "role" and re.match(r"(?:teach(?:es)?|retired)\b", raw):
        value = raw.strip(" .,")
    elif rule.attribute == "home" and raw.strip()[:1].islower() and _place_in(raw.strip()):
        value = _place_in(raw.strip())
    elif rule.attribute == "activity":
        stop = _VALUE_STOP.search(raw)
        value = " ".join((raw[:stop.start()] if stop else raw).split()[:4])
        value = re.sub(r"^(?:a|an|the|my|our)\s+", "", value, flags=re.I)
    else:
        value = _value(raw)
    value = _restore(value).strip(" .,'\"“”‘’")
    if groups.get("n"):  # a pet's name after its kind: "beagle Biscuit" (one of "two dogs, Rex and Fido": "dog Rex")
        value = f"{singular(value) if rule.attribute == 'pet' else value} {groups['n']}"
    accept = rule.accept
    if accept is not None and not accept(value):
        return None
    # "moved from Chicago to Denver": the other place the rule names (`o`) passes the same check
    other = _restore(_value(groups["o"])).strip(" .,") if groups.get("o") is not None else None
    if accept is not None and other is not None and not accept(other):
        return None
    if rule.pair is not None and other is not None and not rule.pair(value, other):
        return None
    # "I've moved over to Neovim for coding": a tool taken up for a purpose, not a new home
    if rule.attribute == "home" and _PURPOSE.match(raw, raw.find(value) + len(value) if value in raw else len(raw)):
        return None
    if accept is None and not value:
        return None
    if rule.ended and value.lower() in _GENERIC:
        value = ""
    # "I might move to Denver", "if I moved to Denver", "thinking about moving to Denver": a
    # wish, a plan, a possibility or a condition states no value (read back to the clause's
    # last comma or conjunction, so "I wanted to stay, but we moved to Denver" still does)
    lead = _BOUNDARY.split(clause[:m.start("v")])[-1]
    at = text.find(clause)  # where the clause stands in the text (-1: not found as written)
    if _IRREALIS.search(lead) or _asks(clause, text, at, _bare(m, clause)):
        return None
    # "I'm moving to Denver next month", "I'll be starting at Stripe in June", "accepted an offer
    # from Quillon, starting in January": a change still to come states no value yet (the old one
    # holds until it happens), unless the text is read as of then
    if not planned and rule.attribute in _CHANGES_LATER and (
            _future(lead, clause, m.start("v") - len(lead)) or STARTS_LATER.search(clause, m.start("v"))):
        return None
    positive, ended = rule.positive, rule.ended
    # "I used to live in Denver", "my old address was ...", "I worked at Google for five years"
    # (not "I have worked at ..."): the value was held once and no longer is
    if positive and not ended and (_FORMER.search(lead) and not _STILL.search(lead)
                                   or rule.attribute in _HELD and _PAST.search(m.group(0))):
        positive, ended = False, True
    # "I no longer work at X", "I don't live in Austin anymore": the rule read the verb, and the
    # words right before it negate it (a negation never matches a subject's auxiliaries)
    if positive and not ended and _NEGATED.search(clause[max(0, m.start() - 24):m.start()]):
        positive = False
    # "I never left Google", "I haven't quit climbing": a rule that reads an end or an absence, its
    # verb negated, says the value still holds, which no rule reads from these words
    if not rule.positive and _NEGATED.search(clause[max(0, m.start() - 24):m.start()]):
        return None
    # "I stopped dating Sam", "I quit working at Dell": what the verb the rule read says was given up
    if positive and not ended and _GAVE_UP.search(clause[max(0, m.start() - 24):m.start()]):
        positive, ended = False, True
    # "I quit my job at Dell": the job was left, which the ended rule reads
    if rule.attribute == "employer" and positive and not ended \
            and _LEFT.search(clause[max(0, m.start() - 24):m.start()]):
        return None
    if rule.attribute in ("alcohol", "smoking"):
        value = rule.attribute
    if rule.attribute == "dose":  # "10 mg" and "10mg" are one dose
        value = re.sub(r"\s+", "", value.lower())
    if rule.attribute == "diet":
        value = _FOOD_KIND.get(value.lower(), value)  # a glass of wine, a beer: the slot is whether one drinks at all
    if rule.thing:
        thing = rule.fixed or groups.get("t") or ""
        if rule.thing_of is not None:
            thing = rule.thing_of(thing)
        # (an event named first in its clause, capitalised, is no person: "Deploys are on Thursdays"
        # is "deploy"; another single name, "Phoenix is blocked", stays as it is written)
        if re.fullmatch(rf"(?:{_EVENTS}|{_DELIVERABLES})", thing.strip(), re.I):
            thing = thing.strip().lower()
        subject = normalise_subject(re.sub(r"['’]s$", "", thing))
        # a person's pronoun in the phrase ("I recently", "It's still a work") makes it no thing's name
        said = {re.sub(r"['’](?:s|m|re|ve|d|ll)$", "", w) for w in re.findall(r"[\w'’]+", thing.lower())}
        # "Tom quit Dell and started ...": a phrase that ends in a conjunction is two clauses, not a name
        if not subject or subject == ME or subject.split()[-1] in _KIN or subject.split()[-1] in _PEOPLE \
                or subject.split()[-1] in _CONJUNCTIONS \
                or set(subject.split()) & (_FIRST | _NOT_SUBJECTS | _PRONOUNS) \
                or said & ({"i", "we", "it"} | _SECOND | _PRONOUNS) \
                or rule.names is not None and not rule.names(subject):
            return None
    elif rule.speaker:
        subject = ME
    else:
        # a pronoun's person is named before it: the subject reads the text up to the match
        subject = _subject(groups.get("s"), clause[:m.start()], text if at < 0 else text[:at + m.start()], speaker_is)
        if subject is None:
            return None
    raw_q = (groups.get("q") or "").strip() or context_q
    if rule.attribute == "reading" and not rule.thing:
        # a title picked in a text of a book club is the club's ("Book club switched picks - we're doing
        # 'Klara and the Sun'"), as "Our book club is reading ..." reads; someone else's club's is not read
        club = re.search(r"(\b[\w-]+['’]s\s+)?\bbook club\b", _sentence(text, clause), re.I)
        if club and club.group(1):
            return None
        subject = "book club" if club else ME
    qualifier = rule.qualifier or _qualifier(rule.attribute, raw_q, value, clause)
    named = not rule.thing and subject != ME and _written_as_name(subject, text)
    return SlotClaim(subject, rule.attribute, value, positive, ended, qualifier, named)


def _sentence(text: str, clause: str) -> str:
    """The sentence of `text` that holds `clause` (the clause itself where the text does not hold it as written)."""
    at = text.find(clause)
    if at < 0:
        return clause
    ends = [m.end() for m in re.finditer(r"[.!?](?:\s|$)", text)]
    start = max((e for e in ends if e <= at), default=0)
    return text[start:next((e for e in ends if e > at), len(text))]


def _written_as_name(subject: str, text: str) -> bool:
    """Whether every word of `subject` is written capitalised somewhere in `text`."""
    for word in subject.split():
        if word in _KIN or not any(m.group(0)[:1].isupper() for m in
                                   re.finditer(rf"(?<![\w'’]){re.escape(word)}(?!\w)", text, re.I)):
            return False
    return True


#: words that make the rest of their clause a wish, a plan, a possibility or a condition
_IRREALIS = re.compile(r"\b(?:if|unless|whether|might|(?-i:may)|could|would|should|must|wanna|someday|maybe|perhaps|"
                       r"(?:want|wants|wanted|plan|plans|planning|intend|intends|try|tries|tried|"
                       r"trying)\s+to|planning\s+on|hope|hopes|hoping|hoped|"
                       r"(?:thinking|thought|think|dreaming|dream)\s+(?:about|of)|"
                       r"consider|considers|considering|wish|wishes|wishing|rather|thinks|believes|assumes|assumed|"
                       r"pretend|pretends|pretended|pretending|imagine|imagines|imagined|imagining|dreamt|dreamed|"
                       r"joked|joking)\b|['’]d\s+(?:love|like|rather)\b",
                       re.I)
#: words that join clauses: never the last word of a thing's name
_CONJUNCTIONS = {"and", "but", "or", "so", "then", "nor", "yet"}
#: what one holds until a change takes effect: a change said for the future states none of them
_CHANGES_LATER = {"home", "employer", "role", "school", "partner", "marital_status", "manager", "bank", "provider",
                  "car", "device", "commute", "address", "phone", "email", "age"}
#: a future auxiliary before the value ("will", "'ll", "going to", "about to")
_FUTURE_AUX = re.compile(r"\b(?:will|shall|going\s+to|gonna|about\s+to)\b|['’]ll\b", re.I)
#: a verb for an arranged future: a progressive ("I'm moving", "we're starting") or a bare present ("I start")
_ARRANGED = re.compile(r"(?:\b(?:am|is|are)|['’](?:m|re|s))\s+(?:\w+ly\s+)?\w+ing\b"
                       r"|\b(?:I|we|he|she|they)\s+(?:start|starts|begin|begins|move|moves|join|joins)\b", re.I)


def _future(lead: str, clause: str, verb: int) -> bool:
    """Whether the verb before a value says the change is still to come: a future auxiliary, or
    an arranged-future verb with a time still to come in its clause - anywhere for one that can
    only be ahead ("next month"), after the verb's part of the clause (from `verb`, where `lead`
    begins) for a season or a month ("we're moving to Montreal in the spring")."""
    return bool(_FUTURE_AUX.search(lead) or _ARRANGED.search(lead) and (
        FUTURE_TIME.search(clause) or NAMED_TIME.search(clause, verb)))


#: words that put the value in the past: held once, no longer (not the old one a swap gives up:
#: "swapped my old Galaxy for an iPhone 15" holds the iPhone)
_FORMER = re.compile(r"(?<!\bget )(?<!\bgot )(?<!\bgets )(?<!getting )(?<!\bam )(?<!\bis )(?<!\bare )(?<!\bwas )"
                     r"(?<!\bwere )(?<!['’]m )(?<!['’]re )\bused\s+to\b"
                     r"|(?<!\bswapped )(?<!\btraded )(?<!\btraded in )(?<!\bexchanged )"
                     r"\b(?:my|our|his|her|their)\s+(?:old|former|previous|last)\b", re.I)
#: "still drives his old Volvo": an old thing still held, not a former one
_STILL = re.compile(r"\bstill\b", re.I)
#: a home, a job or a role in the simple past ("worked at", "lived in", "was a nurse"): one held before
_HELD = {"home", "employer", "role"}
#: a purpose right after a value ("for coding", "for note-taking"): what a tool is used for
_PURPOSE = re.compile(PURPOSE + r"(?=\s*(?:[.!?,;]|$)|\s+(?:now|again|instead|at|on|in|these)\b)",
                      re.I)
_PAST = re.compile(r"(?<!\bhave )(?<!\bhas )(?<!['’]ve )\b(?:worked|lived|resided)\b|\b(?:was|were)\s+(?:a|an)\b",
                   re.I)
#: a question's opening word: what it asks about is not said to hold
_ASKING = re.compile(r"(?:do|does|did|am|is|are|was|were|have|has|had|should|could|would|can|will|shall|may|might|"
                     r"must|who|what|where|when|which|why|how)\b", re.I)


#: a tag question that ends a statement: it asks the listener to agree with what the clause before
#: it says ("Living in Austin now, remember?", "Working at Stripe these days, you know?")
_TAG = re.compile(r",\s*(?:remember|you\s+know|(?:you\s+)?see|right|ok|okay|alright|all\s+right|yeah|yes|no|correct"
                  r"|eh|huh|(?:as|like)\s+I\s+(?:said|told\s+you|mentioned))\s*$", re.I)


def _asks(clause: str, text: str, at: int, bare: bool = False) -> bool:
    """Whether `clause` is a question that opens with an auxiliary or a question word ("Do I
    still live in Austin?"; not "You moved to Denver, right?"), or whose match is `bare` (`_bare`:
    "Cancel my gym membership?" asks whether to, where "Cancel my gym membership." bids it) and
    that does not end in a tag question (`_TAG`: "Living in Austin now, remember?" says it). `at`:
    where `clause` stands in `text`."""
    return at >= 0 and text[at + len(clause):].lstrip("\"'”’) ").startswith("?") and (
        bare and not _TAG.search(clause) or bool(_ASKING.match(clause)))


#: what may open a clause before its verb and be no subject: a discourse word or an adverb ("Ok, so cancel ...")
_OPENERS = re.compile(r"(?:(?:oh|ok|okay|so|please|pls|actually|also|just|and|then|maybe|hmm|wait|well|\w+ly)"
                      r"[,!]?\s*)*", re.I)


def _bare(m: re.Match[str], clause: str) -> bool:
    """Whether the rule's match opens `clause` (past its discourse words) with its verb, no subject
    said before it: a subject group that took nothing, and no thing named first ("Cancel the trip",
    "Moved to Denver"; not "I moved to Denver", "The trip is off")."""
    groups = m.groupdict()
    named = (groups.get("s") or "").strip() or groups.get("t") is not None and m.start("t") == m.start()
    return not named and _OPENERS.fullmatch(clause[:m.start()]) is not None


_BOUNDARY = re.compile(r",|\b(?:but|and|so|because|though|although)\b", re.I)
_NEGATED = NEGATED_BEFORE
_LEFT = re.compile(r"\b(?:" + _LEAVE + r")\s+$", re.I)
#: words right before a rule's verb that say it was given up ("stopped dating", "quit working at")
_GAVE_UP = re.compile(r"\b(?:stopped|quit|quitting|gave\s+up|given\s+up)\s+$", re.I)


_QUALIFIER_WORDS = {
    "phone": {"work": "work", "office": "work", "business": "work", "desk": "work", "home": "home",
              "landline": "home", "house": "home", "cell": "personal", "mobile": "personal", "personal": "personal",
              "private": "personal"},
    "email": {"work": "work", "office": "work", "business": "work", "school": "school", "personal": "personal",
              "private": "personal", "home": "personal"},
    "address": {"work": "work", "office": "work", "mailing": "home", "home": "home", "postal": "home",
                "shipping": "home", "billing": "billing", "business": "work"},
    "device": {"work": "work", "personal": "personal", "main": "personal"},
}
_QUALIFIER_SYNONYMS = {
    "place to eat": "restaurant", "spot": "restaurant", "restaurants": "restaurant", "place": "restaurant",
    "group": "band", "artist": "band", "musician": "band", "singer": "band", "bands": "band",
    "series": "show", "tv show": "show", "tv series": "show", "season": "show", "episode": "show",
    "novel": "book", "author": "book", "film": "movie", "programming language": "language",
    "hobbies": "hobby", "pastime": "hobby", "sport": "hobby",
}


def _qualifier(attribute: str, raw: str, value: str, clause: str) -> str:
    words = _QUALIFIER_WORDS.get(attribute)
    if words is not None:
        for word in re.findall(r"\w+", (raw + " " + clause[:clause.lower().find(value.lower()[:8]) if value else 0]
                                        ).lower()):
            if word in words:
                return words[word]
        return CATALOGUE[attribute].default_qualifier or ""
    if attribute == "order":
        return "coffee" if _DRINKS.search(value + " " + raw) else raw.lower().strip()
    if attribute == "dose":  # the medicine it is a dose of
        return raw.lower().strip()
    if attribute in ("favourite", "provider", "language", "count"):
        q = raw.lower().strip()
        q = re.sub(r"^(?:for\s+)", "", q).strip()
        q = _QUALIFIER_SYNONYMS.get(q, q)
        for key, canon in _QUALIFIER_SYNONYMS.items():
            if q.endswith(" " + key):
                q = canon
        if attribute == "provider":
            q = {"landlady": "landlord", "veterinarian": "vet", "gp": "doctor", "physician": "doctor",
                 "dental": "dentist", "broadband": "internet", "wifi": "internet", "wi-fi": "internet",
                 "isp": "internet", "fiber": "internet", "fibre": "internet", "cell": "phone", "mobile": "phone",
                 "electricity": "electric", "power": "electric", "energy": "electric", "therap": "therapist",
                 "dermatolog": "dermatologist",
                 "psychiatr": "psychiatrist", "optometr": "optometrist", "clinic": "doctor",
                 "paediatrician": "pediatrician", "paediatric": "pediatrician", "pediatric": "pediatrician",
                 "surgery": "doctor", "practice": "doctor", "medical centre": "doctor", "medical center": "doctor",
                 "health centre": "doctor", "health center": "doctor", "dental practice": "dentist", "vets": "vet",
                 "veterinary practice": "vet",
                 "auto insurance": "car insurance", "auto policy": "car insurance", "car policy": "car insurance",
                 "health policy": "health insurance", "home policy": "home insurance"}.get(q, q)
        return " ".join(singular(w) for w in q.split())
    return ""


def _within(plain: SlotClaim, negated: SlotClaim) -> bool:
    """Whether a plain claim's value is part of the negated one's: "Amy" of "girlfriend Amy",
    not "Google Cloud" of "Google"."""
    words = plain.value.lower().split()
    return bool(words) and set(words) <= set(negated.value.lower().split())


def _pruned(claims: list[SlotClaim]) -> list[SlotClaim]:
    """One claim per slot and value: the more specific reading wins (an ended or negated claim
    over a plain one of the same value, in the same or other words: "I broke up with my girlfriend
    Amy" ends "girlfriend Amy" and does not also say Amy is her girlfriend)."""
    out: list[SlotClaim] = []
    for claim in claims:
        dup = next((c for c in out if c.key == claim.key and (c.value.lower() == claim.value.lower() or (
            c.positive != claim.positive and _within(*((c, claim) if c.positive else (claim, c)))))), None)
        if dup is None:
            out.append(claim)
        elif not claim.positive and dup.positive:
            out[out.index(dup)] = claim
    return out
