"""Slots: which single thing about whom a statement (or a question) is about, read by rules.

Contract: ``read(text)`` returns a ``Reading``: zero or more ``SlotClaim``s and the update cues
the text carries; ``asked(question)`` returns the ``SlotKey``s a question asks about. Both are
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

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from worlddb.extract._slot_catalogue import (
    CATALOGUE,
    ME,
    Attribute,
    Reading,
    SlotClaim,
    SlotKey,
    attribute_for_relation,
    is_fixed,
)
from worlddb.extract._slot_catalogue import (
    RELATION_ALIASES as RELATION_ALIASES,
)
from worlddb.extract._slot_values import (
    _VALUE_STOP,
    _protect,
    _restore,
    _value,
    ambiguous_first_names,
    normalise_subject,
    same_person,
    same_subject,
    same_value,
    voice,
)
from worlddb.extract._slot_words import (
    _ALCOHOL,
    _CAR_MAKES,
    _DATE,
    _DELIVERABLES,
    _DIETS,
    _DRINKS,
    _EVENTS,
    _FIRST,
    _FOOD_KIND,
    _KIN,
    _KIN_RE,
    _LANGUAGES,
    _MONTHS,
    _NUM_WORDS,
    _OCCUPATIONS,
    _PARTNER_WORDS,
    _PER,
    _PETS,
    _PHONE_MAKES,
    _SCHOOL_WORDS,
    _STATUS,
    _TIME,
    _TITLE_WORDS,
    _WEEKDAYS,
)
from worlddb.extract.lexicon import singular
from worlddb.extract.literals import fold, required
from worlddb.extract.open_slots import REPLACES, asked_open, is_open, read_open

__all__ = [
    "CATALOGUE", "Attribute", "Reading", "SlotClaim", "SlotKey", "ambiguous_first_names", "asked",
    "attribute_for_relation", "is_fixed", "normalise_subject", "read", "same_person", "same_subject", "same_value",
    "voice",
]


# ---------------------------------------------------------------------------- cues
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(rx, re.I)) for kind, rx in (
    ("change", r"\b(?:moved|moving|relocat\w+|switch(?:ed|ing)?|chang(?:ed|ing)|now|nowadays|these days|lately"
               r"|no longer|any ?more|any longer|new|newly|update[ds]?|updating|took over|promot\w+|renamed"
               r"|replac\w+|upgrad\w+|quit|left|retired|started|starting|finally|recently|just|since|as of"
               r"|from now on|used to|not \w+ anymore|bumped|raised|lowered|extended|pushed|postponed"
               r"|rescheduled|cancel+ed|sold|ended|broke up|breakup|divorced)\b"),
    ("correction", r"\b(?:correction|correct(?:ed|ing)? (?:myself|that|this)|actually|i had it wrong|got it wrong"
                   r"|i was wrong|my mistake|mistake|not what i (?:wrote|said)|i meant|should have said"
                   r"|to clarify|rather than what|misremembered|typo|i misspoke)\b"),
    ("additive", r"\b(?:also|too|as well|another|a second|second|in addition|additionally|added|adding|besides"
                 r"|both|plus|other one|along with|on top of)\b"),
    ("exclusive", r"\b(?:instead|replac\w+|switch(?:ed|ing)? (?:to|from|over)|no longer|any ?more|main|only"
                  r"|primary|from now on|rather than|in place of)\b"),
))


def _cues(text: str) -> frozenset[str]:
    folded = fold(text)
    found = {kind for kind, rx, needs in _cue_needs() if _has_all(folded, needs) and rx.search(text)}
    # "too much", "too late", "me too" read as additive only when it ends a clause
    if "additive" in found and not re.search(
            r"\b(?:also|as well|another|a second|second|in addition|additionally|added|adding|besides|along with"
            r"|on top of)\b|\btoo\b\s*(?:[.,;!?)]|$)", text, re.I):
        found.discard("additive")
    return frozenset(found)


@cache
def _cue_needs() -> tuple[tuple[str, re.Pattern[str], tuple[frozenset[str], ...]], ...]:
    """Each cue pattern with the literal sets it needs (worlddb.extract.literals), parsed on first use."""
    return tuple((kind, rx, required(rx)) for kind, rx in _CUES)


def _has_all(folded: str, needs: tuple[frozenset[str], ...]) -> bool:
    """Whether each of the sets `needs` has a member in `folded` (a pattern that needs them can match)."""
    for strings in needs:
        for literal in strings:
            if literal in folded:
                break
        else:
            return False
    return True


_SPLIT = re.compile(r"(?<!\b[A-Z])(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bMrs)(?<!\bJr)(?<!\bSr)(?<!\bMt)"
                    r"[.!?]+[\"'”’)]*(?=\s|$)|\n+|;\s+|\s+[-–—]+\s+")


# ============================================================================ rules
@dataclass(frozen=True)
class _Rule:
    attribute: str
    pattern: re.Pattern[str]
    positive: bool = True
    ended: bool = False
    #: the subject when the rule fixes it (the rule's `t` group names a thing otherwise)
    thing: bool = False
    #: check on the value; a rule whose value fails it reads nothing
    accept: object = None
    qualifier: str = ""
    #: a pattern the whole text must contain for the rule to apply; its group 1 (if any) is the qualifier
    context: re.Pattern[str] | None = None
    #: the claim is the speaker's whatever the clause opens with (the context says "my ...")
    speaker: bool = False
    #: a pattern whose presence anywhere in the text keeps the rule from applying
    unless: re.Pattern[str] | None = None


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


# Who: a subject right before the verb, as a named group `s` (optional: a rule that finds none
# takes the clause's subject, see _clause_subject).
_SUBJ = (r"(?:I|we|he|she|they|you|(?:my|our|his|her|their)\s+(?:\w+\s+)?(?:" + _KIN_RE + r")(?:\s+(?-i:[A-Z][a-z]+))?"
         r"(?:\s+and\s+(?:his|her|their)\s+(?:" + _KIN_RE + r"))?"
         r"|(?-i:[A-Z][a-z]+)['’]s\s+(?:" + _KIN_RE + r")|(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?)")
_AUX = (r"(?:just|finally|recently|now|also|still|currently|officially|actually|really|usually|always|normally"
        r"|have|has|had|['’]ve|['’]d|['’]s|['’]m|['’]re|am|is|are|was|were|got|will|['’]ll|be|been|started|starting"
        r"|began|begun)")
# (the verb after it begins a word: "play" is no verb in "screenplay", nor "is" in "this")
_S = r"(?:(?P<s>\b" + _SUBJ + r")(?:\s+|(?=['’]))(?:" + _AUX + r"\s+)*)?\b"
_BE = r"(?:(?:am|['’]m|is|['’]s|are|['’]re|was|were|been|be)\s+)?"
_VAL = r"(?P<v>.{1,80})"
#: a phone number after its name ("... is now +1 555 0100"); the qualifiers a bare "number" takes
_PHONE_VALUE = (r"(?:\s*:\s*|\s+(?:is\s+(?:now\s+)?|changed to\s+|will be\s+)?)[^\d+]{0,20}?"
                r"(?P<v>\+?\d[\d\s().-]{6,}\d)")
_PHONE_KINDS = "work|office|business|desk|home|cell|mobile|personal|private|main|contact|landline|direct|phone"
#: words a clause opens with, never the language a "spoke" names
_NOT_LANGUAGE = {"I", "I'm", "I’m", "I've", "I’ve", "I'd", "I’d", "I'll", "I’ll", "We", "He", "She", "They", "It",
                 "You", "My", "Our", "The", "A", "An", "This", "That", "Then", "And", "But", "So"}
#: where a named thing starts: after a determiner or possessive, or at the start of a clause
_THING_START = r"(?:\b(?:my|our|the|his|her|their|this|next|(?-i:[A-Z][a-z]+)['’]s)\s+|^|(?<=:\s))"
#: up to three words before a thing's head noun, none of them a verb form
_THING_WORDS = (r"(?:(?!(?:is|are|was|were|has|have|had|got|moved|pushed|changed|extended|booked|set|just|now|"
                r"and|but|with|of|for|to|in|on|at|after|before)\b)[\w'’-]+\s+){0,3}?")
#: an organisation: a name, or a noun phrase after an article ("a big firm", "the hospital")
_ORG = r"(?P<v>(?:(?:a|an|the)\s+[\w'’ -]{2,40}|(?-i:[A-Z0-9]).{0,60}))"
_NOT_ACTIVITIES = {"eating", "drinking", "having", "using", "going", "getting", "working", "seeing", "dating",
                   "taking", "making", "doing", "looking", "thinking", "trying", "feeling", "living", "saving",
                   "paying", "planning", "ordering", "sleeping", "waking", "wearing", "spending", "moving",
                   "driving", "selling", "buying", "renting", "talking", "texting", "calling", "wondering",
                   "considering", "sending", "writing", "watching", "listening", "coming", "leaving", "staying"}


def _place_in(chunk: str) -> str:
    """A place named near the start of a lower-case phrase: "a small town outside Leeds" -> "Leeds"."""
    m = re.match(r"(?:[a-z][\w'-]*\s+){1,6}?(?:outside|near|in|of|by|just outside|north of|south of|east of|west of)\s+"
                 r"(?-i:([A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3}))", chunk)
    return m.group(1) if m else ""


def _place(value: str) -> bool:
    if not value or not value[0].isupper() or "@" in value:
        return False
    low = value.lower()
    return not re.fullmatch(rf"(?:{_WEEKDAYS}|{_MONTHS}|\d.*|noon|midnight|morning|evening|afternoon)", low) and \
        low.split()[0] not in ("i", "my", "our")


_ORG_NOUNS = set("""
firm company startup start-up hospital clinic school bank bakery restaurant store shop agency lab studio nonprofit
non-profit university college factory warehouse cafe hotel consultancy charity church library museum gym salon farm
newspaper magazine publisher airline brewery winery pharmacy garage plant mill mine practice office corporation
business chain supermarket hospice nursery daycare bar pub kitchen firm's dealership
""".split())


def _org(value: str) -> bool:
    # "3M" and "7-Eleven" are names; "555 222 3333" is a number, never an organisation
    if not value or not re.search(r"[^\W\d_]", value):
        return False
    if value[0].isupper() or value[0].isdigit():
        return True
    words = value.lower().split()
    return words[-1] in _ORG_NOUNS or words[0] == "own"


def _name(value: str) -> bool:
    return bool(value) and value[0].isupper() and value.split()[0].lower() not in _FIRST


def _occupation(value: str) -> bool:
    words = value.lower().replace("-", " ").split()
    return bool(words) and words[-1].rstrip("s") in _OCCUPATIONS and all(
        w in _TITLE_WORDS or w.isalpha() for w in words)


def _has_time(value: str) -> bool:
    return bool(re.search(_TIME, value, re.I) or re.search(_DATE, value, re.I))


def _has_date(value: str) -> bool:
    return bool(re.search(_DATE, value, re.I))


def _school(value: str) -> bool:
    return bool(value) and value[0].isupper() and bool(set(value.lower().split()) & _SCHOOL_WORDS)


def _not_school(value: str) -> bool:
    return _org(value) and not _school(value)


#: what a sum of money is ("my rent is $1,800", "what is my budget?")
_SUMS = r"rent|salary|mortgage|pay|wage|allowance|budget|premium|tuition|car payment"
#: a sum of money: "$1,800", "£90k", "3000 dollars", "4,000 euros"
_MONEY = r"(?:[$€£]\s?[\d,.]+k?|\d[\d,.]*k?\s*(?:dollars|bucks|euros|pounds|usd|eur|gbp)\b)"

#: the people someone goes to for a service (a provider's qualifier)
_CARERS = (r"dentist|doctor|gp|physician|therapist|pediatrician|paediatrician|vet|veterinarian|accountant|lawyer|"
           r"attorney|hairdresser|barber|dermatologist|psychiatrist|counsel+or|landlord|landlady|trainer|optometrist|"
           r"ob-?gyn|cardiologist|chiropractor|mechanic|realtor|nanny|babysitter|tutor")

#: leaving a job or a place: the verbs of an ended employer
_LEAVE = r"quit|quitting|left|leaving|leave|resigned\s+from|lost"
#: a name, taken whole (a shorter one is not tried), with no object after it
_NAME_ALONE = (r"(?P<v>(?>(?-i:[A-Z][\w&'’.-]*)(?:\s+(?:(?:of|and|&)\s+)?(?-i:[A-Z][\w&'’.-]*))*))"
               r"(?!\s+(?:a|an|the|some|my|his|her|their|our|its|this|that|alone|him|them|me|us)\b)")
#: a trip, a move or a day's outing: one is at or leaves a place, not a job
_OUTING = _rx(r"\b(?:moved|moving|move|relocat\w*|flew|fly|flying|flight|drove|driving|trip|travel\w*|vacation"
              r"|holiday|visit\w*|tour|airport|terminal|gate|station|hotel|beach|park|waiting|queue|traffic|lunch"
              r"|dinner|breakfast|party|concert|show|game|early|late|tonight|for the day|for the weekend"
              r"|(?:at|around|by|before|after)\s+\d)\b")

#: "Kevin started a new job", "I finished rereading it": a status verb with an object says what
#: someone did, no thing's status ("the redesign is blocked waiting on legal" still is one)
_NO_OBJECT = (r"(?!(?:" + "|".join(f"(?<={w})" for w in ("started", "kicked off", "finished", "completed", "shipped",
                                                          "launched", "released", "canceled", "cancelled", "scrapped",
                                                          "approved", "rejected", "deployed", "rolled out",
                                                          "wrapped up", "done")) +
              r")\s+(?:a|an|the|my|our|his|her|their|its|this|that|these|those|some|another|[\w'’-]+ing)\b)")

_RULES: tuple[_Rule, ...] = (
    # ---- where someone lives
    _Rule("home", _rx(_S + r"(?:live|lives|living|lived|reside|resides|residing|based|settled|moved|moving|move"
                      r"|relocated|relocating|relocate)(?:\s+(?:back|over|out|down|up|away))?\s+(?:in|to|into)\s+"
                      + _VAL), accept=_place),
    _Rule("home", _rx(r"(?P<s>\b(?:my|our)\s+)?(?:first|new)\s+(?:winter|summer|spring|fall|autumn|year|month|months"
                      r"|week|weeks|apartment|place|house|home|flat|neighbou?rhood)\s+in\s+" + _VAL), accept=_place),
    _Rule("home", _rx(r"(?P<s>\b(?:my|our)\s+)?(?:home|hometown|home base)\s+(?:for (?:me|us)\s+)?is\s+(?:now\s+)?"
                      r"(?:in\s+)?" + _VAL), accept=_place),
    _Rule("home", _rx(_S + r"(?:signed\s+(?:a|the)\s+lease\s+(?:on|for)\s+|bought\s+|closed on\s+|rented\s+|rent\s+|"
                      r"found\s+|moved into\s+)?(?:a|an|the|our|my)\s+(?:new\s+)?(?:\w+\s+)?(?:flat|apartment|house|"
                      r"condo|home|place|townhouse|studio)\s+in\s+" + _VAL), accept=_place,
          context=_rx(r"\b(lease|bought|moved|moving|relocat\w*|new|closed on|rent)\b")),
    # ---- where someone works
    _Rule("employer", _rx(_S + r"(?:work|works|working|worked)\s+(?:full[- ]time\s+|part[- ]time\s+)?(?:at|for)\s+"
                          + _ORG), accept=_org),
    # (not "I quit my job at Dell": the words before "job" never leave it)
    _Rule("employer", _rx(r"(?P<s>\b(?:I|we|he|she|they|(?:(?-i:[A-Z][a-z]+)'s|my|our|his|her|their)\s+(?:" + _KIN_RE
                          + r")(?:\s+(?-i:[A-Z][a-z]+))?|(?-i:[A-Z][a-z]+)'s|my|our|his|her|their|"
                          r"(?-i:(?!(?:The|This|That|Our|My|Your|A|An|It|There|What|Which)\b)[A-Z][a-z]+)))\s+"
                          r"(?:(?!(?:" + _LEAVE + r")\b)\w+\s+){0,3}?"
                          r"(?:new\s+)?(?:job|position|role|gig|internship|residency|post)\s+(?:at|with)\s+" + _ORG),
          accept=_org),
    _Rule("employer", _rx(_S + r"(?:started|start|starting|began|begin|finished)\s+(?:my\s+|his\s+|her\s+)?"
                          r"(?:first\s+(?:day|week|month)|new\s+job|a\s+new\s+job|work|working|a\s+job)\s+(?:at|with|for)\s+"
                          + _VAL), accept=_not_school),
    _Rule("employer", _rx(r"(?P<s>\b(?:my|his|her|their|(?-i:[A-Z][a-z]+)'s)\s+)first\s+(?:day|week|month)\s+(?:at|with)\s+"
                          + _VAL), accept=_not_school),
    _Rule("employer", _rx(_S + r"(?:got\s+)?(?:hired|employed|recruited|poached)\s+(?:at|by)\s+" + _VAL), accept=_org),
    _Rule("employer", _rx(_S + r"(?:joined|join|joining|accepted an offer (?:from|at|with))\s+" + _VAL),
          accept=lambda v: bool(v) and v[0].isupper(),
          context=_rx(r"\b(offer|hired|job|position|role|new team|onboarding|employer|company|start date|"
                      r"as an? [a-z]+|recruit\w*)\b|\b(?:" + _LEAVE + r")\s+(?-i:[A-Z])")),
    # "I quit Dell", "I got laid off from Dell": a named employer left, whatever else the text says
    # ("left" needs more: one leaves a city, a party, a person; see the two "left" rules below)
    _Rule("employer", _rx(_S + r"(?:quit|resigned\s+from|(?:laid\s+off|let\s+go|fired)\s+(?:from|by))\s+(?=(?-i:[A-Z]))"
                          + _ORG),
          positive=False, ended=True, accept=lambda v: bool(v) and v[0].isupper()),
    # "I started at Stripe on Monday": a named place started at
    _Rule("employer", _rx(r"(?:^|(?P<s>\b(?:I|we|he|she|they|(?-i:[A-Z][a-z]+)|(?:my|our)\s+(?:" + _KIN_RE
                          + r")))\s+(?:just\s+|finally\s+|officially\s+)?)(?:started|began)\s+at\s+(?=(?-i:[A-Z]))" + _ORG),
          accept=lambda v: bool(v) and v[0].isupper() and not re.match(rf"(?:{_TIME}|{_DATE})", v, re.I)),
    # "I left Dell and joined Apple": a name left, where the text also joins or starts somewhere
    _Rule("employer", _rx(_S + r"(?:" + _LEAVE + r")\s+" + _ORG), positive=False, ended=True,
          accept=lambda v: bool(v) and v[0].isupper(),
          context=_rx(r"\b(?:joined|joining|hired|offer|new job|start(?:ed|ing)? (?:at|with))\b")),
    # "I left Dell", "Left Dell after six years": a name left alone, with no object after it ("left Dell a
    # message") and no sign of a trip, a move or a day's outing in the text ("I left Paris and moved to Rome")
    _Rule("employer", _rx(_S + r"left\s+" + _NAME_ALONE), positive=False, ended=True, accept=_org, unless=_OUTING),
    # "I'm now at Stripe", "Tom is now at Google": a named place one is now at, said without a trip or an
    # outing ("I'm now at Heathrow, waiting for my flight" is not a job)
    _Rule("employer", _rx(r"(?P<s>\b(?:I|he|she|(?-i:[A-Z][a-z]+)|(?:my|our|his|her)\s+(?:" + _KIN_RE + r")))\s*"
                          r"(?:['’]m|am|['’]s|is)\s+now\s+(?:working\s+)?at\s+" + _NAME_ALONE),
          accept=lambda v: _org(v) and not re.match(rf"(?:{_TIME}|{_DATE})", v, re.I), unless=_OUTING),
    _Rule("employer", _rx(_S + r"(?:start|starts|starting|begin|begins|beginning)\s+(?:work\s+|working\s+|my new job\s+"
                          r"|a new job\s+)?(?:at|with|for)\s+" + _VAL), accept=lambda v: _not_school(v) and not
          re.match(rf"(?:{_TIME}|{_DATE})", v, re.I)),
    _Rule("employer", _rx(_S + r"(?:last|final)\s+day\s+(?:at|with|of work at)\s+" + _VAL), positive=False,
          ended=True, accept=_org),
    _Rule("employer", _rx(r"(?P<s>\b(?:my|his|her|their)\s+)(?:new\s+)?(?:employer|company)\s+is\s+(?:now\s+)?" + _VAL),
          accept=_org),
    _Rule("employer", _rx(_S + r"(?:opened|started|launched|founded|runs?|run)\s+(?:his|her|their|my|our)\s+own\s+"
                          + _VAL), accept=lambda v: bool(v)),
    _Rule("employer", _rx(_S + r"(?:am|'m|’m|is|was|are|work as|works as|worked as)\s+(?:now\s+)?(?:an?\s+)?"
                          r"(?P<r>[\w -]{2,40}?)\s+(?:at|for|with)\s+" + _ORG), accept=_org),
    _Rule("employer", _rx(_S + r"(?:" + _LEAVE + r")\s+(?:my|his|her|their|the)\s+(?:old\s+)?"
                          r"(?P<v>[\w -]{0,30}?)\s*job\b"), positive=False, ended=True, accept=lambda v: True),
    # ---- role / title
    _Rule("role", _rx(_S + r"(?:work|works|worked|working)\s+as\s+" + _VAL), accept=_occupation),
    _Rule("role", _rx(_S + r"(?:am|'m|’m|is|was|are|became|become|becoming)\s+(?:now\s+|officially\s+|currently\s+"
                      r"|finally\s+)?(?:an?\s+)" + _VAL), accept=_occupation),
    _Rule("role", _rx(_S + r"(?:got\s+)?promoted\s+to\s+" + _VAL), accept=lambda v: bool(v)),
    _Rule("role", _rx(r"(?P<s>\b(?:my|his|her|their|(?-i:[A-Z][a-z]+)'s)\s+)(?:new\s+)?(?:job title|title|role"
                      r"|position|job)\s+is\s+(?:now\s+)?" + _VAL), accept=lambda v: bool(v)),
    _Rule("role", _rx(r"(?P<s>\b(?:I|we|he|she|(?-i:[A-Z][a-z]+)|(?:my|our)\s+(?:" + _KIN_RE + r"))\s+(?:(?:just|"
                      r"finally|recently|officially|has|have|had|'s|’s|is|was|got)\s+)*)(?P<v>retired)\b(?!\s+(?:the|my|"
                      r"our|his|her|a|an|it|them|him))"), accept=lambda v: True),
    _Rule("role", _rx(r"(?P<s>\b(?:I|we|he|she|(?-i:[A-Z][a-z]+)|(?:my|our)\s+(?:" + _KIN_RE + r"))\s+(?:(?:just|"
                      r"finally|recently|now|also)\s+)*)(?P<v>teach(?:es)?\s+[\w ]{3,40}?)(?=[,.;!?]|$|\s+(?:at|to|for|"
                      r"in)\b)"), accept=lambda v: True),
    # ---- manager and other one-of-a-kind people
    _Rule("manager", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?:manager|boss|supervisor|team lead|line manager)"
                         r"\s+(?:is\s+(?:now\s+)?|will be\s+)?" + _VAL), accept=_name),
    _Rule("manager", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)),?\s+(?:who|that)\s+(?:just\s+)?(?:took over|is now|"
                         r"became|stepped in)\s+(?:as\s+)?(?P<s>my|our)\s+(?:new\s+)?(?:manager|boss|supervisor)"),
          accept=_name),
    _Rule("manager", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+(?:is|became|is now)\s+(?P<s>my|our)\s+"
                         r"(?:new\s+)?(?:manager|boss|supervisor)"), accept=_name),
    _Rule("manager", _rx(_S + r"(?:report|reports|reporting)\s+(?:directly\s+)?to\s+" + _VAL), accept=_name),
    # ---- partner and marital status
    _Rule("partner", _rx(r"(?P<s>\b(?:my|(?-i:[A-Z][a-z]+)'s|his|her)\s+)(?:new\s+)?" + _PARTNER_WORDS
                         + r",?\s+(?:is\s+)?" + _VAL), accept=_name),
    _Rule("partner", _rx(_S + r"(?:dating|seeing|going out with|together with|in a relationship with|engaged to"
                         r"|married to|with my (?:new )?(?:boyfriend|girlfriend|partner))\s+" + _VAL), accept=_name),
    _Rule("partner", _rx(r"(?P<v>(?-i:[A-Z][a-z]+))\s+and\s+(?P<s>I)\s+(?:have\s+been|are|'ve\s+been|got|were|just)\s+"
                         r"(?:together|dating|engaged|married|a couple)"), accept=_name),
    _Rule("partner", _rx(_S + r"(?:broke up with|split up with|split from|divorced|ended things with|dumped)\s+"
                         + _VAL), positive=False, ended=True, accept=lambda v: True),
    _Rule("partner", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)['’]s)\s+|\bthe\s+)(?P<v>break-?up|divorce)\b"),
          positive=False, ended=True, accept=lambda v: True),
    _Rule("partner", _rx(r"(?P<s>\b(?:we|they|(?-i:[A-Z][a-z]+)\s+and\s+I)\s+(?:just\s+|finally\s+)?)(?P<v>broke up|split"
                         r" up|separated|divorced)\b"), positive=False, ended=True, accept=lambda v: True),
    _Rule("marital_status", _rx(_S + r"(?:am|'m|’m|is|are|'re|’re|got|getting|were|just got)\s+(?:now\s+)?"
                                r"(?P<v>engaged|married|divorced|separated|single|widowed)\b"), accept=lambda v: True),
    _Rule("marital_status", _rx(r"(?P<s>\b(?-i:[A-Z][a-z]+)\s+and\s+I|\bwe)\s+(?:just\s+|finally\s+)?(?:got|are|"
                                r"'re|were)\s+(?P<v>engaged|married|divorced|separated)\b"), accept=lambda v: True),
    # ---- diet, drink, smoking
    _Rule("diet", _rx(_S + r"(?:am|'m|’m|is|are|'re|was|went|going|gone|became|become|stay|stayed)\s+(?:now\s+)?"
                      r"(?:strictly\s+|fully\s+|mostly\s+|completely\s+|mainly\s+|a\s+)?(?P<v>" + _DIETS + r")\b"),
          accept=lambda v: True),
    _Rule("diet", _rx(_S + r"(?:am|'m|’m|is|are|'re)\s+(?:not|no longer)\s+(?:a\s+|strictly\s+)?(?P<v>" + _DIETS
                      + r")\b"), positive=False, accept=lambda v: True),
    _Rule("diet", _rx(_S + r"(?:don't|do not|doesn't|does not|never|no longer|stopped|quit)\s+(?:eat|eating|eats)\s+"
                      r"(?P<v>meat|fish|dairy|eggs|pork|beef|chicken|gluten|sugar|animal products|seafood|lamb|turkey|"
                      r"bacon|steak|cheese|milk|salmon|shrimp|shellfish)"), positive=False, accept=lambda v: True),
    # "I eat meat again", "we're eating fish now": back to a food, said as a change
    _Rule("diet", _rx(_S + r"(?:eat|eats|ate)\s+(?P<v>meat|fish|dairy|eggs|pork|beef|chicken|seafood|animal products)\s+"
                      r"(?:again|now|these days)\b"), accept=lambda v: True),
    _Rule("diet", _rx(_S + r"(?:started|start|starting|began|am|'m|’m|now|back to)\s+(?:eating|to eat)\s+"
                      r"(?P<v>meat|fish|dairy|eggs|pork|beef|chicken|gluten|sugar|animal products|seafood|lamb|turkey|"
                      r"bacon|steak|cheese|milk|salmon|shrimp|shellfish)"),
          accept=lambda v: True),
    _Rule("alcohol", _rx(_S + r"(?:don't|do not|doesn't|does not|never|no longer|stopped|quit|gave up)\s+"
                         r"(?:drink|drinks|drinking)(?:\s+(?P<v>" + _ALCOHOL + r"))?\b"), positive=False,
          accept=lambda v: True),
    _Rule("alcohol", _rx(_S + r"(?:am|'m|’m|is|went|have been|'ve been)\s+(?P<v>sober|teetotal|alcohol[- ]free)\b"),
          positive=False, accept=lambda v: True),
    _Rule("alcohol", _rx(_S + r"(?:started|start|starting|began|now|have|had|enjoy|like)\s+(?:having|drinking|to drink"
                         r"|to have)?\s*(?:a\s+|the\s+odd\s+|an\s+occasional\s+)?(?P<v>" + _ALCOHOL + r")\b"),
          accept=lambda v: bool(re.search(r"alcohol|wine|beer|liquor|cocktail|whisk|vodka|gin|rum|tequila|sake"
                                          r"|champagne|spirit|glass of|pint|drink", v, re.I))),
    _Rule("smoking", _rx(_S + r"(?:don't|do not|never|no longer|stopped|quit|gave up)\s+(?:smoke|smoking|vape|vaping)"
                         r"(?P<v>)"), positive=False, accept=lambda v: True),
    _Rule("smoking", _rx(_S + r"(?:smoke|smokes|started smoking|vape|vapes|am a smoker|'m a smoker)(?P<v>)\b"),
          accept=lambda v: True),
    # ---- allergies
    _Rule("allergy", _rx(_S + r"(?:am|'m|’m|is|are|'re|was|became|got)\s+(?:now\s+|also\s+|severely\s+|mildly\s+"
                         r"|really\s+|very\s+)*allergic\s+to\s+" + _VAL), accept=lambda v: bool(v)),
    _Rule("allergy", _rx(_S + r"(?:am|'m|’m|is|are|'re)\s+(?:not|no longer)\s+(?:\w+\s+)?allergic\s+to\s+" + _VAL),
          positive=False, accept=lambda v: bool(v)),
    _Rule("allergy", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:\w+\s+)?allerg(?:y|ies)\s+(?:is|are)\s+(?:to\s+)?" + _VAL),
          accept=lambda v: bool(v)),
    _Rule("allergy", _rx(r"(?P<s>)\bthe\s+(?:drug|medication|medicine|food|thing)\s+(?:I|we)\s+(?:react|am allergic)\s+"
                         r"to\s+is\s+" + _VAL), accept=lambda v: bool(v)),
    _Rule("allergy", _rx(r"(?P<s>)(?P<v>\b[a-z]+)\s+(?:don't|doesn't|do not|does not|no longer)\s+(?:\w+\s+)?"
                         r"(?:bother|affect|trigger)\s+me\b"), positive=False, accept=lambda v: bool(v),
          context=_rx(r"\b(?:allerg|react|sneez|shots|symptom|hives|immun)")),
    # ---- contact details
    _Rule("phone", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)'s)\s+)(?P<q>(?:new\s+)?(?:\w+\s+)?)(?:phone|cell|"
                       r"mobile)(?:\s+number)?" + _PHONE_VALUE)),
    # a bare "number" or "line" is a phone's only with no qualifier or a phone's: "my order
    # number is 100-4482" is not
    _Rule("phone", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)'s)\s+)(?P<q>(?:new\s+)?(?:(?:" + _PHONE_KINDS
                       + r")\s+)?)(?:number|line)" + _PHONE_VALUE)),
    _Rule("email", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)'s)\s+)(?P<q>(?:new\s+)?(?:\w+\s+)?)(?:e-?mail|email"
                       r" address|address)\b[^@]{0,60}?(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)")),
    _Rule("email", _rx(r"(?P<s>)(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"),
          context=_rx(r"\b(?:my|our)\s+(?:new\s+)?(work|personal|school|private|business|home|main)?\s*(?:e-?mail|address)"),
          speaker=True),
    # "New number: 555-0199", "Update: new work cell: ...": a note that opens with a new number is the speaker's
    _Rule("phone", _rx(r"(?P<s>)^(?:(?:update|fyi|btw|heads up|note)\s*[:,]?\s+)?new\s+(?P<q>(?:(?:" + _PHONE_KINDS
                       + r")\s+)?)(?:(?:phone|cell|mobile)\s+)?(?:number|phone|cell|mobile|line)\s*:\s*"
                       r"(?P<v>\+?\d[\d\s().-]{6,}\d)"), speaker=True),
    # (never the tail of a longer number: "+1 555 010 0200" is one number, not also "555 010 0200")
    _Rule("phone", _rx(r"(?P<s>)(?<![\d+(])(?<![\d)][\s.-])(?P<v>\+?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]\d{4})\b"),
          context=_rx(r"\b(?:my|our)\s+(?:new\s+)?(work|office|business|home|cell|mobile|personal|private)?\s*"
                      r"(?:phone|cell|mobile|number|line)"), speaker=True),
    _Rule("address", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)?(?P<q>(?:new\s+)?(?:\w+\s+)?)address\b[^0-9]{0,40}?"
                         r"(?P<v>\d+\s+(?-i:[A-Z])[\w.]*(?:\s+(?-i:[A-Z])[\w.]*){0,4}(?:,?\s+(?:Apt|Apartment|Unit|Suite|#)"
                         r"\.?\s*\w+)?)")),
    _Rule("address", _rx(_S + r"(?:live|lives|living|moved|moving)\s+(?:at|to)\s+(?P<v>\d+\s+(?-i:[A-Z])[\w.]*(?:\s+"
                         r"(?-i:[A-Z])[\w.]*){0,4})")),
    # ---- vehicles and phones
    _Rule("car", _rx(_S + r"(?:drive|drives|driving|drove|own|owns|bought|got|leased|leasing|picked up)\s+(?:the\s+"
                     r"keys\s+to\s+)?(?:a|an|the|my|our|his|her)\s+(?:new\s+|used\s+|old\s+)?(?P<v>(?:\d{4}\s+)?"
                     r"(?-i:[A-Z])[\w-]*(?:\s+[\w-]+){0,2})"),
          accept=lambda v: any(w.lower() in _CAR_MAKES for w in v.split())),
    _Rule("car", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?P<v>(?:\d{4}\s+)?(?-i:[A-Z])[\w-]*(?:\s+[\w-]+){0,2})"),
          accept=lambda v: v.split()[0].lower() in _CAR_MAKES or (len(v.split()) > 1 and v.split()[0].isdigit()
                                                                   and v.split()[1].lower() in _CAR_MAKES)),
    _Rule("car", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?:car|vehicle|truck|suv|ride)\s+is\s+(?:now\s+)?"
                     r"(?:a|an|the)\s+(?:new\s+|used\s+|old\s+)?(?P<v>(?:\d{4}\s+)?(?-i:[A-Z])[\w-]*(?:\s+[\w-]+){0,2})"),
          accept=lambda v: any(w.lower() in _CAR_MAKES for w in v.split())),
    _Rule("car", _rx(_S + r"(?:sold|totaled|totalled|crashed|got rid of|traded in|gave away|scrapped)\s+(?:the|my|our|"
                     r"his|her)\s+(?:old\s+)?(?P<v>car|vehicle|truck|van|suv|(?-i:[A-Z])[\w-]+)\b"), positive=False,
          ended=True, accept=lambda v: True),
    _Rule("device", _rx(_S + r"(?:use|uses|using|have|has|got|bought|switched to|upgraded to|carry)\s+(?:(?:a|an|the|my)\s+)?"
                        r"(?:new\s+)?(?P<v>(?-i:[A-Za-z]+)(?:\s+[\w+-]+){0,2})"),
          accept=lambda v: v.split()[0].lower() in _PHONE_MAKES),
    _Rule("device", _rx(r"(?P<s>\b(?:my|our)\s+)(?:new\s+)?(?P<v>(?-i:[A-Za-z]+)(?:\s+\d+\w*)?(?:\s+(?:Pro|Max|Plus|Ultra|"
                        r"Mini))?)\b"), accept=lambda v: v.split()[0].lower() in _PHONE_MAKES),
    _Rule("commute", _rx(_S + r"(?:take|takes|took|taking|ride|rides|riding|catch|catching)\s+the\s+(?P<v>bus|train|"
                         r"subway|metro|tram|ferry|tube|light rail)\s+(?:in\s+)?to\s+(?:work|the office|school|campus)"),
          accept=lambda v: True),
    _Rule("commute", _rx(_S + r"(?:now\s+)?(?P<v>bike|bikes|biking|cycle|cycles|cycling|walk|walks|walking|drive|drives|"
                         r"driving|carpool|carpools|carpooling|run|runs|running|scooter|commute by \w+)\s+(?:in\s+)?to\s+"
                         r"(?:work|the office|school|campus)"), accept=lambda v: True),
    _Rule("commute", _rx(r"(?P<s>)instead\s+of\s+(?:taking|riding|driving|catching)\s+the\s+(?P<v>bus|train|subway|metro|"
                         r"tram|ferry|car)"), positive=False, ended=True, accept=lambda v: True),
    _Rule("weight", _rx(_S + r"(?:weigh|weighs|weighed|am down to|'m down to|’m down to|am up to|'m up to|’m up to|"
                        r"'m at|am at|got down to|got up to|dropped to|hit)\s+(?:about\s+|around\s+|roughly\s+)?"
                        r"(?P<v>\d+(?:\.\d+)?\s*(?:pounds|lbs|lb|kg|kilos|kilograms|stone))")),
    # ---- people and places one has one of
    _Rule("provider", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:\w+\s+)?(?P<q>" + _CARERS + r")\s+(?:is\s+(?:now\s+)?"
                          r"|will be\s+)(?:a\s+[\w\s]{0,40}?(?:called|named)\s+)?" + _VAL), accept=_name),
    # "I found a new dentist, Dr. Kim", "we got a new vet: Dr Ruiz"
    _Rule("provider", _rx(_S + r"(?:found|got|have|picked|chose|switched\s+to)\s+(?:a\s+)?new\s+(?P<q>" + _CARERS
                          + r")\s*(?:[,:]\s*|\s+(?:called|named)\s+|\s[-–—]\s)" + _VAL), accept=_name),
    _Rule("provider", _rx(_S + r"(?:now\s+)?(?:see|sees|seeing|go to|goes to|switched to)\s+(?P<v>(?:Dr|Doctor)"
                          r"[.\u2024]?\s+(?-i:[A-Z])\w+(?:\s+(?-i:[A-Z])\w+)?)"), accept=_name,
          context=_rx(r"\b(dentist|dental|doctor|therap|vet|dermatolog|psychiatr|optometr|physician|gp|clinic)")),
    _Rule("provider", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?P<q>internet|broadband|wi-?fi|isp|phone|cell|"
                          r"mobile|electric(?:ity)?|power|gas|insurance|health insurance|car insurance|cable|tv|"
                          r"streaming)\s+(?:provider|company|carrier|plan|service)?\s*(?:is\s+(?:now\s+)?(?:(?:through|with"
                          r"|from|by)\s+)?|(?:through|with|from)\s+)" + _VAL), accept=_org),
    _Rule("provider", _rx(_S + r"(?:switched|moved|changed|transferred|ported)\s+(?:our|my)\s+(?P<q>internet|broadband|"
                          r"phone plan|phone|cell|mobile|insurance|electricity|power|gas|cable|tv)\s+(?:provider\s+|"
                          r"service\s+|plan\s+)?(?:over\s+)?to\s+" + _VAL), accept=_org),
    _Rule("provider", _rx(r"(?P<s>\b(?:my|our)\s+)?(?:home\s+)?(?P<q>internet|broadband|wi-?fi)\s+(?:is|was|comes)?\s*"
                          r"(?:now\s+)?(?:through|with|from|by)\s+" + _VAL), accept=_org),
    _Rule("provider", _rx(_S + r"(?:went|go|going|switched|signed up|are now|'re now)\s+(?:over\s+)?(?:with|to)\s+"
                          r"(?P<v>(?-i:[A-Z])[\w&+-]*(?:\s+(?-i:[A-Z])[\w&+-]*){0,3})"),
          accept=_org, context=_rx(r"\b(internet|broadband|fiber|fibre|wi-?fi|carrier|insurance|electric)")),
    _Rule("provider", _rx(_S + r"(?:cancel+ed|dropped|ditched|got rid of|left)\s+(?:our|my|the)?\s*(?:old\s+)?"
                          r"(?P<v>[\w ]{0,20}?)(?P<q>cable internet|internet|broadband|phone plan|insurance|cable)\b"),
          positive=False, ended=True, accept=lambda v: True),
    _Rule("bank", _rx(_S + r"(?:bank|banks|banking)\s+(?:with|at)\s+" + _VAL), accept=_org),
    _Rule("bank", _rx(r"(?P<s>\b(?:my|our)\s+)(?:new\s+)?(?:bank|credit union)\s+is\s+(?:now\s+)?" + _VAL), accept=_org),
    _Rule("bank", _rx(_S + r"(?:moved|switched|transferred)\s+(?:everything|my (?:money|accounts?|savings|checking)|"
                      r"(?:all\s+)?my\s+banking)\s+(?:over\s+)?to\s+(?:a\s+|an\s+)?(?:credit union|bank|online bank)?,?\s*"
                      r"(?:called\s+)?" + _VAL), accept=_org),
    _Rule("bank", _rx(_S + r"(?:closed|shut)\s+(?:my|our|the)\s+(?:old\s+)?(?P<v>[\w ]{0,20}?)(?:checking|savings|bank)"
                      r"\s+account"), positive=False, ended=True, accept=lambda v: True),
    _Rule("school", _rx(r"(?P<s>\b(?:I|we|he|she|they|(?-i:[A-Z][a-z]+)|(?:my|our)\s+(?:\w+\s+)?(?:son|daughter|kid|"
                        r"child|boy|girl)(?:\s+(?-i:[A-Z][a-z]+))?)\s+(?:(?:now|just|also|still)\s+)*)(?:goes|go|going|"
                        r"attends|attend|attending|started|starts|is enrolled|enrolled|transferred|switched|moved)\s+"
                        r"(?:(?:at|to|in|into)\s+)?" + _VAL), accept=_school),
    _Rule("school", _rx(r"(?P<s>\b(?:my|his|her|their|(?-i:[A-Z][a-z]+)'s)\s+)first\s+(?:day|week)\s+(?:at|of)\s+"
                        + _VAL), accept=_school),
    # ---- pets: which, and their names
    _Rule("pet", _rx(_S + r"(?:have|has|got|adopted|own|owns|bought|rescued|picked out|brought home)\s+(?:a|an|two|"
                     r"three)\s+(?:new\s+)?(?P<v>(?:[\w-]+\s+){0,2}?(?:" + _PETS + r"))\b"), accept=lambda v: True),
    _Rule("pet", _rx(r"(?P<s>)\b(?:after|since|when)?\s*(?:the|our|my)\s+(?:old\s+)?(?P<v>(?:\w+\s+)?(?:" + _PETS
                     + r"))\s+(?:died|passed away|passed|ran away|was put down)"), positive=False, ended=True,
          accept=lambda v: True),
    _Rule("name", _rx(r"(?P<t>\b(?:my|our|the|his|her)\s+(?:\w+\s+)?(?:" + _PETS + r"))(?:'s\s+name)?\s+(?:is\s+)?"
                      r"(?:named|called|is)\s+" + _VAL), thing=True, accept=_name),
    _Rule("name", _rx(r"(?:renamed|rename|renaming|named|call|called|calling)\s+(?P<t>(?:the|our|my|his|her)\s+(?:\w+\s+)?"
                      r"(?:" + _PETS + r"))\s+" + _VAL), thing=True, accept=_name),
    _Rule("name", _rx(r"(?P<t>\b(?:my|our|the)\s+(?:new\s+)?(?:\w+\s+)?(?:coworker|colleague|neighbou?r|roommate|"
                      r"manager|boss|landlord|teacher|doctor|dentist|intern|hire))(?:'s|’s)\s+name\s+is\s+" + _VAL),
          thing=True, accept=_name),
    _Rule("coworker", _rx(r"(?P<s>\b(?:my|our|the)\s+)(?:new\s+)?(?:coworker|colleague|teammate)(?:'s|’s)?\s+"
                          r"(?:name\s+)?(?:is\s+)?" + _VAL), accept=_name),
    # ---- favourites and usual choices
    _Rule("favourite", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)'s)\s+)(?:(?:all-time|absolute|current|new)\s+)?"
                           r"(?:favou?rite|fave|go-to|preferred)\s+(?!(?:programming\s+)?language)(?P<q>[\w -]{2,40}?)\s+(?:right now\s+|these days\s+"
                           r"|lately\s+|at the moment\s+|now\s+)?(?:is|are|has become|became|would be)\s+(?:now\s+)?"
                           + _VAL), accept=lambda v: bool(v)),
    _Rule("favourite", _rx(_S + r"(?:switched|changed|swapped)\s+(?:my|our)\s+(?:favou?rite|fave|go-to|preferred)\s+"
                           r"(?P<q>[\w -]{2,30}?)\s+(?:over\s+)?(?:to|for)\s+" + _VAL), accept=lambda v: bool(v)),
    _Rule("favourite", _rx(r"(?P<s>)" + r"(?P<v>(?-i:[A-Z])[\w'’&-]*(?:\s+(?-i:[A-Z])[\w'’&-]*){0,3})\s+(?:is|are)\s+"
                           r"(?:now\s+|still\s+)?(?:my|our)\s+(?:new\s+)?(?:favou?rite|fave|go-to)\s+(?P<q>[\w -]{2,30}?)"
                           r"(?=[,.;!?]|$)"), accept=_name),
    _Rule("favourite", _rx(r"(?P<s>)\bthe\s+best\s+(?P<q>place to eat|restaurant|spot|cafe|coffee shop|bar|bakery|"
                           r"pizza|sushi|burger|taco)s?\s+(?:in town\s+|around here\s+|nearby\s+)?(?:now\s+|these days\s+)?"
                           r"(?:is|are)\s+(?:now\s+)?" + _VAL), accept=_name),
    _Rule("favourite", _rx(r"(?P<s>)(?P<v>(?-i:[A-Z])[\w'’&-]*(?:\s+(?-i:[A-Z])[\w'’&-]*){0,3})\s+(?:is|are)\s+the\s+"
                           r"(?P<q>group|band|artist|singer|show|series|podcast|book|author|game|restaurant|place)\s+"
                           r"(?:I|we)\s+(?:can't|cannot|can’t)\s+stop\s+(?:listening to|watching|reading|playing|eating at)"),
          accept=_name),
    _Rule("favourite", _rx(_S + r"(?:am|'m|’m|is|are)\s+(?:now\s+|totally\s+|completely\s+|so\s+|really\s+)*"
                           r"(?:obsessed with|hooked on|addicted to|into)\s+" + _VAL),
          accept=_name, context=_rx(r"\b(show|series|season|episode|band|album|song|game|podcast|book|novel)")),
    _Rule("order", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:usual|regular|go-to|standard|default|typical)\s+"
                       r"(?P<q>[\w -]{0,20}?)\s*order\s+(?:is|was)\s+(?:now\s+)?" + _VAL), accept=lambda v: bool(v)),
    _Rule("order", _rx(_S + r"(?:switched to ordering|started ordering|now order|always order|usually order|"
                       r"usually get|always get|order|ordering)\s+(?!is\b|was\b)" + _VAL), accept=lambda v: _drink_or_dish(v)),
    _Rule("language", _rx(r"(?P<s>\b(?:my|our)\s+)(?:go-to|main|favou?rite|preferred|primary)\s+(?:programming\s+)?"
                          r"language\s+(?P<q>(?:for\s+[\w ]{2,30}?\s+)?)(?:is|are)\s+(?:now\s+)?" + _VAL),
          accept=lambda v: bool(v)),
    _Rule("language", _rx(_S + r"(?:moved|switched|migrated|ported|rewrote|rewritten)\s+(?:all\s+|most\s+)?(?:of\s+)?"
                          r"(?:my|our)\s+(?P<q>[\w ]{2,30}?)\s+(?:over\s+)?(?:to|in|into)\s+" + _VAL),
          accept=lambda v: bool(v) and v.split()[0].lower() in _LANGUAGES),
    _Rule("languages", _rx(_S + r"(?:speak|speaks|spoke)\s+(?:(?:fluent|conversational|some|a little|basic|native|decent|good|"
                           r"broken|passable|rusty)\s+)?" + _VAL),
          # "since we last spoke I got a dog": a new clause, not a language
          accept=lambda v: bool(v) and v.split()[0][:1].isupper() and v.split()[0] not in _NOT_LANGUAGE),
    _Rule("activity", _rx(r"(?P<s>\b(?:my|our)\s+)(?:main\s+|favou?rite\s+|only\s+)?(?P<q>hobby|hobbies|pastime|sport)\s+"
                          r"(?:is|are)\s+(?:now\s+)?" + _VAL), accept=lambda v: bool(v)),
    _Rule("activity", _rx(_S + r"(?:spend|spending|spent)\s+(?:my|our|all my|most of my)\s+(?:free|spare|weekend|down)"
                          r"\s+time\s+" + _VAL), accept=lambda v: bool(v)),
    _Rule("activity", _rx(_S + r"(?:play|plays|playing)\s+(?:on\s+|in\s+)?(?:a\s+|an\s+|the\s+)?" + _VAL),
          accept=lambda v: bool(v) and not v.lower().startswith(("with", "it", "them", "video"))),
    _Rule("activity", _rx(_S + r"(?:took up|take up|taken up|started|picked up|got into|getting into|'ve started|"
                          r"have started)\s+(?P<v>(?:(?:\w+\s+)?\w+ing|yoga|pilates|tennis|golf|chess|karate|judo|boxing)(?:\s+\w+)?)"),
          accept=lambda v: bool(v) and not set(v.lower().split()) & _NOT_ACTIVITIES),
    _Rule("activity", _rx(_S + r"(?:quit|stopped|gave up|left|dropped out of)\s+(?:the|my|our)?\s*" + _VAL),
          positive=False, ended=True,
          accept=lambda v: bool(v) and not re.search(r"\b(?:job|work|position|role|company|firm|smoking|drinking|"
                                                      r"eating|alcohol|meat)\b", v, re.I)),
    # ---- how often, when
    _Rule("frequency", _rx(r"(?P<s>)\b(?P<q>gym|run|running|swim|swimming|workout|work out|yoga|climb|climbing|train|"
                           r"training|cycle|cycling|lift|lifting|exercise|yoga|pilates|tennis|golf|walk|walking|hike|hiking|"
                           r"practice|lesson|therapy|meditate|meditation)\w*\b[\w ]{0,40}?\b(?P<v>" + _PER + r")")),
    _Rule("bedtime", _rx(_S + r"(?:usually\s+|always\s+|normally\s+|now\s+)?(?:go|going|goes|went|get|head|heading)\s+"
                         r"(?:to\s+)?(?:bed|sleep)\s+(?:around|at|by|before|after|about)\s+(?P<v>" + _TIME + r")")),
    _Rule("waketime", _rx(_S + r"(?:usually\s+|always\s+|normally\s+|now\s+)?(?:wake|waking|get|getting|am)\s+up\s+"
                          r"(?:around|at|by|before|about)\s+(?P<v>" + _TIME + r")")),
    _Rule("when", _rx(r"(?P<t>" + _THING_START + _THING_WORDS + r"(?:" + _EVENTS + r")(?:\s+(?:to|in)\s+(?-i:[A-Z])\w+)?)"
                      r"\s+(?:is|are|was|will be|happens|starts|has been|got|just got|now|meets|moved|has moved|changed|"
                      r"shifted|rescheduled|pushed|booked|scheduled|set|planned)?\s*(?:now\s+|usually\s+|always\s+)?"
                      r"(?:(?:moved|changed|shifted|rescheduled|pushed|booked|scheduled|set|planned|back)\s+)?"
                      r"(?:to\s+|for\s+|on\s+|at\s+|every\s+)?"
                      r"(?P<v>(?:every\s+(?:other\s+)?)?" + _TIME + r"|" + _DATE + r")"), thing=True, accept=_has_time),
    _Rule("when", _rx(r"(?:push|pushed|move|moved|reschedule|rescheduled|postpone|postponed|bump|bumped|shift|shifted|"
                      r"change|changed|delay|delayed)\s+(?P<t>(?:(?:the|our|my|his|her)\s+)?" + _THING_WORDS + r"(?:"
                      + _EVENTS + r"))\s+(?:to|until|till)\s+(?P<v>(?:every\s+)?" + _TIME + r"|" + _DATE + r")"),
          thing=True, accept=_has_time),
    _Rule("when", _rx(r"(?P<t>\b(?:my|our|the)\s+(?:\w+\s+)?(?:anniversary|birthday))\s+(?:is|falls)\s+(?:on\s+|in\s+)?"
                      r"(?:actually\s+)?(?P<v>" + _DATE + r")"), thing=True, accept=_has_date),
    _Rule("due", _rx(r"(?P<t>" + _THING_START + _THING_WORDS + r"(?:" + _DELIVERABLES + r"))\s+(?:is|are|was|will be|now)?"
                     r"\s*(?:now\s+)?due\s+(?:on\s+|by\s+|in\s+)?(?P<v>" + _DATE + r")"), thing=True, accept=_has_date),
    _Rule("due", _rx(r"(?P<t>" + _THING_START + _THING_WORDS + r"(?:" + _DELIVERABLES + r"))\s+(?:deadline|due date)\s+"
                     r"(?:(?:is|was|has been|got|just got|now|been)\s+)*(?:moved|pushed|extended|changed|bumped|shifted|"
                     r"postponed|delayed|set)?\s*(?:to|until|till|is|for|on|back to)?\s*(?:on\s+)?(?P<v>" + _DATE + r")"),
          thing=True, accept=_has_date),
    _Rule("due", _rx(r"deadline\s+(?:for|on)\s+(?P<t>(?:the|our|my)\s+" + _THING_WORDS + r"(?:" + _DELIVERABLES
                     + r"))\s+(?:is|was|to|moved to|extended to|pushed to|is now)\s+(?:on\s+)?(?P<v>" + _DATE + r")"),
          thing=True, accept=_has_date),
    _Rule("due", _rx(r"(?P<s>\b(?:I|we))\s*(?:have|need|had|['’]ve|['’]d)\s+(?:got\s+)?to\s+(?:be\s+out|move\s+out)\s+"
                     r"(?:of\s+[\w ]{1,30}?\s+)?(?:by|before|on)\s+(?P<v>" + _DATE + r")"), accept=_has_date,
          qualifier="move-out"),
    _Rule("due", _rx(r"(?P<s>\b(?:us|me)\s+)?(?:stay|remain|keep the (?:place|apartment|flat))\s+(?:\w+\s+){0,2}?"
                     r"(?:until|till|through)\s+(?P<v>" + _DATE + r")"), accept=_has_date, qualifier="move-out"),
    _Rule("status", _rx(r"(?P<t>" + _THING_START + _THING_WORDS + r"[\w'’-]+)\s+(?:is|was|has been|got|just|now|finally|"
                        r"officially|has|have)?\s*(?:now\s+|finally\s+|officially\s+|just\s+|been\s+|currently\s+)*"
                        r"(?P<v>" + _STATUS + r")\b" + _NO_OBJECT), thing=True, accept=lambda v: True),
    # ---- amounts and counts
    _Rule("amount", _rx(r"(?P<t>\b(?:my|our|the|his|her)\s+(?:monthly\s+|yearly\s+|annual\s+)?(?:" + _SUMS
                        + r"))\s+(?:is|was|went up to|went down to|"
                        r"rose to|jumped to|dropped to|increased to|decreased to|is now|will be|came to)\s+"
                        r"(?:now\s+)?(?:about\s+|around\s+)?(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:month|year|week|"
                        r"hour))?)"), thing=True),
    _Rule("amount", _rx(r"(?:raised|increased|lowered|cut|dropped|bumped|hiked|reduced)\s+(?P<t>(?:the|my|our)\s+"
                        r"(?:monthly\s+)?(?:" + _SUMS + r"))\s+"
                        r"(?:up\s+|down\s+)?to\s+(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:month|year|week|hour))?)"),
          thing=True),
    _Rule("amount", _rx(r"(?P<s>\bI\s+)(?:pay|earn|make)\s+(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:month|year|week|"
                        r"hour))?)\s+(?:in|for)\s+(?P<t>(?:my\s+)?(?:rent|mortgage|tuition|salary))"), thing=True),
    _Rule("count", _rx(r"(?P<s>\b(?:I|we)\s+)(?:manage|lead|run|have|supervise|oversee)\s+a\s+(?P<q>team|staff|group|"
                       r"class|crew)\s+of\s+(?P<v>(?:" + _NUM_WORDS + r")\s+\w+)")),
    _Rule("count", _rx(r"(?P<s>\b(?:my|our)\s+)(?P<q>team|staff|group|class|crew)\s+(?:is|has|grew|went|is now|now has"
                       r"|has grown|shrank|is down|is up)\s+(?:now\s+)?(?:up\s+|down\s+)?(?:to\s+)?(?P<v>(?:" + _NUM_WORDS
                       + r")\s+\w+)")),
    # ---- goals and what a group is reading
    _Rule("goal", _rx(r"(?P<s>\b(?:my|our)\s+)(?:\w+\s+)?goal\s+(?:this year\s+|for this year\s+|for \d{4}\s+)?"
                      r"(?:is|was)\s+(?:now\s+)?(?:to\s+)?" + _VAL), accept=lambda v: bool(v)),
    _Rule("goal", _rx(_S + r"(?:training|train|trains|prepping|preparing|signed up)\s+for\s+(?:a|an|the|my)\s+" + _VAL),
          accept=lambda v: bool(v)),
    _Rule("reading", _rx(r"(?:reading|doing|picked|chose|choosing|switched to|moving on to|starting)\s+"
                         r"(?P<v>[\"'“‘][^\"'”’]{1,80}[\"'”’])"), accept=lambda v: bool(v),
          context=_rx(r"\b(book club|reading group|class|we|i)\b")),
    # ---- family one has several of
    _Rule("children", _rx(_S + r"(?:has|have|had|welcomed)\s+(?:a|another|a new)\s+(?:baby\s+)?(?:daughter|son|boy|girl"
                          r"|baby)(?:\s+boy|\s+girl)?,?\s+(?:named\s+|called\s+)?" + _VAL), accept=_name),
)



def _drink_or_dish(value: str) -> bool:
    return bool(_DRINKS.search(value))


# ============================================================================ reading
def read(text: str, *, speaker_is: str | None = None, attributes: Iterable[str] | None = None,
         speaker: str | None = None) -> Reading:
    """The slot claims and update cues of `text` (see the module docstring).

    :param speaker_is: a name that also means the speaker ("alice" for the user alice), so a
        claim made about that name reads as one about "me".
    :param attributes: read only claims of these attributes (recall asks about one slot).
    :param speaker: the person who said the text, by name, when that is someone other than
        the user (a memory whose metadata names its speaker, a conversation turn): its first
        person ("I", "my", and the speaker's own name) is then that person, a named subject
        (`voice`), and a claim about `speaker_is` is about "me". Two speakers' "my name is"
        are two people's names, not one name changed.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    chosen = None if attributes is None else frozenset(attributes)
    name = voice(speaker, speaker_is)
    if name is None:
        return _read(text, speaker_is, chosen)
    reading = _read(text, speaker, chosen)
    user = speaker_is.lower() if speaker_is else None
    claims = tuple(replace(c, subject=name, named=True) if c.subject == ME
                   else replace(c, subject=ME, named=False) if user is not None and c.subject == user else c
                   for c in reading.claims)
    return Reading(claims, reading.cues)




@lru_cache(maxsize=8192)
def _read(text: str, speaker_is: str | None, attributes: frozenset[str] | None) -> Reading:
    protected = _protect(text)
    rules = _possible(protected, attributes)
    claims = _pruned(_claims(protected, rules, speaker_is))
    return Reading(tuple(claims + _open_claims(text, claims, speaker_is, attributes)), _cues(text))


def _open_claims(text: str, claims: list[SlotClaim], speaker_is: str | None,
                 attributes: frozenset[str] | None) -> list[SlotClaim]:
    """The open slots' claims (worlddb.extract.open_slots) of `text` (of `attributes`, if given:
    asked for a replacement, every open slot a replacement can be about), less those whose value
    a catalogue claim of the text already states ("my new phone number is ...")."""
    out = []
    for found in read_open(text, _animate()):
        if attributes is not None and found.attribute not in attributes and not (
                REPLACES in attributes and is_open(found.attribute)):
            continue
        if any(same_value(found.value, c.value) for c in claims):
            continue
        subject = ME if speaker_is and found.subject == speaker_is.lower() else found.subject
        out.append(SlotClaim(subject, found.attribute, found.value, ended=found.ended, positive=not found.ended,
                             qualifier=found.qualifier, named=found.named and subject != ME))
    return out


@cache
def _animate() -> frozenset[str]:
    """Nouns naming people or animals: "my dentist is Dr Lee" is no open slot's value."""
    tools = {"editor", "driver", "server", "carrier", "assistant", "lead", "mail", "judge"}
    pets = {singular(w) for w in re.findall(r"[a-z]+", _PETS)}
    return frozenset(_KIN) | frozenset(_KIN.values()) | frozenset(_PEOPLE) | pets | (_OCCUPATIONS - tools)


def _claims(protected: str, rules: Iterable[_Rule], speaker_is: str | None) -> list[SlotClaim]:
    """The claims `rules` read in the clauses of `protected`, in clause then rule order."""
    rules = tuple(rules)
    claims: list[SlotClaim] = []
    for clause in _clauses(protected) if rules else ():
        for rule in rules:
            for m in _matches(rule.pattern, clause):
                claim = _claim(rule, m, clause, protected, speaker_is)
                if claim is not None and claim not in claims:
                    claims.append(claim)
    return claims


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


def _possible(protected: str, attributes: frozenset[str] | None) -> tuple[_Rule, ...]:
    """The rules (of `attributes`, if given) that can match somewhere in `protected`: each of a
    rule's sets of needed literals (worlddb.extract.literals) has a member in it. The others
    could not match, so leaving them out changes no reading; it saves most of the matching."""
    folded = fold(protected)
    index = _needs()
    candidates = set(index.unindexed)
    found = {folded[i:i + _KEY] for i in range(len(folded) - _KEY + 1)} & index.keys
    found.update(key for key in index.short if key in folded)
    for key in found:
        candidates |= index.rules_of[key]
    possible = []
    for i in sorted(candidates):
        rule, needs = index.rules[i]
        if attributes is not None and rule.attribute not in attributes:
            continue
        if _has_all(folded, needs):
            possible.append(rule)
    return tuple(possible)


#: the length of the index keys: a needed literal is looked up by its first three characters
_KEY = 3


@dataclass(frozen=True, slots=True)
class _Needs:
    """The rules by the literals they need. A rule is a candidate for a text when the first
    `_KEY` characters of a literal of its first (most telling) set occur in it (a part of a
    needed literal is needed too), and a candidate is then checked against all its sets."""

    #: each rule (in `_RULES` order) with its needed sets
    rules: tuple[tuple[_Rule, tuple[frozenset[str], ...]], ...]
    #: keys of `_KEY` characters, and literals shorter than that, to the positions of their rules
    rules_of: dict[str, frozenset[int]]
    keys: frozenset[str]
    short: tuple[str, ...]
    #: the positions of rules that need no known literal (always candidates)
    unindexed: frozenset[int]


@cache
def _needs() -> _Needs:
    """The literal index of the rules (their patterns parsed once, on first use)."""
    rules, rules_of, unindexed = [], {}, set()
    for i, rule in enumerate(_RULES):
        needs = required(rule.pattern)
        rules.append((rule, needs))
        if not needs:
            unindexed.add(i)
        for literal in needs[0] if needs else ():
            rules_of.setdefault(literal[:_KEY], set()).add(i)
    return _Needs(tuple(rules), {k: frozenset(v) for k, v in rules_of.items()},
                  frozenset(k for k in rules_of if len(k) == _KEY), tuple(k for k in rules_of if len(k) < _KEY),
                  frozenset(unindexed))


def _clauses(text: str) -> list[str]:
    parts, start = [], 0
    for m in _SPLIT.finditer(text):
        parts.append(text[start:m.start()])
        start = m.end()
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


#: attributes whose value is kept as matched (a number, a time, a status word), not cut at a name
_LITERAL = {"phone", "email", "address", "bedtime", "waketime", "when", "due", "frequency", "amount", "count", "status",
            "reading", "marital_status", "diet", "alcohol", "smoking", "pet", "device", "car"}
#: an ended claim with one of these values ends whatever value the slot had ("sold the old car")
_GENERIC = {"", "car", "vehicle", "truck", "van", "suv", "job", "breakup", "break-up", "divorce", "broke up",
            "split up", "separated", "divorced", "account", "cable", "internet", "plan", "old"}


def _claim(rule: _Rule, m: re.Match[str], clause: str, text: str, speaker_is: str | None) -> SlotClaim | None:
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
    elif rule.attribute == "role" and raw.startswith(("teach", "retired")):
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
    accept = rule.accept
    if accept is not None and not accept(value):
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
    if _IRREALIS.search(lead) or _asks(clause, text, at):
        return None
    positive, ended = rule.positive, rule.ended
    # "I used to live in Denver", "my old address was ...", "I worked at Google for five years"
    # (not "I have worked at ..."): the value was held once and no longer is
    if positive and not ended and (_FORMER.search(lead) or rule.attribute in _HELD and _PAST.search(m.group(0))):
        positive, ended = False, True
    # "I no longer work at X", "I don't live in Austin anymore": the rule read the verb, and the
    # words right before it negate it (a negation never matches a subject's auxiliaries)
    if positive and not ended and _NEGATED.search(clause[max(0, m.start() - 24):m.start()]):
        positive = False
    # "I quit my job at Dell": the job was left, which the ended rule reads
    if rule.attribute == "employer" and positive and not ended and _LEFT.search(clause[max(0, m.start() - 24):m.start()]):
        return None
    if rule.attribute in ("alcohol", "smoking"):
        value = rule.attribute
    if rule.attribute == "diet":
        value = _FOOD_KIND.get(value.lower(), value)  # a glass of wine, a beer: the slot is whether one drinks at all
    if rule.thing:
        thing = groups.get("t") or ""
        subject = normalise_subject(re.sub(r"['’]s$", "", thing))
        # a person's pronoun in the phrase ("I recently", "It's still a work") makes it no thing's name
        said = {re.sub(r"['’](?:s|m|re|ve|d|ll)$", "", w) for w in re.findall(r"[\w'’]+", thing.lower())}
        if not subject or subject == ME or subject.split()[-1] in _KIN or subject.split()[-1] in _PEOPLE \
                or set(subject.split()) & (_FIRST | _NOT_SUBJECTS | _PRONOUNS) \
                or said & ({"i", "we", "it"} | _SECOND | _PRONOUNS):
            return None
    elif rule.speaker:
        subject = ME
    else:
        # a pronoun's person is named before it: the subject reads the text up to the match
        subject = _subject(groups.get("s"), clause[:m.start()], text if at < 0 else text[:at + m.start()], speaker_is)
        if subject is None:
            return None
    raw_q = (groups.get("q") or "").strip() or context_q
    if rule.attribute == "reading":
        raw_q = "book club" if re.search(r"\bbook club\b", text, re.I) else ""
        subject = ME
    qualifier = rule.qualifier or _qualifier(rule.attribute, raw_q, value, clause)
    named = not rule.thing and subject != ME and _written_as_name(subject, text)
    return SlotClaim(subject, rule.attribute, value, positive, ended, qualifier, named)


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
#: words that put the value in the past: held once, no longer
_FORMER = re.compile(r"(?<!\bget )(?<!\bgot )(?<!\bgets )(?<!getting )(?<!\bam )(?<!\bis )(?<!\bare )(?<!\bwas )"
                     r"(?<!\bwere )(?<!['’]m )(?<!['’]re )\bused\s+to\b|\b(?:my|our|his|her|their)\s+(?:old|former|previous|last)\b", re.I)
#: a home, a job or a role in the simple past ("worked at", "lived in"): one held before
_HELD = {"home", "employer", "role"}
#: a purpose right after a value ("for coding", "for note-taking"): what a tool is used for
_PURPOSE = re.compile(r"\s+for\s+(?:[a-z]+-)?[a-z]+ing(?=\s*(?:[.!?,;]|$)|\s+(?:now|again|instead|at|on|in|these)\b)",
                      re.I)
_PAST = re.compile(r"(?<!\bhave )(?<!\bhas )(?<!['’]ve )\b(?:worked|lived|resided)\b", re.I)
#: a question's opening word: what it asks about is not said to hold
_ASKING = re.compile(r"(?:do|does|did|am|is|are|was|were|have|has|had|should|could|would|can|will|shall|may|might|"
                     r"must|who|what|where|when|which|why|how)\b", re.I)


def _asks(clause: str, text: str, at: int) -> bool:
    """Whether `clause` is a question that opens with an auxiliary or a question word ("Do I
    still live in Austin?"; not "You moved to Denver, right?"). `at`: where `clause` stands in `text`."""
    return at >= 0 and text[at + len(clause):].lstrip("\"'”’) ").startswith("?") and bool(_ASKING.match(clause))


_BOUNDARY = re.compile(r",|\b(?:but|and|so|because|though|although)\b", re.I)
_NEGATED = re.compile(r"(?:\b(?:no longer|not|never)|n['’]t)\s+(?:\w+ly\s+)?$", re.I)
_LEFT = re.compile(r"\b(?:" + _LEAVE + r")\s+$", re.I)


_PEOPLE = {"people", "parent", "kid", "child", "friend", "family", "folk", "neighbor", "neighbour", "guy", "team"}
_PRONOUNS = {"he", "she", "they", "his", "her", "their", "him", "them"}


def _subject(found: str | None, before: str, text: str, speaker_is: str | None) -> str | None:
    phrase = (found or "").strip()
    # the auxiliaries the subject group swallowed are not part of it
    phrase = re.sub(r"(?:\s+(?:just|finally|recently|now|also|still|currently|officially|actually|have|has|had|'ve|"
                    r"’ve|'s|’s|am|'m|’m|is|are|was|were|got|will|be|been))+$", "", phrase, flags=re.I).strip()
    if re.fullmatch(r"[A-Z][a-z]+\s+and\s+I", phrase):
        return ME
    low = phrase.lower().replace("’", "'")
    words = low.split()
    # "you" is the other party; "It", "Been", "Hoping" open a clause naming no one
    if words and (words[0] in _SECOND or phrase[:1].isupper() and _no_one(words[0]) and not _opener(words[0])):
        return None
    if not phrase or (phrase[:1].isupper() and _opener(words[0])) or words[0] in ("the", "a", "an"):
        return _clause_subject(before, text, speaker_is)
    if low in _PRONOUNS:
        return _antecedent(text)
    if words[0] in _FIRST and len(words) == 1:
        return ME
    # "Ravi's new job" -> "ravi"; "Kevin's wife" -> "kevin wife"
    possessive = re.match(r"([A-Z][a-z]+)['’]s\b\s*(\w+)?", phrase)
    if possessive:
        name = possessive.group(1).lower()
        if possessive.group(2) and possessive.group(2).lower() in _KIN:
            return f"{name} {_KIN[possessive.group(2).lower()]}"
        return ME if speaker_is and name == speaker_is.lower() else name
    if words[0] in ("my", "our", "his", "her", "their"):
        if len(words) == 1:
            return ME if words[0] in ("my", "our") else _antecedent(text)
        return normalise_subject(phrase)
    if phrase[:1].isupper():
        if words[0] in _KIN:
            return _KIN[words[0]]
        name = normalise_subject(phrase)
        return ME if speaker_is and name == speaker_is.lower() else name
    return _clause_subject(before, text, speaker_is)


def _clause_subject(before: str, text: str, speaker_is: str | None) -> str | None:
    """The subject of a clause whose verb has none right before it: the first person, kin, name
    or noun phrase that opens the clause or a part of it after a comma or "and" ("Ingrid ended
    things ... and is seeing Felipe" -> ingrid); else me."""
    for part in re.split(r",\s*|\s+(?:and|but|so|then)\s+", before):
        tokens = re.findall(r"[\w'’-]+", part)
        if not tokens:
            continue
        word, low = tokens[0], tokens[0].lower().replace("’", "'")
        if low in _FIRST and low not in ("my", "our"):
            return ME
        if low in _SECOND or word[:1].isupper() and _no_one(low) and not _opener(low):
            return None
        if low in ("his", "her", "their", "he", "she", "they"):
            return _antecedent(text)
        if low in ("my", "our", "the"):
            rest, named = [], False
            for token in tokens[1:]:
                if token.lower() in _VERBISH or named and not token[:1].isupper():
                    break  # "my brother works at Google and ...": the phrase ends at its verb
                rest.append(token)
                named = named or token.lower() in _KIN or token[:1].isupper()
            if not rest:
                return ME if low != "the" else ME
            if rest[0].lower() in _KIN and len(rest) == 1:
                return _KIN[rest[0].lower()]
            subject = normalise_subject(" ".join(rest))
            return ME if subject.split()[-1] in _HOUSEHOLD else subject
        if low in _NUMBER_WORDS:
            return None
        if word[:1].isupper() and not _opener(low) and low not in _MONTH_WORDS and low not in _KIN:
            name = re.sub(r"'s$", "", low)
            return ME if speaker_is and name == speaker_is.lower() else name
    return ME


#: the other party: what "you" did or holds is theirs, not the speaker's nor a named person's
_SECOND = {"you", "your", "yours", "yourself", "you're", "you've", "you'd", "you'll", "y'all", "ya"}
#: capitalised words that open a clause as its subject but name no person: a pronoun of a
#: thing, an auxiliary of an elided subject ("Been playing long?"), a negated or contracted
#: verb ("Don't ever quit"), a gerund ("Networking plays a big role")
_THING_PRONOUNS = {"it", "it's", "its", "this", "that", "these", "those", "there", "everything", "something",
                   "nothing", "anything", "everyone", "someone", "nobody", "anyone", "everybody", "somebody"}
_AUXILIARIES = {"be", "been", "being", "is", "are", "was", "were", "am", "do", "does", "did", "have", "has", "had",
                "can", "could", "will", "would", "should", "must", "may", "might", "shall", "gonna", "wanna"}


def _no_one(word: str) -> bool:
    """Whether a clause-opening `word` (lower-cased, written capitalised) is no one's name:
    a thing's pronoun, an auxiliary, a contraction ("don't", "couldn't") or a gerund."""
    return word in _THING_PRONOUNS or word in _AUXILIARIES or "'" in word and not word.endswith("'s") \
        or len(word) > 5 and word.endswith("ing")


def _opener(word: str) -> bool:
    """Whether a clause-opening `word` (lower-cased) is a word like "Honestly" or "Recently"
    that comes before the clause's subject, if it names one."""
    return word in _NOT_SUBJECTS or re.search(r"(?:ent|ant|al|est|ous|ate|ite|ful|ive|ible|able)ly$", word) is not None


_VERBISH = {"is", "are", "was", "were", "has", "have", "had", "got", "will", "just", "now", "still", "finally",
            "picked", "moved", "went", "did", "does", "do", "can", "could", "would", "should", "also", "really"}
_HOUSEHOLD = {"kid", "child", "children", "family", "household", "we"}
_NUMBER_WORDS = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "both", "all",
                 "some", "most", "many", "few", "several"}
