"""The slot catalogue and the slot reader's types (worlddb.extract.slots).

Contract: ``CATALOGUE`` names the attributes a ``SlotClaim`` of the built-in reader can have,
each an ``Attribute`` that says whether it holds one value at a time (``single``) and whether
the value changes over time or only by correction (``mutable``); ``RELATION_ALIASES`` maps fact
relations onto them (``attribute_for_relation``), ``is_fixed`` says whether a claim's value
never changes over time and ``names_person`` whether it is a person. ``SlotKey`` is (subject,
attribute, qualifier); ``SlotClaim`` is a key with a value; ``Reading`` is a text's claims and
cues. ``ME`` is the subject key of the speaker or user. Plain data: no I/O, nothing read from
text here; worlddb.extract.slots is the public entry point and says what subjects, values and
cues are.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ME = "me"


@dataclass(frozen=True, slots=True)
class Attribute:
    """One kind of slot. ``single``: one value at a time per subject (a new value replaces the
    old). ``mutable``: the value changes over time (home, employer); a fixed one (a birthday)
    changes only by correction, so a different value without a correction cue is a conflict."""

    name: str
    single: bool = True
    mutable: bool = True
    #: what a claim without a qualifier means ("personal" for phone numbers); None: any qualifier
    default_qualifier: str | None = None
    #: several values may hold at once, but one said with a change cue takes the old one's place
    #: ("I drive a Tesla now", "my new car"); an additive cue still keeps both ("a second car")
    replaced_on_change: bool = False
    #: the slot whose value qualifies this one's ("dose" of a "medication": lisinopril's dose); a
    #: value of that slot ended ends this one's too
    of: str = ""
    #: the value is a person, by name (a partner, a manager): two names of one person are one value
    #: (worlddb.extract.slots.same_name)
    person: bool = False


def _attrs(*items: Attribute) -> dict[str, Attribute]:
    return {a.name: a for a in items}


#: the built-in catalogue; ``Reading``s name attributes from it, and relations named by
#: `--functional` or by registered functional handlers are added as single-valued ones
CATALOGUE: dict[str, Attribute] = _attrs(
    Attribute("home"), Attribute("employer"), Attribute("role"), Attribute("partner", person=True),
    Attribute("marital_status"), Attribute("diet"), Attribute("alcohol"), Attribute("smoking"),
    Attribute("allergy", single=False), Attribute("phone", default_qualifier="personal"),
    Attribute("email", default_qualifier="personal"), Attribute("address", default_qualifier="home"),
    Attribute("car", single=False, replaced_on_change=True), Attribute("device", default_qualifier="personal"),
    Attribute("manager", person=True), Attribute("provider"), Attribute("bank"), Attribute("school"),
    Attribute("pet", single=False), Attribute("name", mutable=True), Attribute("favourite"),
    Attribute("order"), Attribute("activity", single=False), Attribute("languages", single=False),
    Attribute("language"), Attribute("frequency"), Attribute("bedtime"), Attribute("waketime"),
    Attribute("when"), Attribute("due"), Attribute("status"), Attribute("amount"), Attribute("count"),
    Attribute("goal"), Attribute("reading"), Attribute("coworker", single=False, person=True),
    Attribute("children", single=False, person=True), Attribute("friend", single=False, person=True),
    Attribute("commute"),
    Attribute("weight"), Attribute("medication", single=False), Attribute("age"),
    # the team one works in ("the payments team"); a sports team is no such team
    Attribute("team"),
    # how much of one medicine (the qualifier names it: "lisinopril"), one dose at a time
    Attribute("dose", of="medication"),
)

#: relation names (as extractors and clients write them) -> catalogue attributes
RELATION_ALIASES = {
    "lives_in": "home", "lives_at": "home", "home_city": "home", "city": "home", "resides_in": "home",
    "works_at": "employer", "works_for": "employer", "employed_by": "employer", "employer": "employer",
    "works_as": "role", "job_title": "role", "title": "role", "occupation": "role", "job": "role",
    "married_to": "partner", "dating": "partner", "partner": "partner", "spouse": "partner",
    "has_boyfriend": "partner", "has_girlfriend": "partner", "has_husband": "partner", "has_wife": "partner",
    "has_partner": "partner", "phone_number": "phone", "email_address": "email", "manager": "manager",
    "has_boss": "manager", "has_manager": "manager", "has_supervisor": "manager", "reports_to": "manager",
    "diet": "diet", "drives": "car",
    # "Rex is my dog": the pet, by its name
    **{f"has_{kind}": "pet" for kind in ("pet", "dog", "cat", "puppy", "pup", "kitten", "horse", "bird", "parrot",
                                         "fish", "turtle", "hamster", "rabbit", "bunny")},
}


def is_fixed(claim: SlotClaim) -> bool:
    """Whether the claim's value never changes over time (only a correction replaces it)."""
    spec = CATALOGUE.get(claim.attribute)
    return (spec is not None and not spec.mutable) or (
        claim.attribute == "when" and claim.subject.split()[-1:] in (["birthday"], ["anniversary"], ["birthdate"]))


def names_person(claim: SlotClaim) -> bool:
    """Whether the claim's value is a person, by name (`Attribute.person`: a partner, a manager)."""
    spec = CATALOGUE.get(claim.attribute)
    return spec is not None and spec.person


def attribute_for_relation(relation: str) -> str:
    """The catalogue attribute a fact relation names (``lives_in`` -> ``home``), else itself."""
    return RELATION_ALIASES.get(relation, relation)


@dataclass(frozen=True, slots=True)
class SlotKey:
    subject: str
    attribute: str
    qualifier: str = ""


@dataclass(frozen=True, slots=True)
class SlotClaim:
    subject: str
    attribute: str
    value: str = ""
    positive: bool = True
    ended: bool = False
    qualifier: str = ""
    #: the subject is a name as the text writes it ("Ana Souza", "Ana"), not a relative, "me"
    #: or a thing: a first name alone may then be that person (`same_person`)
    named: bool = False

    @property
    def key(self) -> SlotKey:
        return SlotKey(self.subject, self.attribute, self.qualifier)


@dataclass(frozen=True, slots=True)
class Reading:
    claims: tuple[SlotClaim, ...] = ()
    cues: frozenset[str] = field(default_factory=frozenset)

    @property
    def additive(self) -> bool:
        return "additive" in self.cues
