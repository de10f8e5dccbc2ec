"""The slot reader's rule table: one pattern to a way of saying a slot's value.

Contract: ``_RULES`` is a tuple of ``_Rule``s, each an attribute of the catalogue
(worlddb.extract._slot_catalogue) and a compiled pattern whose group ``v`` is the value, ``s``
(when present) the subject right before the verb, ``t`` a named thing, ``q`` a qualifier and
``r`` a role the value must be an occupation for, ``o`` another value the same check must pass
(the other place of "moved from Chicago to Denver"), with a check on the two together (``pair``). A rule also says whether its claim is
negated or ended, a check on the value (``accept``: ``_place``, ``_org``, ``_occupation``, ...),
a pattern the whole text must hold (``context``) or must not (``unless``), and whether the
subject is fixed (``thing``, ``speaker``). Rules read patterns and lexicons
(worlddb.extract._slot_words), never particular sentences, and a rule that is unsure reads
nothing. The table is data plus the pure checks it names: matching, subjects and irrealis are
worlddb.extract._slot_reader's, and which rules can match a text is
worlddb.extract._slot_prefilter's. Order matters: claims come in clause, then rule order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from worlddb.extract import given_names, lexicon, places
from worlddb.extract._slot_words import (
    _ALCOHOL,
    _CAR_MAKES,
    _CAR_MODELS,
    _DATE,
    _DELIVERABLES,
    _DIETS,
    _DRINKS,
    _EVENTS,
    _FIRST,
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
    corporate,
)


@dataclass(frozen=True)
class _Rule:
    attribute: str
    pattern: re.Pattern[str]
    positive: bool = True
    ended: bool = False
    #: the subject when the rule fixes it (the rule's `t` group names a thing otherwise)
    thing: bool = False
    #: the thing a rule with `thing` names itself, where the text names it by a verb ("I make
    #: $110k a year": the salary)
    fixed: str = ""
    #: check on the value; a rule whose value fails it reads nothing
    accept: object = None
    qualifier: str = ""
    #: a pattern the whole text must contain for the rule to apply; its group 1 (if any) is the qualifier
    context: re.Pattern[str] | None = None
    #: the claim is the speaker's whatever the clause opens with (the context says "my ...")
    speaker: bool = False
    #: a pattern whose presence anywhere in the text keeps the rule from applying
    unless: re.Pattern[str] | None = None
    #: check on the value and the other one (`o`) together; a rule whose two fail it reads nothing
    pair: object = None
    #: check on the subject a rule with `thing` names (its normalised `t`); a rule whose thing fails it reads nothing
    names: object = None
    #: one more value of a list, matched where the value before it ends (its group ``v``): each
    #: value of "not vegetarian or pescatarian" is a claim of the same reading
    more: re.Pattern[str] | None = None


class _Lazy:
    """A rule's pattern (case-insensitive), compiled the first time a text is matched against it:
    a process that never reads slots (the command line's `auth`, `identity`, `export`) never
    compiles the table, about half a second of CPU, and the prefilter reads a pattern's literals
    (worlddb.extract.literals.required: `pattern`, `flags`) without compiling it. Everything else
    (`finditer`, `search`, `groupindex`, ...) is the compiled pattern's."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str):
        self.pattern, self.flags, self._compiled = pattern, re.I | re.U, None

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern, compiled now if it was not (two threads may both compile it:
        the same pattern either way)."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, re.I)
        return self._compiled

    def __getattr__(self, name: str):
        return getattr(self.compiled(), name)


def _rx(pattern: str) -> re.Pattern[str]:
    return _Lazy(pattern)  # type: ignore[return-value]  # a re.Pattern in all but when it is compiled


# Who: a subject right before the verb, as a named group `s` (optional: a rule that finds none
# takes the clause's subject, see _clause_subject).
# (the speaker or a person named with a relative of theirs is one subject: "I and my wife", "Tom and his wife")
_SUBJ = (r"(?:(?:I|me)\s+and\s+(?:my|our)\s+(?:\w+\s+)?(?:" + _KIN_RE + r")"
         r"|(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?\s+and\s+(?:his|her|their)\s+(?:\w+\s+)?(?:" + _KIN_RE + r")"
         r"|I|we|he|she|they|you|(?:my|our|his|her|their)\s+(?:\w+\s+)?(?:" + _KIN_RE + r")(?:\s+(?-i:[A-Z][a-z]+))?"
         r"(?:\s+and\s+(?:his|her|their)\s+(?:" + _KIN_RE + r"))?"
         r"|(?-i:[A-Z][a-z]+)['’]s\s+(?:" + _KIN_RE + r")|(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?)")
_AUX = (r"(?:just|finally|recently|now|also|still|currently|officially|actually|really|usually|always|normally"
        r"|have|has|had|['’]ve|['’]d|['’]s|['’]m|['’]re|am|is|are|was|were|got|will|['’]ll|be|been|started|starting"
        r"|began|begun)")
# (the verb after it begins a word: "play" is no verb in "screenplay", nor "is" in "this")
_S = r"(?:(?P<s>\b" + _SUBJ + r")(?:\s+|(?=['’]))(?:" + _AUX + r"\s+)*)?\b"
_BE = r"(?:(?:am|['’]m|is|['’]s|are|['’]re|was|were|been|be)\s+)?"
_VAL = r"(?P<v>.{1,80})"
#: where a role said beside a name ends its phrase ("Marcus, my manager since May"; not "Marcus, my
#: manager wants ...", whose role is the subject of a verb)
_APPOSITION_END = r"(?=\s*(?:[,.;:!?)]|$|\s[-–—]\s|(?:since|for|at|from|now|these days)\b))"
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
#: what an event is for, before its noun ("dentist appointment", "parent-teacher meeting"): one to three
#: words, none a preposition, a time, a word for how many or what size, or a possessive ("a doctor's
#: appointment" is an appointment, as "my doctor's appointment" reads)
_EVENT_FOR = (r"(?:(?!(?:on|at|for|in|with|every|this|next|another|other|new|quick|short|long|big|little|second|few"
              r"|couple)\b)[\w-]+\s+){1,3}?")
#: a day with its hour, either first ("Monday at 2pm", "March 3 at 10am", "2pm on Monday")
_CLOCK = r"(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2}|noon)"
_DAY_AND_HOUR = (r"(?:" + _CLOCK + r"\s+on\s+(?:" + _DATE + r")|" + _TIME + r"|(?:" + _DATE + r")(?:,?\s+at\s+" + _CLOCK
                 + r")?)")
#: the thing a verb of calling off takes, up to the end of its clause ("I cancelled my dentist appointment, ...")
_CALLED_OFF_THING = (r"(?P<t>(?:my|our|the|this|next|that)\s+" + _THING_WORDS + r"[\w'’-]+)"
                     r"(?=\s*(?:[,.;!?]|$|\s(?:for|on|this|next|because|due|and|but|so|until)\b))")
#: a thing said to be called off, after its name: "is cancelled", "got called off", "was scrapped", "is off"
_CALLED_OFF_PASSIVE = (r"(?:is|['’]s|are|was|were|has\s+been|have\s+been|got|just\s+got)\s+(?:now\s+|officially\s+|just\s+)*"
                       r"(?P<v>cancel+ed|called\s+off|scrapped|off)(?=\s*(?:[,.;!?]|$|\s(?:now|because|due|and|but|so"
                       r"|for\s+(?:now|good))\b))")
#: an organisation: a name, or a noun phrase after an article ("a big firm", "the hospital")
_ORG = r"(?P<v>(?:(?:a|an|the)\s+[\w'’ -]{2,40}|(?-i:[A-Z0-9]).{0,60}))"
#: what a skill learnt is when it is no name: crafts, instruments, sports and a few verbs of skill
_SKILLS = (r"(?:guitar|piano|violin|viola|cello|drums|ukulele|saxophone|sax|flute|trumpet|harp|banjo|clarinet|bass"
           r"|chess|pottery|photography|calligraphy|woodworking|knitting|crochet|sewing|coding|programming|painting"
           r"|drawing|cooking|baking|dancing|salsa|tango|ballet|swimming|surfing|skiing|sailing|climbing|boxing|fencing"
           r"|archery|sign language|code|program|cook|bake|knit|sew|draw|paint|sing|dance|swim|surf|ski|skate|sail"
           r"|climb|box|fence|juggle)\b(?:\s+(?:guitar|lessons|classes))?")
#: what "gave up on" is never an activity: a person, a thing said, a plan
_NOT_AN_ACTIVITY = {"him", "her", "them", "it", "me", "us", "you", "that", "this", "everything", "life", "hope",
                    "people", "love", "men", "women", "dating", "idea", "plan", "plans"}
#: words in -ing after "love" or "enjoy" that are no pastime ("I love the morning", "I enjoy everything")
_NOT_GERUNDS = {"thing", "everything", "anything", "nothing", "something", "morning", "evening", "spring", "king",
                "ring", "wedding", "building", "being", "feeling", "meeting", "ending", "beginning", "opening",
                "setting", "clothing", "thanksgiving", "timing", "sibling", "darling", "pudding"}
_NOT_ACTIVITIES = {"learning", "studying", "eating", "drinking", "having", "using", "going", "getting", "working",
                   "seeing", "dating", "taking", "making", "doing", "looking", "thinking", "trying", "feeling", "living", "saving",
                   "paying", "planning", "ordering", "sleeping", "waking", "wearing", "spending", "moving",
                   "driving", "selling", "buying", "renting", "talking", "texting", "calling", "wondering",
                   "considering", "sending", "writing", "watching", "listening", "coming", "leaving", "staying"}

#: what a stopped one does that is no pastime: "I stopped using the inhaler", "stopped taking
#: lisinopril" (a medicine), "stopped seeing my therapist" (what one gave up doing for a pastime,
#: "stopped going to yoga", "quit writing poetry", is one)
_NOT_STOPPED = _NOT_ACTIVITIES - {"learning", "studying", "going", "doing", "making", "writing", "watching", "listening",
                                  "driving"}
#: the word classes (Penn tags) of a first word after "stopped", "quit" or "left" that make the
#: verb a stop or a departure, not a thing given up: "stopped by Sam's", "stopped to think", "left
#: for Paris", "stopped off", "left there"
_STOP_NOT_GIVEN_UP = frozenset({"IN", "TO", "RB", "RP", "EX", "WRB", "CC"})
#: words of other classes after those verbs that say when or how one stopped or left, not what
_STOP_WHEN = frozenset({"early", "late", "short", "home", "today", "tonight", "yesterday", "suddenly"})


def _stopped_to(value: str) -> bool:
    """Whether `value`, read after "stopped", "quit" or "left", says where, why or when one stopped
    or left (`_STOP_NOT_GIVEN_UP`, `_STOP_WHEN`) rather than what one gave up."""
    first = value.split()[0]
    return first.lower() in _STOP_WHEN or first[:1].islower() and lexicon.tag(first) in _STOP_NOT_GIVEN_UP


#: what one goes out "-ing" to that is no pastime ("go shopping", "things go missing")
_NOT_OUTINGS = {"shopping", "missing", "according", "nothing", "something"}
#: up to three words before the one that names a class or a club, none of them a function word
_CLASS_WORDS = r"(?:(?!(?:at|for|with|in|of|to|from|on|and|but|or|that|which|who|where)\b)[\w'’-]+\s+){0,3}?"
#: words before "class" or "club" that name no pastime ("a new class", "the evening class")
_NOT_CLASSES = {"new", "another", "first", "second", "next", "last", "online", "evening", "morning", "night", "weekly",
                "local", "free", "one", "this", "that", "same", "other", "extra", "private", "group", "math", "english",
                "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekend"}
#: a subject that says a habit or a change of its own right before its verb ("I", "User", "my
#: sister"; "I've", "we just"), never a plan ("I'll", "I'd") or no one ("Let's")
_NOW = (r"(?P<s>\b" + _SUBJ + r")(?:\s+|(?=['’]))(?:(?:just|finally|recently|now|also|currently|actually|really"
        r"|have|has|['’]ve|am|are|['’]m|['’]re)\s+)*\b")


def _place_in(chunk: str) -> str:
    """A place named near the start of a lower-case phrase: "a small town outside Leeds" -> "Leeds",
    past the street a home is on ("a flat on Elm Street in Portland" -> "Portland")."""
    m = re.match(r"(?:[a-z][\w'-]*\s+){1,6}?(?:(?:on|off)\s+(?-i:(?:[A-Z][\w'’.-]*\s+){1,4}))?"
                 r"(?:outside|near|in|of|by|just outside|north of|south of|east of|west of)\s+"
                 r"(?-i:([A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3}))", chunk)
    return m.group(1) if m else ""


#: a person moving from a place: the verb, and "from" before the place left
_MOVED_FROM = (r"(?:moved|moving|move|relocated|relocating|relocate)(?:\s+(?:back|over|away|all\s+the\s+way))?"
               r"\s+from\s+")
#: a place's name as a move names it: up to four capitalised words ("Salt Lake City")
_PLACE_NAME = r"(?-i:[A-Z])[\w'’.-]*(?:\s+(?-i:[A-Z])[\w'’.-]*){0,3}"
#: what a move of a tool, a service or a system is about: no home is left or taken
_NOT_A_MOVE = _rx(r"\b(?:apps?|tools?|platforms?|stack|editor|ide|software|services?|provider|plan|accounts?|repo"
                  r"|repository|codebase|database|servers?|cloud|workflow|framework|library|browser|laptop|phone"
                  r"|hosting|deploy\w*|migrat\w*)\b")


#: a word written as a product's name is, with a capital inside it ("GitHub", "WhatsApp", "MySQL"; not
#: a place's "McAllen", "DeKalb", "LaSalle")
_PRODUCT_SHAPED = re.compile(r"(?-i:[A-Z][a-z]{2,}[A-Z]|[a-z][A-Z]{2,})")


def _moved_place(value: str) -> bool:
    """Whether `value` names a place a person moves from or to: a name one could move to
    (`_moved_to_name`: a place, no programming language, not written as a product's, "GitHub
    Actions"), and neither one common word written capitalised ("Slack", "Teams", "Go") nor an
    acronym ("AWS")."""
    words = value.split()
    if not _moved_to_name(value) or re.fullmatch(r"[A-Z0-9]{2,}", words[0]):
        return False
    return len(words) > 1 or not lexicon.is_common(words[0])


#: the verbs of a move, and the word that may follow one ("moved back to", "relocating over to")
_MOVED = r"(?:moved|moving|move|relocated|relocating|relocate)(?:\s+(?:back|over|out|down|up|away))?"
#: words that say a move is a person's to a new home, whatever the place is called
_A_HOME = _rx(r"\b(?:apartment|flat|house|condo|townhouse|home|new place|neighbou?rhood|lease|rent|renting|rented"
              r"|landlord|roommates?|flatmates?|city|town|village|suburbs?|borough|movers|packing|unpacking"
              r"|relocat\w*)\b")


#: a part of a software system a move is made for ("We moved to Vue for the frontend", "moved to
#: Jenkins for our builds"): the move is a tool's, whatever the name it moves to
_SOFTWARE_PART = (r"\bfor\s+(?:(?:the|our|my|all|its|their)\s+)?(?:new\s+)?(?:[\w-]+\s+)?"
                  r"(?:front[- ]?end|back[- ]?end|ui|api|apis|ci|cd|ci/cd|builds?|tests?|testing|deploys?|deployments?"
                  r"|hosting|database|db|storage|logging|logs|monitoring|metrics|analytics|auth|state|styling|styles"
                  r"|servers?|infra|infrastructure|stack|bundling|linting|formatting|monorepo|repo|codebase"
                  r"|pipelines?|queues?|caching|cache|cluster|services?|app|apps|website|site|docs|mobile"
                  r"|dashboards?|alerting|tracing|observability|errors|error tracking|tickets|issues|chat|wiki)"
                  r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:and|now|too|instead|last|this|since|because|as|so|at|in|on|with|from)\b)")
