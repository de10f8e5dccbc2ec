"""Subjects and values of slot claims: how the slot reader writes them and when two are one.

Contract: ``normalise_subject(phrase)`` is the subject key of a phrase ("me" for the first
person, a kinship word, a lower-cased name, never made singular: "Dana Reyes" -> "dana reyes",
or a thing's words, singular, "trip to Japan" -> "japan trip"); ``voice(speaker, user)`` is the
subject key of a text's first person when `speaker` said it. ``same_subject``, ``same_person``
(with ``ambiguous_first_names``) and ``same_value`` say when two keys, two named claims or two
values name one thing, and ``same_name`` when two names may name one person.
``_value(chunk)`` cuts the value at the start of a matched chunk; ``_protect`` and ``_restore``
keep an abbreviation's period from ending a sentence or a value while a text is read. All are
pure functions of their arguments, deterministic, and never raise for a ``str``; the claims
they serve are read in worlddb.extract._slot_reader, and worlddb.extract.slots exports them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from worlddb.extract import GENERIC_ROLES
from worlddb.extract._slot_catalogue import ME, SlotClaim
from worlddb.extract._slot_words import (
    _DETERMINERS,
    _FIRST,
    _KIN,
    _KIN_RE,
    _MONTHS,
    _OCCUPATIONS,
    _TITLE_WORDS,
    _WEEKDAYS,
)
from worlddb.extract.given_names import is_given_name, related
from worlddb.extract.lexicon import is_common, singular, tag

_VALUE_STOP = re.compile(
    r"\s*(?:[,.;:!?()\"“”]|\s[-–—]\s|\b(?:and|but|because|so|since|after|before|when|while|who|which|that|where"
    r"|with|from|as of|starting|until|till|last|next|this|these|yesterday|today|tonight|tomorrow|now|again|anymore"
    r"|any more|instead|too|as well|every|each|lately|recently|right now|these days|for the|for a|for my|for our"
    r"|for his|for her|on the|in the|in a|at the|at a|to the|to my|to our|most|because of|due to|thanks to"
    r"|if|though|although|unless|except|specifically|officially|finally|already|just|please|from now on"
    r"|not (?:so |that |too )?long ago|long ago|(?:(?:about|around|over|almost|nearly|roughly) )?"
    r"(?:a |one |a few |several |some |\w+ )?(?:while|time|days?|weeks?|months?|years?) (?:ago|back))\b"
    r"|\s(?:in|on|at|by|during)\s+(?=(?-i:[A-Z])|\d))",
    re.I)
_ABBREV = re.compile(r"\b(Dr|Mr|Mrs|Ms|St|Mt|Jr|Sr|Prof)\.\s")
#: "and" before a name and a verb starts a new clause ("Paris and Tom works at Dell"), not a
#: name of two parts ("Barnes and Noble")
_NEW_CLAUSE = (r"\s+(?:I\b|[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)?\s+(?:(?:[a-z]+ly|just|also|still|now)\s+)?"
               r"(?:is|are|was|were|has|have|had|will|would|can|could|does|did|got|[a-z]+ed|[a-z]*[^\Ws]s)\b)")
_CAP_RUN = re.compile(r"(?-i:(?:(?:Dr|Mr|Mrs|Ms|St|Mt|Prof)\u2024\s*)?[A-Z0-9][\w'’&+.-]*"
                      r"(?:\s+(?:(?:of|de|du|la|van|von|and(?!" + _NEW_CLAUSE + r")|the|&)\s+)?(?!I\b)"
                      r"(?:[A-Z0-9][\w'’&+.-]*))*)")


def _protect(text: str) -> str:
    """Abbreviation periods become a one-dot leader, so they end neither a sentence nor a value."""
    return _ABBREV.sub(lambda m: m.group(1) + "\u2024 ", text)


def _restore(text: str) -> str:
    return text.replace("\u2024", ".")


#: lower-case words of an occupation after the name of its field ("QA lead", "UX designer")
_OCCUPATION_RUN = re.compile(r"(?:\s+(?:" + "|".join(sorted(_OCCUPATIONS | _TITLE_WORDS, key=len, reverse=True))
                             + r")\b)+")


#: capitalised words that begin a place's name of several words ("New York", "Old Town", "North
#: Carolina", "San Diego", "Las Vegas", "Le Mans"): part of the name, which is another place than
#: the rest of it names ("York"), never a determiner or a filler
_NAME_PREFIX = (r"(?-i:New|Old|Great|Little|North|South|East|West|Upper|Lower|San|Santa|Los|Las|El|Le|La|Fort|Port"
                r"|Mount)")
#: such a word before the capitalised word it begins a name with
_PREFIXED_NAME = re.compile(_NAME_PREFIX + r"\s+(?=(?-i:[A-Z]))")


def _value(chunk: str, *, words: int = 5) -> str:
    """The value at the start of `chunk`: up to a clause break or a function word, without
    leading determiners; a capitalised name there is taken whole, up to an "and" that begins a
    new clause (`_NEW_CLAUSE`), with a word that begins a place's name (`_NAME_PREFIX`: "New
    York", not "a new job at ...")."""
    chunk = chunk.strip().lstrip("\"'“‘").strip()
    # drop leading determiners and fillers (not the "New" of "New York")
    while not _PREFIXED_NAME.match(chunk):
        m = re.match(r"(?:a|an|(?-i:the)|my|our|his|her|their|its|some|called|named|now|officially|actually|currently"
                     r"|just|also|new|brand new|a new|old|current)\s+", chunk, re.I)
        if not m:
            break
        chunk = chunk[m.end():]
    quoted = re.match(r"[\"'“‘]([^\"'”’]{1,80})[\"'”’]", chunk)
    if quoted:
        return quoted.group(1).strip()
    lead = re.match(r"(?:lately|honestly|now|finally|today|currently|actually|also|so|well|okay|ok|yes|and|but|then"
                    r"|recently|these days|nowadays)\s+(?=(?-i:[A-Z]))", chunk, re.I)
    if lead:
        chunk = chunk[lead.end():]
    cap = _CAP_RUN.match(chunk)
    if cap and not re.match(r"I\b", chunk):
        value = cap.group(0)
        # a trailing connector is not part of the name
        value = re.sub(r"\s+(?:of|de|du|la|van|von|and|the|&)$", "", value)
        rest = chunk[len(value):]
        # "Kaiser Permanente clinic", "Boston marathon": a lower-case head noun after a name belongs to it
        tail = re.match(r"\s+(clinic|hospital|school|academy|office|store|branch|campus|restaurant|cafe|bakery"
                        r"|half[- ]marathon|marathon|triathlon|race|ultra|10k|5k)\b", rest, re.I)
        # "QA lead", "UX designer": an acronym names the field of the occupation after it
        if tail is None and re.fullmatch(r"[A-Z]{2,4}", value):
            tail = _OCCUPATION_RUN.match(rest)
        return (value + (tail.group(0) if tail else "")).strip(" .")
    stop = _VALUE_STOP.search(chunk)
    head = chunk[:stop.start()] if stop else chunk
    kept = head.split()[:words]
    return " ".join(kept).strip(" .,'\"")


