"""Reading a question into the slots it asks about.

Contract: ``asked(question)`` returns the ``SlotKey``s a question asks about, in the order of
the question table ``_ASK`` and without repeats: "Where do I work?" -> (me, employer); "When is
the grant proposal due?" -> (grant proposal, due); "What's my sister's name?" -> (sister, name)
and (me, sister). The subject is the first relative, pet or name the question mentions, a
full name whole ("Where does Alex Kim work?": alex kim; "How old is my dog?": dog), else "me"
(``_asked_subject``; "my parents" is "parent", as a statement's subject reads); a
when/due/status/amount question names a thing (``_asked_thing``). A
question that asks about no slot of the catalogue may ask about an open one
(worlddb.extract.open_slots.asked_open). Deterministic, no I/O, never raises for a ``str``;
``TypeError`` for anything else. worlddb.extract.slots exports ``asked``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from worlddb.extract._slot_catalogue import ME, SlotKey
from worlddb.extract._slot_clause_subject import _MONTH_WORDS, _NOT_SUBJECTS
from worlddb.extract._slot_reader import _QUALIFIER_WORDS, _animate, _qualifier
from worlddb.extract._slot_rules import _PASTIME_VERBS, _SUMS, _gerund
from worlddb.extract._slot_values import normalise_subject
from worlddb.extract._slot_words import _DRINKS, _KIN, _KIN_RE, _PETS
from worlddb.extract.open_slots import asked_open

_ASK: tuple[tuple[str, re.Pattern[str], str], ...] = tuple((attr, re.compile(rx, re.I), q) for attr, rx, q in (
    ("home", r"\bwhere\s+(?:do|does|did)\s+.{0,30}?\b(?:live|stay|reside|based)\b|\b(?:which|what)\s+(?:city|town|"
             r"country|state|neighbou?rhood)\b.{0,30}\b(?:live|based|home)|\bwhere\b.{0,20}\b(?:home|based)\b", ""),
    ("employer", r"\bwhere\s+(?:do|does|did)\s+.{0,30}?\bwork\b|\bwho\s+(?:do|does)\s+.{0,30}?\bwork\s+for\b|"
                 r"\b(?:employer|which company|what company)\b", ""),
    ("role", r"\b(?:job title|title|role|position|occupation|profession)\b|\bwhat\s+(?:do|does|did)\s+.{0,30}?\bdo\s+"
             r"(?:for\s+(?:work|a living)|professionally)\b|\bwhat(?:\s+is|\s+was|['’]s)\s+.{0,20}\bjob\b", ""),
    # (not a package, password or window manager)
    ("manager", r"(?<!package )(?<!password )(?<!window )(?<!task )(?<!file )\b(?:manager|boss|supervisor|report to)\b",
     ""),
    ("partner", r"\b(?:dating|seeing|boyfriend|girlfriend|partner|husband|wife|spouse|married to|together with|"
                r"relationship)\b", ""),
    ("marital_status", r"\b(?:married|engaged|divorced|single|wedding)\b", ""),
    ("diet", r"\b(?:vegan|vegetarian|pescatarian|keto|diet|eat meat|eat fish|eat dairy)\b", ""),
    ("alcohol", r"\b(?:drink|alcohol|wine|beer|sober)\b", ""),
    ("smoking", r"\bsmok\w*|vap\w*\b", ""),
    ("allergy", r"\ballerg\w*|\breaction\b", ""),
    ("medication", r"\b(?:medications?|medicines?|meds|pills?|prescriptions?|prescribed|dose|dosage)\b", ""),
    ("phone", r"\bphone\s+number|\bcell\s+number|\bmobile\s+number|\bnumber\b.{0,15}\bcall\b", ""),
    ("email", r"\be-?mail\b", ""),
    ("address", r"(?<!email )(?<!e-mail )\baddress\b", ""),
    ("car", r"\b(?:car|vehicle|drive)\b", ""),
    ("device", r"\bwhat\s+(?:phone|smartphone)\b|\bphone\s+(?:do|does)\b|\bwhich\s+phone\b", ""),
    ("provider", r"\b(?:dentist|doctor|gp|therapist|p(?:a)?ediatrician|vet|accountant|lawyer|landlord|landlady|"
                 r"hairdresser|barber|dermatologist|psychiatrist|trainer|provider|carrier|internet|energy|electricity|"
                 r"(?:(?:health|car|auto|home|renters|life|pet)\s+)?insurance)\b", "auto"),
    ("bank", r"\bbank\w*\b|\bcredit union\b", ""),
    # "attend" alone asks about an event as often as a school ("When did John attend the trivia?")
    ("school", r"\bschool\b|\bacademy\b|\b(?:enrolled|studying|study|studies)\s+(?:in|at)\b|"
               r"\bwhere\s+(?:do|does|did)\s+.{0,30}?\bstud(?:y|ies)\b|\b(?:college|university|kindergarten|preschool|daycare)\b.{0,30}\battend|"
               r"\battend\w*\b.{0,30}\b(?:college|university|kindergarten|preschool|daycare)\b", ""),
    # "what kind of" asks about a pet only when it names an animal ("What kind of soup ...?" does not)
    ("pet", r"\bpets?\b|\bwhat\s+(?:animal|(?:kind|breed|type)\s+of\s+(?:animal|dog|cat|bird|fish|reptile|snake"
            r"|lizard|rabbit|hamster|puppy|kitten))\b", ""),
    ("name", r"\b(?:my|our|the|his|her)\s+(?P<t>(?:\w+\s+)?\w+)['’]s\s+name\b", "named"),
    ("favourite", r"\b(?:favou?rite|fave|go-to|best)\s+(?P<q>[\w -]{2,30}?)(?:\?|$|\s+(?:these days|now|right now|"
                  r"lately|in town)\b)", "group"),
    ("order", r"\border\b", "order"),
    ("language", r"\b(?:programming\s+)?language\b.{0,30}\b(?:use|for|write|code)\b|\bwhat\s+language\s+do\b", ""),
    ("languages", r"\blanguages?\b.{0,20}\bspeak\b|\bspeak\b", ""),
    ("activity", r"\b(?:hobby|hobbies|for fun|free time|spare time|sports?|pastimes?|weekends?|activity|activities|"
                 r"interests|like to do|enjoy doing|learning)\b", ""),
    ("frequency", r"\bhow\s+(?:often|many times|many days)\b", "activity"),
    ("bedtime", r"\b(?:bed|sleep|bedtime)\b", ""),
    ("waketime", r"\b(?:wake|get up)\b", ""),
    ("when", r"\b(?:when|what time|what day|which day|how early|how late)\b", "thing"),
    ("due", r"\b(?:due|deadline|move out|out of the)\b", "thing"),
    ("status", r"\b(?:status|how far along|progress|state of|done yet|shipped|finished)\b", "thing"),
    ("amount", r"\b(?:how much|cost|" + _SUMS + r")\b", "thing"),
    ("count", r"\bhow many\b", ""),
    ("goal", r"\b(?:goal|training for|race)\b", ""),
    # (a book club asked when or where it meets is asked no book: "When does book club meet?")
    ("reading", r"\breading\b|^(?!.*\b(?:when|where|what\s+time|what\s+day|which\s+day|how\s+often|who)\b)"
                r".*\bbook club\b", ""),
    # the team one is on or works in (not one played for or signed with)
    ("team", r"\b(?:which|what)\s+team\s+(?:am|is|are|was|were|do|does|did)\s+(?:I|we|he|she|they|my\s+\w+|"
             r"(?-i:[A-Z])\w+)\s+(?:(?:on|in|part of)\b|work(?:ing)?\s+(?:on|in|with)\b)", ""),
    ("coworker", r"\b(?:coworker|colleague|teammate)\b", ""),
    ("children", r"\b(?:kids|children|sons|daughters)\b", ""),
    ("age", r"\bhow\s+old\b|\bwhat\s+age\b|\bage\s+(?:is|are|am)\b|['’]s\s+age\b|\bmy\s+age\b", ""),
    ("weight", r"\bweigh\b|\bweighs\b|\bweight\b", ""),
))
_ASK_SUBJECT = re.compile(
    r"\b(?:my|our)\s+(?:\w+\s+)?(?P<folk>(?:grand)?parents?|folks)\b|"
    r"\b(?:my|our)\s+(?:\w+\s+)?(?P<kin>" + _KIN_RE + r")(?:\s+(?P<kname>(?-i:[A-Z][a-z]+)))?|"
    r"\b(?:my|our)\s+(?P<pet>" + _PETS + r")\b(?:\s+(?P<pname>(?-i:[A-Z][a-z]+)))?|"
    r"(?P<name>(?-i:[A-Z][a-z]+))(?:['’]s)?\b", re.I)
#: a group of the speaker's asked what it reads ("What is our book club reading now?")
_GROUP_READING = re.compile(r"\b(?:my|our|the)\s+(?P<g>(?:(?![\w-]+['’]s\b)[\w'’-]+\s+)?(?:book\s+club|book\s+group"
                            r"|reading\s+group|reading\s+circle|class))\b(?=.*\bread)", re.I)
_OWN_PET = re.compile(r"\b(?:my|our)\s+(?:" + _PETS + r")\b", re.I)
#: the capitalised word right after a name: its second part ("Alex Kim"), unless it is not a name
_SURNAME = re.compile(r"\s+((?-i:[A-Z][a-z]+))\b")
_FIRST_PERSON = re.compile(r"\b(?:I|me|my|am)\b", re.I)
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
        if attribute == "reading" and (group := _GROUP_READING.search(question)):
            # "What is the book club reading?": the group's, as "Our book club is reading Piranesi" reads
            keys.append(SlotKey(normalise_subject(group.group("g")), attribute))
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
        if attribute in ("partner", "coworker", "manager", "provider") and (
                who in _KIN.values() or who != ME and _OWN_PET.search(question)):
            who = ME  # (a pet's vet is said to be "our vet")
        if attribute == "age" and who == ME and not _FIRST_PERSON.search(question):
            continue  # "How old is the company?" names no one, and does not ask the speaker's age
        keys.append(SlotKey(who, attribute, qualifier))
    if not keys:
        # an open slot (worlddb.extract.open_slots): "What browser do I use?", "What is the wifi password?"
        keys += [SlotKey(c.subject, c.attribute, c.qualifier) for c in asked_open(question, _animate())]
    return tuple(dict.fromkeys(keys))


#: a month or a day named as a time, not a person: after a word of time ("in February", "since
#: May", "last Friday"), or before a date's number ("May 3", "June 2024")
_WHEN_WORDS = "|".join(sorted(_MONTH_WORDS))
_A_TIME = re.compile(r"(?:\b(?:in|on|since|until|till|by|during|before|after|from|of|last|next|this|early|late|mid)\s+"
                     r"(?:" + _WHEN_WORDS + r")\b|\b(?:" + _WHEN_WORDS + r")\s+\d)", re.I)


def _asked_subject(question: str) -> str:
    for m in _ASK_SUBJECT.finditer(question):
        if m.group("folk"):  # "my parents", as a statement's subject reads it
            return normalise_subject(m.group("folk"))
        if m.group("kname"):
            return m.group("kname").lower()
        if m.group("kin"):
            return _KIN[m.group("kin").lower()]
        if m.group("pet"):  # "How old is my dog?": the dog, as "My dog is 5" reads
            return (m.group("pname") or m.group("pet")).lower()
        name = m.group("name")
        if name and name.lower() not in _QUESTION_WORDS and name.lower() not in _NOT_SUBJECTS \
                and m.start() > 0 and name.lower() not in _KIN and not _A_TIME.search(question, 0, m.end() + 6):
            # a full name is asked as one ("Where does Alex Kim work?": alex kim, not any Alex)
            last = _SURNAME.match(question, m.end()) if m.group(0) == name else None  # not after "Alex's"
            if last and last.group(1).lower() not in _QUESTION_WORDS | _NOT_SUBJECTS | _MONTH_WORDS | set(_KIN):
                return f"{name} {last.group(1)}".lower()
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
               r"\bhow\s+much\s+(?:money\s+)?do\s+I\s+(?:make|earn|take\s+home|get\s+paid)(?:\s+(?:a|an|per)\s+(?:year|"
               r"month|week|hour)|\s+now|\s+these\s+days|\s+at\s+work)?(?P<salary>)$",
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
            if m.groupdict().get("salary") is not None:
                return "salary"  # what one makes is one's salary (the reader reads it so)
            # "When do I swim?": the pastime a verb keeps, by its gerund, as the reader names it
            kept = re.fullmatch(r"(?:I|we)\s+(?:usually\s+|normally\s+)?(" + _PASTIME_VERBS + r")", m.group("t"), re.I)
            if kept:
                return _gerund(kept.group(1))
            # "When does the shop close?", "What time do we open?": the hour by its verb, as the reader names it
            hours = re.fullmatch(r"(?:we|(?:the|our)\s+[\w'’-]+)\s+(open|close)", m.group("t"), re.I)
            return hours.group(1).lower() if hours else normalise_subject(m.group("t"))
    return ""


def slot_words(keys: Iterable[SlotKey]) -> set[str]:
    """The attribute names of `keys` (for logs and tests)."""
    return {k.attribute for k in keys}
