"""Who a clause of a slot claim is about: the speaker, a name, a relative, or no one.

Contract: ``_subject(found, before, text, speaker_is)`` returns the subject key of a rule's
match (worlddb.extract._slot_values.normalise_subject's keys): from the subject the rule found
right before its verb (`found`), else from how the clause opens (``_clause_subject``, reading
`before`, the clause up to the match); a third-person pronoun stands for the person
``_antecedent`` finds in `text` up to the match. None when the clause is about no one it can
name: the other party ("you"), a thing's pronoun, an elided or contracted subject ("Been
playing long?", "Don't ever quit"), a gerund, a number. `speaker_is` is a name that also
means the speaker. The word sets here (``_PRONOUNS``, ``_SECOND``, ``_NOT_SUBJECTS``, ``_PEOPLE``,
...) are what the reader and the question reader check subjects against. Deterministic,
no I/O; precision over recall, as for the rest of the slot reader.
"""

from __future__ import annotations

import re

from worlddb.extract import given_names, lexicon
from worlddb.extract._slot_catalogue import ME
from worlddb.extract._slot_values import normalise_subject
from worlddb.extract._slot_words import _FIRST, _KIN, _KIN_RE, _MONTHS

_PEOPLE = {"people", "parent", "kid", "child", "friend", "family", "folk", "neighbor", "neighbour", "guy", "team"}
_PRONOUNS = {"he", "she", "they", "his", "her", "their", "him", "them"}


def _subject(found: str | None, before: str, text: str, speaker_is: str | None) -> str | None:
    phrase = (found or "").strip()
    # the auxiliaries the subject group swallowed are not part of it
    phrase = re.sub(r"(?:\s+(?:just|finally|recently|now|also|still|currently|officially|actually|have|has|had|'ve|"
                    r"’ve|'s|’s|am|'m|’m|is|are|was|were|got|will|be|been))+$", "", phrase, flags=re.I).strip()
    # "Tom and I", "I and my wife", "me and my husband": the speaker is one of those the clause is about
    if re.fullmatch(r"[A-Z][a-z]+\s+and\s+I|(?i:I|me)\s+and\s+(?i:my|our)\s+.+", phrase):
        return ME
    low = phrase.lower().replace("’", "'")
    words = low.split()
    # "Yesterday Tom", "Honestly Tom": the word before the name is no part of the subject
    if len(words) > 1 and phrase[:1].isupper() and _opener(words[0]) and phrase.split()[1][:1].isupper():
        return _subject(phrase.split(None, 1)[1], before, text, speaker_is)
    # "you" is the other party; "It", "Been", "Hoping" open a clause naming no one
    if words and (words[0] in _SECOND or phrase[:1].isupper() and _no_one(words[0]) and not _opener(words[0])):
        return None
    if not phrase or (phrase[:1].isupper() and _opener(words[0])) or words[0] in ("the", "a", "an"):
        if not phrase and _OBJECT_RELATIVE.search(before):
            return None  # "I know someone who works at Google": the one who works there is not named
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


#: a relative clause about what the speaker's verb took as its object ("I know someone who", "we
#: helped a friend that"), not a predicate of the speaker ("I'm the one who"): its verb is not theirs
_OBJECT_RELATIVE = re.compile(r"(?:^|[,;:]\s*|\b(?:and|but|so)\s+)(?:I|we)\b(?!\s*(?:am|['’]m|was|were|are|['’]re)\b)"
                              r"[^,;:.!?]*?\s(?:who|that|which)\s+(?:(?:\w+ly|just|also|now|still)\s+)*$", re.I)


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
        if word[:1].isupper() and low in _KIN:  # "Dad sold the Volvo and bought ...": kin named as a name
            return _KIN[low]
        if word[:1].isupper() and not _opener(low) and low not in _MONTH_WORDS and low not in _KIN:
            name = _full_name(tokens)
            return ME if speaker_is and name == speaker_is.lower() else name
    return ME