def normalise_subject(phrase: str) -> str:
    """The subject key of a phrase: "me" for first person, a kinship word, a lower-cased name
    (as written: "Dana Reyes" -> "dana reyes"), or a thing's words (determiners dropped, singular,
    "trip to Japan" -> "japan trip")."""
    phrase = re.sub(r"\s+and\s+(?:his|her|their)\s+\w+$", "", _restore(phrase).strip())
    words = re.findall(r"[\w'’:-]+", phrase)
    if not words:
        return ""
    low = [w.lower().replace("’", "'") for w in words]
    if len(low) == 1 and low[0] in _FIRST:
        return ME
    # the scope's user, as an agent's note names them ("The user moved to Denver"): the speaker of
    # "I" in their own words, as the question reader reads "Where does the user live?"
    if low in (["user"], ["the", "user"]):
        return ME
    # a named person: "my sister Nora", "my best friend Marcus", "Nora", "my sister Ana Souza"
    if words[-1][:1].isupper() and words[-1].lower() not in _FIRST and (
            len(words) == 1 or any(w in _KIN for w in low[:-1])):
        start = len(words) - 1
        while start > 0 and words[start - 1][:1].isupper() and low[start - 1] not in _KIN \
                and low[start - 1] not in _FIRST:
            start -= 1
        return re.sub(r"'s$", "", " ".join(low[start:]))
    # a person's full name ("Dana Reyes", "Carlos Torres"), which is no plural: every word capitalised,
    # and a given name first or a surname last ("Piano Lessons", "Weekly Syncs" are things)
    if _full_name(words):
        return " ".join(low)
    # what follows the last determiner or possessive: "extended the grant proposal" -> "grant proposal"
    cut = max((i for i, w in enumerate(low) if w in _DETERMINERS or w in _FIRST or w.endswith("'s")), default=-1)
    possessor = low[cut] if cut >= 0 and low[cut].endswith("'s") else ""
    low = [re.sub(r"'s$", "", w) for w in low[cut + 1:]]
    if possessor and possessor[:-2] in _KIN:
        low = [_KIN[possessor[:-2]], *low]
    elif possessor and words[cut][:1].isupper() and low:
        # another person's thing is theirs: "Jen's flight" is no "flight" of the speaker's, nor
        # Sam's (`same_subject` keeps possessors apart)
        low = [possessor, *low]
    if not low:
        return ME
    if len(low) == 1 and low[0] in _KIN:
        return _KIN[low[0]]
    # "trip to Japan" -> "japan trip"
    if len(low) == 3 and low[1] in ("to", "in", "for", "of", "with"):
        low = [low[2], low[0]]
    return " ".join(w if w.endswith("'s") else _one(w) for w in low)