#: such a purpose later in the sentence a match stands in
_SOFTWARE_AFTER = r"[^.!?;]*" + _SOFTWARE_PART
_NOT_FOR_SOFTWARE = r"(?!" + _SOFTWARE_AFTER + r")"


def moved_home(value: str, text: str) -> bool:
    """Whether a move to `value`, said in `text`, is to a new home: a place the word list or the
    gazetteer knows (`_moved_to_place`), or another name in a text that says it is a home
    (`_A_HOME`: "I moved to Marfa, into a little house"); "We moved to Buildkite" is a tool's, and
    so is a move made for a part of a software system, unless the text says it is a home ("We
    moved to Vue for the frontend"). The extractor asks it of its lives_in facts
    (worlddb.extract.builtin), the rules below of theirs."""
    if _A_HOME.search(text) is not None:
        return _moved_to_name(value)
    return _moved_to_place(value) and not _rx(r"\bto\s+" + re.escape(value) + _SOFTWARE_AFTER).search(text)


def _moved_to_place(value: str) -> bool:
    """Whether `value`, moved to, is a place one lives in: a place (`_place`), no programming
    language and no name written as a product's, and a name the gazetteer holds (places.is_place:
    "Lagos", "Accra", "DC") or the word list knows as a proper noun (`_known_name`: "North Austin",
    "NYC", "England"). Of the names the gazetteer lacks, one that is also a common word is no
    place ("We moved to Slack", "... to Linear", "... to Rails"), nor is one with a number in it
    ("We moved to Vue 3"): both are how tools are named, and so is one with a word of software
    in it (`_NOT_A_MOVE`: "Grafana Cloud", "Jira Server")."""
    if not _moved_to_name(value):
        return False
    if places.is_place(value):
        return True
    if _school(value):
        return False  # a school moved to ("Alba moved up to Northgate Secondary") is no home
    words = value.split()
    if (len(words) == 1 and lexicon.is_common(value)) or any(w[:1].isdigit() for w in words) \
            or _NOT_A_MOVE.search(value):
        return False
    return _known_name(value)


def _moved_to_name(value: str) -> bool:
    """Whether `value` could be a place moved to, whatever it is called: a place (`_place`) that
    is no programming language ("We moved to Rust") and not written as a product's name
    ("GitHub Actions")."""
    return _place(value) and value.split()[0].lower() not in _LANGUAGES and not _PRODUCT_SHAPED.search(value)


def _known_name(value: str) -> bool:
    """Whether a capitalised word of `value` is a proper noun the lexicon knows: the name of a
    place, a person or a company that was in print ("Chicago", "Bozeman", "Jenkins"), where the
    names of tools and apps newer than the list are not ("Vim", "Neovim", "Emacs", "Figma")."""
    return any(lexicon.tag(w) in ("NNP", "NNPS") for w in value.split() if w[:1].isupper())


def _moved_between_places(value: str, other: str) -> bool:
    """Whether a move from one of `value`, `other` to the other is a person's between two places:
    one of them is a name the lexicon knows (`_known_name`); a move between two names it knows
    neither of ("from Vim to Neovim") is a tool's, whose names it lacks."""
    return _known_name(value) or _known_name(other)


def _place(value: str) -> bool:
    if not value or not value[0].isupper() or "@" in value or corporate(value):
        return False
    low = value.lower()
    # nor a date or a time ("The project deadline moved to April 2", "standup moved to Monday 9am")
    return not re.fullmatch(rf"(?:{_WEEKDAYS}|{_MONTHS}|\d.*|noon|midnight|morning|evening|afternoon)", low) and \
        low.split()[0] not in ("i", "my", "our") and not _has_time(value)


_ORG_NOUNS = set("""
firm company startup start-up hospital clinic school bank bakery restaurant store shop agency lab studio nonprofit
non-profit university college factory warehouse cafe hotel consultancy charity church library museum gym salon farm
newspaper magazine publisher airline brewery winery pharmacy garage plant mill mine practice office corporation
business chain supermarket hospice nursery daycare bar pub kitchen firm's dealership
""".split())


#: the kinds of organisation one works for, of those one may also visit or belong to: "quit the
#: clinic" leaves a job, where "quit the choir" gives up a pastime
_WORKPLACES = (_ORG_NOUNS - {"gym", "church", "library", "museum", "bar", "pub", "kitchen", "firm's"}) | {"service"}
#: those that "left" leaves as a job ("left the company"); one leaves a hospital, a shop or the
#: office every day
_LEFT_JOBS = {"firm", "company", "startup", "start-up", "agency", "consultancy", "corporation", "service", "nonprofit",
              "non-profit", "newspaper", "magazine", "publisher", "airline"}


def _brand(value: str) -> bool:
    """A medicine's brand name: no word of the language ("Symbicort", "Zyrtec"; not "Spanish", "French")."""
    return bool(value) and lexicon.tag(value) in (None, "NNP") and not lexicon.is_common(value.lower())


def _org(value: str) -> bool:
    # "3M" and "7-Eleven" are names; "555 222 3333" is a number, never an organisation
    if not value or not re.search(r"[^\W\d_]", value):
        return False
    if value[0].isupper() or value[0].isdigit():
        return True
    words = value.lower().split()
    return words[-1] in _ORG_NOUNS or words[0] == "own"


#: what a time after a verb begins with ("divorced in May", "broke up last week")
#: a day named as the one something happened on: what was done then was done once ("took the train
#: to work today"), not as a habit
_ONE_DAY = _rx(r"\b(?:today|tonight|yesterday|this (?:morning|afternoon|evening)|last night|for once)\b")
_WHEN_WORDS = (r"(?:in|on|at|last|this|after|before|since|during|over|yesterday|today|tonight|recently|earlier|back"
               r"|years?|months?|weeks?|days?|a\s+(?:while|year|month|week|few))")


#: the endings of a specialist's title: an anaesthesiologist, a paediatrician, a podiatrist, a sonographer
_SPECIALIST = re.compile(r"(?:ologist|ician|iatrist|iatrician|ographer)s?$")


#: words that name no pastime where one could stand ("I do it every Monday", "Everything is on Mondays",
#: "I have class on Tuesdays": a bare class or meeting is no one thing)
_NO_PASTIME = {"it", "this", "that", "these", "those", "which", "what", "who", "mine", "yours", "his", "hers", "ours",
               "theirs", "everything", "something", "nothing", "anything", "everyone", "someone", "one", "each", "both",
               "all", "work", "stuff", "things", "meeting", "meetings", "call", "calls", "class", "classes", "lesson",
               "lessons", "session", "sessions", "appointment", "appointments", "sync", "practice", "training", "off",
               "more", "less", "overtime", "shifts", "time", "fun", "plans", "home", "out", "there", "here", "back",
               "away", "in", "up", "down", "over", "on", "a", "an", "the", "my", "our", "to"}


def _pastime(thing: str) -> bool:
    """Whether `thing` (a subject key) may name a pastime kept on a weekday: one word, no pronoun or
    word for things at large, nor a word that names no pastime in -ing ("going", "morning"), nor a
    person's given name ("Tom is on Mondays") unless it is a gerund ("Irving" is none)."""
    if not re.fullmatch(r"[a-z][\w-]*", thing) or thing in _NO_PASTIME or thing in _NOT_ACTIVITIES \
            or thing in _NOT_GERUNDS or thing in _NOT_OUTINGS:
        return False
    return thing.endswith("ing") and lexicon.is_common(thing) or not given_names.is_given_name(thing)


def _name(value: str) -> bool:
    return bool(value) and value[0].isupper() and value.split()[0].lower() not in _FIRST


def _occupation(value: str) -> bool:
    words = value.lower().replace("-", " ").split()
    return bool(words) and (words[-1].rstrip("s") in _OCCUPATIONS or _SPECIALIST.search(words[-1]) is not None) \
        and all(w in _TITLE_WORDS or w.isalpha() for w in words)


def _has_time(value: str) -> bool:
    return bool(re.search(_TIME, value, re.I) or re.search(_DATE, value, re.I))


#: an hour written as a bare number after "at", "to", "by" or "around", ending the clause ("standup moved
#: to 10", "I'm asleep by 10")
_HOUR = r"(?:[01]?\d|2[0-3])(?::[0-5]\d)?"
_BARE_HOUR = (r"(?:(?<=\bat\s)|(?<=\bto\s)|(?<=\bby\s)|(?<=\baround\s))" + _HOUR
              + r"(?=\s*(?:$|[.!?,;])|\s+(?:now|instead|these days|lately|recently|from now on|going forward)"
                r"\s*(?:$|[.!?,;]))")


def _has_time_or_hour(value: str) -> bool:
    return _has_time(value) or re.fullmatch(_HOUR, value) is not None


#: an age in years, in digits or words
_UNITS = r"one|two|three|four|five|six|seven|eight|nine"
_AGE = (r"(?:1[0-1]\d|\d{1,2}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:" + _UNITS + r"))?"
        r"|" + _UNITS + r"|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)")


def _an_age(value: str) -> bool:
    return bool(value) and (not value[0].isdigit() or int(value.split()[0]) > 0)


def _has_date(value: str) -> bool:
    return bool(re.search(_DATE, value, re.I))


def _school(value: str) -> bool:
    return bool(value) and value[0].isupper() and bool(set(value.lower().split()) & _SCHOOL_WORDS)


def _car(value: str) -> bool:
    """A car's name: a make in it ("2015 Honda Civic"), a model said alone ("Civic"), or a
    Tesla's "Model 3"."""
    words = value.lower().split()
    return any(w in _CAR_MAKES or w in _CAR_MODELS for w in words) or \
        bool(re.match(r"model [3sxy]\b", value.lower()))


def _not_school(value: str) -> bool:
    return _org(value) and not _school(value)


#: how much of a diet one keeps ("a strict vegetarian", "mostly vegan", "a lifelong vegetarian")
_DIET_DEGREE = r"(?:(?:strict|strictly|full|fully|mostly|completely|mainly|lifelong|committed|proud|total|pretty much)\s+)*"

#: the kinds of employer a company may be named after ("a small fintech called Brightpath")
_EMPLOYER_KINDS = r"company|firm|startup|start-up|fintech|agency|consultancy|studio|bank|lab|scale-?up|nonprofit|charity"
#: a team named by the words before "team" ("the payments team", "the Core Platform team")
_TEAM = r"(?P<v>(?:[\w&+-]+\s+){1,3}?team)\b"
#: words of a team one plays in, not one works in
_SPORTS = frozenset("""sport sports soccer football basketball baseball softball hockey volleyball rugby cricket tennis netball
lacrosse swim swimming track debate chess trivia bowling darts polo water rowing cheer cheerleading dance
relay varsity jv school college university national olympic league pub quiz""".split())
_SPORTS_RE = "|".join(sorted(_SPORTS))
#: the words that end a device's model name ("a Pixel 6a at the moment", "an iPhone 13 for work")
_AFTER_MODEL = r"(?:at|in|on|for|with|and|but|or|now|these|since|last|this|from|to|as|because)\b"


def _work_team(value: str) -> bool:
    """A team one works in: its name holds no word of a sport, a school team or a league."""
    words = value.lower().replace("-", " ").split()
    named = words[:-1] if words and words[-1] == "team" else words
    return bool(named) and not any(w in _SPORTS for w in words) \
        and not any(w in ("new", "same", "other", "whole", "entire", "old", "a", "an", "the") for w in named)


#: what a sum of money is ("my rent is $1,800", "what is my budget?")
_SUMS = r"rent|salary|mortgage|pay|wage|allowance|budget|premium|tuition|car payment|fee|fees|dues|price"
#: a sum of money: "$1,800", "£90k", "3000 dollars", "4,000 euros"
_MONEY = r"(?:[$€£]\s?[\d,.]+k?|\d[\d,.]*k?\s*(?:dollars|bucks|euros|pounds|usd|eur|gbp)\b)"

#: the people someone goes to for a service (a provider's qualifier)
_CARERS = (r"dentist|doctor|gp|physician|therapist|pediatrician|paediatrician|vet|veterinarian|accountant|lawyer|"
           r"attorney|hairdresser|barber|dermatologist|psychiatrist|counsel+or|landlord|landlady|trainer|optometrist|"
           r"ob-?gyn|cardiologist|chiropractor|mechanic|realtor|nanny|babysitter|tutor")

#: whose a carer is: the speaker's, a pronoun's, a relative's ("my sister's dentist") or a name's ("Biscuit's
#: vet", "Tom's dentist"); a day's or a month's is no one's ("Monday's doctor")
_OWNER = (r"(?:(?:my|our|his|her)(?:\s+(?:" + _KIN_RE + r")['’]s)?|(?!(?:today|tonight|tomorrow|yesterday|"
          + _WEEKDAYS + r"|" + _MONTHS + r")['’])(?-i:[A-Z][a-z]+)['’]s)")

#: events one trains for
_RACES = (r"marathon|half[- ]marathon|half|race|triathlon|ultra|ironman|10k|5k|century|fondo|trek|competition"
          r"|tournament|meet")
#: after a contact given: it is the one to use from now on
_FROM_NOW = (r"(?=\s+(?:from\s+now\s+on|going\s+forward|instead|now|from\s+here\s+on|for\s+(?:me|everything|now\s+on))"
             r"\b)")
#: leaving a job or a place: the verbs of an ended employer
_LEAVE = r"quit|quitting|left|leaving|leave|resigned\s+from|lost"
#: a job sought, offered or refused, not held ("I applied for a job at Google", "turned down a job at ...")
_NOT_HELD = (r"appl(?:y|ied|ying)|interview\w*|offered|declin\w+|turned|reject\w*|refused|consider\w*|hop(?:e|ed|ing)"
             r"|look\w*|search\w*|want\w*|dream\w*|wish\w*")
#: what a text that ends a pet by its name alone must speak of
_PET_CONTEXT = re.compile(r"\b(?:" + _PETS + r"|pets?|vet|rainbow bridge|put down)\b", re.I)
#: a named thing dropped for another one gets ("I quit Spotify and got Apple Music"): a product or a
#: service given up, not a job ("... and got a job at Apple" is one)
_TOOK_UP = re.compile(r"\b(?:quit|quitting|left|cancel+ed|dropped|ditched)\s+(?-i:[A-Z])[^,;.]{0,40}?\s+and\s+"
                      r"(?:got|bought|signed\s+up\s+for|subscribed\s+to|switched\s+to|went\s+with|picked\s+up)\s+"
                      r"(?!(?:a|an|the|my|his|her|their)\s+(?:new\s+)?(?:job|offer|position|role|gig|contract)\b)", re.I)
#: a group that reads a book together, of the speaker's or named by its article, and the verb of what it reads now
_GROUP_READS = _rx(r"(?P<t>\b(?:my|our|the)\s+(?:(?!(?:is|are|was|now)\b|[\w-]+['’]s\b)[\w'’-]+\s+)?(?:book\s+club|book\s+group"
                   r"|reading\s+group|reading\s+circle|class))\s+(?:is|are|['’]s)\s+(?:(?:now|currently|still|finally"
                   r"|also)\s+)*(?:re)?reading\s+")
#: a title written with capitals, the short words of a title between them ("Klara and the Sun", "The Name of the Wind")
_TITLE = (r"(?:(?-i:[A-Z][\w'’.-]*)(?:\s+(?:(?-i:of|and|the|a|an|in|on|to|for|at|with|from|&)\s+)*"
          r"(?-i:[A-Z][\w'’.-]*))*)")