_MONTH_WORDS = set(_MONTHS.split("|")) | {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                                          "sunday"}


#: capitalised words that open a clause but name nobody
_NOT_SUBJECTS = {"after", "before", "since", "then", "now", "finally", "honestly", "lately", "update", "correction",
                 "please", "thanks", "sadly", "luckily", "unfortunately", "apparently", "anyway", "also", "actually",
                 "heads", "just", "so", "today", "yesterday", "turns", "well", "oh", "ok", "okay", "yes", "no",
                 "good", "great", "small", "big", "quick", "fyi", "btw", "note", "reminder", "picked", "started",
                 "got", "had", "new", "these", "this", "that", "there", "here", "when", "while"}


def _antecedent(text: str) -> str | None:
    """The person a third-person pronoun of `text` (the text before the pronoun) stands for:
    the first sentence whose subject is a name or kin ("My brother moved to Oslo. He works at
    Equinor": he -> brother; "Kevin's wife ...": kevin wife), else the first person named ("I
    met Tom at Google. He ...": tom; "Kevin quit his job": kevin); None when no one is. A
    capitalised word right after a preposition or verb of place ("in Oslo", "at Google",
    "visited Rome") names a place or an organisation, never the person."""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        m = _SENTENCE_SUBJECT.match(sentence)
        if m is None:
            continue
        phrase = m.group("s")
        low = phrase.split()[0].lower()
        if low in _NOT_SUBJECTS or low in _FIRST - {"my", "our"} or low in _MONTH_WORDS or low in _PRONOUNS \
                or low in _SECOND or _no_one(low):
            continue
        if low in ("my", "our") and not any(w.lower() in _KIN for w in phrase.split()[1:]):
            continue
        possessive = re.match(r"([A-Z][a-z]+)['’]s\s+(\w+)", phrase)
        return f"{possessive.group(1).lower()} {_KIN[possessive.group(2).lower()]}" if possessive \
            else normalise_subject(phrase)
    # a run of capitalised words is one name (past an opener: "Yesterday Marco"), a place or an
    # organisation if a preposition of place comes before it
    names = []
    for m in re.finditer(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b", text):
        if _AT_PLACE.search(text[:m.start()]) or re.search(r"[.!?]\s+$", text[:m.start()]):
            continue  # a place, or a sentence's first word, which a capital does not make a name
        words = [w for w in m.group(0).split() if w.lower() not in _NOT_SUBJECTS and w.lower() not in _MONTH_WORDS]
        if words and words[0].lower() not in _FIRST and words[0].lower() not in _KIN \
                and words[0].lower() not in _PRONOUNS and words[0].lower() not in _SECOND \
                and not _no_one(words[0].lower()):
            names.append(words[0])
    return names[0].lower() if names else None


#: a sentence's subject before its verb: "My brother", "my sister Ana", "Kevin", "Ana Souza"
_SENTENCE_SUBJECT = re.compile(r"\s*(?P<s>(?:(?:[Mm]y|[Oo]ur)\s+(?:\w+\s+)?(?:" + _KIN_RE + r")(?:\s+[A-Z][a-z]+){0,2}"
                               r"|[A-Z][a-z]+['’]s\s+(?:" + _KIN_RE + r")|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+(?:\w+ly\s+)?[a-z]+(?:s|ed)?\b")
#: what ends right before a capitalised word that names a place or an organisation
_AT_PLACE = re.compile(r"\b(?:in|into|at|near|outside|across|around|visit|visits|visited|visiting|"
                       r"(?:work|works|worked|working)\s+for|"
                       r"(?:moved|moving|move|went|going|flew|flying|drove|driving|travell?ed|trip|relocated|"
                       r"headed|heading)\s+(?:back\s+)?to)\s+(?:the\s+)?$")


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
                 "electricity": "electric", "power": "electric", "therap": "therapist", "dermatolog": "dermatologist",
                 "psychiatr": "psychiatrist", "optometr": "optometrist", "clinic": "doctor"}.get(q, q)
        return " ".join(singular(w) for w in q.split())
    return ""


