"""How often and when: the rules of frequency, bedtime, waketime, a thing's time, due dates and status.

Contract: ``SCHEDULE`` holds, in table order, the rules of how often one does a thing, when one
sleeps and wakes, when a named thing (a meeting, an appointment, a pastime kept every week) is,
when a deliverable is due and whether a thing is called off or has a status of its own.
"""

from __future__ import annotations

import re

from worlddb.extract import given_names, lexicon
from worlddb.extract._slot_rules._base import (
    _NOT_ACTIVITIES,
    _NOT_GERUNDS,
    _NOT_OUTINGS,
    _S,
    _has_time,
    _Rule,
    _rx,
)
from worlddb.extract._slot_words import (
    _DATE,
    _DELIVERABLES,
    _EVENTS,
    _PER,
    _STATUS,
    _TIME,
)

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


#: a weekday said as a habit, the value ("on Tuesdays", "every Tuesday", "every other Friday")
_ON_WEEKDAYS = (r"(?:on\s+(?=(?:mon|tues|wednes|thurs|fri|satur|sun)days\b)|(?=every\s))"
                r"(?P<v>(?:every\s+(?:other\s+)?)?" + _TIME + r")")
#: the verbs of pastimes one keeps by doing them ("I swim on Mondays", "we climb every Friday")
_PASTIME_VERBS = ("swim|run|jog|climb|boulder|cycle|bike|hike|row|surf|skate|dance|box|paint|knit|sing|ski|golf|bowl"
                  "|fence|sail|ride|lift|train|paddle|kayak|skateboard|snowboard")


def _gerund(verb: str) -> str:
    """A pastime's verb as its gerund, the word the speaker's other habits name it by ("swim":
    "swimming", "cycle": "cycling", "ski": "skiing")."""
    verb = verb.lower()
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    # one short syllable ending in a consonant after a vowel doubles it ("swim", "run", "knit"; not "row", "box")
    if len(verb) <= 4 and re.fullmatch(r"[a-z]*[^aeiou][aeiou][^aeiouwxy]", verb):
        return verb + verb[-1] + "ing"
    return verb + "ing"


#: an hour written as a bare number after "at", "to", "by" or "around", ending the clause ("standup moved
#: to 10", "I'm asleep by 10")
_HOUR = r"(?:[01]?\d|2[0-3])(?::[0-5]\d)?"
_BARE_HOUR = (r"(?:(?<=\bat\s)|(?<=\bto\s)|(?<=\bby\s)|(?<=\baround\s))" + _HOUR
              + r"(?=\s*(?:$|[.!?,;])|\s+(?:now|instead|these days|lately|recently|from now on|going forward)"
                r"\s*(?:$|[.!?,;]))")


def _has_time_or_hour(value: str) -> bool:
    return _has_time(value) or re.fullmatch(_HOUR, value) is not None


def _has_date(value: str) -> bool:
    return bool(re.search(_DATE, value, re.I))


#: "Kevin started a new job", "I finished rereading it": a status verb with an object says what
#: someone did, no thing's status ("the redesign is blocked waiting on legal" still is one)
_NO_OBJECT = (r"(?!(?:" + "|".join(f"(?<={w})" for w in ("started", "kicked off", "finished", "completed", "shipped",
                                                          "launched", "released", "canceled", "cancelled", "scrapped",
                                                          "approved", "rejected", "deployed", "rolled out",
                                                          "wrapped up", "done")) +
              r")\s+(?:a|an|the|my|our|his|her|their|its|this|that|these|those|some|another|[\w'’-]+ing)\b)")