#: a title in quotes
_QUOTED_TITLE = r"(?:[\"'“‘][^\"'”’]{1,80}[\"'”’])"
#: a name, taken whole (a shorter one is not tried), with no object after it
#: a medicine's name by the ending most generic drug names share (lisinopril, metoprolol,
#: atorvastatin, amlodipine, omeprazole, sertraline ...), or one of the few common ones without it;
#: never a month or a day, whose name may end so ("My marathon is on April 20": the marathon's time)
_DRUG = (r"(?P<v>\b(?!(?:" + _MONTHS + r"|" + _WEEKDAYS + r"|cholesterol)\b)(?:[a-z]+(?:terol|pril|olol|sartan|statin|dipine|formin|prazole|oxetine|traline|afil|pram|azepam|"
         r"zolam|codone|profen|thiazide|semide|cillin|mycin|cycline|floxacin|conazole|tidine|dronate|lukast|xaban|"
         r"farin|gliptin|glutide|triptan|setron|tadine|nisone|olone|thyroxine|pramine|tropin)|insulin|aspirin|"
         r"metformin|acetaminophen|paracetamol|warfarin|lithium|adderall|ozempic|wegovy|zoloft|prozac|lexapro|"
         r"xanax|tylenol|advil"
         # supplements, taken as a medicine is ("I take vitamin D 2000 IU", "I stopped taking magnesium")
         r"|vitamin\s+(?:[a-e]\d{0,2}|k2?)|fish oil|melatonin|magnesium|zinc|iron supplements?|calcium|omega-3s?|biotin"
         r"|folic acid|probiotics?"
         # a kind of medicine, named for what it treats ("She is on antibiotics", "I'm off antidepressants")
         r"|antibiotics|antidepressants|antihistamines|antivirals|steroids|blood\s+thinners|beta[- ]blockers|statins)\b)")
#: a device one takes or uses as a medicine, for a condition ("an albuterol inhaler", "my CPAP machine"), up to
#: two words before its noun that say which ("rescue inhaler"); never a clause's other nouns ("the bus", "VS Code")
_MEDICAL_DEVICE = (r"(?:(?:new|old)\s+)?(?P<v>(?:(?!(?:a|an|the|my|his|her|their|our|new|old|to|for|and|or|at|on|in)\b)[\w-]+\s+){0,2}?"
                   r"(?:inhalers?|epi-?pens?|nebuli[sz]ers?|c-?pap(?:\s+machine)?|bi-?pap(?:\s+machine)?|insulin\s+pump"
                   r"|(?:continuous\s+)?glucose\s+monitor|nasal\s+sprays?|eye\s+drops|nicotine\s+(?:patch(?:es)?|gum"
                   r"|lozenges)|hearing\s+aids?)\b)"
                   # (not one used for someone else: "a nebulizer for my son's asthma")
                   r"(?!\s+for\s+(?:my|our|his|her|their)\s+(?:" + _KIN_RE + r"|" + _PETS + r")\b)")
#: what one takes a medicine for: a condition, by its common name ("for my asthma", "for allergies")
_CONDITIONS = (r"asthma|allerg(?:y|ies)|hay\s+fever|migraines?|headaches|diabetes|blood\s+pressure|hypertension"
               r"|cholesterol|anxiety|depression|adhd|insomnia|sleep\s+apnea|acid\s+reflux|reflux|heartburn|arthritis"
               r"|eczema|psoriasis|acne|thyroid|epilepsy|seizures|copd|(?:back\s+|joint\s+|chronic\s+)?pain|nausea")
#: a medicine named as the qualifier of its dose ("lisinopril 10mg": q)
_DRUG_NAMED = _DRUG.replace("(?P<v>", "(?P<q>", 1)
#: how much of it: the value of a dose ("20mg", "2000 IU")
_DOSE_VALUE = r"(?P<v>\d+(?:[.,]\d+)?\s*(?:mg|mcg|µg|ml|units?|iu))\b"
#: the verbs by which one takes a medicine
_TAKING = (r"(?:take|takes|taking|started taking|am on|'m on|’m on|is on|are on|been on|started on|switched to|now on|"
           r"started|began|begun)\s+(?:now\s+)?")
#: a dose before a medicine's name ("20 mg of lisinopril")
_DOSE = r"(?:\d+(?:[.,]\d+)?\s*(?:mg|mcg|µg|g|ml|units?|iu)\s+(?:of\s+)?)?"
#: "I just finished", "Finished" opening a sentence, "finished rereading": before a title read
_FINISHED = (r"(?:\b(?:I|we)\s+(?:just\s+|finally\s+|recently\s+)?|(?:^|[.!;]\s+)(?:just\s+)?)"
             r"finished\s+(?:(?:re)?reading\s+)?")
_NAME_ALONE = (r"(?P<v>(?>(?-i:[A-Z][\w&'’.-]*)(?:\s+(?:(?:of|and|&)\s+)?(?-i:[A-Z][\w&'’.-]*))*))"
               r"(?!\s+(?:a|an|the|some|my|his|her|their|our|its|this|that|alone|him|them|me|us)\b)")
#: a stay that is no home ("I'm in Paris now for the conference", "moved my flight")
_OUTING_NOW = _rx(r"\b(?:trip|travel\w*|vacation|holiday|conference|visit\w*|flight|hotel|week|weekend|meeting"
                  r"|for work|moved (?:the|my|our))\b")
#: a trip, a move or a day's outing: one is at or leaves a place, not a job
_OUTING = _rx(r"\b(?:moved|moving|move|relocat\w*|flew|fly|flying|flight|drove|driving|trip|travel\w*|vacation"
              r"|holiday|visit\w*|tour|airport|terminal|gate|station|hotel|beach|park|waiting|queue|traffic|lunch"
              r"|dinner|breakfast|party|concert|show|game|early|late|tonight|for the day|for the weekend"
              r"|(?:at|around|by|before|after)\s+\d)\b")
#: a trip or outing, or a stay one does not work at ("I've been at St Mary's Hospital since Monday")
_OUTING_OR_STAY = _rx(_OUTING.pattern + r"|\b(?:hospital|clinic|hospice|rehab|ICU|ER|admitted|patient|surgery|sick|ill)\b")

#: "Kevin started a new job", "I finished rereading it": a status verb with an object says what
#: someone did, no thing's status ("the redesign is blocked waiting on legal" still is one)
_NO_OBJECT = (r"(?!(?:" + "|".join(f"(?<={w})" for w in ("started", "kicked off", "finished", "completed", "shipped",
                                                          "launched", "released", "canceled", "cancelled", "scrapped",
                                                          "approved", "rejected", "deployed", "rolled out",
                                                          "wrapped up", "done")) +
              r")\s+(?:a|an|the|my|our|his|her|their|its|this|that|these|those|some|another|[\w'’-]+ing)\b)")

#: "<who> started at <Name>": a named place started at
_STARTED_AT = _rx(r"(?:^|(?<=\band\s)|(?P<s>\b(?:I|we|he|she|they|(?-i:[A-Z][a-z]+)|(?:my|our)\s+(?:" + _KIN_RE
                  + r")))\s+(?:just\s+|finally\s+|officially\s+)?)(?:started|began)\s+at\s+(?=(?-i:[A-Z]))" + _ORG)
#: words that make a school started at a workplace
_JOB_AT_SCHOOL = _rx(r"\b(?:job|teach\w*|staff|hired|position|role|salary|colleagues?|head of|as an? [a-z]+)\b")


def _started_at(value: str) -> bool:
    return bool(value) and value[0].isupper() and not re.match(rf"(?:{_TIME}|{_DATE})", value, re.I)