def _pruned(claims: list[SlotClaim]) -> list[SlotClaim]:
    """One claim per slot and value: the more specific reading wins (an ended or negated claim
    over a plain one of the same value)."""
    out: list[SlotClaim] = []
    for claim in claims:
        dup = next((c for c in out if c.key == claim.key and c.value.lower() == claim.value.lower()), None)
        if dup is None:
            out.append(claim)
        elif not claim.positive and dup.positive:
            out[out.index(dup)] = claim
    return out


# ============================================================================ questions
_ASK: tuple[tuple[str, re.Pattern[str], str], ...] = tuple((attr, re.compile(rx, re.I), q) for attr, rx, q in (
    ("home", r"\bwhere\s+(?:do|does|did)\s+.{0,30}?\b(?:live|stay|reside|based)\b|\b(?:which|what)\s+(?:city|town|"
             r"country|state|neighbou?rhood)\b.{0,30}\b(?:live|based|home)|\bwhere\b.{0,20}\b(?:home|based)\b", ""),
    ("employer", r"\bwhere\s+(?:do|does|did)\s+.{0,30}?\bwork\b|\bwho\s+(?:do|does)\s+.{0,30}?\bwork\s+for\b|"
                 r"\b(?:employer|which company|what company)\b", ""),
    ("role", r"\b(?:job title|title|role|position|occupation|profession)\b|\bwhat\s+(?:do|does)\s+.{0,30}?\bdo\s+"
             r"(?:for\s+(?:work|a living)|professionally)\b|\bwhat\s+is\s+.{0,20}\bjob\b", ""),
    ("manager", r"\b(?:manager|boss|supervisor|report to)\b", ""),
    ("partner", r"\b(?:dating|seeing|boyfriend|girlfriend|partner|husband|wife|spouse|married to|together with|"
                r"relationship)\b", ""),
    ("marital_status", r"\b(?:married|engaged|divorced|single|wedding)\b", ""),
    ("diet", r"\b(?:vegan|vegetarian|pescatarian|keto|diet|eat meat|eat fish|eat dairy)\b", ""),
    ("alcohol", r"\b(?:drink|alcohol|wine|beer|sober)\b", ""),
    ("smoking", r"\bsmok\w*|vap\w*\b", ""),
    ("allergy", r"\ballerg\w*|\breaction\b", ""),
    ("phone", r"\bphone\s+number|\bcell\s+number|\bmobile\s+number|\bnumber\b.{0,15}\bcall\b", ""),
    ("email", r"\be-?mail\b", ""),
    ("address", r"(?<!email )(?<!e-mail )\baddress\b", ""),
    ("car", r"\b(?:car|vehicle|drive)\b", ""),
    ("device", r"\bwhat\s+(?:phone|smartphone)\b|\bphone\s+(?:do|does)\b|\bwhich\s+phone\b", ""),
    ("provider", r"\b(?:dentist|doctor|gp|therapist|pediatrician|vet|accountant|lawyer|landlord|landlady|hairdresser|"
                 r"barber|dermatologist|psychiatrist|trainer|provider|carrier|internet|insurance)\b", "auto"),
    ("bank", r"\bbank\w*\b|\bcredit union\b", ""),
    # "attend" alone asks about an event as often as a school ("When did John attend the trivia?")
    ("school", r"\bschool\b|\bacademy\b|\b(?:college|university|kindergarten|preschool|daycare)\b.{0,30}\battend|"
               r"\battend\w*\b.{0,30}\b(?:college|university|kindergarten|preschool|daycare)\b", ""),
    # "what kind of" asks about a pet only when it names an animal ("What kind of soup ...?" does not)
    ("pet", r"\bpets?\b|\bwhat\s+(?:animal|(?:kind|breed|type)\s+of\s+(?:animal|dog|cat|bird|fish|reptile|snake"
            r"|lizard|rabbit|hamster|puppy|kitten))\b", ""),
    ("name", r"\b(?:my|our|the|his|her)\s+(?P<t>(?:\w+\s+)?\w+)['’]s\s+name\b", "named"),
    ("favourite", r"\b(?:favou?rite|fave|go-to|best)\s+(?P<q>[\w -]{2,30}?)(?:\?|$|\s+(?:these days|now|right now|lately|"
                  r"in town)\b)", "group"),
    ("order", r"\border\b", "order"),
    ("language", r"\b(?:programming\s+)?language\b.{0,30}\b(?:use|for|write|code)\b|\bwhat\s+language\s+do\b", ""),
    ("languages", r"\blanguages?\b.{0,20}\bspeak\b|\bspeak\b", ""),
    ("activity", r"\b(?:hobby|hobbies|for fun|free time|spare time|sport|pastime|weekends?)\b", ""),
    ("frequency", r"\bhow\s+(?:often|many times|many days)\b", "activity"),
    ("bedtime", r"\b(?:bed|sleep|bedtime)\b", ""),
    ("waketime", r"\b(?:wake|get up)\b", ""),
    ("when", r"\b(?:when|what time|what day|which day|how early|how late)\b", "thing"),
    ("due", r"\b(?:due|deadline|move out|out of the)\b", "thing"),
    ("status", r"\b(?:status|how far along|progress|state of|done yet|shipped|finished)\b", "thing"),
    ("amount", r"\b(?:how much|cost|" + _SUMS + r")\b", "thing"),
    ("count", r"\bhow many\b", ""),
    ("goal", r"\b(?:goal|training for|race)\b", ""),
    ("reading", r"\b(?:reading|book club)\b", ""),
    ("coworker", r"\b(?:coworker|colleague|teammate)\b", ""),
    ("children", r"\b(?:kids|children|sons|daughters)\b", ""),
))
_ASK_SUBJECT = re.compile(
    r"\b(?:my|our)\s+(?:\w+\s+)?(?P<kin>" + _KIN_RE + r")(?:\s+(?P<kname>(?-i:[A-Z][a-z]+)))?|"
    r"(?P<name>(?-i:[A-Z][a-z]+))(?:['’]s)?\b", re.I)
