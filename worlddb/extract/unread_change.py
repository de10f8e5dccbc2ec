"""A change said in words the slot reader cannot place: the last resort of update detection.

Contract: ``says_change(text)`` tells whether `text` states, in the first person, that something
of the speaker's changed: it opens with I, we, my or our (after a short label or a filler such
as "so", "update:"), or with a verb in the past whose subject is left out ("Moved the whole
suite to Vitest"); it holds a verb or phrase of change ("moved", "switched", "no longer", "from
now on", "correction", "called off", "had to cancel", a time pushed back or brought forward with
the thing named between: "we pushed the wedding back to September", ...; not "new" or "now",
which say as much of news: "Our school has a new principal"); and nothing in it makes it a
plan, a wish or a condition ("might", "thinking about", "next year", "next quarter", "if", a
start still to come: "starting in January"), a visit ("trip", "got back from"), an addition
("also", "another", "a second"), a try ("tried"), a memory of the past ("used to", "back when"),
a question, or news about someone else ("my wife", "my friend", "you"). A word of change right
after a negation states none ("I never left Google", "we haven't switched").

``states_change(text)`` is the wider test, for a change of anyone's that names what it changes:
the same exclusions, any subject ("Dad finally got rid of the Volvo"), and "now", "anymore",
"swapped", "renamed", "retired" among the words of change ("Nobody here touches Jira now"), or an
instruction to call a thing off that opens the text ("Cancel the dentist, I'll reschedule later"), but
nothing done once at a time of day ("I left Dell at 6 today"). "You" makes it the listener's
news only before the word of change or in its clause, not after ("The branch was renamed to
trunk, so rebase your work").

``anchors(text)`` are the words of a text that name one thing in particular: a name written with
a capital inside a sentence ("the Volvo", "Tomasz") but not one spoken to ("Thanks, Mel!", or a
given name after a comma before a full stop: "That's tough, Jon.", where "Austin, Texas." keeps
Texas); a word that is no common English word ("monorepo", "cetirizine", "Jira"); and, in a
statement of at most ``SHORT_WORDS`` words, its nouns but the most general ("rent", "alarm": a
short statement is about what its nouns name, where a long turn of a conversation touches many
topics). A word of two letters is one only as an acronym ("CI", "PR"). A name ending in a number
names its series too ("db-staging-02" and "db-staging-01" share the anchor "db-staging"). They are lower-cased and
made singular by their ending where that is a word too ("Thursdays" and "Thursday" are one
anchor; "Texas" stays). The user named in the third person ("User's brother Tom", "The user moved")
is read as the first person (worlddb.extract._slot_third_person), so "user" names nothing two
notes about the user share.

``off(text)`` are the things a text says are off or called off, by the words it names them with
after an article ("The dentist is off": "dentist"; "Our offsite got cancelled": "offsite"; a time
said after the name is no part of it: "The dentist on Friday is off": "dentist"; not a question).
``scheduled(text)`` are the things a text gives a time, named by an event's noun after an article
("I have a dentist appointment on Friday": "dentist appointment"; a month is a time after "in",
"this", "next" or, capitalised, after "to", "until": "We moved the Lisbon trip to November"), or a
trip by the place one is going, flying or heading to at that time ("I'm going to Tokyo in April":
"trip", "tokyo trip"). ``rescheduled(text)`` are the things a text says were given another time, by
their names, each with that time ("We moved the Tokyo trip to May": ("tokyo trip", "may"); "The
dentist appointment got pushed back to Friday"; not "I pushed the fix to main", which names no
time). ``ends(text)`` tells whether the change a text states is the end of a thing ("I cancelled
Netflix", "I quit the gym"): two such of things that share no anchor are two changes, neither of the
other. ``names_thing(name, thing)`` tells whether a name of the first kind names a thing of the
second: its words are the thing's, the words before its event noun ("dentist" of "dentist
appointment"), or that noun alone ("the appointment"); "power" names no "power company visit".

``died(text)`` are the names that open a sentence said to have died ("Rex passed away"; not a
kin word, "Grandma passed away"). ``corrected(text)`` are the values a correction says were
wrong, where a word owns a mistake ("actually", "sorry", "I meant", ...) and the text says
"<right>, not <wrong>" or "not <wrong> but <right>" ("Actually, it's Tuesday not Monday":
"monday"; never a plain negation: "she is not coming"); ``names_value(text, value)`` whether a
text names one as a word of its own. ``restated(text)`` is the time a correction names alone,
where words own a mistake and the rest of the text is only that time ("Oh wait sorry, it's
Tuesday the 15th": "tuesday the 15th"). ``renamed(text)`` is the name a correction names alone, in
the same words ("Nope, Denver now.", "Actually Denver.", "Sorry, I meant Deutsche Bank": the name
as written): words of a name only, capitalised (one word alone no common word nor an adjective:
"Great", "Spanish"), never a time ("Denver is nice." and "Nope." name none).

All are deterministic, do no I/O, and never raise for a ``str``; ``TypeError`` otherwise.

worlddb.memory.updates uses them only where the slot reader and the judge decided nothing: a
new memory that says a change revises, of the older, current memories in its voice that are
unrelated by every slot the judge can see,
- the nearest in meaning, when `says_change` and its cosine is at least ``CHANGE_SIMILARITY``;
- else, when `states_change`, the nearest of those sharing an anchor with it, when its cosine is
  at least ``ANCHORED_SIMILARITY``: a change names the thing it changes, and a name or a rare
  word two memories share says which one it is about far better than a cosine over their
  other words ("CI for the monorepo runs on Buildkite", then "CI's on Semaphore now for the
  monorepo").
And a correction that names only the wrong value revises the older memory in its voice that
names it, the nearest of those. A revision keeps the old memory current and names the new one on
it (``revised_by``), so a wrong guess hides nothing; it is what the rules can say about a change
they cannot read ("We cut releases every Thursday" then "We moved release day to Tuesdays"). The
words are lists of kinds of words, never particular sentences. And the judge reads a name said
to have died (`died`) as the end of the speaker's pet of that name, which can end only a memory
of a pet so named.
"""