SCHEDULE: tuple[_Rule, ...] = (
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
    # "I have yoga every Monday at 6pm", "I go to pilates on Wednesdays", "I do my long run on Sundays": a thing
    # one keeps every week (not "I have a meeting on Monday", one meeting; a bare "meeting" or "class" every
    # week names no one thing). The speaker's own only: "my sister has yoga every Tuesday" is hers, and a
    # thing's name says nothing of whose
    _Rule("when", _rx(r"\b(?:I|we)\s+(?:(?:usually|always|normally|still|now|also)\s+)?(?:have|go\s+to|attend|take|teach"
                      r"|do)\s+(?!(?:(?:a|an|the"
                      r"|my|our)\s+)?(?:meeting|call|class|lessons?|session|appointment|sync|check-?in|practice)\s+(?:on|every)"
                      r"\b)(?P<t>(?:(?:my|our|the|a)\s+)?" + _THING_WORDS + r"(?:" + _EVENTS + r")(?:\s+(?:class|classes|lessons?"
                      r"|practice))?)\s+" + _ON_WEEKDAYS),
          thing=True, accept=_has_time, unless=None),
    # "I go climbing on Tuesdays", "I play football every Saturday", "I go to pottery on Thursdays": a pastime
    # the speaker keeps every week, however it is named (a gerund after "go"; a word after "go to", "have", "do",
    # "play" or "practise"), which its later day changes ("Climbing moved to Mondays"). The speaker's own and on
    # a weekday said as a habit ("on Tuesdays", "every Tuesday"), as for an event above
    _Rule("when", _rx(r"\b(?:I|we)(?:\s+|(?=['’]))(?:(?:usually|always|normally|still|now|also)\s+)?"
                      r"(?:go\s+(?=[a-z]+ing\b)|go\s+to\s+|have\s+|do\s+|play\s+|practi[cs]e\s+"
                      # ("I'm learning Arabic on Tuesdays": a subject studied on a weekday)
                      r"|(?:am\s+|['’]m\s+|are\s+|['’]re\s+)(?:learning|studying|taking)\s+)(?P<t>[\w-]+)"
                      r"\s+" + _ON_WEEKDAYS),
          thing=True, accept=_has_time, names=_pastime),
    # "We open at 7am on weekdays", "the shop closes at 6": the hour a place of the speaker's opens or
    # closes, by the verb ("When do we open?" asks it so)
    _Rule("when", _rx(r"\b(?:we|the\s+(?:shop|store|bakery|cafe|café|restaurant|bar|office|studio|salon|clinic))\s+"
                      r"(?:(?:usually|normally|now|still|only)\s+)?(?P<t>open|opens|close|closes)\s+(?:now\s+)?at\s+"
                      r"(?P<v>" + _TIME + r"|" + _BARE_HOUR + r")"),
          thing=True, accept=_has_time_or_hour, thing_of=lambda verb: verb.lower().rstrip("s")),
    # "I swim on Mondays", "we climb at the wall every Friday": a pastime kept by doing it, named by its
    # gerund as the rule above names it ("I go swimming on Mondays")
    _Rule("when", _rx(r"\b(?:I|we)\s+(?:(?:usually|always|normally|still|now|also)\s+)?(?P<t>" + _PASTIME_VERBS + r")"
                      r"\s+(?:(?:at|in)\s+(?:the\s+)?(?:[\w'’-]+\s+){1,4}?)?"
                      + _ON_WEEKDAYS),
          thing=True, accept=_has_time, thing_of=_gerund),
    # "Climbing moved to Mondays", "Football is on Saturdays now", "Update: pottery is now every Thursday",
    # "Swimming's moved to Tuesdays": a thing named by one word opening its clause, given a weekday as a
    # habit (a pastime's, however named; the event nouns above take any time)
    _Rule("when", _rx(r"(?:^|(?<=[:,]\s))(?P<t>[\w-]+)(?:['’]s(?=\s+(?:moved|changed|shifted|switched|been|now)\b))?"
                      r"(?=\s+(?:is|are|was|were|has|have|got|just|now|moved|changed"
                      r"|shifted|switched|rescheduled|pushed|been)\b)\s+(?:(?:is|are|was|were|has|have|got|just|now|been)\s+)*"
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
)