_QUESTION_WORDS = {"what", "where", "who", "which", "when", "how", "is", "are", "do", "does", "did", "can", "am",
                   "i", "my", "our", "the", "a", "whats", "what's", "where's", "who's", "tell", "remind", "have", "has"}


def asked(question: str) -> tuple[SlotKey, ...]:
    """The slots a question asks about: ("Where do I work?" -> (me, employer)); a question
    that asks about no slot of the catalogue may ask about an open one ("What browser do I
    use?" -> (me, np:browser))."""
    if not isinstance(question, str):
        raise TypeError(f"question must be str, not {type(question).__name__}")
    subject = _asked_subject(question)
    keys: list[SlotKey] = []
    for attribute, rx, how in _ASK:
        m = rx.search(question)
        if not m:
            continue
        if how == "named":
            keys.append(SlotKey(normalise_subject(m.group("t")), attribute))
            if m.group("t").split()[-1].lower() in _KIN:
                keys.append(SlotKey(ME, _KIN[m.group("t").split()[-1].lower()]))
            continue
        if how == "thing":
            thing = _asked_thing(question)
            if thing:
                keys.append(SlotKey(thing, attribute))
            continue
        qualifier = ""
        if how == "group":
            qualifier = _qualifier("favourite", m.group("q"), "", "")
        elif how == "order":
            qualifier = "coffee" if _DRINKS.search(question) else ""
        elif how == "auto":
            qualifier = _qualifier("provider", m.group(0), "", "")
        elif attribute in _QUALIFIER_WORDS:
            qualifier = _qualifier(attribute, question, "", question)
        who = subject
        if attribute in ("partner", "coworker", "manager", "provider") and who in _KIN.values():
            who = ME
        keys.append(SlotKey(who, attribute, qualifier))
    if not keys:
        # an open slot (worlddb.extract.open_slots): "What browser do I use?", "What is the wifi password?"
        keys += [SlotKey(c.subject, c.attribute, c.qualifier) for c in asked_open(question, _animate())]
    return tuple(dict.fromkeys(keys))