def _full_name(words: list[str]) -> bool:
    """Whether `words` (as written) are a person's full name: two to four capitalised words, none a
    first-person, kinship or determiner word, the last a proper noun by the lexicon
    (worlddb.extract.lexicon: "Reyes", "Evans"), or else no common plural ("Lessons") after a
    given name or a word that is no common word nor a day's or a month's name ("Dana Kuipers"; not
    "Team Standups", "Sunday Brunches")."""
    low = [w.lower().replace("’", "'") for w in words]
    if not 2 <= len(words) <= 4 or not all(w[:1].isupper() for w in words) \
            or any(w in _FIRST or w in _KIN or w in _DETERMINERS or w.endswith("'s") for w in low):
        return False
    last = tag(words[-1])
    if last in ("NNP", "NNPS"):
        return True
    return last != "NNS" and (is_given_name(words[0]) or not is_common(words[0])) \
        and not re.fullmatch(rf"{_WEEKDAYS}|{_MONTHS}", low[0])


def _one(word: str) -> str:
    """`word` made singular where that is a word too: "lessons", "deploys", "thursdays"; not
    "atlas" ("atla"), "glasses", "kubernetes", whose ending only looks plural."""
    one = singular(word)
    return one if one == word or tag(one) or tag(one.capitalize()) else word


def _words(text: str) -> list[str]:
    return [singular(w) for w in re.findall(r"[a-z0-9@.+'-]+", _restore(text).lower().replace("’", "'"))
            if w not in _DETERMINERS and w not in ("is", "are", "to", "of", "in", "at", "and", "for")]


def same_subject(a: str, b: str) -> bool:
    """Whether two subject keys name the same subject: equal, or (for things) the same head
    noun where one's other words are a subset of the other's ("piano lesson" / "lesson"), but
    for "other" ("other sister" is not "sister")."""
    if a == b:
        return True
    if ME in (a, b) or not a or not b:
        return False
    wa, wb = a.split(), b.split()
    if wa[-1] != wb[-1] or len(wa) == 1 and len(wb) == 1:
        return False
    # whose it is, when a name says so ("jen's flight"), is no modifier: Jen's flight is not Sam's or mine
    if {w for w in wa if w.endswith("'s")} != {w for w in wb if w.endswith("'s")}:
        return False
    sa, sb = set(wa[:-1]), set(wb[:-1])
    # "my other sister" is by its word not the sister spoken of before
    if ("other" in sa) != ("other" in sb):
        return False
    return sa <= sb or sb <= sa


def names_another(text: str, name: str | None) -> bool:
    """Whether `text` names someone of the speaker's by `name` ("my coworker Alice" for the user
    alice, `kin_of`): then that name, in this text, is not the user's. Every read of a user's
    memory asks, so the text is searched for the name before it is parsed."""
    if not name or not name.strip():
        return False
    folded = name.strip().casefold()
    return folded in text.casefold() and folded in kin_of(text)


def owners(subject: str) -> frozenset[str]:
    """The kin words among a subject key's modifiers: whose thing it is ("wife" of "wife yoga",
    the key of "my wife's yoga")."""
    return frozenset(subject.split()[:-1]) & _KIN_WORDS


def same_person(a: SlotClaim, b: SlotClaim, ambiguous: frozenset[str] = frozenset()) -> bool:
    """Whether one claim names a person by first name alone and the other by a full name that
    begins with it ("Ana" and "Ana Souza"), both written as names; never for a first name in
    `ambiguous` (one that begins several full names in view: which Ana?)."""
    if not (a.named and b.named):
        return False
    short, full = sorted((a.subject.split(), b.subject.split()), key=len)
    return len(short) == 1 < len(full) and full[0] == short[0] and short[0] not in ambiguous