from __future__ import annotations

import re

from ._lazy import compile_lazily
from ._slot_third_person import in_first_person
from ._slot_words import _DATE, _EVENTS, _KIN, _MONTHS, _TIME, _WEEKDAYS, NEGATED_BEFORE, STARTS_LATER
from .given_names import is_given_name
from .lexicon import is_common, singular, tag

__all__ = ["ANCHORED_SIMILARITY", "CHANGE_SIMILARITY", "anchors", "corrected", "died", "ends", "names_thing",
           "names_value", "off", "renamed", "rescheduled", "restated", "says_change", "scheduled", "short",
           "states_change"]

#: the least cosine (the write's own text vectors) at which the nearest memory is the one a
#: change is about; chosen on the tuning sets of bench/data (updates-dev, extra A and D)
CHANGE_SIMILARITY = 0.4
#: the least cosine at which an older memory sharing an anchor with a change is the one it is
#: about; chosen on the tuning sets (updates-dev, extra A, D and F)
ANCHORED_SIMILARITY = 0.25

#: the fillers a statement may open with before its subject ("so", "big news")
FILLERS = "so|and|but|oh|ok|okay|well|update|also|finally|just|big news|heads up"


def lead(fillers: str = FILLERS) -> str:
    """The pattern of a short label and `fillers` before a sentence's subject ("Update: so ..."),
    matched case-insensitively."""
    return r"(?:[a-z]+(?:\s+[a-z]+){0,2}:\s+)?(?:(?:" + fillers + r")[,:!]?\s+)*"


_FIRST_PERSON = compile_lazily(
    r"^" + lead() + r"(?:I|I['’]m|I['’]ve|we|we['’]re|we['’]ve|my|our)\b"
    r"|^(?:(?:just|finally)\s+)?(?-i:[A-Z][a-z]+ed)\b", re.I)