def _full_name(tokens: list[str]) -> str:
    """The name that opens a clause, as a subject key: its first word and the capitalised word
    after it, if one follows ("Alex Morgan is a customer who ..." -> "alex morgan", never
    "alex", which another Alex's claims may hold), without a possessive's "'s"."""
    words = [tokens[0].lower().replace("’", "'")]
    nxt = tokens[1].lower().replace("’", "'") if len(tokens) > 1 else ""
    if not words[0].endswith("'s") and nxt and tokens[1][:1].isupper() and nxt not in _NOT_SUBJECTS \
            and nxt not in _MONTH_WORDS and nxt not in _KIN and nxt not in _FIRST and not _no_one(nxt):
        words.append(nxt)
    return re.sub(r"'s$", "", " ".join(words))


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
    a thing's pronoun, an auxiliary, a contraction ("don't", "couldn't") or a gerund (not a
    given name: "Irving")."""
    return word in _THING_PRONOUNS or word in _AUXILIARIES or "'" in word and not word.endswith("'s") \
        or len(word) > 5 and word.endswith("ing") and not given_names.is_given_name(word)


def _past_verb(word: str) -> bool:
    """Whether a capitalised `word` (lower-cased) is a verb in the past that opens a clause whose
    subject is left out ("Sold the Civic ...", "Called Mum. She ..."), not a given name ("Drew")."""
    return lexicon.tag(word) in ("VBD", "VBN") and word not in _AUXILIARIES and not given_names.is_given_name(word)


def _opener(word: str) -> bool:
    """Whether a clause-opening `word` (lower-cased) is a word like "Honestly" or "Recently"
    that comes before the clause's subject, if it names one: an adverb by its ending, as the
    word list tags it ("Sally" ends like "Actually" and is a verb there, and a name), or by its
    ending alone for a word the list lacks that is no given name ("Wally", "Molly")."""
    if word in _NOT_SUBJECTS:
        return True
    # a verb in the past that opens a clause whose subject is left out ("Sold the Civic and bought a
    # Tesla"), unless it is also a given name ("Drew", "Rose")
    if _past_verb(word):
        return True
    if re.search(r"(?:ent|ant|al|est|ous|ate|ite|ful|ive|ible|able)ly$", word) is None:
        return False
    known = lexicon.tag(word)
    return known == "RB" if known else not given_names.is_given_name(word)


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
                 "got", "had", "left", "quit", "new", "these", "this", "that", "there", "here", "when", "while"}


def _antecedent(text: str) -> str | None:
    """The person a third-person pronoun of `text` (the text before the pronoun) stands for:
    the first sentence whose subject is a name or kin ("My brother moved to Oslo. He works at
    Equinor": he -> brother; "Kevin's wife ...": kevin wife), else the first person named ("I
    met Tom at Google. He ...": tom; "Kevin quit his job": kevin); None when no one is. A
    capitalised word right after a preposition or verb of place ("in Oslo", "at Google",
    "visited Rome") names a place or an organisation, never the person, and a verb in the past
    whose subject is left out ("Called Mum. She ...") names no one."""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        m = _SENTENCE_SUBJECT.match(sentence)
        if m is None:
            continue
        phrase = m.group("s")
        low = phrase.split()[0].lower()
        if low in _NOT_SUBJECTS or low in _FIRST - {"my", "our"} or low in _MONTH_WORDS or low in _PRONOUNS \
                or low in _SECOND or _no_one(low) or _past_verb(low):
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
        if words and _past_verb(words[0].lower()):
            words = words[1:]  # "Called Jo": the verb, then the name
        if words and words[0].lower() not in _FIRST and words[0].lower() not in _KIN \
                and words[0].lower() not in _PRONOUNS and words[0].lower() not in _SECOND \
                and not _no_one(words[0].lower()):
            names.append(" ".join(words[:2]))  # "Tom Hardy": the first name and the next, as a name
    return names[0].lower() if names else None


#: a sentence's subject before its verb: "My brother", "my sister Ana", "Kevin", "Ana Souza"
_SENTENCE_SUBJECT = re.compile(r"\s*(?P<s>(?:(?:[Mm]y|[Oo]ur)\s+(?:\w+\s+)?(?:" + _KIN_RE + r")(?:\s+[A-Z][a-z]+){0,2}"
                               r"|[A-Z][a-z]+['’]s\s+(?:" + _KIN_RE + r")|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))"
                               r"\s+(?:\w+ly\s+)?[a-z]+(?:s|ed)?\b")
#: what ends right before a capitalised word that names a place or an organisation
_AT_PLACE = re.compile(r"\b(?:in|into|at|near|outside|across|around|visit|visits|visited|visiting|"
                       r"(?:work|works|worked|working)\s+for|"
                       r"(?:moved|moving|move|went|going|flew|flying|drove|driving|travell?ed|trip|relocated|"
                       r"headed|heading)\s+(?:back\s+)?to)\s+(?:the\s+)?$")