#: "my brother Sam", "our older son Leo Park": a kin word before a name
#: (a relative by marriage or by one parent is a kin word of its own: "sister-in-law", "stepsister")
_KIN_NAMED = re.compile(r"\b(?:my|our)\s+(?:(?:older|younger|little|big|best|oldest|eldest|youngest|twin|baby)\s+)?"
                        r"(?P<pre>step-?|half-|god)?(?P<kin>" + _KIN_RE + r")(?P<law>-in-law)?"
                        r"\s*,?\s+(?P<name>(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?)\b", re.IGNORECASE)


#: "Anna from work", "Raj from next door", "Kim from the gym": where one knows a named person from
_KNOWN_FROM = re.compile(r"\b(?P<name>(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?)\s+from\s+(?:(?P<work>work|the office"
                         r"|my team|our team|the team)|(?P<door>next door|down the street|upstairs|downstairs)"
                         r"|(?:the\s+|my\s+)?(?:gym|school|college|uni|university|church|class|yoga|book club|choir"
                         r"|the park|dance class|running club))\b")


def kin_of(text: str) -> dict[str, frozenset[str]]:
    """What `text` says each named person is to its speaker: subject key (a name, and its first
    name alone) -> kin words ("My brother Sam works at Intel" -> {"sam": {"brother"}}; "Anna from
    work" -> {"anna": {"coworker"}}, someone known from next door a neighbour, from a gym, a
    school or a club a friend)."""
    out: dict[str, set[str]] = {}
    named = [(_compound(m), m.group("name")) for m in _KIN_NAMED.finditer(text)]
    named += [("coworker" if m.group("work") else "neighbour" if m.group("door") else "friend", m.group("name"))
              for m in _KNOWN_FROM.finditer(text)]
    for kin, name in named:
        words = name.lower().split()
        for key in {" ".join(words), words[0]}:
            out.setdefault(key, set()).add(kin)
    return {key: frozenset(kins) for key, kins in out.items()}


def _compound(m: re.Match[str]) -> str:
    """The kin word a match of _KIN_NAMED names: "sister", or "sister-in-law", "stepsister"."""
    kin = _KIN[m.group("kin").lower()]
    if m.group("law"):
        return f"{kin}-in-law"
    return f"{m.group('pre').lower().rstrip('-')}{kin}" if m.group("pre") else kin


#: kin words no one person is two of at once: a brother is no cousin, and a sister no wife (a
#: girlfriend may become a fiancée and a wife, and a friend may be a colleague, so those exclude
#: only the blood relations); nor is the sister one names as such the coworker, neighbour or
#: friend one names as that ("my sister Anna", then "Anna from work": two people)
_BLOOD = frozenset({"father", "mother", "sister", "brother", "son", "daughter", "grandmother", "grandfather", "aunt",
                    "uncle", "cousin", "niece", "nephew", "child", "stepfather", "stepmother"})
_PARTNERS = frozenset({"wife", "husband", "partner", "boyfriend", "girlfriend", "fiance"})
_KNOWN = frozenset({"friend", "roommate", "neighbour", "boss", "coworker"})
#: the subject keys kin words normalise to ("brother", "father", ...)
_KIN_WORDS = frozenset(_KIN.values())


def _exclusive(x: str, y: str) -> bool:
    return x != y and (_blood(x) and (_blood(y) or y in _PARTNERS or y in _KNOWN)
                       or _blood(y) and (x in _PARTNERS or x in _KNOWN))


def _blood(kin: str) -> bool:
    """A relative (a relative by marriage or by one parent too: one is no other relative)."""
    return kin in _BLOOD or kin.endswith("-in-law") or kin.startswith(("step", "half", "god"))


def two_people(kin_a: Iterable[str], kin_b: Iterable[str]) -> bool:
    """Whether no one person is both what the kin words `kin_a` and what `kin_b` say someone is
    to the speaker (as kin_of gives them): a sister is no coworker, but a friend may be one."""
    a, b = set(kin_a), set(kin_b)
    return bool(a and b) and all(_exclusive(x, y) for x in a for y in b)


def kin_word(word: str) -> str | None:
    """The kin word (as kin_of gives it) a relation's word names ("colleague" -> "coworker"), if any."""
    return _KIN.get(word.lower()) or _KIN.get(word.lower().replace("-", ""))