_CHANGE = compile_lazily(
    r"\b(?:moved|moving|relocat\w+|switch(?:ed|ing)?|chang(?:ed|ing)|no longer|any ?more|any longer|instead"
    r"|replac\w+|quit|left|started|starting|promot\w+|upgrad\w+|downgrad\w+|migrat\w+|sold|traded|ended"
    r"|broke up|split up|divorced|raised|lowered|bumped|rescheduled|postponed|delayed|pushed (?:back|out|to|until)"
    r"|pushed (?:[\w'’]+\s+){1,3}?(?:back|out)\s+(?:to|until|till|by|an?|one|two|three|\d)"
    r"|brought (?:[\w'’]+\s+){1,3}?forward"
    r"|extended (?:to|until)|cancel+ed|called off|(?:had|decided|needed|chose) to (?:cancel|call off|scrap)"
    r"|dropped|ditched"
    r"|from now on|correction)\b", re.I)
#: words of change that also say news, or say a change of a thing rather than of a person's own
_CHANGE_OF_A_THING = compile_lazily(
    r"\b(?:now|nowadays|these days|anymore|no more|swapp\w+|renamed|retired|archived|rid of|went with"
    r"|went over|took (?:me|us|him|her|them) off|(?:goes|going|went|gone) (?:up|down))\b", re.I)
#: an instruction to call a thing off, opening the text ("Cancel the dentist, I'll reschedule later")
_CALL_OFF = compile_lazily(
    r"^" + lead(FILLERS + "|please") + r"(?:cancel|call off|scrap)\s+(?:my|our|the|this|next|that)\b", re.I)
#: a statement of at most this many words is about what its nouns name; in a longer text (a
#: conversation's turn) a noun is one topic of many
SHORT_WORDS = 14
#: nouns too general to say what a statement is about
_GENERAL_NOUNS = frozenset("""time day week month year today tonight morning evening night weekend minute hour
while thing lot bit way stuff kind sort part place end start people guy one home work job life fact point""".split())
#: a thing done once, at a time of day: no change of what holds ("I left Dell at 6 today")
_ONCE = compile_lazily(r"\b(?:today|tonight|this (?:morning|afternoon|evening)|at \d{1,2}(?:[:.]\d\d)?(?:\s*[ap]m)?)\b",
                       re.I)
#: two capitals that name nothing in particular (a two-letter acronym, "CI", "PR", is an anchor)
_NO_ACRONYMS = frozenset({"OK", "AM", "PM", "OH", "NO", "SO", "HI", "MY", "ME", "WE"})
#: a name that ends in a number after its series' name ("db-staging-02", "web01", "gpt-4o")
_NUMBERED = compile_lazily(r"([^\W\d_][\w+#-]*?[^\W\d_])[-_.]?\d[\w.-]*$")
_WORD = compile_lazily(r"[^\W\d_][\w+#-]*(?:\.[^\W\d_]\w*)*")
#: a name spoken to, not spoken of: after a greeting or at the start before a stop ("Thanks,
#: Mel.", "Jon, look"), or after a comma before "!" or "?" ("Nice one, Gina!"; not "Austin, Texas.")
_VOCATIVE = compile_lazily(
    r"(?:(?i:\b(?:thanks|thank you|hey|hi|hello|yeah|yep|yes|wow|oh|sorry|congrats|congratulations|aw+))[,!]?\s+"
    r"|^\s*)[A-Z][\w-]*(?=\s*[,!.?])|,\s*[A-Z][\w-]*(?=\s*[!?])")
#: a given name after a comma before a full stop is spoken to too ("That's tough, Jon."); a
#: place there is not ("Austin, Texas.")
_CALLED = compile_lazily(r",\s*([A-Z][a-z]+)(?=\s*\.)")
#: what may stand between a sentence's end and its first word: the capital of a word after
#: them says nothing
_OPENING = "\"'“‘("
_STOPS = ".!?:;—–"
_DASHES = "-–—"
_NOT_A_CHANGE_WORDS = (
    r"\b(?:might|maybe|may|thinking|considering|planning|plan to|hoping|hope|would|could|if"
    r"|next (?:week|month|year|quarter|sprint|term|semester|season|spring|summer|fall|autumn|winter)"
    r"|in (?:a|one|two|three|a few|a couple of) (?:weeks|months|years)|later this (?:week|month|year)"
    r"|will|won['’]t|wouldn['’]t|going to|gonna|someday|eventually|trip|visit|visiting|vacation|holiday|got back"
    r"|back from|weekend in"
    r"|also|too|another|second|as well|tried|interview\w*|offered|back when|used to|years ago"
    r"|my (?:wife|husband|friend|sister|brother|mom|mum|dad|son|daughter|partner|boss|coworker|colleague|neighbou?r))\b"
    r"|\?")
