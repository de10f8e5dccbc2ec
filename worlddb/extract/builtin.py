"""The built-in extractor: readable rules, no model, no network.

Contract: ``BuiltinExtractor().extract(text, ctx)`` is deterministic (same text and context, same
``Extraction``), performs no I/O, never raises for a ``str`` (``TypeError`` otherwise) and reports
``extractor="builtin"``. It is a baseline for chat and note text in English:

* sentences split on terminal punctuation (abbreviations and initials such as "Dr." and "J.K."
  do not end a sentence) and on line breaks;
* named entities are runs of capitalised words ("New York", "Bank of America"), possessives
  stripped ("Oliver's" -> "Oliver"), titles kept as part of the name with the bare name as an alias
  ("Dr. Smith" / "Smith"), quoted titles taken whole ("Becoming Nicole"). A capitalised word at the
  start of a sentence is only a name when something else says so: it is known (speaker, user,
  ``ctx.known_names``, or capitalised mid-sentence elsewhere in the text), coordinated with a name
  ("Luna and Oliver"), part of a longer run ("Harry Potter is ..."), addressed and known to the
  word list as a name ("Maria, that's great"), or the subject of a finite verb ("Sarah prefers
  tea", "Ana got a job", "Tom is allergic") or a possessive ("Kevin's wife") while not a common
  word ("Coffee is great", "Nothing works", "Life's too short"). Common words and tags come from a
  case-keeping lexicon (``worlddb.extract.lexicon``), so a name that is also a common word ("Apple
  released ...", "Max was ...") is missed there. The first word of a run that opens a sentence is
  dropped when it is an opener ("Thanks Gina"), an imperative ("Call Jenna"), a temporal
  ("Yesterday Marco"), a past verb before a word that is no common one ("Finished Project Hail
  Mary"), a past verb before a lower-case connector ("Sold the Civic") or a common word before a
  word that is not one ("Email Jenna"); the rest is a name.
  Types come from cheap cues around the name (``_guess_type``): "in Denver" is a place, "to
  Denver" only after a word of going ("flew to", "a trip to"; not "engaged to Lena"). Precision
  is preferred to recall; a lone word without evidence is reported in ``Extraction.unsure`` for a
  caller that knows the names of the scope;
* simple noun phrases after a determiner ("my hometown", "a travel club"), ending before a word
  whose likeliest tag is a finite verb or an adverb ("my brother bought ...": "brother"; "my
  landlord finally ...": "landlord") or before a word the list takes for a plural noun that is the
  verb of a singular kin or role word, as what follows it shows ("my sister lives in Boston":
  "sister"; but "the city works department"), and a finite verb alone is none, type "concept"; a
  generic role alone ("the user prefers ...") is none, as a role names no one;
* the speaker (and, for first-person text without a speaker, the user) as a "person";
* temporal expressions via ``worlddb.extract.temporal``;
* subject-relation-object facts from a handful of patterns ("X is a Y", "X lives in Y",
  "I moved to Y" -> lives_in, "X works at Y", "X is from Y", "X loves Y", "X joined Y",
  "my sister Anna" -> has_sister; not "my late father Joe", nor "my dog Rex" said to have died);
  a relation said in the simple past is the past one ("I lived in Y" -> lived_in, "worked at" ->
  worked_at, "was a" -> was_a), which says nothing of now; "I"/"me"/"my" stand for
  ``ctx.speaker``, else ``ctx.user_name``, else the literal "user". A place relation (lives_in,
  lived_in, from, visited) never takes a temporal object ("moved to Tuesday"), and a move said
  for a time still to come ("moving to Y next month") is none yet. A fact's ``valid_from`` is the
  first resolved time in its sentence. A fact pattern runs only where the literals it needs
  (``_fact_needs``, worlddb.extract.literals) occur in the sentence, which changes no fact.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache

from worlddb.extract import (
    GENERIC_ROLES,
    EntityCandidate,
    Extraction,
    ExtractionContext,
    FactCandidate,
    given_names,
    lexicon,
)
from worlddb.extract._slot_rules import moved_home
from worlddb.extract._slot_words import FUTURE_TIME, NAMED_TIME, corporate
from worlddb.extract.literals import fold, has_all, required
from worlddb.extract.temporal import find_temporals

__all__ = ["BuiltinExtractor", "split_sentences"]

_WORD = re.compile(r"(?:[A-Z]\.){2,}|[^\W_]+(?:[-'’&][^\W_]+)*", re.UNICODE)
_BOUNDARY = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|\n+")
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "mt", "ft",
                  "no", "inc", "ltd", "co", "e.g", "i.e", "approx"}
_TITLES = {"Mr", "Mrs", "Ms", "Miss", "Dr", "Prof", "Sir", "Dame", "Lord", "Lady", "Aunt",
           "Uncle", "Coach", "Captain", "President", "Senator", "Judge", "Saint"}
#: abbreviated words a place's or a house's name opens with ("St. Louis", "Mt. Hood", "St. David's")
_NAME_PREFIXES = {"St", "Ste", "Mt", "Ft", "Pt"}
_CONNECTORS = {"of", "de", "du", "la", "le", "van", "von", "der", "da", "di", "the"}
_FIRST_PERSON = {"I", "I'm", "I've", "I'll", "I'd", "I’m", "I’ve", "I’ll", "I’d"}
# Words that open sentences (and vocatives: "Thanks Gina") but are never names themselves.
_OPENERS = set("""
a an the this that these those it its it's i'm i've my your his her our their we you they he she
there here what when where why how who which whose if so and but or then also just well oh ok okay
yes yeah yep yup no nope nah hey hi hello hiya yo bye goodbye thanks thank thx congrats
congratulations wow whoa woah cool nice great awesome amazing sure absolutely definitely totally
sounds glad sorry aww aw ah ahh haha lol omg btw anyway anyways by as at in on for with from to of
after before since while because although though not never always maybe perhaps good happy
love dear cheers welcome same exactly right true agreed indeed alright all let let's please
hope talk catch see take have had has do did does is was are were be been can could would should
will may might must gotta gonna wanna guess also especially plus speaking whatever still even
""".split())
_NOT_NAMES = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
    "february", "march", "april", "june", "july", "august", "september", "october", "november",
    "december", "btw", "omg", "lol", "tbh", "imo", "asap", "ok", "okay", "tv", "diy", "pm", "am",
    # a weekday's plural: "on Thursdays"
    "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays",
}
#: units written in capitals after a number ("2000 IU", "20 MG"): no names
_UNITS = {"IU", "MG", "MCG", "ML", "KG", "KM", "CM", "MM", "MB", "GB", "TB", "MPH", "KPH", "HZ", "KW", "KWH"}
_ORG_SUFFIX = {"Inc", "Corp", "Company", "Co", "LLC", "Ltd", "University", "College", "School",
               "Academy", "Institute", "Foundation", "Association", "Club", "Society", "Bank",
               "Hospital", "Church", "Center", "Centre", "Studio", "Studios", "Group", "Agency", "Museum",
               "Organization", "Organisation", "Committee", "Council", "Department", "Ministry",
               "Party", "Union", "Federation", "League", "Network", "Store", "Shop", "Cafe",
               "Restaurant", "Bakery", "Press", "Records", "Labs", "Team", "Band", "Orchestra"}
_PLACE_SUFFIX = {"City", "Park", "Lake", "River", "Mountain", "Mountains", "Mount", "Canyon",
                 "Beach", "Island", "Islands", "Street", "Avenue", "Road", "County", "State",
                 "Valley", "Bay", "Falls", "Forest", "Trail", "Coast", "Desert"}
_KIN = ("sister|brother|mom|mum|mother|dad|father|wife|husband|son|daughter|friend|partner"
        "|boyfriend|girlfriend|boss|cousin|aunt|uncle|grandma|grandpa|grandmother|grandfather"
        "|niece|nephew|neighbor|neighbour|roommate|colleague|coworker|teacher|coach|mentor")
# Family and friends: "Bob's daughter" says Bob is a person ("Dell's family of laptops" and
# "Google's partner" do not, so neither word is here).
_FAMILY = ("sister|brother|mom|mum|mother|dad|father|wife|husband|son|daughter|kids?|children|child"
           "|boyfriend|girlfriend|fianc[eé]e?|ex-wife|ex-husband|cousin|aunt|uncle|grandma|grandpa"
           "|grandmother|grandfather|grandson|granddaughter|niece|nephew|parents|siblings?|stepmom"
           "|stepdad|stepson|stepdaughter|in-laws|friend|roommate")
# People one works with or sees about something: "my manager Priya", "Bob is my doctor"; never
# after a possessive name ("Dell's manager" may be a company's).
_ROLE = ("manager|supervisor|boss|coworker|co-worker|colleague|teammate|classmate|neighbor|neighbour"
         "|partner|doctor|dentist|therapist|nurse|lawyer|landlord|landlady|tutor|trainer|teacher"
         "|coach|mentor|buddy|pal|bestie|mate")
_PET = "dog|cat|puppy|pup|kitten|pet|horse|bird|parrot|fish|turtle|hamster|rabbit|bunny"
# People one hires or sees for a service: "Gustavo Pereira is my accountant", "my barber Hiroshi". They
# say the name is a person's whatever its language (the given-name table is English), but make no fact.
_SERVICE = ("accountant|advisor|adviser|attorney|solicitor|realtor|agent|broker|banker|plumber|electrician"
            "|contractor|builder|mechanic|vet|veterinarian|pharmacist|physio|physiotherapist|chiropractor"
            "|optometrist|dermatologist|psychiatrist|psychologist|counsel+or|pediatrician|paediatrician|surgeon"
            "|physician|gp|midwife|nanny|babysitter|housekeeper|cleaner|gardener|hairdresser|barber|stylist"
            "|assistant|secretary|professor|instructor|pastor|priest|rabbi|imam|client|student|intern|tenant")
_DETERMINERS = {"a", "an", "the", "my", "your", "his", "her", "our", "their", "this", "that",
                "these", "those", "some"}
_PLURAL_DETERMINERS = {"these", "those", "some"}
# Words that end a noun phrase or a fact's object (function words, auxiliaries, adverbs).
_STOP = _OPENERS | _DETERMINERS | {
    "about", "into", "onto", "over", "under", "up", "down", "out", "off", "through", "than",
    "really", "very", "too", "super", "pretty", "quite", "much", "more", "most", "lot", "lots",
    "bit", "while", "way", "thing", "things", "time", "one", "ones", "kind", "sort", "stuff",
    "me", "him", "them", "us", "myself", "yourself", "something", "anything", "everything",
    "nothing", "someone", "anyone", "everyone", "ago", "last", "next", "now", "today", "get",
    "got", "make", "made", "go", "went", "like", "feel", "felt", "am", "'s", "every", "such",
    "which", "who", "whom", "where", "there", "same", "other", "another", "own", "many", "few",
    "once", "again", "ever", "yet", "back", "together", "anymore", "soon", "later", "already",
    "around", "instead", "either", "though", "lately", "recently", "tonight", "tomorrow",
}
# Evaluative adjectives dropped from the front of a phrase: "an awesome hiking trail" -> "hiking trail".
_ADJECTIVES = {"great", "good", "awesome", "amazing", "new", "nice", "big", "little", "small", "old",
               "cool", "beautiful", "special", "huge", "real", "whole", "first", "best", "favorite",
               "favourite", "fave", "lovely", "wonderful", "fun", "incredible", "cute", "fantastic",
               "tough", "hard", "bad", "entire", "true", "local", "recent", "latest"}
# Verbs whose subject is almost always a person: a capitalised word before them is a name.
_PERSON_VERBS = r"lives|lived|works|worked|moved|comes\s+from|came\s+from|is\s+from|was\s+born|said|says|told|married"
_PERSON_VERB = re.compile(rf"\s+(?:{_PERSON_VERBS})\b")
# ... and more that only a person does: what makes a given name that is a common word a name
_PEOPLE_DO = re.compile(rf"\s+(?:{_PERSON_VERBS}|asked|asks|tells|called|calls|texted|texts|emailed|emails"
                        r"|messaged|wrote|writes|invited|invites|suggested|suggests|mentioned|mentions|thinks|thought"
                        r"|wants|wanted|visited|visits|met|meets|joined|joins|promised|agreed|replied|answered)\b")
# Tags of a finite verb (Penn Treebank): "prefers", "got", "released", "can".
_FINITE = {"VBZ", "VBD", "VBN", "MD"}
#: tags of a word that ends a noun phrase once it holds a noun: a finite verb, or an adverb
_ENDS_PHRASE = _FINITE | {"RB"}
#: tags of a word that opens what a verb takes: "lives in", "works two jobs", "visits us", "lives nearby"
_OPENS_COMPLEMENT = {"IN", "TO", "DT", "PDT", "PRP", "PRP$", "RB", "JJ", "CD", "EX"}
#: a word naming a person by kin or role ("sister", "manager"): what a verb after it has for subject
_PERSON_HEAD = re.compile(rf"(?:{_KIN}|{_FAMILY}|{_ROLE})")
#: endings of a plural that is only ever a noun's ("evaluations", "payments", "meetings")
_NOUN_PLURAL = re.compile(r"(?:tions|sions|ments|nesses|ities|ships|ances|ences|ings)$")
_PLACE_RELATIONS = {"lives_in", "lived_in", "from", "visited"}
#: a relation said in the simple past ("I lived in Boston", "I worked at Dell", "I was a nurse")
#: is one held once, which says nothing of now: it is recorded as the past relation
_PAST = {"lives_in": ("lived", "lived_in"), "works_at": ("worked", "worked_at"),
         "works_as": ("worked", "worked_as"), "is_a": ("was", "was_a")}
#: a kin, role or pet named and then said to have died ("My dog Rex passed away"): held no longer
_DIED = re.compile(r"\s*(?:,[^,]*,\s*)?(?:has\s+|had\s+|just\s+|sadly\s+|recently\s+)*"
                   r"(?:passed\s+(?:away|on)\b|passed(?=\s*(?:[.!;]|$))|died\b|was\s+put\s+(?:down|to\s+sleep)\b"
                   r"|was\s+killed\b)")
_PRONOUN_OBJECTS = {"it", "that", "this", "them", "him", "her", "you", "me", "us", "those", "these"}

# Subject: "I", or a capitalised phrase that must turn out to be a name found in the text.
_SUBJECT = r"(?P<subj>\bI\b|(?<![\w'’])[A-Z][\w.'’-]*(?:\s+(?:(?:of|the|de)\s+)?[A-Z][\w.'’-]*)*)"
_OBJECT_END = _STOP - _DETERMINERS
_TIME_WORDS = {"last", "next", "yesterday", "today", "tomorrow", "tonight"}
_RELATIONS: tuple[tuple[str, str], ...] = (
    (r"(?:am|'m|’m|is|was)\s+(?:a|an)\s+", "is_a"),
    (r"(?:live|lives|lived|(?:am|'m|’m|have been|'ve been)\s+living)\s+in\s+", "lives_in"),
    (r"(?:moved|relocated|(?:am|'m|’m|is)\s+moving)\s+to\s+", "lives_in"),
    (r"(?:work|works|worked|(?:am|'m|’m|is)\s+working)\s+(?:at|for)\s+", "works_at"),
    (r"(?:work|works|worked)\s+as\s+(?:a|an)\s+", "works_as"),
    (r"(?:am|'m|’m|is|was|come|comes|came)\s+from\s+", "from"),
    (r"(?:love|loves|like|likes|enjoy|enjoys|adore|adores)\s+", "likes"),
    (r"(?:visited|went\s+to|traveled\s+to|travelled\s+to)\s+", "visited"),
    (r"(?:joined|(?:am|'m|’m|is)\s+a\s+member\s+of)\s+", "member_of"),
    (r"(?:am|'m|’m|is|got)\s+married\s+to\s+|married\s+", "married_to"),
)
_FACT_PATTERNS = tuple((re.compile(rf"{_SUBJECT}(?:\s+|(?=['’]))(?:{verb})(?P<obj>[^,.!?;:()\"“”]+)"), relation)
                       for verb, relation in _RELATIONS)
# a second verb that shares the clause's subject: "I live in Austin and work at Dell"
_COORDINATED = tuple((re.compile(rf"\band\s+(?:also\s+|now\s+)?(?:{verb})(?P<obj>[^,.!?;:()\"“”]+)"), relation)
                     for verb, relation in _RELATIONS)
# words that leave a relation what it is ("my best friend", "my little sister"; not "former", "late")
_HELD_ADJ = r"(?:(?:best|close|little|big|older|younger|eldest|oldest|youngest|twin|new)\s+)?"
# a name, with the title it may carry ("Dr. Patel", "Mr Kim")
_TITLED_NAME = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?[A-Z][\w'’]*(?:\s+[A-Z][\w'’]*)*"
_MY_KIN_NAME = re.compile(rf"\b[Mm]y\s+{_HELD_ADJ}(?P<rel>{_KIN}|{_ROLE}|{_PET})\s*,?\s+(?P<name>{_TITLED_NAME})")
# "Anna is my sister", "Bob Smith is my manager", "Priya, my boss, ..."
_NAME_IS_MY_KIN = re.compile(rf"(?P<name>{_TITLED_NAME})(?:\s+(?:is|was)\s+my\s+{_HELD_ADJ}"
                             rf"(?P<rel>{_KIN}|{_ROLE}|{_PET})\b|\s*,\s*my\s+{_HELD_ADJ}(?P<apposed>{_KIN}|{_ROLE})"
                             rf"\s*(?=[,.;!?]|$))")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """[start, end) spans of the sentences of ``text``, whitespace trimmed, empty ones dropped."""
    spans, start = [], 0
    for m in _BOUNDARY.finditer(text):
        if m.group(0).startswith("."):
            before = text[start:m.start()].split()
            last = before[-1] if before else ""
            # "Dr. Smith", "J.K. Rowling", "John F. Kennedy": the period does not end the sentence.
            if last != "I" and (last.lower() in _ABBREVIATIONS or re.fullmatch(r"(?:[A-Za-z]\.)*[A-Z]", last)):
                continue
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            out.append((s, e))
    return out


class BuiltinExtractor:
    """Deterministic rule-based extractor (see the module docstring for what it finds)."""

    name = "builtin"

    def extract(self, text: str, ctx: ExtractionContext) -> Extraction:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        me = ctx.speaker or ctx.user_name or "user"
        sentences = split_sentences(text)
        temporals = []
        for s, e in sentences:
            for t in find_temporals(text[s:e], ctx.timestamp):
                temporals.append(replace(t, span=(t.span[0] + s, t.span[1] + s)))
        blocked = [t.span for t in temporals]
        known = {n.casefold() for n in (ctx.speaker, ctx.user_name, *ctx.known_names) if n}
        names, unsure = _named_entities(text, sentences, blocked, known, ctx)
        entities: dict[str, EntityCandidate] = {}
        if ctx.speaker:
            entities[ctx.speaker.casefold()] = EntityCandidate(ctx.speaker, "person", (), _find(text, ctx.speaker))
        if not ctx.speaker and ctx.user_name and re.search(r"\b(?:I|me|my|mine|myself)\b", text):
            entities[ctx.user_name.casefold()] = EntityCandidate(ctx.user_name, "person", (), None)
        for cand in names:
            entities.setdefault(cand.name.casefold(), cand)
        for cand in _noun_phrases(text, sentences, blocked):
            entities.setdefault(cand.name.casefold(), cand)
        facts = []
        for s, e in sentences:
            times = [t.resolved for t in temporals if s <= t.span[0] < e and t.resolved is not None]
            facts.extend(_facts(text[s:e], me, [c.name for c in names], times[0] if times else None))
        unsure = {c.name.casefold(): c for c in unsure if c.name.casefold() not in entities}
        return Extraction(tuple(entities.values()), tuple(dict.fromkeys(facts)), tuple(temporals), self.name,
                          tuple(unsure.values()))


def _find(text: str, name: str) -> tuple[int, int] | None:
    m = re.search(rf"\b{re.escape(name)}\b", text)
    return m.span() if m else None


def _is_cap(word: str) -> bool:
    return word[:1].isupper() and word not in _FIRST_PERSON


def _strip_possessive(word: str) -> tuple[str, bool]:
    for suffix in ("'s", "’s", "s'", "s’"):
        if word.endswith(suffix) and len(word) > len(suffix):
            return (word[:-2] if suffix[0] in "'’" else word[:-1]), True
    return word, False


def _named_entities(text, sentences, blocked, known, ctx) -> tuple[list[EntityCandidate], list[EntityCandidate]]:
    """The names of `text`, and the words at the start of a sentence that may be names but
    have nothing else to say so (Extraction.unsure)."""
    out: list[EntityCandidate] = []
    unsure: list[EntityCandidate] = []
    taken = list(blocked)
    for m in re.finditer(r"[\"“]([A-Z][^\"“”]{0,60}?)[\"”]", text):  # quoted titles
        if len(m.group(1).split()) <= 8 and m.group(1).strip(" ,.!?").lower() not in _STOP:
            out.append(EntityCandidate(m.group(1).strip(" ,.!?"), "work", (), m.span(1)))
            taken.append(m.span())
    mid_caps: set[str] = set()  # words capitalised somewhere a capital is not forced
    runs = []
    for s, e in sentences:
        tokens = [(m.start() + s, m.end() + s, m.group(0)) for m in _WORD.finditer(text[s:e])]
        for run in _cap_runs(text, tokens):
            at_start = run[0][0] == tokens[0][0] or bool(re.search(r"[-–—:(\"“]\s*$", text[s:run[0][0]]))
            runs.append((run, at_start))
            mid_caps.update(_strip_possessive(t[2])[0].casefold() for t in (run[1:] if at_start else run))
    for run, at_start in runs:
        words = [_strip_possessive(w)[0] for _, _, w in run]
        while words and (words[0].lower() in _NOT_NAMES or _inside(run[0], blocked)  # "Yesterday Marco"
                         or _no_name_here(text, run[0][0], words[0])):
            run, words, at_start = run[1:], words[1:], False
            while words and words[0] in _CONNECTORS:  # "20 MG of Lexapro": Lexapro
                run, words = run[1:], words[1:]
        if not run:
            continue
        if at_start and not (" ".join(words).casefold() in known or words[0].casefold() in known
                             or words[0].casefold() in mid_caps or words[0] in _TITLES):
            after = text[run[-1][1]:]
            # ("Xiaoming Zhang is my accountant": a run the words after call a person is a name whole
            # when its first word is one the word list does not know, only its "-ing" looks common)
            if (_not_part_of_name(words) and not (len(run) > 1 and _IS_MY_PERSON.match(after)
                                                  and lexicon.tag(words[0]) is None)
                    or len(run) == 1 and not _named_alone(words[0], run[0][2], after)):
                if len(run) == 1 and words[0].lower() not in _OPENERS | _NOT_NAMES:
                    _add_unsure(unsure, words[0], run[0][0], taken)
                run, words = run[1:], words[1:]
        if not run or words[-1].lower() in _NOT_NAMES or words[-1] in _TITLES:
            continue
        if len(words) == 1 and words[0].lower() in _OPENERS:  # a stray capital: "..., It means"
            continue
        start, end = run[0][0], run[-1][0] + len(words[-1])
        if any(start < e and s < end for s, e in taken):
            continue
        name = text[start:end]
        aliases = ()
        if words[0] in _TITLES and len(words) > 1:
            aliases = (text[run[1][0]:end],)
        acronym = re.match(r"\s*\(([A-Z]{2,})\)", text[end:])
        if acronym:
            aliases += (acronym.group(1),)
        out.append(EntityCandidate(name, _guess_type(text, start, end, words, ctx), aliases, (start, end)))
    return out, unsure


def _no_name_here(text: str, start: int, word: str) -> bool:
    """Whether a capitalised `word` at `start` is no name where it stands: a unit after a number
    ("2000 IU"), or a single letter closing a common noun ("vitamin D", "plan B")."""
    before = text[:start]
    if word.upper() in _UNITS and re.search(r"\d\s*$", before):
        return True
    return len(word) == 1 and bool(re.search(r"\b[a-z]{2,}\s$", before))


def _add_unsure(unsure: list[EntityCandidate], word: str, start: int, taken) -> None:
    end = start + len(word)
    if not any(start < e and s < end for s, e in taken):
        unsure.append(EntityCandidate(word, None, (), (start, end)))


def _inside(token, spans) -> bool:
    return any(s <= token[0] and token[1] <= e for s, e in spans)


def _acts(after: str) -> bool:
    """Whether ``after`` opens with a finite verb, maybe behind one adverb: the word before it is
    a subject ("Sarah prefers tea", "Ana got a job", "Tom really likes it")."""
    following = [re.sub(r"n['’]t$", "", w) for w in _WORD.findall(after[:60])[:2]]  # "wasn't" -> "was"
    if following and lexicon.tag(following[0]) == "RB":
        following = following[1:]
    return bool(following) and lexicon.tag(following[0]) in _FINITE and after[:1].isspace()


def _named_alone(word: str, written: str, after: str) -> bool:
    """Whether a lone capitalised word that opens a sentence is a name, by what follows it:
    coordinated with a name ("Luna and Oliver"); the subject of a finite verb ("Sarah prefers tea",
    "Anna lives in Boston") or possessive ("Kevin's wife") while not a common word ("Coffee is
    great", "Nothing works", "Life's too short") or, before a verb people do, a given name ("Rob
    asked"); or addressed and known to the word list as a name ("Maria, that's great", not "Ha,
    ha")."""
    if re.match(r"\s+(?:and|&)\s+[A-Z]", after):
        return True
    if _PERSON_VERB.match(after) or _acts(after):
        # a given name that is a common word too, before a verb people do ("Rob asked", "Mark
        # said"; not "Life is good", "Ginger helps"), unless a month or a modal ("May", "Will")
        return not lexicon.is_common(word) or (
            _PEOPLE_DO.match(after) is not None and given_names.is_given_name(word)
            and word.lower() not in _NOT_NAMES and lexicon.tag(word.lower()) != "MD")
    if _strip_possessive(written)[1]:  # "Kevin's wife", but "Life's too short" ("'s" may be "is")
        return not lexicon.is_common(word)
    return (after.startswith(", ") and lexicon.tag(word) == "NNP"
            and lexicon.tag(word.lower()) in {None, "NN", "NNS", "NNP"})


def _not_part_of_name(words: list[str]) -> bool:
    """Whether the first word of a capitalised run that opens a sentence is not part of the name:
    an opener ("Thanks Gina"), an imperative ("Call Jenna"), a past verb before a run with a word
    that is no common word ("Finished Project Hail Mary"; but "Gone Girl", whose words all are), or
    a common word before a word that is not one ("Email Jenna"; but "Silver Lake", and "Harry
    Potter" where "Harry" is a name)."""
    first = words[0]
    if first.lower() in _OPENERS or lexicon.tag(first) == "VB":
        return True
    # a past verb the word list knows capitalised as a name ("Met": the museum) is one still,
    # unless it is a given name ("Rose", "Drew")
    past = lexicon.tag(first) in {"VBD", "VBN"} or (
        lexicon.tag(first) == "NNP" and lexicon.tag(first.lower()) in {"VBD", "VBN"}
        and not given_names.is_given_name(first))
    if past and (any(not lexicon.is_common(w) for w in words[1:]) or len(words) > 1 and words[1].islower()):
        return True  # a past verb before a name: "Finished Project Hail Mary", "Visited Lisbon", "Sold the Civic"
    return (len(words) > 1 and lexicon.is_common(first) and lexicon.tag(first) not in {"NNP", "NNPS"}
            and not lexicon.is_common(words[1]))


def _cap_runs(text, tokens):
    """Maximal runs of capitalised tokens, joined by spaces or by lower-case connectors
    ("Bank of America"); a possessive or a punctuation mark ends a run."""
    runs, current = [], []
    for i, tok in enumerate(tokens):
        start, _, word = tok
        gap = text[current[-1][1]:start] if current else " "
        prev = current[-1][2] if current else ""
        # "Dr. Smith", "John F. Kennedy", "St. Louis": a title, an initial or a name's opening
        # abbreviation carries its period into the run.
        dotted = prev in _TITLES or re.fullmatch(r"[A-Z]", prev) or prev in _NAME_PREFIXES and len(current) == 1
        joined = current and (gap == " " or gap == ". " and dotted) and not _strip_possessive(prev)[1]
        if _is_cap(word):
            if current and not joined:
                runs.append(current)
                current = []
            current.append(tok)
        elif (word in _CONNECTORS and current and gap == " " and i + 1 < len(tokens)
              and _is_cap(tokens[i + 1][2]) and text[tok[1]:tokens[i + 1][0]] == " "):
            current.append(tok)
        else:
            if current:
                runs.append(current)
            current = []
    if current:
        runs.append(current)
    # a connector can only sit inside a run
    return [r for r in (_trim_connectors(r) for r in runs) if r]


def _trim_connectors(run):
    while run and run[-1][2] in _CONNECTORS:
        run = run[:-1]
    while run and run[0][2] in _CONNECTORS:
        run = run[1:]
    return run


_AFTER_PET = re.compile(rf"\b(?:{_PET})\s*,?\s*$")
_AFTER_KIN_OR_GREETING = re.compile(
    rf"\b(?:{_KIN}|{_ROLE}|(?:my|our)\s+(?:{_SERVICE})|hey|hi|hello|thanks|thank you|congrats|bye|dear)\s*,?\s*$")
_ADJ = r"(?:(?:new|old|former|best|little|big|older|younger|eldest|oldest|youngest|twin|late)\s+)?"
# "Bob Smith is my manager", "Ana was our neighbour", "Priya, my boss, ..."
_IS_MY_PERSON = re.compile(
    rf"(?:\s+(?:is|was|['’]s)\s+|\s*,\s*)(?:my|our)\s+{_ADJ}(?:{_FAMILY}|{_ROLE}|{_SERVICE})\b", re.IGNORECASE)
# "Bob's daughter", "Kevin's new girlfriend"
_POSSESSIVE_FAMILY = re.compile(rf"['’]s\s+{_ADJ}(?:{_FAMILY})\b", re.IGNORECASE)
_AFTER_EMPLOYER_WORD = re.compile(r"\b(?:work|works|worked|working)\s+(?:at|for)\s+(?:the\s+)?$")
# "to" only after a word of going somewhere, up to three words before it ("moved to Denver", "a trip
# last week to Rome", "been only to Paris", "off to Ireland"; not "engaged to Lena", "talked to Sam")
_GOING = (r"moved?|moving|went|go|goes|going|gone|been|off|flew|fly|flying|drove|drive|driving|trip|trips|"
          r"vacation|holiday|travel(?:l?ed|l?ing|s)?|relocat(?:ed?|ing)|head(?:ed|ing)?|back|way|came|come|"
          r"coming|return(?:ed|ing)?|flight|ticket|tickets|welcome|sail(?:ed|ing)?|visit(?:ed|ing)?")
_AFTER_PLACE_WORD = re.compile(
    rf"\b(?:in|from|visit|visited|visiting|near|(?:{_GOING})(?:\s+[\w'’]+){{0,3}}?\s+to)\s+(?:the\s+)?$")


def _guess_type(text: str, start: int, end: int, words: list[str], ctx: ExtractionContext) -> str | None:
    """A coarse type from cheap cues: who the context says is a person, a title, a suffix
    ("... University", "... Lake"), the word before ("my dog Max", "Hey Mel", "my manager Priya",
    "in Denver"), the words after ("Bob Smith is my manager", "Bob's daughter"), address ("Gina!" /
    ", Gina," at a clause edge), or a known given name before a surname ("Robert Smith")."""
    before, after = text[max(0, start - 40):start].lower(), text[end:]
    if " ".join(words).casefold() in {n.casefold() for n in (ctx.speaker, ctx.user_name) if n}:
        return "person"
    if words[-1] in _ORG_SUFFIX or _AFTER_EMPLOYER_WORD.search(before):
        return "organization"
    if words[0] in _TITLES or _PERSON_VERB.match(after):
        return "person"
    if words[-1] in _PLACE_SUFFIX:
        return "place"
    if _AFTER_PET.search(before):
        return "animal"
    if (_AFTER_KIN_OR_GREETING.search(before) or _IS_MY_PERSON.match(after) or _POSSESSIVE_FAMILY.match(after)
            or re.match(r"\s*[,!]", after) and re.search(r"(?:^|[,.!?]\s*)$", before)):
        return "person"
    if _AFTER_PLACE_WORD.search(before):
        return "place"
    if _given_and_surname(words):
        return "person"
    return None


def _given_and_surname(words: list[str]) -> bool:
    """Two capitalised words, the first a given name of the nickname table that is no common word
    ("Robert Smith", "Emma Jones"; not "Mark Street", "Rose Garden", "Will Power"), the second no
    common word either ("Georgia Tech", "Jackson Hole" stay untyped)."""
    return (len(words) == 2 and all(w[:1].isupper() and w.isalpha() for w in words)
            and given_names.is_given_name(words[0])
            and not lexicon.is_common(words[0]) and not lexicon.is_common(words[1]))


def _verb_alone(determiner: str, word: str) -> bool:
    """Whether the one word after `determiner` is a verb, not a noun: its likeliest tag is a
    finite verb's, unless a plural determiner makes a word in -s a plural noun ("those plays")."""
    tag = lexicon.tag(word)
    return tag in _FINITE and not (tag == "VBZ" and determiner in _PLURAL_DETERMINERS)


def _verb_of_person(head: str, word: str, following: str) -> bool:
    """Whether `word`, which the word list takes for a plural noun ("lives", "works", "visits"), is
    the verb of the person `head` names: `head` is a singular kin or role word ("my sister lives in
    Boston", "the manager works at Dell") and what follows (`following`, from _following) is what a
    verb takes (a preposition, a determiner, a pronoun, an adverb, an adjective or a number) or the
    end of the clause ("my brother works."), not more of a noun ("the city works department") nor
    a comma. A plural with a noun's ending ("teacher evaluations") or of a person word ("my mom
    friends") is a noun still."""
    ends = following == "" or following[0] in ".!?;"
    return (lexicon.tag(word) == "NNS" and (ends or lexicon.tag(following) in _OPENS_COMPLEMENT)
            and _PERSON_HEAD.fullmatch(head) is not None and lexicon.singular(head) == head
            and not _NOUN_PLURAL.search(word) and not _PERSON_HEAD.fullmatch(lexicon.singular(word)))


def _following(text: str, tokens, j: int, end: int) -> str:
    """What comes after token `j` in its sentence (which ends at `end`): the next word when a
    space alone parts them, else the first mark after it ("." or ","), else "" (the end)."""
    gap_end = tokens[j + 1][0] if j + 1 < len(tokens) else end
    gap = text[tokens[j][1]:gap_end]
    if gap == " " and j + 1 < len(tokens):
        return tokens[j + 1][2]
    return gap.strip()[:1]


def _noun_phrases(text, sentences, blocked) -> list[EntityCandidate]:
    out = []
    for s, e in sentences:
        tokens = [(m.start() + s, m.end() + s, m.group(0)) for m in _WORD.finditer(text[s:e])]
        for i, (_, _, word) in enumerate(tokens):
            if word.lower() not in _DETERMINERS:
                continue
            phrase = []
            for j in range(i + 1, min(i + 5, len(tokens))):
                tok = tokens[j]
                gap = text[(phrase[-1] if phrase else tokens[i])[1]:tok[0]]
                word_ = tok[2]
                if gap != " " or not word_.isalpha() or not word_.islower() or (
                        word_ in _STOP and not (word_ in _ADJECTIVES and not phrase)):
                    break
                if lexicon.tag(word_) in _ENDS_PHRASE and any(t[2] not in _ADJECTIVES for t in phrase):
                    break  # the verb or adverb after the phrase's noun: "my brother bought", "the landlord finally"
                if phrase and _verb_of_person(phrase[-1][2], word_, _following(text, tokens, j, e)):
                    break  # "my sister lives in Boston": the word list's plural noun is the sister's verb
                phrase.append(tok)
            while phrase and phrase[0][2] in _ADJECTIVES:
                phrase = phrase[1:]
            if not phrase or len(phrase) == 1 and _verb_alone(word.lower(), phrase[0][2]):
                continue  # a verb alone is no noun phrase: "a mug that keeps things hot"
            start, end = phrase[0][0], phrase[-1][1]
            if len(phrase) == 1 and phrase[0][2] in GENERIC_ROLES:
                continue  # "the user prefers ...": a role is no one (the user is the scope's)
            if not any(start < be and bs < end for bs, be in blocked):
                out.append(EntityCandidate(text[start:end], "concept", (), (start, end)))
    return out


def _facts(sentence: str, me: str, names: list[str], when) -> list[FactCandidate]:
    known = set(names)
    out = []
    folded = fold(sentence)
    facts_needs, coordinated_needs, kin_needs, is_kin_needs = _fact_needs()
    subjects: list[tuple[int, str | None]] = []  # where each matched relation's subject begins, and who it is
    for (regex, relation), needs in zip(_FACT_PATTERNS, facts_needs):
        for m in regex.finditer(sentence) if has_all(folded, needs) else ():
            subj = me if m.group("subj") == "I" else _known_suffix(m.group("subj"), known)
            subjects.append((m.start(), subj))
            _add_fact(out, sentence, m, subj, relation, names, when)
    # "I live in Austin and work at Dell": the second verb's subject is the nearest one before it
    for (regex, relation), needs in zip(_COORDINATED, coordinated_needs):
        for m in regex.finditer(sentence) if has_all(folded, needs) else ():
            before = [(at, subj) for at, subj in subjects if at < m.start()]
            if before:
                _add_fact(out, sentence, m, max(before, key=lambda item: item[0])[1], relation, names, when)
    for m in _MY_KIN_NAME.finditer(sentence) if has_all(folded, kin_needs) else ():  # "my sister Anna"
        if _DIED.match(sentence, m.end()):
            continue  # "My dog Rex passed away": as "my late father", a relation held no longer
        name = _strip_possessive(m.group("name"))[0]
        out.append(FactCandidate(me, _has(m.group("rel")), name, sentence, when, None))
    # "Anna is my sister", "Priya, my boss"
    for m in _NAME_IS_MY_KIN.finditer(sentence) if has_all(folded, is_kin_needs) else ():
        # the known name the phrase ends in ("Call Mel, my sister": Mel), else the phrase
        name = _known_suffix(m.group("name"), known) or m.group("name")
        if name not in _FIRST_PERSON and name.lower() not in _OPENERS:
            out.append(FactCandidate(me, _has(m.group("rel") or m.group("apposed")), name, sentence, when, None))
    return out


_Needs = tuple[frozenset[str], ...]


@cache
def _fact_needs() -> tuple[tuple[_Needs, ...], tuple[_Needs, ...], _Needs, _Needs]:
    """The literal sets (worlddb.extract.literals) each fact pattern needs, parsed on first use:
    those of _FACT_PATTERNS, of _COORDINATED, of _MY_KIN_NAME and of _NAME_IS_MY_KIN. A pattern
    whose sets do not all have a member in a sentence cannot match there."""
    return (tuple(required(rx) for rx, _ in _FACT_PATTERNS), tuple(required(rx) for rx, _ in _COORDINATED),
            required(_MY_KIN_NAME), required(_NAME_IS_MY_KIN))


def _add_fact(out: list[FactCandidate], sentence: str, m: re.Match[str], subj: str | None, relation: str,
              names: list[str], when) -> None:
    """The fact `m` (a relation's verb and object) states of `subj`, added to `out` unless it names
    no one or nothing, or a place that is a time ("moved to Tuesday"), or a move still to come."""
    obj = _object(m.group("obj"), names)
    if relation in _PLACE_RELATIONS and obj and _is_temporal(obj):  # "moved to Tuesday"
        return
    # "I'm moving to Denver next month": a move still to come, where one lives is unchanged yet
    if relation == "lives_in" and "moving" in m.group(0) and (FUTURE_TIME.search(sentence)
                                                              or NAMED_TIME.search(sentence, m.start())):
        return
    # "Priya moved to Umbrella Corp": a company one moves to is where one works
    if relation == "lives_in" and obj and corporate(obj):
        relation = "works_at"
    # "I moved to Cursor": a tool one moves to is no home (a name no word list or gazetteer knows as a
    # place, in a text that says nothing of a home)
    elif relation == "lives_in" and obj and re.search(r"\b(?:moved|moving|relocated)\s+to\b", m.group(0)) \
            and not moved_home(obj, sentence):
        return
    # "I lived in Boston", "I was a nurse": held once, not now ("I've lived here" does not match)
    past = _PAST.get(relation)
    if past is not None and re.search(rf"\b{past[0]}\b", m.group(0)[:m.start("obj") - m.start()]):
        relation = past[1]
    if subj and obj:
        out.append(FactCandidate(subj, relation, obj, sentence, when, None))


def _has(word: str) -> str:
    """The relation a kin, role or pet word names: "sister" -> has_sister, "co-worker" -> has_coworker."""
    return "has_" + word.lower().replace("-", "")


def _is_temporal(phrase: str) -> bool:
    first = phrase.split()[0].lower()
    return first in _NOT_NAMES or first in _TIME_WORDS or bool(find_temporals(phrase, None))


def _known_suffix(phrase: str, known: set[str]) -> str | None:
    """The longest tail of a capitalised phrase that is a known name: "Yesterday Anna" -> "Anna"."""
    words = phrase.split()
    for i in range(len(words)):
        tail = " ".join(words[i:])
        if tail in known:
            return tail
    return None


def _object(chunk: str, names: list[str]) -> str | None:
    chunk = chunk.strip()
    bare = chunk[4:] if chunk.lower().startswith("the ") else chunk
    for name in sorted(names, key=len, reverse=True):
        if bare.startswith(name) and not bare[len(name):len(name) + 1].isalnum():
            return name
    words: list[str] = []
    for word in chunk.split():
        if word.lower() in _OBJECT_END and words or word.lower() in _TIME_WORDS:
            break
        words.append(word)
    while words and (words[0].lower() in _DETERMINERS or words[0].lower() in _ADJECTIVES):
        words = words[1:]
    words = [w for w in words[:4] if any(c.isalnum() for c in w)]
    if not words or words[0].lower() in _PRONOUN_OBJECTS or words[0].lower() in _STOP:
        return None
    if len(words) == 1 and words[0].endswith("ing"):  # "I love watching them": the object got away
        return None
    return " ".join(words)