def _asked_subject(question: str) -> str:
    for m in _ASK_SUBJECT.finditer(question):
        if m.group("kname"):
            return m.group("kname").lower()
        if m.group("kin"):
            return _KIN[m.group("kin").lower()]
        name = m.group("name")
        if name and name.lower() not in _QUESTION_WORDS and name.lower() not in _NOT_SUBJECTS \
                and m.start() > 0 and name.lower() not in _KIN:
            return name.lower()
    return ME


def _asked_thing(question: str) -> str:
    """The thing a when/due/status question names: "When is the grant proposal due?" -> "grant proposal"."""
    q = re.sub(r"[?!.]+$", "", question.strip())
    for rx in (r"\bwhen\s+(?:are|do|is|will)\s+(?:we|I)\s+(?:going|flying|leaving|heading|travel+ing|off)\s+(?:to\s+)?"
               r"(?P<p>.+)$",
               r"\b(?:move out|be out|moving out)\b(?P<me>)",
               r"\b(?:status|state)\s+of\s+(?:the\s+|my\s+|our\s+)?(?P<t>.+)$",
               r"\bhow\s+far\s+along\s+is\s+(?:the\s+|my\s+|our\s+)?(?P<t>.+)$",
               r"\b(?:when|what time|what day|which day)\s+(?:is|are|was|does|do)\s+(?P<t>.+?)(?:\s+(?:due|start|"
               r"happen|meet|scheduled|booked|set|planned))?$",
               r"\bhow\s+much\s+is\s+(?P<t>.+)$",
               r"\b(?:what|how\s+much)(?:['’]s|\s+is|\s+was)\s+(?P<t>(?:my|our|the|his|her)\s+(?:monthly\s+|yearly\s+|"
               r"annual\s+)?(?:" + _SUMS + r"))\b",
               r"\b(?:what|which)\s+(?P<t>.+?)\s+(?:is|are)\b"):
        m = re.search(rx, q, re.I)
        if m:
            if m.groupdict().get("p"):
                return normalise_subject(m.group("p") + " trip")
            if m.groupdict().get("me") is not None:
                return ME
            return normalise_subject(m.group("t"))
    return ""


def slot_words(keys: Iterable[SlotKey]) -> set[str]:
    """The attribute names of `keys` (for logs and tests)."""
    return {k.attribute for k in keys}