_RULES: tuple[_Rule, ...] = (
    # ---- where someone lives
    _Rule("home", _rx(_S + r"(?:live|lives|living|lived|reside|resides|residing|based|settled)"
                      r"(?:\s+(?:back|over|out|down|up|away))?\s+(?:in|to|into)\s+" + _VAL), accept=_place),
    # a move to a place the word list or the gazetteer knows ("I moved to Lagos"), or to another name
    # where the text says it is a home ("We moved to Bexley, into a two-bed flat"), not a tool's
    # ("We moved to Buildkite", "We're moving to Kubernetes", "We moved to Vue for the frontend")
    _Rule("home", _rx(_S + _MOVED + r"\s+(?:in|to|into)\s+" + _NOT_FOR_SOFTWARE + _VAL), accept=_moved_to_place),
    _Rule("home", _rx(_S + _MOVED + r"\s+(?:in|to|into)\s+" + _VAL), accept=_moved_to_name, context=_A_HOME),
    # "I moved from Chicago to Denver": a person's move from one place to another, the new home and the
    # old one it ends (not "moved the meeting from Monday to Tuesday", "moved from Slack to Teams")
    _Rule("home", _rx(_S + _MOVED_FROM + r"(?P<o>" + _PLACE_NAME + r")\s+(?:to|into)\s+" + _VAL),
          accept=_moved_place, unless=_NOT_A_MOVE, pair=_moved_between_places),
    _Rule("home", _rx(_S + _MOVED_FROM + r"(?P<v>" + _PLACE_NAME + r")\s+(?:to|into)\s+(?P<o>" + _PLACE_NAME + r")"),
          positive=False, ended=True, accept=_moved_place, unless=_NOT_A_MOVE, pair=_moved_between_places),
    _Rule("home", _rx(r"(?P<s>\b(?:my|our)\s+)?(?:first|new)\s+(?:winter|summer|spring|fall|autumn|year|month|months"
                      r"|week|weeks|apartment|place|house|home|flat|neighbou?rhood)\s+in\s+" + _VAL), accept=_place),
    _Rule("home", _rx(r"(?P<s>\b(?:my|our)\s+)?(?:home|hometown|home base)\s+(?:for (?:me|us)\s+)?is\s+(?:now\s+)?"
                      r"(?:in\s+)?" + _VAL), accept=_place),
    _Rule("home", _rx(_S + r"(?:signed\s+(?:a|the)\s+lease\s+(?:on|for)\s+|bought\s+|closed on\s+|rented\s+|rent\s+|"
                      r"found\s+|moved into\s+)?(?:a|an|the|our|my)\s+(?:new\s+)?(?:\w+\s+)?(?:flat|apartment|house|"
                      r"condo|home|place|townhouse|studio)\s+in\s+" + _VAL), accept=_place,
          context=_rx(r"\b(lease|bought|moved|moving|relocat\w*|new|closed on|rent|keys)\b")),
    # "I'm in Leeds, renting a two-bed": a place one is in and lives in (not "I'm in Paris this week")
    _Rule("home", _rx(_S + r"(?:am|'m|’m|are|'re|’re)\s+(?:now\s+|currently\s+|still\s+)?in\s+(?P<v>(?-i:[A-Z])[\w'’.-]*"
                      r"(?:\s+(?-i:[A-Z])[\w'’.-]*){0,2}),?\s+(?:renting|living|sharing|settled|in\s+a\s+(?:flat|house"
                      r"|apartment|condo|studio))\b"), accept=_place),
    # "I'm in Berlin now, moved last spring": a place one is in now, where the text says one moved
    # there (not "I'm in Paris now for the conference")
    _Rule("home", _rx(_S + r"(?:am|'m|’m|are|'re|’re)\s+(?:now\s+|currently\s+)?in\s+(?P<v>(?-i:[A-Z])[\w'’.-]*"
                      r"(?:\s+(?-i:[A-Z])[\w'’.-]*){0,2})\s+now\b"), accept=_moved_to_place,
          context=_rx(r"\b(?:moved|relocated)\b"), unless=_OUTING_NOW),
    # ---- where someone works
    # (how one works may stand between: "works remotely for Brightline", "work from home for Acme")
    _Rule("employer", _rx(_S + r"(?:work|works|working|worked)\s+(?:(?:full[- ]time|part[- ]time|remotely|remote|hybrid"
                          r"|from\s+home|freelance|fully|mostly|currently|now|still)\s+){0,2}(?:at|for)\s+"
                          + _ORG), accept=_org),
    # "Priya moved to Umbrella Corp": a company one moves to is a job, by its name's suffix
    _Rule("employer", _rx(_S + r"(?:moved|moving|switched|jumped|went)\s+(?:over\s+)?to\s+" + _ORG), accept=corporate),
    # "I switched jobs to Globex", "changed jobs to Acme": the job is named, so any name is the employer
    _Rule("employer", _rx(_S + r"(?:switched|switching|changed|changing)\s+(?:my\s+)?jobs?\s+(?:over\s+)?to\s+" + _ORG),
          accept=_org),
    # (not "I quit my job at Dell": the words before "job" never leave it; not "Portland" in "moved to
    # Portland for a new job at Nike": a name after a preposition is a place, not the job's holder)
    _Rule("employer", _rx(r"(?<!\bto\s)(?<!\bin\s)(?<!\bat\s)(?<!\bfrom\s)(?<!\bfor\s)(?<!\bwith\s)(?<!\bof\s)"
                          r"(?<!\bnear\s)(?<!\bby\s)(?P<s>\b(?:I|we|he|she|they|(?:(?-i:[A-Z][a-z]+)'s|my|our|his|her|their)\s+(?:" + _KIN_RE
                          + r")(?:\s+(?-i:[A-Z][a-z]+))?(?:['’]s)?|(?-i:[A-Z][a-z]+)'s|my|our|his|her|their|"
                          r"(?-i:(?!(?:The|This|That|Our|My|Your|A|An|It|There|What|Which)\b)[A-Z][a-z]+)))\s+"
                          r"(?:(?!(?:" + _LEAVE + r"|" + _NOT_HELD + r")\b)\w+\s+){0,3}?"
                          r"(?:new\s+)?(?:job|position|role|gig|internship|residency|post)\s+(?:is\s+(?:now\s+)?)?(?:at|with)\s+"
                          + _ORG), accept=_org),
    # "I moved to Austin for a job with Dell", "we went to Denver for my new job at Ball": a job one moved
    # for (not "I applied for a job at Google", "looking for a job at Apple")
    _Rule("employer", _rx(r"\bfor\s+(?:(?P<s>my|his|her|their|our)\s+|a\s+)(?:new\s+)?(?:[\w-]+\s+)?"
                          r"(?:job|position|role|gig|internship)\s+(?:at|with)\s+" + _ORG), accept=_org,
          context=_rx(r"\b(?:moved|moving|relocated|relocating|came|went|flew|headed|left)\s+(?:back\s+|over\s+)?"
                      r"(?:to|here|there|out)\b")),
    _Rule("employer", _rx(_S + r"(?:started|start|starting|began|begin|finished)\s+(?:my\s+|his\s+|her\s+)?"
                          r"(?:first\s+(?:day|week|month)|new\s+job|a\s+new\s+job|work|working|a\s+job)\s+(?:at|with|for)\s+"
                          + _VAL), accept=_not_school),
    _Rule("employer", _rx(r"(?P<s>\b(?:my|his|her|their|(?-i:[A-Z][a-z]+)'s)\s+)first\s+(?:day|week|month)\s+(?:at|with)\s+"
                          + _VAL), accept=_not_school),
    # "First week at Monzo done. The onboarding ...": a sentence that opens with it, where the text
    # speaks of work (not "First day at Disneyland")
    _Rule("employer", _rx(r"(?:^|(?<=[.!?]\s))(?P<s>)(?:first\s+(?:full\s+)?(?:day|week|month)|(?:day|week|month)\s+"
                          r"(?:one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2}))\s+(?:at|with)\s+" + _ORG),
          accept=_org, context=_rx(r"\b(?:onboarding|team|manager|boss|colleagues?|co-?workers?|job|office|desk"
                                   r"|standup|payroll|new role|(?-i:HR)|pull requests?|(?-i:PRs?)|commits?|codebase"
                                   r"|sprint|on-?call|laptop|badge)\b")),
    _Rule("employer", _rx(_S + r"(?:got\s+)?(?:hired|employed|recruited|poached)\s+(?:at|by)\s+" + _VAL), accept=_org),
    # "... and got a job at Apple", "landed a position with Acme": a job taken, its subject the clause's
    _Rule("employer", _rx(_S + r"(?:got|landed|took|accepted|found)\s+(?:a|an|the)\s+(?:new\s+)?(?:[\w-]+\s+)?"
                          r"(?:job|position|role|gig|internship)\s+(?:at|with)\s+" + _ORG), accept=_org),
    _Rule("employer", _rx(_S + r"(?:joined|join|joining|accepted an offer (?:from|at|with))\s+" + _VAL),
          accept=lambda v: bool(v) and v[0].isupper(),
          context=_rx(r"\b(offer|hired|job|position|role|new team|onboarding|employer|company|start date|"
                      r"as an? [a-z]+|recruit\w*)\b|\b(?:" + _LEAVE + r")\s+(?-i:[A-Z])")),
    # "I joined a small fintech called Brightpath", "we work for an agency named Brightside": a company
    # named after the kind of employer it is; the name alone is the value
    _Rule("employer", _rx(_S + r"(?:joined|join|joining|started\s+at|(?:work|works|working|worked)\s+(?:at|for))\s+"
                          r"(?:a|an)\s+(?:[\w-]+\s+){0,2}?(?:" + _EMPLOYER_KINDS + r")\s+(?:called|named)\s+"
                          + _NAME_ALONE), accept=_org),
    # "I'm in the risk team at KPMG", "she works on the growth team at Monzo": the team's
    # company is the employer (a sports team's is none: "the volleyball team at Bristol Uni")
    _Rule("employer", _rx(_S + r"(?:am|'m|’m|is|'s|’s|are|'re|’re|was|work|works|working|worked)\s+"
                          r"(?:now\s+|currently\s+|still\s+)?(?:in|on)\s+(?:the|a|an)\s+(?:(?!(?:" + _SPORTS_RE + r")\b)"
                          r"[\w&+-]+\s+){1,3}?team\s+(?:at|with)\s+(?:the\s+)?" + _NAME_ALONE), accept=_not_school),
    # "Dad retired from Ford last month": the employer one retired from is left
    _Rule("employer", _rx(_S + r"(?:(?:has|have|had|just|finally)\s+)*retired\s+from\s+(?=(?-i:[A-Z]))" + _ORG),
          positive=False, ended=True, accept=_org),
    # "I got laid off last month", "I was let go": the job, wherever it was, is over (not "I fired
    # my assistant": only the passive, after its auxiliary; a named employer is the rule below's)
    _Rule("employer", _rx(_S + r"(?:(?<=\bgot\s)|(?<=\bget\s)|(?<=\bwas\s)|(?<=\bwere\s)|(?<=\bbeen\s))"
                          r"(?:laid\s+off|let\s+go|fired)\b(?!\s+(?:up|from|by)\b)(?P<v>)"),
          positive=False, ended=True, accept=lambda v: True),
    # "I quit Dell", "I got laid off from Dell": a named employer left, whatever else the text says
    # ("left" needs more: one leaves a city, a party, a person; see the two "left" rules below)
    _Rule("employer", _rx(_S + r"(?:quit|resigned\s+from|(?:laid\s+off|let\s+go|fired)\s+(?:from|by))\s+(?=(?-i:[A-Z]))"
                          + _ORG),
          positive=False, ended=True, accept=lambda v: bool(v) and v[0].isupper(), unless=_TOOK_UP),
    # "Anouk quit the clinic", "I left the company in May", "He's left the ambulance service": a
    # workplace left by its kind
    _Rule("employer", _rx(_S + r"(?:quit|resigned\s+from)\s+(?:the|my|our|his|her|their)\s+(?P<v>(?:[\w-]+\s+){0,2}?"
                          r"(?:" + "|".join(sorted(_WORKPLACES)) + r"))\b(?!\s+(?:at|on|in)\s+\d)"),
          positive=False, ended=True, accept=lambda v: True, unless=_TOOK_UP),
    _Rule("employer", _rx(_S + r"left\s+(?:the|my|our|his|her|their)\s+(?P<v>(?:[\w-]+\s+){0,2}?"
                          r"(?:" + "|".join(sorted(_LEFT_JOBS)) + r"))\b(?!\s+(?:at|on|in)\s+\d)"),
          positive=False, ended=True, accept=lambda v: True, unless=_TOOK_UP),
    # "I started at Stripe on Monday", "I quit Dell and started at Stripe": a named place started at;
    # a school started at is one only where the text speaks of a job there ("started at Westbrook
    # High as a teacher"; "Alba started at Northgate Secondary" is a pupil's school)
    _Rule("employer", _STARTED_AT, accept=lambda v: _started_at(v) and not _school(v)),
    _Rule("employer", _STARTED_AT, accept=lambda v: _started_at(v) and _school(v), context=_JOB_AT_SCHOOL),
    # "I left Dell and joined Apple": a name left, where the text also joins or starts somewhere
    _Rule("employer", _rx(_S + r"(?:" + _LEAVE + r")\s+" + _ORG), positive=False, ended=True,
          accept=lambda v: bool(v) and v[0].isupper(),
          context=_rx(r"\b(?:joined|joining|hired|offer|new job|start(?:ed|ing)? (?:at|with))\b"), unless=_TOOK_UP),
    # "I left Dell", "Left Dell after six years": a name left alone, with no object after it ("left Dell a
    # message") and no sign of a trip, a move or a day's outing in the text ("I left Paris and moved to Rome")
    _Rule("employer", _rx(_S + r"left\s+" + _NAME_ALONE), positive=False, ended=True, accept=_org, unless=_OUTING),
    # "I'm now at Stripe", "Tom is now at Google": a named place one is now at, said without a trip or an
    # outing ("I'm now at Heathrow, waiting for my flight" is not a job)
    _Rule("employer", _rx(r"(?P<s>\b(?:I|he|she|(?-i:[A-Z][a-z]+)|(?:my|our|his|her)\s+(?:" + _KIN_RE + r")))\s*"
                          r"(?:['’]m|am|['’]s|is)\s+now\s+(?:working\s+)?at\s+" + _NAME_ALONE),
          accept=lambda v: _org(v) and not re.match(rf"(?:{_TIME}|{_DATE})", v, re.I), unless=_OUTING),
    # "I switched jobs, I'm at Meta now": a named place one is at now, where the text says the job changed
    # (alone, "I'm at Costco now" is an errand)
    _Rule("employer", _rx(r"(?P<s>\b(?:I|he|she|(?-i:[A-Z][a-z]+)|(?:my|our|his|her)\s+(?:" + _KIN_RE + r")))\s*"
                          r"(?:['’]m|am|['’]s|is)\s+(?:working\s+)?at\s+" + _NAME_ALONE + r"(?=\s+now\b)"),
          accept=lambda v: _org(v) and not re.match(rf"(?:{_TIME}|{_DATE})", v, re.I), unless=_OUTING,
          context=_rx(r"\b(?:switched|changed|changing|switching|new|quit|left)\s+(?:my\s+|his\s+|her\s+)?"
                      r"(?:jobs?|employers?|companies|company|roles?|positions?)\b")),
    # "I've been at Stripe since January", "Tom has been at Google for six years": a named place one
    # has been at for a span of months or more, with no trip, outing or stay in hospital in the text
    _Rule("employer", _rx(r"(?P<s>\b(?:I|he|she|(?-i:[A-Z][a-z]+)|(?:my|our|his|her)\s+(?:" + _KIN_RE + r")))\s*"
                          r"(?:['’]ve|have|['’]s|has)\s+been\s+(?:working\s+)?at\s+" + _NAME_ALONE
                          + r"(?=\s+(?:since\b|for\s+(?:(?:" + _NUM_WORDS + r"|over|almost|nearly|about|a|many)\s+)*"
                          r"(?:years?|months?|decades?|ages|a\s+while)\b))"),
          accept=lambda v: _org(v) and not re.match(rf"(?:{_TIME}|{_DATE})", v, re.I), unless=_OUTING_OR_STAY),
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
    # "I work at Acme as a product manager", "I started at Stripe as a senior engineer", "joined Acme as a designer"
    _Rule("role", _rx(_S + r"(?:work|works|worked|working|started|starting|joined|joining|rejoined|(?:got\s+)?hired)"
                      r"\s+(?:(?:at|for|with|by)\s+)?(?:the\s+)?(?-i:[A-Z])[\w&'’.-]*(?:\s+(?:&\s+)?(?-i:[A-Z])[\w&'’.-]*)"
                      r"{0,3}\s+as\s+(?:an?\s+|the\s+|its\s+|their\s+)?" + _VAL), accept=_occupation),
    _Rule("role", _rx(_S + r"(?:am|'m|’m|is|['’]s|was|are|became|become|becoming)\s+(?:now\s+|officially\s+|currently\s+"
                      r"|finally\s+)?(?:an?\s+)" + _VAL), accept=_occupation),
    # "I just started a new job as a paramedic", "took a position as a line cook": the job taken
    _Rule("role", _rx(_S + r"(?:started|starting|got|took|taken|landed|accepted|began)\s+(?:a|an|my|the)\s+(?:new\s+)?"
                      r"(?:job|position|role|gig)\s+as\s+(?:an?\s+|the\s+)?" + _VAL), accept=_occupation),
    _Rule("role", _rx(_S + r"(?:got\s+)?promoted\s+to\s+" + _VAL), accept=lambda v: bool(v)),
    _Rule("role", _rx(r"(?P<s>\b(?:my|his|her|their|(?-i:[A-Z][a-z]+)'s)\s+)(?:new\s+)?(?:job title|title|role"
                      r"|position|job)\s+is\s+(?:now\s+)?" + _VAL),
          accept=lambda v: bool(v) and not re.match(r"(?:at|with|for)\b", v, re.I)),  # "job is at Intuit": an employer
    _Rule("role", _rx(r"(?P<s>\b(?:I|we|he|she|(?-i:[A-Z][a-z]+)|(?:my|our)\s+(?:" + _KIN_RE + r"))\s+(?:(?:just|"
                      r"finally|recently|officially|has|have|had|'s|’s|is|was|got)\s+)*)(?P<v>retired)\b(?!\s+(?:the|my|"
                      r"our|his|her|a|an|it|them|him))"), accept=lambda v: True),
    _Rule("role", _rx(r"(?P<s>\b(?:I|we|he|she|(?-i:[A-Z][a-z]+)|(?:my|our)\s+(?:" + _KIN_RE + r"))\s+(?:(?:just|"
                      r"finally|recently|now|also)\s+)*)(?P<v>teach(?:es)?\s+[\w ]{3,40}?)(?=[,.;!?]|$|\s+(?:at|to|for|"
                      r"in)\b)"), accept=lambda v: True),
    # ---- manager and other one-of-a-kind people
    # (the workplace may be named before "is": "My manager at Helio Health is Lena Park")
    # ("the team lead" is the speaker's team's, as "the CTO" is the speaker's company's; "the manager" may be a shop's)
    _Rule("manager", _rx(r"(?:(?P<s>\b(?:my|our|his|her)\s+)|\bthe\s+(?=(?:new\s+)?team lead\b))(?:new\s+)?"
                         r"(?:manager|boss|supervisor|team lead|line manager)"
                         r"(?:\s+(?:at|on)\s+(?-i:[A-Z])[\w&'’.-]*(?:\s+(?-i:[A-Z])[\w&'’.-]*){0,3}(?=\s+is\b))?"
                         r"\s+(?:is\s+(?:now\s+)?|will be\s+)?" + _VAL), accept=_name),
    _Rule("manager", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)),?\s+(?:who|that)\s+(?:just\s+)?(?:took over|is now|"
                         r"became|stepped in)\s+(?:as\s+)?(?P<s>my|our)\s+(?:new\s+)?(?:manager|boss|supervisor|team lead"
                         r"|line manager)"),
          accept=_name),
    _Rule("manager", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+(?:is|became|is now)\s+(?P<s>my|our)\s+"
                         r"(?:new\s+)?(?:manager|boss|supervisor|team lead|line manager)"), accept=_name),
    # "Jonas Weber took over as team lead from Marta": a new holder named first
    _Rule("manager", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+(?:has\s+|have\s+|just\s+)*(?:taken|took)\s+"
                         r"over\s+as\s+(?:(?P<s>my|our)\s+|the\s+)?(?:new\s+)?(?:manager|boss|supervisor|team lead"
                         r"|line manager)\b"), accept=_name),
    _Rule("manager", _rx(_S + r"(?:report|reports|reporting)\s+(?:directly\s+)?to\s+" + _VAL), accept=_name),
    # "Had my first one-on-one with Marcus, my manager since the reorg": a name and its role side by side,
    # the role ending its phrase (not "Marcus, my manager wants ...")
    _Rule("manager", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)),\s+(?P<s>my|our)\s+(?:new\s+)?(?:manager|boss"
                         r"|supervisor|team lead|line manager)" + _APPOSITION_END), accept=_name),
    # ---- partner and marital status
    _Rule("partner", _rx(r"(?P<s>\b(?:my|(?-i:[A-Z][a-z]+)'s|his|her)\s+)(?:new\s+)?" + _PARTNER_WORDS
                         + r",?\s+(?:is\s+)?" + _VAL), accept=_name),
    # "Sam is my boyfriend", "Daniel, my new boyfriend, cooked": a name (a full one: "Alex Reyes is my
    # partner"), then the role it holds
    _Rule("partner", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))(?:\s+is|,)\s+(?P<s>my)\s+(?:new\s+)?"
                         + _PARTNER_WORDS
                         + _APPOSITION_END), accept=_name),
    _Rule("partner", _rx(_S + r"(?:dating|seeing|going out with|together with|in a relationship with|engaged to"
                         r"|married to|with my (?:new )?(?:boyfriend|girlfriend|partner))\s+(?:(?:someone|a\s+(?:guy|girl"
                         r"|man|woman|person))\s+(?:named|called)\s+)?(?!(?:Dr|Doctor|Prof)\b)" + _VAL), accept=_name),
    _Rule("partner", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+and\s+(?P<s>I)\s+"
                         r"(?:have\s+been|are|'ve\s+been|got|were|just)\s+"
                         r"(?:together|dating|engaged|married|a couple)"), accept=_name),
    # (not "I got divorced in May": a time after the verb names no one)
    _Rule("partner", _rx(_S + r"(?:broke up with|split up with|split from|separated from|separating from|divorced|divorcing|ended things with"
                         r"|dumped)\s+"
                         r"(?!" + _WHEN_WORDS + r"\b)" + _VAL), positive=False, ended=True, accept=lambda v: True),
    _Rule("partner", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)['’]s)\s+|\bthe\s+)(?P<v>break-?up|divorce)\b"),
          positive=False, ended=True, accept=lambda v: True),
    _Rule("partner", _rx(r"(?P<s>\b(?:we|they|(?:(?-i:[A-Z][a-z]+)|my\s+" + _PARTNER_WORDS + r")\s+and\s+I))(?:\s+|(?=['’]))"
                         r"(?:(?:just|finally|have|['’]ve|got|now|officially)\s+)*"
                         r"(?P<v>broke up|split up|separated|divorced)\b"), positive=False, ended=True, accept=lambda v: True),
    # "I got divorced in May", "I've separated": the partner, whoever it was, is no longer one
    _Rule("partner", _rx(r"(?P<s>\bI)\s+(?:just\s+|finally\s+)?(?:got|have|['’]ve|had|['’]d)\s+(?:just\s+|finally\s+)?"
                         r"(?P<v>divorced|separated)(?=\s*(?:$|[.,;:!?)]|(?:and|but|so)\b|" + _WHEN_WORDS + r"\b))"),
          positive=False, ended=True,
          accept=lambda v: True),
    _Rule("marital_status", _rx(_S + r"(?:am|'m|’m|is|are|'re|’re|got|getting|were|just got)\s+(?:now\s+)?"
                                r"(?P<v>engaged|married|divorced|separated|single|widowed)\b"), accept=lambda v: True),
    _Rule("marital_status", _rx(r"(?P<s>\b(?-i:[A-Z][a-z]+)\s+and\s+I|\bwe)\s+(?:just\s+|finally\s+)?(?:got|are|"
                                r"'re|were)\s+(?P<v>engaged|married|divorced|separated)\b"), accept=lambda v: True),
    # ---- diet, drink, smoking
    _Rule("diet", _rx(_S + r"(?:am|'m|’m|is|are|'re|was|went|going|gone|became|become|stay|stayed)\s+(?:now\s+)?"
                      r"(?:an?\s+)?" + _DIET_DEGREE + r"(?P<v>" + _DIETS + r")\b"),
          accept=lambda v: True),
    # "I'm not vegan anymore", "my dad isn't vegetarian", "she's no longer vegan", "I'm not vegetarian or pescatarian"
    _Rule("diet", _rx(_S + r"(?:(?:am|['’]m|is|['’]s|are|['’]re)\s+(?:not|no longer)|isn['’]t|aren['’]t)\s+(?:an?\s+)?"
                      + _DIET_DEGREE + r"(?P<v>" + _DIETS + r")\b"), positive=False, accept=lambda v: True,
          more=_rx(r"(?:\s*,\s*(?:(?:or|nor)\s+)?|\s+(?:or|nor)\s+)(?:(?:an?|even)\s+)?" + _DIET_DEGREE
                   + r"(?P<v>" + _DIETS + r")\b")),
    # "I'm on a keto diet", "we started the paleo diet"; "I stopped being vegan", "I went off keto"
    _Rule("diet", _rx(_S + r"(?:am|'m|’m|is|are|'re|was|went|been|started|start|starting|began|tried)\s+(?:on\s+)?"
                      r"(?:a|an|the)\s+(?:strict\s+)?(?P<v>" + _DIETS + r")\s+diet\b"), accept=lambda v: True),
    _Rule("diet", _rx(_S + r"(?:stopped|quit|gave up|went off|came off|dropped)\s+(?:doing\s+|being\s+|eating\s+)?"
                      r"(?:the\s+|my\s+|a\s+)?(?P<v>" + _DIETS + r")\b"), positive=False, ended=True,
          accept=lambda v: True),
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
    # (not the state of one: "My cat allergy is gone" is the rule below's)
    _Rule("allergy", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:\w+\s+)?allerg(?:y|ies)\s+(?:is|are)\s+(?:to\s+)?"
                         r"(?!(?:gone|over|cured|better|worse|bad|mild|severe|fine|back|under control)\b)" + _VAL),
          accept=lambda v: bool(v)),
    # "My cat allergy is gone after the shots", "his peanut allergy is cured": that allergy ended
    _Rule("allergy", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?P<v>[a-z]+)\s+allerg(?:y|ies)\s+(?:is|are|has|have)\s+"
                         r"(?:(?:been|now|completely|totally|finally|basically)\s+)*(?:gone|over|cured|outgrown)\b"),
          positive=False, ended=True, accept=lambda v: bool(v)),
    # "the drug I react to is codeine", "What I'm actually allergic to is penicillin"
    _Rule("allergy", _rx(r"(?P<s>)\b(?:the\s+(?:drug|medication|medicine|food|thing)|what)\s+(?:I|we)\s+(?:(?:actually|really"
                         r"|only)\s+)?(?:react|am\s+(?:actually\s+|really\s+)?allergic|['’]m\s+(?:actually\s+|really\s+)?"
                         r"allergic)\s+to\s+is\s+" + _VAL), accept=lambda v: bool(v), speaker=True),
    _Rule("allergy", _rx(r"(?P<s>)(?P<v>\b[a-z]+)\s+(?:don't|doesn't|do not|does not|no longer)\s+(?:\w+\s+)?"
                         r"(?:bother|affect|trigger)\s+me\b"), positive=False, accept=lambda v: bool(v),
          context=_rx(r"\b(?:allerg|react|sneez|shots|symptom|hives|immun)")),
    # ---- medications: a drug known by its name's ending, a dose allowed before it
    _Rule("medication", _rx(_S + r"(?:take|takes|taking|started taking|am on|'m on|’m on|is on|are on|been on|"
                            r"started on|switched to|now on|started|began|begun)\s+(?:now\s+)?" + _DOSE + _DRUG), accept=lambda v: bool(v)),
    _Rule("medication", _rx(r"\b(?:put|started|switched|moved|changed)\s+me\s+(?:over\s+)?(?:on|to|onto)\s+" + _DOSE + _DRUG),
          accept=lambda v: bool(v), speaker=True),
    _Rule("medication", _rx(_S + r"(?:stopped taking|stopped|quit taking|no longer take|don't take|came off|"
                            r"am off|'m off|’m off|am no longer on|'m no longer on|’m no longer on)\s+(?:my\s+)?"
                            + _DRUG), positive=False, ended=True, accept=lambda v: bool(v)),
    _Rule("medication", _rx(r"\b(?:took|taken|weaned|switched)\s+me\s+off\s+(?:of\s+)?(?:my\s+)?" + _DRUG),
          positive=False, ended=True, accept=lambda v: bool(v), speaker=True),
    # "I take an albuterol inhaler", "User uses an inhaler for asthma", "I've been using a CPAP": a device taken
    # or used as a medicine; "I take Symbicort for my asthma": a medicine named for the condition it treats
    _Rule("medication", _rx(_S + r"(?:take|takes|taking|use|uses|using|started\s+(?:taking|using)|(?:have|has)\s+been\s+"
                            r"using|rely\s+on|relies\s+on|carry|carries)\s+(?:now\s+)?(?:(?:a|an|the|my|his|her|their)\s+)?"
                            + _MEDICAL_DEVICE), accept=lambda v: bool(v)),
    _Rule("medication", _rx(_S + r"(?:take|takes|taking|started\s+taking|am\s+on|['’]m\s+on|is\s+on|are\s+on|been\s+on)"
                            r"\s+(?:now\s+)?(?P<v>(?-i:[A-Z])[\w-]+(?:\s+(?-i:[A-Z])[\w-]+)?)\s+(?:daily\s+|every\s+day\s+)?"
                            r"for\s+(?:my|his|her|their|the)?\s*(?:" + _CONDITIONS + r")\b"), accept=lambda v: bool(v)),
    # "I stopped using the albuterol inhaler", "User no longer uses the inhaler": the device (or the
    # medicine, used) given up
    _Rule("medication", _rx(_S + r"(?:stopped\s+(?:using|taking|carrying)|stopped|quit\s+(?:using|taking)|no\s+longer"
                            r"\s+(?:use|uses|take|takes|need|needs|carry|carries)|don['’]t\s+(?:use|take|need)|gave\s+up"
                            r"|got\s+rid\s+of|(?:am|['’]m)\s+off)\s+(?:(?:my|the|his|her|their)\s+)?" + _MEDICAL_DEVICE),
          positive=False, ended=True, accept=lambda v: bool(v)),
    _Rule("medication", _rx(_S + r"(?:stopped\s+using|quit\s+using|no\s+longer\s+(?:use|uses|takes))\s+(?:my\s+)?"
                            + _DRUG), positive=False, ended=True, accept=lambda v: bool(v)),
    # "I stopped taking Symbicort": a medicine by its brand, a name no word of the language, taken no more
    _Rule("medication", _rx(_S + r"(?:stopped\s+taking|quit\s+taking|no\s+longer\s+(?:take|takes)|came\s+off|(?:am|['’]m)"
                            r"\s+(?:no\s+longer\s+on|off))\s+(?:my\s+)?(?P<v>(?-i:[A-Z])[\w-]+)(?=\s*(?:[,.;!?]|$|\s+(?:for|because"
                            r"|after|since|last|this|and|but|now|anymore|any\s+more|altogether|completely)\b))"),
          positive=False, ended=True, accept=_brand),
    # ---- how much of a medicine: "I take lisinopril 10mg", "I'm on 20mg of lisinopril", "my lisinopril
    # dose was increased to 20mg" (the medicine is the qualifier: one dose per medicine)
    _Rule("dose", _rx(_S + _TAKING + _DOSE_VALUE + r"\s+(?:of\s+)?" + _DRUG_NAMED)),
    _Rule("dose", _rx(_S + _TAKING + _DRUG_NAMED + r"\s+" + _DOSE_VALUE)),
    _Rule("dose", _rx(r"(?P<s>\b(?:my|our|his|her|their|(?-i:[A-Z][a-z]+)'s)\s+)" + _DRUG_NAMED
                      + r"\s+dose\s+(?:is|was|has been|got|just got|went|now)?\s*(?:now\s+)?"
                      r"(?:increased|raised|lowered|reduced|changed|upped|bumped|cut|dropped|doubled|halved|adjusted)?"
                      r"\s*(?:up\s+|down\s+|back\s+)?(?:to\s+)?" + _DOSE_VALUE)),
    # "My doctor bumped my Lexapro to 30mg": whose medicine says whose dose
    _Rule("dose", _rx(r"(?:increased|raised|lowered|reduced|changed|upped|bumped|cut|dropped|doubled|halved|adjusted)\s+"
                      r"(?P<s>\b(?:my|our|his|her|their)\s+)" + _DRUG_NAMED + r"(?:\s+dose)?\s+(?:up\s+|down\s+)?to\s+"
                      + _DOSE_VALUE)),
    # ---- contact details
    _Rule("phone", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)'s)\s+)(?P<q>(?:new\s+)?(?:\w+\s+)?)(?:phone|cell|"
                       r"mobile)(?:\s+number)?" + _PHONE_VALUE)),
    # a bare "number" or "line" is a phone's only with no qualifier or a phone's: "my order
    # number is 100-4482" is not
    _Rule("phone", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)'s)\s+)(?P<q>(?:new\s+)?(?:(?:" + _PHONE_KINDS
                       + r")\s+)?)(?:number|line)" + _PHONE_VALUE)),
    # "You can reach me at 555-0199", "call me on +44 20 7946 0958": the speaker's number
    _Rule("phone", _rx(r"(?P<s>)\b(?:reach|call|text|ring)\s+me\s+(?:on|at)\s+(?:my\s+(?:new\s+)?(?:number|cell|mobile|"
                       r"phone)\s+)?(?P<v>\+?\(?\d[\d\s().-]{6,}\d)"), speaker=True),
    _Rule("email", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)'s)\s+)(?P<q>(?:new\s+)?(?:\w+\s+)?)(?:e-?mail|email"
                       r" address|address)\b[^@]{0,60}?(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)")),
    _Rule("email", _rx(r"(?P<s>)(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"),
          context=_rx(r"\b(?:my|our)\s+(?:new\s+)?(work|personal|school|private|business|home|main)?\s*(?:e-?mail|address)"),
          speaker=True),
    # "reach me at ...", "send work stuff to ... - that's my inbox": where mail for the speaker goes
    _Rule("email", _rx(r"(?P<s>)\b(?:send|email|e-mail|mail|forward|reach|contact|write|message)\s+(?:me\s+|(?:[\w-]+\s+){1,2}?)?"
                       r"(?:at|to)\s+(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"), speaker=True,
          context=_rx(r"\b(?:me\s+(?:at|to)|my\s+(?:new\s+)?(?:\w+\s+)?(?:inbox|e-?mail))\b")),
    # "Please use alice@new.io from now on", "use 555-0199 instead": a contact the speaker gives for the future
    _Rule("email", _rx(r"(?P<s>)\b(?:use|switch\s+to)\s+(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)" + _FROM_NOW),
          speaker=True),
    _Rule("phone", _rx(r"(?P<s>)\b(?:use|switch\s+to)\s+(?P<v>\+?\(?\d[\d\s().-]{6,}\d)" + _FROM_NOW),
          speaker=True),
    # "New email: ana.k@globex.com", "Got a new work email: ...": a note that opens with a new address
    _Rule("email", _rx(r"(?P<s>)^(?:(?:update|fyi|btw|heads up|note)\s*[:,]?\s+)?"
                       r"(?:(?:I\s+|I['’]ve\s+)?(?:got|have|get)\s+a\s+)?new\s+(?:work\s+|personal\s+|private\s+)?"
                       r"e-?mail(?:\s+address)?\s*:\s*(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"), speaker=True),
    # "New number: 555-0199", "Update: new work cell: ...", "Got a new phone number: ...": a note that
    # opens with a new number is the speaker's
    _Rule("phone", _rx(r"(?P<s>)^(?:(?:update|fyi|btw|heads up|note)\s*[:,]?\s+)?"
                       r"(?:(?:I\s+|I['’]ve\s+)?(?:got|have|get)\s+a\s+)?new\s+(?P<q>(?:(?:" + _PHONE_KINDS
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
    _Rule("car", _rx(_S + r"(?:drive|drives|driving|drove|own|owns|bought|got|leased|leasing|picked up)\s+(?:(?:myself|"
                     r"himself|herself|themselves|ourselves)\s+)?(?:the\s+"
                     r"keys\s+to\s+)?(?:a|an|the|my|our|his|her)\s+(?:new\s+|used\s+|old\s+)?(?P<v>(?:\d{4}\s+)?"
                     r"(?-i:[A-Z])[\w-]*(?:\s+[\w-]+){0,2})"),
          accept=_car),
    # ("my Honda Civic is in the shop": the name's words are capitalised or a number, not "is")
    _Rule("car", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?P<v>(?:\d{4}\s+)?(?-i:[A-Z])[\w-]*"
                     r"(?:\s+(?-i:[A-Z0-9])[\w-]*){0,2})"),
          accept=lambda v: v.split()[0].lower() in _CAR_MAKES | _CAR_MODELS or (
              len(v.split()) > 1 and v.split()[0].isdigit() and v.split()[1].lower() in _CAR_MAKES | _CAR_MODELS)),
    _Rule("car", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?:car|vehicle|truck|suv|ride)\s+is\s+(?:now\s+)?"
                     r"(?:a|an|the)\s+(?:new\s+|used\s+|old\s+)?(?P<v>(?:\d{4}\s+)?(?-i:[A-Z])[\w-]*(?:\s+[\w-]+){0,2})"),
          accept=_car),
    _Rule("car", _rx(_S + r"(?:sold|totaled|totalled|crashed|got rid of|traded in|traded|gave away|scrapped)\s+(?:the|"
                     r"my|our|his|her)\s+(?:old\s+)?(?P<v>car|vehicle|truck|van|suv|(?-i:[A-Z])[\w-]+)\b"),
          positive=False, ended=True, accept=lambda v: True),
    # "Traded the old car in for a Mazda CX-5": what was taken in its place
    _Rule("car", _rx(_S + r"(?:traded|swapped)\s+(?:in\s+)?(?:the|my|our|his|her)\s+(?:old\s+)?[\w-]+(?:\s+in)?\s+for\s+"
                     r"(?:a|an|the)\s+(?:new\s+|used\s+)?(?P<v>(?:\d{4}\s+)?(?-i:[A-Z])[\w-]*(?:\s+(?!(?:last|this|next|on|in|at"
                     r"|for|to|with|and|yesterday|today)\b)[\w-]+){0,2})"),
          accept=_car),
    # "I use a Pixel 6a", "I'm on an iPhone 13 at the moment": the phone by its make
    _Rule("device", _rx(_S + r"(?:use|uses|using|have|has|got|bought|switched to|upgraded to|carry"
                        r"|(?:(?<=\bI\s)|(?<=\bI)['’])(?:am|m)\s+(?:now\s+|still\s+)?on)\s+(?:(?:a|an|the|my)\s+)?"
                        r"(?:new\s+)?(?P<v>(?-i:[A-Za-z]+)(?:\s+(?!" + _AFTER_MODEL + r")[\w+-]+){0,2})"),
          accept=lambda v: v.split()[0].lower() in _PHONE_MAKES),
    _Rule("device", _rx(r"(?P<s>\b(?:my|our)\s+)(?:new\s+)?(?P<v>(?-i:[A-Za-z]+)(?:\s+\d+\w*)?(?:\s+(?:Pro|Max|Plus|Ultra|"
                        r"Mini))?)\b"), accept=lambda v: v.split()[0].lower() in _PHONE_MAKES),
    # "My phone is an iPhone 12", "my new phone is a Pixel 8": the phone by its make (a carrier is a provider)
    _Rule("device", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?:phone|cell\s*phone|cell|mobile|smartphone)\s+is\s+"
                        r"(?:now\s+)?(?:a|an|the)\s+(?:new\s+)?(?P<v>(?-i:[A-Za-z]+)(?:\s+[\w+-]+){0,2})"),
          accept=lambda v: v.split()[0].lower() in _PHONE_MAKES),
    # "Swapped the Galaxy for a Fairphone 4": the phone taken in the old one's place
    _Rule("device", _rx(_S + r"(?:traded|swapped)\s+(?:in\s+)?(?:the|my|our|his|her)\s+(?:old\s+)?[\w-]+"
                        r"(?:\s+\d+\w*)?(?:\s+in)?\s+(?:for|with)\s+(?:a|an|the)\s+(?:new\s+|used\s+)?"
                        r"(?P<v>(?-i:[A-Za-z]+)(?:\s+[\w+-]+)?)"),
          accept=lambda v: v.split()[0].lower() in _PHONE_MAKES),
    # (not "Took the train to work today because of the snow": a way to work taken once)
    _Rule("commute", _rx(_S + r"(?:take|takes|took|taking|ride|rides|riding|catch|catching)\s+the\s+(?P<v>bus|train|"
                         r"subway|metro|tram|ferry|tube|light rail)\s+(?:in\s+)?to\s+(?:work|the office|school|campus)"),
          accept=lambda v: True, unless=_ONE_DAY),
    _Rule("commute", _rx(_S + r"(?:now\s+)?(?P<v>bike|bikes|biking|cycle|cycles|cycling|walk|walks|walking|drive|drives|"
                         r"driving|carpool|carpools|carpooling|run|runs|running|scooter|commute by \w+)\s+(?:in\s+)?to\s+"
                         r"(?:work|the office|school|campus)"), accept=lambda v: True, unless=_ONE_DAY),
    # "I commute by car", "we commute by train most days"
    _Rule("commute", _rx(_S + r"(?:commute|commutes|commuted|commuting|get to work|go to work)\s+(?:by|via|on)\s+(?:the\s+)?"
                         r"(?P<v>car|bike|bicycle|bus|train|subway|metro|tram|ferry|scooter|motorcycle|foot)\b"),
          accept=lambda v: True),
    _Rule("commute", _rx(r"(?P<s>)instead\s+of\s+(?:taking|riding|driving|catching)\s+the\s+(?P<v>bus|train|subway|metro|"
                         r"tram|ferry|car)"), positive=False, ended=True, accept=lambda v: True),
    _Rule("weight", _rx(_S + r"(?:weigh|weighs|weighed|am down to|'m down to|’m down to|am up to|'m up to|’m up to|"
                        r"'m at|am at|got down to|got up to|dropped to|hit)\s+(?:about\s+|around\s+|roughly\s+)?"
                        r"(?P<v>\d+(?:\.\d+)?\s*(?:pounds|lbs|lb|kg|kilos|kilograms|stone))")),
    # a note that opens with the weight reached: "Down to 78 kg now!"
    _Rule("weight", _rx(r"(?:^|(?<=[.!?]\s))(?P<s>)(?:down|up)\s+to\s+(?:about\s+|around\s+|roughly\s+)?"
                        r"(?P<v>\d+(?:\.\d+)?\s*(?:pounds|lbs|lb|kg|kilos|kilograms|stone))")),
    # ---- people and places one has one of
    # ("my primary care doctor", "our family dentist": up to two words before the carer)
    _Rule("provider", _rx(r"(?P<s>\b" + _OWNER + r"\s+)(?:\w+\s+){0,2}?(?P<q>" + _CARERS + r")\s+(?:is\s+(?:now\s+)?"
                          r"|will be\s+)(?:a\s+[\w\s]{0,40}?(?:called|named)\s+)?" + _VAL), accept=_name),
    # "Dr. Kim is my new doctor", "Dr. Kim, my new GP, ordered blood work": a doctor's name, then the role
    _Rule("provider", _rx(r"(?P<v>(?:Dr|Doctor)[.\u2024]?\s+(?-i:[A-Z])\w+(?:\s+(?-i:[A-Z])\w+)?)(?:\s+is|,)\s+"
                          r"(?P<s>" + _OWNER + r")\s+(?:new\s+)?(?:\w+\s+){0,2}?(?P<q>" + _CARERS + r")" + _APPOSITION_END),
          accept=_name),
    # "I found a new dentist, Dr. Kim", "we got a new vet: Dr Ruiz"
    _Rule("provider", _rx(_S + r"(?:found|got|have|picked|chose|switched\s+to)\s+(?:a\s+)?new\s+(?P<q>" + _CARERS
                          + r")\s*(?:[,:]\s*|\s+(?:called|named)\s+|\s[-–—]\s)" + _VAL), accept=_name),
    # "I stopped seeing Dr. Kim": a doctor one no longer sees, whatever kind
    _Rule("provider", _rx(_S + r"(?:stopped|quit)\s+(?:seeing|going to)\s+(?P<v>(?:Dr|Doctor)[.\u2024]?\s+(?-i:[A-Z])\w+"
                          r"(?:\s+(?-i:[A-Z])\w+)?)"), positive=False, ended=True, accept=_name),
    _Rule("provider", _rx(_S + r"(?:now\s+)?(?:see|sees|seeing|go to|goes to|switched to)\s+(?P<v>(?:Dr|Doctor)"
                          r"[.\u2024]?\s+(?-i:[A-Z])\w+(?:\s+(?-i:[A-Z])\w+)?)"), accept=_name,
          context=_rx(r"\b(dentist|dental|doctor|therap|vet|dermatolog|psychiatr|optometr|physician|gp|clinic)")),
    _Rule("provider", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?P<q>internet|broadband|wi-?fi|isp|phone|cell|"
                          r"mobile|electric(?:ity)?|power|gas|insurance|(?:health|car|auto|home|renters|life|pet)\s+(?:insurance|policy)|cable|tv|"
                          r"streaming)\s+(?:provider|company|carrier|plan|service)?\s*(?:is\s+(?:now\s+)?(?:(?:through|with"
                          r"|from|by)\s+)?|(?:through|with|from)\s+)" + _VAL),
          accept=lambda v: _org(v) and v.split()[0].lower() not in _PHONE_MAKES),
    _Rule("provider", _rx(_S + r"(?:switched|moved|changed|transferred|ported)\s+(?:our|my)\s+(?P<q>internet|broadband|"
                          r"phone plan|phone|cell|mobile|(?:(?:health|car|auto|home|renters|life|pet)\s+)?(?:insurance|policy)"
                          r"|electricity|power|gas|cable|tv)\s+(?:provider\s+|"
                          r"service\s+|plan\s+)?(?:over\s+)?to\s+" + _VAL), accept=_org),
    # "I ported my number to Visible": a phone number moves with its owner to a new carrier
    _Rule("provider", _rx(_S + r"ported\s+(?:my|our|his|her)\s+(?:phone\s+|cell\s+|mobile\s+)?number\s+(?:over\s+)?"
                          r"to\s+" + _VAL), accept=_org, qualifier="phone"),
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
    _Rule("bank", _rx(_S + r"(?:(?:moved|switched|transferred)\s+(?:everything|(?:all\s+(?:of\s+)?)?(?:my|our)\s+(?:money|"
                      r"accounts?|savings|checking|banking))|switched\s+banks?)\s+(?:over\s+)?to\s+(?:a\s+|an\s+)?(?:credit union|bank|online bank)?,?\s*"
                      r"(?:called\s+)?" + _VAL), accept=_org),
    _Rule("bank", _rx(_S + r"(?:closed|shut)\s+(?:my|our|the)\s+(?:old\s+)?(?P<v>[\w ]{0,20}?)(?:checking|savings|bank)"
                      r"\s+account"), positive=False, ended=True, accept=lambda v: True),
    # "opened a checking account at Ally", "moved banks and opened one at Ally": an account opened in a
    # text that speaks of banking is at one's bank ("opened an account at Netflix" is not)
    _Rule("bank", _rx(_S + r"(?:opened|open|opening)\s+(?:(?:a|an|my)\s+(?:new\s+)?(?:(?:checking|savings|bank|joint|"
                      r"current)\s+)?account|one)\s+(?:at|with)\s+" + _VAL), accept=_org,
          context=_rx(r"\b(?:bank\w*|checking|savings|credit union|(?:joint|current)\s+account)\b")),
    # "I'm done with my old bank", "we left our bank": whichever bank it was
    _Rule("bank", _rx(_S + r"(?:done\s+with|left|ditched|dumped|quit|got\s+rid\s+of|walked\s+away\s+from)\s+(?:my|our"
                      r"|the)\s+(?:old\s+)?(?P<v>bank|credit union)\b"), positive=False, ended=True, accept=lambda v: True),
    # "everything's at Ally now", said of one's money
    _Rule("bank", _rx(r"(?P<s>)\b(?:everything|all\s+(?:of\s+)?(?:my|our)\s+(?:money|accounts?|savings))(?:['’]s|\s+is|"
                      r"\s+are)\s+(?:now\s+)?(?:at|with)\s+" + _VAL), accept=_org, speaker=True,
          context=_rx(r"\b(?:bank|checking|savings|account)")),
    _Rule("school", _rx(r"(?P<s>\b(?:I|we|he|she|they|(?-i:[A-Z][a-z]+)|(?:my|our)\s+(?:\w+\s+)?(?:son|daughter|kid|"
                        r"child|boy|girl)(?:\s+(?-i:[A-Z][a-z]+))?)\s+(?:(?:now|just|also|still)\s+)*)(?:goes|go|going|"
                        r"attends|attend|attending|started|starts|is enrolled|enrolled|transferred|switched|moved)\s+"
                        r"(?:up\s+)?(?:(?:at|to|in|into)\s+)?" + _VAL), accept=_school),
    # "I'm a junior at UCLA", "she's a grad student at MIT": a student's year or kind names the school
    _Rule("school", _rx(_S + r"(?:a|an)\s+(?:(?:first|second|third|fourth|final)[- ]year\s+|(?:grad|graduate|undergrad|"
                        r"undergraduate|PhD|doctoral|master['’]?s|medical|med|law|nursing|transfer|exchange|part-time|"
                        r"full-time)\s+)?(?:freshman|sophomore|junior|senior|student|undergrad|undergraduate)\s+at\s+"
                        + _VAL), accept=_org),
    # "I graduated from UCLA", "Emma finished at Lincoln": a school one is done with
    _Rule("school", _rx(_S + r"(?:graduated|graduating)\s+from\s+" + _VAL), positive=False, ended=True, accept=_org),
    # "I'm doing a part-time MBA at Boston University": a degree studied for at a named school
    _Rule("school", _rx(_S + r"(?:doing|studying\s+for|pursuing|working\s+on|finishing|enrolled\s+in|in)\s+(?:a|an|my|the|"
                        r"his|her)\s+(?:(?:part-time|full-time|online|evening|two-year|one-year)\s+)?(?:MBA|master['’]?s"
                        r"|PhD|doctorate|degree|bachelor['’]?s|associate['’]?s|law degree|nursing degree|MFA|JD)"
                        r"(?:\s+(?:degree|program|programme|in\s+[\w ]{1,30}?))?\s+at\s+" + _VAL), accept=_school),
    # "I enrolled in a data science bootcamp": a program or school one is now enrolled in
    _Rule("school", _rx(_S + r"(?:enrolled|enrolling|enroll|registered)\s+(?:in|at)\s+(?:a|an|the)\s+"
                        r"(?P<v>[\w'’ -]{0,30}?(?:bootcamp|boot camp|program|programme|college|university|school"
                        r"|academy))\b"), accept=lambda v: True),
    # "Dropped my daughter off at Jefferson Middle School": where a child is taken to, or fetched from, is
    # their school (a value with a school's word: not "dropped my son off at practice")
    _Rule("school", _rx(r"\b(?:drop|drops|dropped|dropping|pick|picks|picked|picking)\s+(?:off\s+|up\s+)?(?P<s>(?:my|our)\s+"
                        r"(?:\w+\s+)?(?:son|daughter|kid|child|boy|girl)(?:\s+(?-i:[A-Z][a-z]+))?)\s+(?:off\s+|up\s+)?"
                        r"(?:at|from)\s+" + _VAL), accept=_school),
    _Rule("school", _rx(r"(?P<s>\b(?:my|his|her|their|(?-i:[A-Z][a-z]+)'s)\s+)first\s+(?:day|week)\s+(?:at|of)\s+"
                        + _VAL), accept=_school),
    # ---- pets: which, and their names
    # a pet's value is its kind and, when the text gives it, its name ("beagle Biscuit"), so that
    # "we lost Biscuit" can end it
    _Rule("pet", _rx(_S + r"(?:have|has|got|adopted|own|owns|bought|rescued|picked out|brought home)\s+(?:a|an|two|"
                     r"three)\s+(?:new\s+)?(?P<v>(?:[\w-]+\s+){0,2}?(?:" + _PETS + r"))\b"
                     r"(?:\s+(?:named|called)\s+(?P<n>(?-i:[A-Z][a-z]+)))?"), accept=lambda v: True),
    _Rule("pet", _rx(r"(?P<s>)\b(?:after|since|when)?\s*(?:the|our|my)\s+(?:old\s+)?(?P<v>(?:\w+\s+)?(?:" + _PETS
                     + r"))(?:,?\s+(?P<n>(?-i:[A-Z][a-z]+)),?)?\s+(?:just\s+|sadly\s+)?(?:died|passed away|passed|ran away|"
                     r"was put down|had to be put down)"), positive=False, ended=True,
          accept=lambda v: True),
    # "I have a dog named Rex and a cat named Tom": the pets a have-clause goes on to name
    _Rule("pet", _rx(r"(?P<s>)\b(?:I|we)\s+(?:have|got|adopted|own|rescued)\s+[^.!?;]*?\band\s+(?:a|an)\s+(?:new\s+)?"
                     r"(?P<v>(?:[\w-]+\s+){0,2}?(?:" + _PETS + r"))\b(?:\s+(?:named|called)\s+(?P<n>(?-i:[A-Z][a-z]+)))?"),
          speaker=True, accept=lambda v: True),
    # "I have two dogs, Rex and Fido", "we adopted two cats named Luna and Milo": each pet a count
    # names, the first and the last of the list (the kind made singular: worlddb.extract._slot_reader)
    _Rule("pet", _rx(r"(?P<s>)\b(?:I|we)\s+(?:have|got|adopted|own|rescued)\s+(?:two|three|four|[234])\s+(?:\w+\s+)?"
                     r"(?P<v>(?:" + _PETS + r")(?:s|es)?)(?:,|:|\s+(?:named|called))\s+(?P<n>(?-i:[A-Z][a-z]+))\b"),
          speaker=True, accept=lambda v: True),
    _Rule("pet", _rx(r"(?P<s>)\b(?:I|we)\s+(?:have|got|adopted|own|rescued)\s+(?:two|three|four|[234])\s+(?:\w+\s+)?"
                     r"(?P<v>(?:" + _PETS + r")(?:s|es)?)(?:,|:|\s+(?:named|called))\s+(?:(?-i:[A-Z][a-z]+),?\s+)+"
                     r"and\s+(?P<n>(?-i:[A-Z][a-z]+))\b"),
          speaker=True, accept=lambda v: True),
    # "Our beagle Biscuit is twelve": a pet of the speaker's, by kind and name
    _Rule("pet", _rx(r"(?P<s>\b(?:my|our)\s+)(?:old\s+|new\s+)?(?P<v>(?:" + _PETS + r"))\s+(?P<n>(?-i:[A-Z][a-z]+))\b"),
          accept=lambda v: True),
    # "We lost Biscuit in the spring", "Biscuit passed away": a pet named, whatever its kind, and only
    # in a text that speaks of pets ("Tom died in 1990" does not)
    _Rule("pet", _rx(r"(?P<s>)\b(?:we|I)\s+(?:just\s+|sadly\s+)?(?:lost|had\s+to\s+put\s+down|said\s+goodbye\s+to)\s+"
                     r"(?P<v>(?-i:[A-Z][a-z]+))\b(?!\s+(?:(?-i:[A-Z])|\d))"), positive=False, ended=True, speaker=True,
          accept=lambda v: v.lower() not in _KIN, context=_PET_CONTEXT),
    _Rule("pet", _rx(r"(?P<s>)(?:^|(?<=[.!?]\s))(?P<v>(?-i:[A-Z][a-z]+))\s+(?:just\s+|sadly\s+)?(?:died|passed\s+away)\b"),
          positive=False, ended=True, speaker=True, accept=lambda v: v.lower() not in _KIN, context=_PET_CONTEXT),
    _Rule("name", _rx(r"(?P<t>\b(?:my|our|the|his|her)\s+(?:\w+\s+)?(?:" + _PETS + r"))(?:'s\s+name)?\s+(?:is\s+)?"
                      r"(?:named|called|is)\s+" + _VAL), thing=True, accept=_name),
    _Rule("name", _rx(r"(?:renamed|rename|renaming|named|call|called|calling)\s+(?P<t>(?:the|our|my|his|her)\s+(?:\w+\s+)?"
                      r"(?:" + _PETS + r"))\s+" + _VAL), thing=True, accept=_name),
    _Rule("name", _rx(r"(?P<t>\b(?:my|our|the)\s+(?:new\s+)?(?:\w+\s+)?(?:coworker|colleague|neighbou?r|roommate|"
                      r"manager|boss|landlord|teacher|doctor|dentist|intern|hire))(?:'s|’s)\s+name\s+is\s+" + _VAL),
          thing=True, accept=_name),
    # ---- the team one works in: "I'm on the payments team", "I joined the search team", "moved to
    # the platform team"; left, it ends ("I left the infra team"); a sports team is none
    _Rule("team", _rx(_S + r"(?:am|'m|’m|is|are|'re|was|(?:have|has|'ve|’ve|'s|’s)\s+been|been|work|works|working|joined|"
                      r"join|joining|moved|transferred|"
                      r"switched|started|starting|rotated|got moved)\s+(?:now\s+|just\s+|also\s+)?(?:on|in|to|with|onto|"
                      r"into|over to)?\s*(?:the|a|our)\s+" + _TEAM), accept=_work_team,
          unless=_rx(r"\b(?:interview\w*|applied|applying|never)\b")),
    _Rule("team", _rx(r"(?P<s>\b(?:my|our)\s+)(?:new\s+)?team\s+is\s+(?:now\s+)?(?:the\s+)?"
                      r"(?P<v>(?-i:[A-Z])[\w&+-]*(?:\s+[\w&+-]+){0,2}?)(?:\s+team)?(?=\s*(?:[,.;!?]|$))"),
          accept=_work_team),
    _Rule("team", _rx(_S + r"(?:left|quit|am leaving|'m leaving|’m leaving|moved off|rotated off)\s+(?:the|our)\s+"
                      + _TEAM), positive=False, ended=True, accept=_work_team),
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
                           r"(?:\s+(?:now|these days|lately|right now|at the moment|nowadays|for now))?(?=[,.;!?]|$)"),
          accept=_name),
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
    _Rule("activity", _rx(_S + r"(?<!learning\sto\s)(?<!learn\sto\s)(?:play|plays|playing)\s+(?:on\s+|in\s+)?(?:a\s+|an\s+|the\s+)?" + _VAL),
          accept=lambda v: bool(v) and not v.lower().startswith(("with", "it", "them", "video"))),
    _Rule("activity", _rx(_S + r"(?:took up|take up|taken up|started|picked up|got into|getting into|'ve started|"
                          r"have started)\s+(?P<v>(?:(?:\w+\s+)?\w+ing|yoga|pilates|tennis|golf|chess|karate|judo|boxing)(?:\s+\w+)?)"),
          accept=lambda v: bool(v) and not set(v.lower().split()) & _NOT_ACTIVITIES),
    # "I go bouldering twice a week", "User goes hiking on Sundays": a pastime gone out to, said by
    # its doer as a habit (not "Let's go hiking", "I'll go camping", "things go missing")
    _Rule("activity", _rx(_NOW + r"(?:(?:usually|often|regularly|sometimes|always|normally|typically|also|still)\s+)?"
                          r"(?:go|goes)\s+(?P<v>\w+ing)\b"),
          accept=lambda v: v.lower() not in _NOT_ACTIVITIES | _NOT_GERUNDS | _NOT_OUTINGS),
    # "I started a Tuesday evening pottery class", "I joined a running club", "We take a salsa class":
    # a class, a club or a league one goes to, named by the word before it
    _Rule("activity", _rx(_NOW + r"(?:joined|join|joins|signed\s+up\s+for|enrolled\s+in|started(?:\s+going\s+to)?|"
                          r"(?:take|takes|taking|attend|attends|attending|go\s+to|goes\s+to|going\s+to))\s+"
                          r"(?:a|an|the|my|our)\s+" + _CLASS_WORDS
                          + r"(?P<v>[\w'’-]+\s+(?:class|classes|club|league))\b"),
          accept=lambda v: v.split()[0].lower() not in _NOT_CLASSES),
    # "I love hiking in the Rockies", "We really enjoy kayaking": a pastime one likes doing (a gerund
    # alone, where nothing it acts on follows: "I love running my own studio", "I love going out" and
    # "I love eating sushi" are none)
    _Rule("activity", _rx(_S + r"(?<!\bmy\s)(?<!\byour\s)(?<!\bhis\s)(?<!\bher\s)(?<!\bour\s)(?<!\btheir\s)(?<!\bthe\s)"
                          r"(?:(?:really|absolutely|just|totally)\s+)?(?:love|loves|enjoy|enjoys|adore|adores)\s+"
                          r"(?P<v>\w+ing)(?=\s*(?:$|[.,;:!?)]|(?:and|or|but|so|in|on|at|with|around|outdoors|outside|"
                          r"together|too|lately|every|when|because|since)\b))"),
          accept=lambda v: bool(v) and not set(v.lower().split()) & _NOT_ACTIVITIES
          and v.split()[-1].lower() not in _NOT_GERUNDS),
    # "I collect vintage vinyl records": a collection kept
    _Rule("activity", _rx(_S + r"(?:collect|collects|started collecting|have been collecting)\s+"
                          r"(?P<v>(?:old\s+|vintage\s+|rare\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})"),
          accept=lambda v: v.split()[0] not in ("it", "them", "data", "money", "information", "feedback")),
    # (a bare name after the verb is a company, a service or a place left: "I quit Dell", "I quit Spotify")
    # ("gave up on" takes a name too: "I gave up on Spanish")
    _Rule("activity", _rx(_S + r"(?:gave\s+up\s+on\s+(?:(?:the|my|our)\s+)?(?:learning\s+|doing\s+)?|(?:quit|stopped|gave up|left"
                          r"|dropped out of)\s+(?:doing\s+)?(?:(?:the|my|our)\s+|(?=(?-i:[a-z]))))" + _VAL),
          positive=False, ended=True,
          accept=lambda v: bool(v) and not re.search(r"\b(?:job|work|position|role|company|firm|smoking|drinking|"
                                                      r"eating|alcohol|meat|being|" + _DIETS + r")\b", v, re.I)
          and v.split()[0].lower() not in _NOT_AN_ACTIVITY | _NOT_STOPPED and not _WORKPLACES & set(v.lower().split())
          and not _stopped_to(v)),
    # "I'm not doing the league anymore", "we don't play in the Sunday league any more": one given up
    _Rule("activity", _rx(_S + r"(?:(?:am|['’]m|are|['’]re)\s+not|don['’]t|do\s+not)\s+(?:doing|do|playing|play|going\s+to)"
                          r"\s+(?:in\s+)?(?:the|my|our)\s+(?P<v>[\w -]{2,30}?)\s+(?:any\s?more|any\s+longer)\b"),
          positive=False, ended=True, accept=lambda v: bool(v) and v.split()[0].lower() not in _NOT_AN_ACTIVITY),
    # "I'm learning Spanish", "I started learning the cello", "we've been learning to sail": a skill
    # being learnt, a named subject or language or one of the crafts, instruments and sports below
    # (not "I'm learning a lot", "learning to accept it")
    _Rule("activity", _rx(_S + r"(?<!quit\s)(?<!stopped\s)(?<!\bon\s)(?<!finished\s)(?<!dropped\s)(?<!paused\s)(?<!was\s)(?<!were\s)"
                          r"(?:learning|studying|taking\s+(?:\w+\s+)?(?:lessons|classes)\s+in)\s+(?:how\s+)?"
                          r"(?:to\s+(?:play\s+|speak\s+|do\s+)?)?(?:the\s+|a\s+)?(?P<v>" + _SKILLS
                          + r"|(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?)(?=\s*(?:$|[.,;:!?)]|(?:and|but|so|now|this|"
                          r"these|again|online|lately|anymore|any\s+more|too|either|yet|already|at|on|with|from|for|in|every|twice"
                          r"|once)\b))"),
          accept=lambda v: bool(v) and v.split()[0] not in _NOT_LANGUAGE),
    # ---- how often, when
    _Rule("frequency", _rx(r"(?P<s>)\b(?P<q>gym|run|running|swim|swimming|workout|work out|yoga|climb|climbing|train|"
                           r"training|cycle|cycling|lift|lifting|exercise|yoga|pilates|tennis|golf|walk|walking|hike|hiking|"
                           r"practice|lesson|therapy|meditate|meditation)\w*\b[\w ]{0,40}?\b(?P<v>" + _PER + r")")),
    _Rule("bedtime", _rx(_S + r"(?:usually\s+|always\s+|normally\s+|now\s+)?(?:(?:go|going|goes|went|get|head|heading)\s+"
                         r"(?:to\s+)?(?:bed|sleep)|(?:am|['’]m|is|['’]s|are|['’]re)\s+(?:usually\s+|always\s+|now\s+)?"
                         r"(?:asleep|in bed)|fall(?:s|ing)?\s+asleep|turn(?:s|ing)?\s+in|sleep)\s+"
                         r"(?:around|at|by|before|after|about)\s+(?P<v>" + _TIME + r"|" + _BARE_HOUR + r")")),
    _Rule("waketime", _rx(_S + r"(?:usually\s+|always\s+|normally\s+|now\s+)?(?:wake|waking|get|getting|am)\s+up\s+"
                          r"(?:around|at|by|before|about)\s+(?P<v>" + _TIME + r")")),
    _Rule("when", _rx(r"(?P<t>" + _THING_START + _THING_WORDS + r"(?:" + _EVENTS + r")(?:\s+(?:to|in)\s+(?-i:[A-Z])\w+)?)"
                      r"\s+(?:(?:now|usually|still)\s+(?=meets?\b|happens\b|starts\b))?(?:is|are|was|will be|happens"
                      r"|starts|has been|got|just got|now|meets|moved|has moved|changed|"
                      r"shifted|rescheduled|pushed|booked|scheduled|set|planned)?\s*(?:now\s+|usually\s+|always\s+)?"
                      r"(?:(?:moved|changed|shifted|rescheduled|pushed|booked|scheduled|set|planned|back)\s+)?"
                      r"(?:to\s+|for\s+|on\s+|at\s+|every\s+)?"
                      r"(?P<v>(?:every\s+(?:other\s+)?)?" + _TIME + r"|" + _DATE + r"|" + _BARE_HOUR + r")"
                      # (a thing named with its time and then called off is given no time: the status rule's)
                      r"(?![^,.;!?]*?\s" + _CALLED_OFF_PASSIVE.replace("(?P<v>", "(?:") + r")"), thing=True,
          accept=_has_time_or_hour),
    # "I have yoga every Monday at 6pm", "I go to pilates on Wednesdays": a thing one keeps every week (not "I
    # have a meeting on Monday", one meeting; a bare "meeting" or "class" every week names no one thing). The
    # speaker's own only: "my sister has yoga every Tuesday" is hers, and a thing's name says nothing of whose
    _Rule("when", _rx(r"\b(?:I|we)\s+(?:(?:usually|always|normally|still|now|also)\s+)?(?:have|go\s+to|attend|take|teach)"
                      r"\s+(?!(?:(?:a|an|the"
                      r"|my|our)\s+)?(?:meeting|call|class|lessons?|session|appointment|sync|check-?in|practice)\s+(?:on|every)"
                      r"\b)(?P<t>(?:(?:my|our|the|a)\s+)?" + _THING_WORDS + r"(?:" + _EVENTS + r")(?:\s+(?:class|classes|lessons?"
                      r"|practice))?)\s+(?:on\s+(?=(?:mon|tues|wednes|thurs|fri|satur|sun)days\b)|(?=every\s))"
                      r"(?P<v>(?:every\s+(?:other\s+)?)?" + _TIME + r")"),
          thing=True, accept=_has_time, unless=None),
    # "I go climbing on Tuesdays", "I play football every Saturday", "I go to pottery on Thursdays": a pastime
    # the speaker keeps every week, however it is named (a gerund after "go"; a word after "go to", "have", "do",
    # "play" or "practise"), which its later day changes ("Climbing moved to Mondays"). The speaker's own and on
    # a weekday said as a habit ("on Tuesdays", "every Tuesday"), as for an event above
    _Rule("when", _rx(r"\b(?:I|we)\s+(?:(?:usually|always|normally|still|now|also)\s+)?"
                      r"(?:go\s+(?=[a-z]+ing\b)|go\s+to\s+|have\s+|do\s+|play\s+|practi[cs]e\s+)(?P<t>[\w-]+)"
                      r"\s+(?:on\s+(?=(?:mon|tues|wednes|thurs|fri|satur|sun)days\b)|(?=every\s))"
                      r"(?P<v>(?:every\s+(?:other\s+)?)?" + _TIME + r")"),
          thing=True, accept=_has_time, names=_pastime),
    # "Climbing moved to Mondays", "Football is on Saturdays now", "Update: pottery is now every Thursday": a
    # thing named by one word opening its clause, given a weekday as a habit (a pastime's, however named; the
    # event nouns above take any time)
    _Rule("when", _rx(r"(?:^|(?<=[:,]\s))(?P<t>[\w-]+)(?=\s+(?:is|are|was|were|has|have|got|just|now|moved|changed"
                      r"|shifted|switched|rescheduled|pushed)\b)\s+(?:(?:is|are|was|were|has|have|got|just|now|been)\s+)*"
                      r"(?:(?:moved|changed|shifted|switched|rescheduled|pushed)\s+)?(?:back\s+)?(?:to\s+|on\s+)?"
                      r"(?:now\s+)?(?:on\s+)?(?=every\s|(?:mon|tues|wednes|thurs|fri|satur|sun)days\b)"
                      r"(?P<v>(?:every\s+(?:other\s+)?)?" + _TIME + r")"),
          thing=True, accept=_has_time, names=_pastime),
    # "I have a dentist appointment on Monday at 2pm", "we've got a vet appointment Friday at 10am", "I booked a
    # haircut appointment for March 3": one event, named by what it is for, on a day or at a time (a bare "a
    # meeting on Monday" names no one meeting of the speaker's). The speaker's own only, as above
    _Rule("when", _rx(r"\b(?:I|we)(?:\s+|(?=['’]))(?:(?:also|still|now|just|finally)\s+)?(?:have|['’]ve\s+got|have\s+got|got"
                      r"|booked|scheduled|made)\s+(?:a|an|my|our|the)\s+(?P<t>" + _EVENT_FOR + r"(?:" + _EVENTS + r"))\s+"
                      r"(?:(?:on|for|at)\s+)?(?P<v>" + _DAY_AND_HOUR + r")"), thing=True, accept=_has_time),
    # "We deploy on Tuesdays", "we release every other Friday": a team's routine, the thing its verb names
    _Rule("when", _rx(r"\bwe\s+(?:(?:usually|always|now|only|normally|still)\s+)?(?P<t>deploy|release|ship)\s+"
                      r"(?:on\s+|every\s+|at\s+)?(?P<v>(?:every\s+(?:other\s+)?)?" + _TIME + r"|" + _DATE + r")"),
          thing=True, accept=_has_time),
    _Rule("when", _rx(r"(?:push|pushed|move|moved|reschedule|rescheduled|postpone|postponed|bump|bumped|shift|shifted|"
                      r"change|changed|delay|delayed)\s+(?P<t>(?:(?:the|our|my|his|her)\s+)?" + _THING_WORDS + r"(?:"
                      + _EVENTS + r"))\s+(?:(?:out|back)\s+)?(?:to|until|till)\s+(?P<v>(?:every\s+)?" + _TIME + r"|"
                      + _DATE + r")"),
          thing=True, accept=_has_time),
    _Rule("when", _rx(r"(?P<t>\b(?:my|our|the|(?-i:[A-Z][a-z]+)['’]s)\s+(?:\w+\s+)?(?:anniversary|birthday))\s+"
                      r"(?:is|falls)\s+(?:on\s+|in\s+)?"
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
    # "We called off the book club meeting", "I cancelled my dentist appointment": a thing that will not happen
    _Rule("status", _rx(r"\b(?:I|we|they|he|she)\s+(?:just\s+|finally\s+|had\s+to\s+|have\s+|'ve\s+|’ve\s+)?"
                        r"(?P<v>cancel+ed|called\s+off|scrapped)\s+" + _CALLED_OFF_THING), thing=True, accept=lambda v: True),
    # "I had to cancel my dentist appointment", "we decided to call off the offsite": done, in other words
    _Rule("status", _rx(r"\b(?:I|we|they|he|she)\s+(?:just\s+|finally\s+|(?:have|['’]ve)\s+)?(?:had|decided|needed|chose)"
                        r"\s+to\s+(?P<v>cancel|call\s+off|scrap)\s+" + _CALLED_OFF_THING), thing=True, accept=lambda v: True),
    # "Cancel the dentist, I'll reschedule later": an instruction that opens a sentence ("Can you cancel my
    # gym membership?" asks, and "I never cancel on friends" names no thing)
    _Rule("status", _rx(r"(?:^|(?<=[.!?]\s))(?:(?:oh|ok|okay|so|please|pls|actually|also|just|and)[,!]?\s+)*"
                        r"(?P<v>cancel|call\s+off|scrap)\s+" + _CALLED_OFF_THING), thing=True, accept=lambda v: True),
    # "The marathon is off": only of an event ("the power is off", "off to the dentist" say no such thing)
    _Rule("status", _rx(r"(?P<t>" + _THING_START + _THING_WORDS + r"(?:" + _EVENTS + r"))\s+(?:is|['’]s|are|was|has\s+been"
                        r"|got)\s+(?:now\s+|officially\s+|definitely\s+|totally\s+)*(?P<v>off)(?=\s*(?:[,.;!?]|$|\s(?:now|"
                        r"again|because|due|and|but|so|for\s+(?:now|good|this|next|today|tomorrow))\b))"),
          thing=True, accept=lambda v: True),
    # "The dentist appointment on Friday is cancelled", "The offsite next week got called off": an event named
    # with its time, called off in the passive (the time says which one; it is no new time of it)
    _Rule("status", _rx(r"(?P<t>" + _THING_START + _THING_WORDS + r"(?:" + _EVENTS + r"))\s+(?:(?:on|at|for|this|next)\s+)?"
                        r"(?:" + _DAY_AND_HOUR + r"|week|weekend|month)\s+" + _CALLED_OFF_PASSIVE), thing=True,
          accept=lambda v: True),
    _Rule("status", _rx(r"(?P<t>" + _THING_START + _THING_WORDS + r"[\w'’-]+)\s+(?:is|was|has been|got|just|now|finally|"
                        r"officially|has|have)?\s*(?:now\s+|finally\s+|officially\s+|just\s+|been\s+|currently\s+)*"
                        r"(?P<v>" + _STATUS + r")\b" + _NO_OBJECT), thing=True, accept=lambda v: True),
    # ---- amounts and counts
    # ("our HOA fee", "the gym's price": one word may say whose or what for; "is set to" a sum says it too)
    # (a sum that opens a sentence needs no "my": "Rent went up to $2,350")
    _Rule("amount", _rx(r"(?P<t>(?:\b(?:my|our|the|his|her)\s+|(?:^|(?<=[.!?]\s))(?=(?:" + _SUMS + r")\b))"
                        r"(?:monthly\s+|yearly\s+|annual\s+)?(?:[\w'’-]+\s+)??(?:"
                        + _SUMS + r"))\s+(?:is|was|are|were|(?:is|are)\s+(?:now\s+)?set\s+to|(?:was|were)\s+set\s+to|ha(?:s|ve)\s+been\s+set\s+to"
                        r"|went up to|goes up to|is going up to|"
                        r"went down to|goes down to|"
                        r"rose to|jumped to|dropped to|increased to|decreased to|is now|will be|came to)\s+"
                        r"(?:now\s+)?(?:about\s+|around\s+)?(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:month|year|week|"
                        r"hour))?)"), thing=True),
    _Rule("amount", _rx(r"(?:raised|increased|lowered|cut|dropped|bumped|hiked|reduced)\s+(?P<t>(?:the|my|our)\s+"
                        r"(?:monthly\s+)?(?:" + _SUMS + r"))\s+"
                        r"(?:up\s+|down\s+)?to\s+(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:month|year|week|hour))?)"),
          thing=True),
    _Rule("amount", _rx(r"(?P<s>\bI\s+)(?:pay|earn|make)\s+(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:month|year|week|"
                        r"hour))?)\s+(?:in|for)\s+(?P<t>(?:my\s+)?(?:rent|mortgage|tuition|salary))"), thing=True),
    # "I got a raise to $105k", "Got a pay rise to £48,000": the salary it brings
    _Rule("amount", _rx(r"(?:(?P<s>\bI)\s+(?:just\s+|finally\s+)?|^(?:just\s+|finally\s+)?)(?:got|received|was\s+given)"
                        r"\s+(?:a|my)\s+(?:\w+\s+)?(?:raise|pay\s+rise|pay\s+bump|salary\s+bump)\s+(?:up\s+)?to\s+"
                        r"(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:year|month|week|hour))?)"), thing=True, fixed="salary"),
    # "I make $110k now", "I'm earning 90k euros a year": what one earns is one's salary (never what one
    # makes in, for or from something, or doing it: "I make $50 in tips", "I earn $5 per referral", "I
    # make $20 an hour babysitting")
    _Rule("amount", _rx(r"(?P<s>\bI)(?:\s+now|\s+currently)?(?:\s+(?:earn|make|take\s+home)|(?:\s+am|['’]m)\s+"
                        r"(?:now\s+|currently\s+)?(?:making|earning))\s+(?:now\s+)?(?:about\s+|around\s+|roughly\s+)?(?P<v>(?>" + _MONEY
                        + r"(?:\s+(?:a|an|per)\s+(?:year|month|week|hour)|\s+annually)?))(?!\s+(?:in|for|from|on|off|"
                        r"per|each|a\s+(?:piece|pop|sale|shift|gig|day)|[a-z]+ing)\b)"), thing=True, fixed="salary"),
    _Rule("count", _rx(r"(?P<s>\b(?:I|we)\s+)(?:manage|lead|run|have|supervise|oversee)\s+a\s+(?P<q>team|staff|group|"
                       r"class|crew)\s+of\s+(?P<v>(?:" + _NUM_WORDS + r")\s+\w+)")),
    _Rule("count", _rx(r"(?:(?P<s>\b(?:my|our)\s+)|\bthe\s+)(?P<q>team|staff|group|class|crew)\s*(?:is|has|grew|went"
                       r"|is now|now has|has grown|shrank|is down|is up|['’]s\s+(?:grown|shrunk|gone\s+(?:up|down)|now|down"
                       r"|up)|has\s+(?:shrunk|gone\s+(?:up|down)))\s+(?:now\s+)?(?:up\s+|down\s+)?(?:to\s+)?"
                       r"(?P<v>(?:" + _NUM_WORDS + r")\s+\w+)"), speaker=True),
    # "We have three cats now", "I've got two kids": how many of a kind of animal or child one has
    # (the kind is the qualifier: cats and dogs are counted apart)
    _Rule("count", _rx(r"(?P<s>\b(?:I|we)\s*)(?:now\s+|still\s+|only\s+)?(?:have|own|['’]ve\s+got|have\s+got)\s+"
                       r"(?:now\s+)?(?P<v>(?:" + _NUM_WORDS + r")\s+(?P<q>(?:" + _PETS + r")(?:s|es)?|kids?|child|children"
                       r"|sons?|daughters?))\b")),
    # "..., which makes three cats", "bringing us to four kids": the count an addition reaches (the
    # clause's subject's: "bringing her to ..." is left unread)
    _Rule("count", _rx(r"\b(?:which\s+(?:now\s+)?makes?\s+(?:it\s+|us\s+|me\s+)?"
                       r"|(?:making|bringing)\s+(?:(?P<s>us|me)|it|the total)\s+(?:to\s+)?)"
                       r"(?P<v>(?:" + _NUM_WORDS + r")\s+(?P<q>(?:" + _PETS + r")(?:s|es)?|kids|children|sons|daughters))\b")),
    # ---- how old someone is: "Lily just turned 8", "I'm 34 years old", "she's 3 months old", "my son is 6"
    # (a bare number only after a person: "the meeting is 3" is no age; "she turns 8 in May" is still to
    # come; "when I turned ten" is a time, not an age now)
    _Rule("age", _rx(r"(?<!\bwhen\s)(?<!\bafter\s)(?<!\bbefore\s)(?<!\bsince\s)(?<!\bonce\s)(?<!\buntil\s)"
                     r"(?<!\btime\s)(?<!\bas\s)(?P<s>\b" + _SUBJ + r"|\b(?:my|our|his|her|their)\s+(?:" + _PETS
                     + r"))(?:\s+|(?=['’]))(?:" + _AUX + r"\s+)*(?:turned|has\s+turned)\s+(?P<v>" + _AGE + r")"
                     r"(?:\s+(?:years?|yrs?)\s+old)?"
                     r"(?=\s*(?:$|[.!?,;]|(?:and|but|so|today|yesterday|this|last|on|in)\b))"), accept=_an_age),
    _Rule("age", _rx(_S + r"(?:is|am|['’]m|['’]s|are|['’]re)\s+(?:now\s+|already\s+|almost\s+|nearly\s+)?"
                     r"(?P<v>" + _AGE + r"(?=\s+(?:years?|yrs?)\s+old\b)|" + _AGE + r"\s+(?:months?|weeks?)(?=\s+old\b))"),
          accept=_an_age),
    _Rule("age", _rx(r"(?P<s>\b(?:I|he|she|(?:my|our|his|her)\s+(?:" + _KIN_RE + r")(?:\s+(?-i:[A-Z][a-z]+))?"
                     r"|(?-i:[A-Z][a-z]+)['’]s\s+(?:" + _KIN_RE + r")))\s*(?:is|am|['’]m|['’]s)\s+(?:now\s+|already\s+)?"
                     r"(?P<v>" + _AGE + r")(?=\s*(?:$|[.!?,;]|(?:and|but|now|today)\b))"), accept=_an_age),
    # ---- goals and what a group is reading
    _Rule("goal", _rx(r"(?P<s>\b(?:my|our)\s+)(?:\w+\s+)?goal\s+(?:this year\s+|for this year\s+|for \d{4}\s+)?"
                      r"(?:is|was)\s+(?:now\s+)?(?:to\s+)?" + _VAL), accept=lambda v: bool(v)),
    # "New goal: a sub-three marathon", "My running goal: ...": a goal written as a heading, the speaker's
    _Rule("goal", _rx(r"^(?:(?:my|our)\s+)?(?:new\s+)?(?:(?!(?:the|a|an|his|her|their|your|its)\b)\w+\s+)?goal(?:\s+(?:this|for this|for next)\s+year)?"
                      r"\s*:\s*(?:to\s+)?" + _VAL), accept=lambda v: bool(v), speaker=True),
    _Rule("goal", _rx(_S + r"(?:training|train|trains|prepping|preparing|signed up)\s+for\s+(?:a|an|the|my)\s+" + _VAL),
          accept=lambda v: bool(v)),
    # "I pulled out of the marathon", "no marathon this year": an event trained for, dropped
    _Rule("goal", _rx(_S + r"(?:dropped\s+out\s+of|pulled\s+out\s+of|withdrew\s+from|withdrawn\s+from|skipping|"
                      r"(?:am|['’]m)\s+not\s+(?:running|doing)|won['’]t\s+be\s+(?:running|doing)|deferred)\s+"
                      r"(?:the|my|this\s+year['’]s)\s+(?P<v>(?:[\w-]+\s+){0,3}?(?:" + _RACES + r"))\b"),
          positive=False, ended=True, accept=lambda v: bool(v)),
    _Rule("goal", _rx(r"(?P<s>)\bno\s+(?P<v>(?:[\w-]+\s+){0,2}?(?:" + _RACES + r"))\s+(?:for\s+me\s+)?(?:this|next)\s+"
                      r"(?:year|season|spring|summer|fall|autumn|time)\b"), positive=False, ended=True,
          accept=lambda v: bool(v), speaker=True),
    # (in a text of a book club, the club's; a group named as the verb's subject is the rule below's)
    _Rule("reading", _rx(r"(?:reading|doing|picked|chose|choosing|switched to|moving on to|starting)\s+"
                         r"(?P<v>[\"'“‘][^\"'”’]{1,80}[\"'”’])"), accept=lambda v: bool(v),
          context=_rx(r"\b(book club|reading group|class|we|i)\b"), unless=_GROUP_READS),
    # "Our book club is reading Piranesi this month", "The book club is now reading Klara and the Sun": what a
    # group of the speaker's reads now, one book at a time; the group is the subject (not the speaker, who
    # may read another; nor someone else's group: "Tom's book club", "my son's class")
    _Rule("reading", _rx(_GROUP_READS.pattern + r"(?P<v>" + _QUOTED_TITLE + r"|" + _TITLE + r")"), thing=True,
          accept=lambda v: bool(v)),
    # "I'm reading Project Hail Mary", "Currently reading Dune": a title written as a name, read now
    _Rule("reading", _rx(r"(?:\b(?:I|we)\s*(?:['’]m|['’]re|am|are)\s+(?:currently\s+|now\s+|still\s+)?|"
                         r"(?:^|[.!;]\s+)(?:currently|now|still)\s+)(?:re)?reading\s+" + _NAME_ALONE),
          accept=lambda v: bool(v)),
    # "Finished Project Hail Mary", "I just finished reading "Dune"": the book read is done
    _Rule("reading", _rx(_FINISHED + r"(?P<v>[\"“][^\"”]{1,80}[\"”])"), positive=False, ended=True,
          accept=lambda v: bool(v)),
    _Rule("reading", _rx(_FINISHED + _NAME_ALONE), positive=False, ended=True, accept=lambda v: bool(v)),
    # ---- family one has several of
    _Rule("children", _rx(_S + r"(?:has|have|had|welcomed)\s+(?:a|another|a new)\s+(?:baby\s+)?(?:daughter|son|boy|girl"
                          r"|baby)(?:\s+boy|\s+girl)?,?\s+(?:named\s+|called\s+)?" + _VAL), accept=_name),
)


def _drink_or_dish(value: str) -> bool:
    return bool(_DRINKS.search(value))