#: a preposition right before a word of change makes it the topic of a phrase ("about upgrading",
#: "for moving"), not a change stated ("instead of" is one word of change: "of" after it governs nothing)
_GOVERNED = compile_lazily(r"\b(?<!instead )(?:about|regarding|of|for|on|to discuss|like)\s+(?:the\s+)?$", re.I)
_YOU = r"\b(?:you|your)\b"
_NOT_A_CHANGE = compile_lazily(_NOT_A_CHANGE_WORDS + "|" + _YOU, re.I)
_NOT_A_CHANGE_OF_ANYONE = compile_lazily(_NOT_A_CHANGE_WORDS, re.I)
#: "you" makes a change the listener's news where it comes before the change's word or in its
#: clause ("Your team moved to Jira", "Did you switch?"); not in a later clause ("The branch was
#: renamed to trunk, so rebase your work")
_YOU_BEFORE = compile_lazily(_YOU, re.I)
_CLAUSE_END = compile_lazily(r"[,;:.!?]|\s[-–—]\s")


def says_change(text: str) -> bool:
    """Whether `text` states a change of the speaker's own (see the module docstring)."""
    _check(text)
    text = text.strip()
    return bool(_FIRST_PERSON.search(text) and _said(_CHANGE, text) and not _NOT_A_CHANGE.search(text)
                and not STARTS_LATER.search(text))


def states_change(text: str) -> bool:
    """Whether `text` states a change of anyone's, in the wider words (see the module docstring)."""
    _check(text)
    cue = _said(_CHANGE, text) or _said(_CHANGE_OF_A_THING, text) or _CALL_OFF.match(text.strip())
    if cue is None or _NOT_A_CHANGE_OF_ANYONE.search(text) or _ONCE.search(text) or STARTS_LATER.search(text):
        return False
    end = _CLAUSE_END.search(text, cue.end())
    return not _YOU_BEFORE.search(text, 0, end.start() if end else len(text))


#: a change that ends a thing ("I cancelled Netflix", "We dropped Jira", "I quit the gym")
_ENDING = compile_lazily(r"\b(?:cancel+ed|called off|(?:had|decided|needed|chose) to (?:cancel|call off|scrap)|scrapped"
                         r"|quit|dropped|ditched|sold|stopped|ended|unsubscribed|gave up|got rid of)\b", re.I)


def ends(text: str) -> bool:
    """Whether the change `text` states is the end of a thing (see the module docstring)."""
    _check(text)
    return _said(_ENDING, text) is not None


