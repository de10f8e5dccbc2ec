"""Work: the rules of employer, role, manager, team and coworker, and the checks they name.

Contract: ``JOB`` holds the rules of where someone works (joined, held or left), their role or
title and their manager and other one-of-a-kind people of work, and ``TEAM`` those of the team one
works in and of a coworker's name, each in table order (the package puts ``TEAM`` after the pets).
``_occupation`` is the check of a role (worlddb.extract._slot_reader asks it of a rule's ``r``
group too) and ``_LEAVE`` the verbs of leaving a job, which the reader reads as well.
"""

from __future__ import annotations

import re

from worlddb.extract._slot_rules._base import (
    _APPOSITION_END,
    _NAME_ALONE,
    _S,
    _VAL,
    _WORKPLACES,
    _name,
    _org,
    _Rule,
    _rx,
    _school,
)
from worlddb.extract._slot_words import (
    _DATE,
    _KIN_RE,
    _NUM_WORDS,
    _OCCUPATIONS,
    _TIME,
    _TITLE_WORDS,
    corporate,
)

#: an organisation: a name, or a noun phrase after an article ("a big firm", "the hospital")
_ORG = r"(?P<v>(?:(?:a|an|the)\s+[\w'’ -]{2,40}|(?-i:[A-Z0-9]).{0,60}))"
#: those that "left" leaves as a job ("left the company"); one leaves a hospital, a shop or the
#: office every day
_LEFT_JOBS = {"firm", "company", "startup", "start-up", "agency", "consultancy", "corporation", "service", "nonprofit",
              "non-profit", "newspaper", "magazine", "publisher", "airline"}


#: the endings of a specialist's title: an anaesthesiologist, a paediatrician, a podiatrist, a sonographer
_SPECIALIST = re.compile(r"(?:ologist|ician|iatrist|iatrician|ographer)s?$")


def _occupation(value: str) -> bool:
    words = value.lower().replace("-", " ").split()
    return bool(words) and (words[-1].rstrip("s") in _OCCUPATIONS or _SPECIALIST.search(words[-1]) is not None) \
        and all(w in _TITLE_WORDS or w.isalpha() for w in words)


def _not_school(value: str) -> bool:
    return _org(value) and not _school(value)


#: the kinds of employer a company may be named after ("a small fintech called Brightpath")
_EMPLOYER_KINDS = r"company|firm|startup|start-up|fintech|agency|consultancy|studio|bank|lab|scale-?up|nonprofit|charity"
#: a team named by the words before "team" ("the payments team", "the Core Platform team")
_TEAM = r"(?P<v>(?:[\w&+-]+\s+){1,3}?team)\b"
#: words of a team one plays in, not one works in
_SPORTS = frozenset("""sport sports soccer football basketball baseball softball hockey volleyball rugby cricket tennis netball
lacrosse swim swimming track debate chess trivia bowling darts polo water rowing cheer cheerleading dance
relay varsity jv school college university national olympic league pub quiz""".split())
_SPORTS_RE = "|".join(sorted(_SPORTS))


def _work_team(value: str) -> bool:
    """A team one works in: its name holds no word of a sport, a school team or a league."""
    words = value.lower().replace("-", " ").split()
    named = words[:-1] if words and words[-1] == "team" else words
    return bool(named) and not any(w in _SPORTS for w in words) \
        and not any(w in ("new", "same", "other", "whole", "entire", "old", "a", "an", "the") for w in named)


#: leaving a job or a place: the verbs of an ended employer
_LEAVE = r"quit|quitting|left|leaving|leave|resigned\s+from|lost"
#: a job sought, offered or refused, not held ("I applied for a job at Google", "turned down a job at ...")
_NOT_HELD = (r"appl(?:y|ied|ying)|interview\w*|offered|declin\w+|turned|reject\w*|refused|consider\w*|hop(?:e|ed|ing)"
             r"|look\w*|search\w*|want\w*|dream\w*|wish\w*")
#: a named thing dropped for another one gets ("I quit Spotify and got Apple Music"): a product or a
#: service given up, not a job ("... and got a job at Apple" is one)
_TOOK_UP = re.compile(r"\b(?:quit|quitting|left|cancel+ed|dropped|ditched)\s+(?-i:[A-Z])[^,;.]{0,40}?\s+and\s+"
                      r"(?:got|bought|signed\s+up\s+for|subscribed\s+to|switched\s+to|went\s+with|picked\s+up)\s+"
                      r"(?!(?:a|an|the|my|his|her|their)\s+(?:new\s+)?(?:job|offer|position|role|gig|contract)\b)", re.I)
#: a trip, a move or a day's outing: one is at or leaves a place, not a job
_OUTING = _rx(r"\b(?:moved|moving|move|relocat\w*|flew|fly|flying|flight|drove|driving|trip|travel\w*|vacation"
              r"|holiday|visit\w*|tour|airport|terminal|gate|station|hotel|beach|park|waiting|queue|traffic|lunch"
              r"|dinner|breakfast|party|concert|show|game|early|late|tonight|for the day|for the weekend"
              r"|(?:at|around|by|before|after)\s+\d)\b")
#: a trip or outing, or a stay one does not work at ("I've been at St Mary's Hospital since Monday")
_OUTING_OR_STAY = _rx(_OUTING.pattern + r"|\b(?:hospital|clinic|hospice|rehab|ICU|ER|admitted|patient|surgery|sick|ill)\b")


#: "<who> started at <Name>": a named place started at
_STARTED_AT = _rx(r"(?:^|(?<=\band\s)|(?P<s>\b(?:I|we|he|she|they|(?-i:[A-Z][a-z]+)|(?:my|our)\s+(?:" + _KIN_RE
                  + r")))\s+(?:just\s+|finally\s+|officially\s+)?)(?:started|began)\s+at\s+(?=(?-i:[A-Z]))" + _ORG)
#: words that make a school started at a workplace
_JOB_AT_SCHOOL = _rx(r"\b(?:job|teach\w*|staff|hired|position|role|salary|colleagues?|head of|as an? [a-z]+)\b")


def _started_at(value: str) -> bool:
    return bool(value) and value[0].isupper() and not re.match(rf"(?:{_TIME}|{_DATE})", value, re.I)


JOB: tuple[_Rule, ...] = (
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
    # "Idris qualified as a nurse practitioner last month", "she retrained as a plumber": the role trained for
    _Rule("role", _rx(_S + r"(?:qualified|requalified|retrained|trained)\s+as\s+(?:an?\s+)?" + _VAL),
          accept=_occupation),
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
    # "Dr. Fiona Kerr supervises me now", "Dana manages us": the one named first is the manager
    _Rule("manager", _rx(r"(?P<s>)(?P<v>(?:(?-i:Dr|Prof|Professor)[.\u2024]?\s+)?(?!(?-i:He|She|They|Who)\b)"
                         r"(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+(?:(?:now|also)\s+)?(?:manages|supervises)\s+"
                         r"(?:me|us)\b(?!\s+(?:on|for|with|in)\b)"), accept=_name),
    # "Had my first one-on-one with Marcus, my manager since the reorg": a name and its role side by side,
    # the role ending its phrase (not "Marcus, my manager wants ...")
    _Rule("manager", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)),\s+(?P<s>my|our)\s+(?:new\s+)?(?:manager|boss"
                         r"|supervisor|team lead|line manager)" + _APPOSITION_END), accept=_name),
)


TEAM: tuple[_Rule, ...] = (
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
)