def kin_says(a: str, b: str, kin_a: dict[str, frozenset[str]], kin_b: dict[str, frozenset[str]]) -> bool | None:
    """Whether the statements' kin words make subjects `a` and `b` (keys of the statements whose
    kin_of are `kin_a`, `kin_b`) one person (True), two (False), or say nothing (None): "my
    brother" is "my brother Sam"; "my brother Sam" is not "my cousin Sam" (but "my girlfriend
    Laura" may be "my wife Laura", and "my friend Ana" "my colleague Ana")."""
    of_a = kin_a.get(a) or (kin_a.get(a.split()[0]) if a else None)
    of_b = kin_b.get(b) or (kin_b.get(b.split()[0]) if b else None)
    if of_a and of_b:
        return False if all(_exclusive(x, y) for x in of_a for y in of_b) else None
    if of_b and a in _KIN_WORDS and a in of_b or of_a and b in _KIN_WORDS and b in of_a:
        return True
    return None


def ambiguous_first_names(claims: Iterable[SlotClaim]) -> frozenset[str]:
    """The first names that begin two or more different full names among `claims`."""
    seen: dict[str, set[str]] = {}
    for claim in claims:
        words = claim.subject.split()
        if claim.named and len(words) > 1:
            seen.setdefault(words[0], set()).add(claim.subject)
    return frozenset(first for first, names in seen.items() if len(names) > 1)


def same_value(a: str, b: str) -> bool:
    """Whether two values name the same thing: equal words, or one's words within the other's
    ("Kaiser Permanente" / "a Kaiser Permanente clinic", "fish" / "goldfish"), but for a place's
    name and that name behind a word that begins another's ("York" / "New York")."""
    wa, wb = set(_words(a)), set(_words(b))
    if not wa or not wb:
        return False
    # "New York" is no "York", nor "North Carolina" "Carolina": a word that begins a place's name names another
    if _prefixed(a, b) or _prefixed(b, a):
        return False
    if wa <= wb or wb <= wa:
        return True
    # a word of one inside a word of the other: "fish" / "goldfish", "cat" / "cats"
    small, big = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return all(any(len(s) >= 3 and s in w for w in big) for s in small)


def _prefixed(long: str, short: str) -> bool:
    """Whether `long` is `short`'s name behind a word that begins a place's name (`_NAME_PREFIX`:
    "New York" of "York")."""
    long, short = _restore(long), _restore(short)
    m = re.match(r"\s*(?:(?:the|a|an)\s+)?" + _NAME_PREFIX + r"\s+(?=(?-i:[A-Z]))", long, re.I)
    return m is not None and _as_written(long[m.end():]) == _as_written(re.sub(r"^\s*(?:the|a|an)\s+", "", short))


def _as_written(value: str) -> list[str]:
    """A value's words in lower case, every one of them (a name's "New" too)."""
    return re.findall(r"[\w'’&+-]+", value.lower())


def same_name(a: str, b: str) -> bool:
    """Whether two names may name one person as the resolver's name-part and nickname tiers read
    them: the same given name or one another's nickname or long form (worlddb.extract.given_names:
    "Alex" / "Alexander"), with the same words after it, or on one side nothing after it ("Alex" /
    "Alexander Reyes", "Bob Smith" / "Robert Smith"; not "Alex Kim" / "Alex Reyes")."""
    wa, wb = _name_words(a), _name_words(b)
    if not wa or not wb or (wa[0] != wb[0] and wb[0] not in related(wa[0])):
        return False
    return len(wa) == 1 or len(wb) == 1 or wa[1:] == wb[1:]


def _name_words(name: str) -> list[str]:
    """A name's words in lower case, as written (not made singular: "James", "Reyes")."""
    return [w for w in re.findall(r"[^\W\d_][\w'’-]*", _restore(name).lower()) if w not in _DETERMINERS]


def voice(speaker: str | None, user: str | None = None) -> str | None:
    """The subject key of a text's first person when `speaker` said it: the speaker's name
    ("tom" for "Tom", "ana souza"), or None when the first person is "me": no speaker, the role
    "user", or the user (`user`) by name. The other generic roles (worlddb.extract.GENERIC_ROLES)
    name no one, but their first person is theirs, never the user's: "assistant" for an
    assistant's "My name is Claude"."""
    if speaker is None or not speaker.strip() or speaker.strip().casefold() == "user":
        return None
    if speaker.strip().casefold() in GENERIC_ROLES:
        return speaker.strip().casefold()
    if user is not None and speaker.strip().casefold() == user.strip().casefold():
        return None
    name = normalise_subject(speaker.strip())
    return None if name in ("", ME) else name