def _said(words: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first word of change in `text` that a preposition does not govern and no negation comes
    right before: "a ticket about upgrading React", "the cost of moving" name a change as a topic,
    and "I never left Google", "we haven't switched" deny one; none of them states one."""
    return next((m for m in words.finditer(text)
                 if not _GOVERNED.search(text, 0, m.start()) and not NEGATED_BEFORE.search(text, 0, m.start())), None)


#: a correction: a word that owns a mistake, then "<right>, not <wrong>" or "not <wrong> but <right>"
#: (not a plain negation: "it is not that bad", "she's not coming")
_OWNS = r"\b(?:actually|sorry|oops|correction|i\s+meant|my\s+bad|wait|no,)"
_VALUE = r"(?:on\s+|at\s+|in\s+|the\s+)?(?P<v>[\w$:.%-]+(?:\s+[\w$:.%-]+){0,2}?)"
_AUXILIARY = (r"(?<!\bis)(?<!\bwas)(?<!\bare)(?<!\bwere)(?<!\bam)(?<!['’]s)(?<!['’]m)(?<!['’]re)(?<!\bdo)(?<!\bdoes)"
              r"(?<!\bdid)(?<!\bhas)(?<!\bhave)(?<!\bhad)(?<!\bwill)(?<!\bcan)(?<!\bit)(?<!\bthat)(?<!\bthis)")
_WRONG = (compile_lazily(_OWNS + r"[^.!?]*?\b\w+" + _AUXILIARY + r"\s*,?\s+not\s+" + _VALUE + r"(?=\s*(?:[,.!?;]|$))",
                         re.I),
          compile_lazily(_OWNS + r"\s*[,:!-]?\s*not\s+" + _VALUE + r"\s*,?\s+but\b", re.I))


def corrected(text: str) -> frozenset[str]:
    """The values a correction says were wrong, lower-cased: "Actually, it's Tuesday not Monday"
    -> {"monday"}; "Sorry, not 3pm but 4pm" -> {"3pm"}; none where no word owns a mistake
    ("It's Tuesday, not Monday" is a statement, not a correction of anything said)."""
    _check(text)
    return frozenset(m.group("v").strip().rstrip(".").lower() for rx in _WRONG for m in rx.finditer(text))


#: a correction that names only the right time: words that own a mistake ("oh wait, sorry", "no,
#: actually"; a filler alone owns none), a lead-in ("it's", "I meant", "make that"), then a time and
#: nothing else ("Oh wait sorry, it's Tuesday the 15th", "No wait, 3pm", "Sorry, I meant Thursday")
_FILLER = r"(?:oh|ah|um+|uh+|hm+|ok|okay|so|and|ugh)"
_OWNING = r"(?:wait|sorry|oops|whoops|actually|no|nope|my\s+bad|correction|scratch\s+that|hold\s+on)"
_GAP = r"[\s,.!:;-]*"
_LEAD_IN = (r"(?:(?:it|that)(?:['’]s|\s+is|\s+was|\s+should\s+be|\s+will\s+be)|i\s+meant?|i\s+mean\s+to\s+say"
            r"|i\s+meant\s+to\s+say|make\s+(?:it|that)|should\s+be)\s+(?:actually\s+)?")
_A_TIME = rf"(?:{_DATE}|{_TIME})"
_TIME_SAID = rf"{_A_TIME}(?:\s*,?\s*(?:at\s+|the\s+(?=\d))?{_A_TIME})*"
_RESTATED = compile_lazily(rf"^\s*(?:{_FILLER}{_GAP})*{_OWNING}{_GAP}(?:(?:{_FILLER}|{_OWNING}){_GAP})*"
                           rf"(?:{_LEAD_IN})?(?:(?:on|at|for)\s+)?(?P<v>{_TIME_SAID})"
                           rf"(?:{_GAP}(?:then|instead|sorry))?{_GAP}$", re.I)


def restated(text: str) -> str | None:
    """The time a correction names alone, lower-cased: "Oh wait sorry, it's Tuesday the 15th" ->
    "tuesday the 15th"; "No wait, 3pm" -> "3pm"; None where no word owns a mistake ("It's
    Tuesday"), or the text says anything but the time ("Sorry, it's Tuesday, I'll be late")."""
    _check(text)
    found = _RESTATED.match(text)
    return found.group("v").strip().lower() if found else None


#: a thing said to be off, by the words after its article, up to the end of the clause
_OFF = compile_lazily(r"^" + lead() + r"(?:the|my|our|this|that)\s+(?P<t>(?:[\w'’-]+\s+){0,2}?[\w'’-]+)\s+"
                      # (the time it was given, which says which one: "The dentist on Friday is off")
                      rf"(?:(?:(?:on|at|for|this|next)\s+)?(?:{_DATE}|{_TIME}|week|weekend)\s+)?"
                      r"(?:is|['’]s|has\s+been|was|got|just\s+got)\s+(?:now\s+|officially\s+)?"
                      r"(?:off|cancell?ed|called\s+off|scrapped)(?=\s*(?:[,.;!]|$))", re.I)
#: a thing named by an event's noun after an article, up to two words before the noun (and the
#: nouns of events after it: "piano lesson", where a piano is a pastime too)
_EVENT_NAMED = compile_lazily(r"\b(?:a|an|my|our|the|this|next)\s+(?P<t>(?:[\w'’-]+\s+){0,2}?(?:" + _EVENTS + r")"
                              r"(?:\s+(?:" + _EVENTS + r"))*)\b", re.I)
#: a month written as a name ("May", "November"; "may" is a word)
_A_MONTH = "(?-i:" + "|".join(m.capitalize() for m in _MONTHS.split("|")) + r")(?:\s+\d{4})?"
#: a time a thing is given (a month alone after "in", "this", "next": "a trip to Tokyo in October";
#: one a thing is moved to: "to November")
_GIVEN_TIME = compile_lazily(rf"\b(?:{_DATE}|{_TIME}|tomorrow|tonight|(?:in|this|next)\s+(?:{_MONTHS})"
                             rf"|(?:to|until|till)\s+{_A_MONTH})\b", re.I)
#: a name that is a time, never a place a thing is bound for ("the Tokyo trip to May")
_NOT_A_PLACE = rf"(?!(?:{_MONTHS}|{_WEEKDAYS})\b)"
#: the place an event's noun is bound for or held in, named right after it ("a trip to Tokyo"), by
#: which it is also named before the noun, as the slot reader names it ("the Tokyo trip")
_BOUND_FOR = compile_lazily(r"\s+(?:to|in)\s+" + _NOT_A_PLACE
                            + r"(?P<p>(?-i:[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2}))", re.I)
#: a trip named by the place one is going to ("I'm going to Tokyo in April", "We're flying to Lisbon
#: on May 3"): a capitalised name, not someone's ("going to Sam's")
_GOING_TO = compile_lazily(r"\b(?:going|flying|heading|travell?ing|driving|off)\s+(?:back\s+)?to\s+" + _NOT_A_PLACE
                           + r"(?P<p>(?-i:[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,2}))(?![\w'’-])", re.I)
#: a thing given another time, by its name after an article, and that time: "We moved the Tokyo trip
#: to May", "I rescheduled my dentist appointment for Friday", "The vet visit got pushed back to
#: Monday at 9am"
_MOVE = r"(?:mov|push|reschedul|postpon|bump|shift|delay)(?:e|ed)?"
_TO_TIME = (rf"(?:\s+(?:back|out|forward))?\s+(?:to|until|till|for)\s+(?:the\s+)?"
            rf"(?P<v>{_TIME}|{_DATE}|{_A_MONTH})\b")
_RESCHEDULED = (
    compile_lazily(rf"\b{_MOVE}\s+(?:the|my|our|this|that)\s+(?P<t>(?:[\w'’-]+\s+){{0,2}}?(?:{_EVENTS}))s?"
                   rf"(?:\s+(?:to|in)\s+{_NOT_A_PLACE}(?P<p>(?-i:[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){{0,2}})))?{_TO_TIME}",
                   re.I),
    compile_lazily(rf"\b(?:the|my|our|this)\s+(?P<t>(?:[\w'’-]+\s+){{0,2}}?(?:{_EVENTS}))s?"
                   rf"(?:\s+(?:to|in)\s+{_NOT_A_PLACE}(?P<p>(?-i:[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){{0,2}})))?"
                   rf"\s+(?:(?:has\s+been|have\s+been|was|were|got|is|just\s+got|has|just)\s+)*{_MOVE}{_TO_TIME}",
                   re.I))
_ARTICLES = frozenset({"a", "an", "my", "our", "the", "this", "next", "that"})


def off(text: str) -> frozenset[str]:
    """The things `text` says are off or called off, lower-cased: "The dentist is off." ->
    {"dentist"}; none in a question."""
    _check(text)
    found = _OFF.match(text.strip())
    return frozenset({found.group("t").lower()}) if found and "?" not in text else frozenset()


def scheduled(text: str) -> frozenset[str]:
    """The things `text` gives a time, by an event's noun after an article, lower-cased: "I have a
    dentist appointment on Friday" -> {"dentist appointment"}; a place it is bound for names it too:
    "a trip to Tokyo in October" -> {"trip", "tokyo trip"}; none where it names no time."""
    _check(text)
    if not _GIVEN_TIME.search(text):
        return frozenset()
    found = set()
    for m in _EVENT_NAMED.finditer(text):
        thing = " ".join(w for w in m.group("t").lower().split() if w not in _ARTICLES)
        found.add(thing)
        place = _BOUND_FOR.match(text, m.end())
        if place:
            found.add(f"{place.group('p').lower()} {thing}")
    for m in _GOING_TO.finditer(text):
        found |= {"trip", f"{m.group('p').lower()} trip"}
    return frozenset(found)


def rescheduled(text: str) -> frozenset[tuple[str, str]]:
    """The things `text` says were given another time, each with that time, lower-cased: "We moved
    the Tokyo trip to May." -> {("tokyo trip", "may")}; a place it is bound for names it too ("the
    trip to Lisbon": "lisbon trip"); none in a question."""
    _check(text)
    if "?" in text:
        return frozenset()
    found = set()
    for rx in _RESCHEDULED:
        for m in rx.finditer(text):
            thing = " ".join(w for w in m.group("t").lower().split() if w not in _ARTICLES)
            if m.group("p"):
                thing = f"{m.group('p').lower()} {thing}"
            found.add((thing, m.group("v").lower()))
    return frozenset(found)


def names_thing(name: str, thing: str) -> bool:
    """Whether `name` (the words a cancellation names a thing with) names `thing` (a scheduled
    thing's words, its event noun last): all its words, the words before that noun, or the noun
    alone ("dentist", "appointment" and "dentist appointment" of "dentist appointment"; "power"
    names no "power company visit")."""
    said, words = name.lower().split(), thing.lower().split()
    return bool(said) and (said == words or said == words[:-1] or said == words[-1:])


#: a correction that names only the right name, as `_RESTATED` a time: up to three capitalised words
_RENAMED = compile_lazily(rf"^\s*(?:{_FILLER}{_GAP})*{_OWNING}{_GAP}(?:(?:{_FILLER}|{_OWNING}){_GAP})*"
                          rf"(?:{_LEAD_IN})?(?:(?:in|at|to|with|for)\s+)?(?P<v>(?-i:[A-Z][\w'’&.-]*(?:\s+[A-Z][\w'’&.-]*){{0,2}}))"
                          rf"(?:{_GAP}(?:now|then|instead|sorry|actually))?{_GAP}$", re.I)
_NOT_A_NAME = compile_lazily(rf"(?:{_A_TIME}|I|I['’]m|it|that|this|no|yes|ok|okay)", re.I)


def renamed(text: str) -> str | None:
    """The name a correction names alone, as written: "Nope, Denver now." -> "Denver"; None where
    no word owns a mistake ("Denver is nice."), it names no name ("Nope.") or it names a time or a
    word no name is ("Actually, Tuesday", "Sorry, Spanish")."""
    _check(text)
    found = _RENAMED.match(text)
    if found is None or _NOT_A_NAME.fullmatch(found.group("v")):
        return None
    words = found.group("v").rstrip(".").split()
    # (a word alone is read as one: "Great" is a common word and "Spanish" an adjective, where the words
    # of a longer name may each be common: "Salt Lake City")
    if any(w.lower() in _KIN for w in words) or len(words) == 1 and (
            is_common(words[0]) or tag(words[0]) in ("JJ", "JJR", "JJS", "RB", "VB", "VBD", "UH")):
        return None
    return " ".join(words)


#: a name that opens a sentence, said to have died ("Rex passed away", "Sadly, Rex died"), or one
#: the speaker lost or had put down ("We had to put Rex down", "We lost Rex last week")
_NAME = r"(?P<n>[A-Z][a-z]+)"
_DIED = (compile_lazily(r"(?:^|(?<=[.!?]\s))(?:(?i:sadly|unfortunately|so|well),?\s+)?" + _NAME
                        + r"\s+(?:has\s+|just\s+|sadly\s+|finally\s+)*(?:died(?!\s+(?:down|out|off)\b)"
                        r"|passed\s+away|passed\s+on|was\s+put\s+(?:down|to\s+sleep)|crossed\s+the\s+rainbow\s+bridge)\b"),
         compile_lazily(r"\b(?:[Ww]e|I)\s+(?:just\s+|sadly\s+|finally\s+)?(?:had\s+to\s+)?put\s+" + _NAME
                        + r"\s+(?:down|to\s+sleep)\b"),
         compile_lazily(r"\b(?:[Ww]e|I)\s+(?:just\s+|sadly\s+|finally\s+)?(?:lost|said\s+goodbye\s+to)\s+" + _NAME
                        + r"(?=\s*(?:[.!;]|$|,|\s+(?:last|this|yesterday|today|on)\b))"))


def died(text: str) -> tuple[str, ...]:
    """The names that open a sentence of `text` said to have died ("Rex passed away." -> ("Rex",)),
    but a kin word ("Grandma passed away") or a word that is no noun ("It died"). A common noun is one
    ("Sadly Biscuit passed away", "We had to put Biscuit down"): the judge reads a name only as the end
    of a pet so named."""
    _check(text)
    return tuple(dict.fromkeys(m.group("n") for rx in _DIED for m in rx.finditer(text.strip())
                               if m.group("n").lower() not in _KIN
                               and (is_given_name(m.group("n")) or (tag(m.group("n")) or "NNP").startswith("NN"))))


def names_value(text: str, value: str) -> bool:
    """Whether `text` names `value` (lower-cased, as `corrected` gives it) as a word of its own."""
    _check(text)
    return re.search(rf"(?<![\w$]){re.escape(value)}(?![\w%])", text, re.I) is not None


def short(text: str) -> bool:
    """Whether `text` is a short statement: at most SHORT_WORDS words (see `anchors`)."""
    _check(text)
    return len(_WORD.findall(text)) <= SHORT_WORDS


def anchors(text: str) -> frozenset[str]:
    """The words of `text` that name one thing in particular, lower-cased (see the module
    docstring)."""
    _check(text)
    text = _CALLED.sub(lambda m: " " if is_given_name(m.group(1)) else m.group(0),
                       _VOCATIVE.sub(" ", in_first_person(text)))
    words = list(_WORD.finditer(text))
    short = len(words) <= SHORT_WORDS
    found = set()
    for match in words:
        word = re.sub(r"['’]s$", "", match.group())
        if len(word) < 3 and not (len(word) == 2 and word.isupper() and word not in _NO_ACRONYMS):
            continue
        named = word[0].isupper() and not _opens_sentence(text, match.start())
        if named or not is_common(word) or short and _names_a_thing(word):
            found.add(_one_of(word.lower()))
            series = _NUMBERED.match(word)
            if series and len(series.group(1)) >= 3 and (not is_common(series.group(1)) or "-" in series.group(1)):
                found.add(series.group(1).lower())  # "db-staging-02" is of the series "db-staging"
    return frozenset(found)


def _opens_sentence(text: str, at: int) -> bool:
    """Whether the word at `at` opens `text` or a sentence or dashed aside in it: only quotes or
    an opening bracket before it, after the text's start or after a stop (or a spaced dash) and
    a space. It looks back from `at` only as far as those characters go."""
    i = at
    while i > 0 and text[i - 1] in _OPENING:
        i -= 1
    if i == 0:
        return True
    j = i
    while j > 0 and text[j - 1].isspace():
        j -= 1
    if j == i or j == 0:
        return False
    return text[j - 1] in _STOPS or text[j - 1] in _DASHES and j >= 2 and text[j - 2].isspace()


def _names_a_thing(word: str) -> bool:
    """A common noun that is not too general to say what a statement is about."""
    lower = word.lower()
    return tag(lower) in ("NN", "NNS") and singular(lower) not in _GENERAL_NOUNS


def _one_of(word: str) -> str:
    """`word` made singular where that is a word too ("thursdays"; not "texas", "ines")."""
    one = singular(word)
    return one if one == word or tag(one) or tag(one.capitalize()) else word


def _check(text: object) -> None:
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
