"""The user named in the third person, as an agent's note names them, turned into the first person.

Contract: ``in_first_person(text)`` returns `text` with each clause whose subject is the user
written in the third person ("User lives in Chicago", "The user moved from Chicago to Denver",
"User's manager is Lena Park", "User's sister Ana ...", "Lena Park is the user's manager") in
the first person ("I live in Chicago", "My manager is Lena Park", "Lena Park is my manager"),
its verb made to agree ("lives" -> "live", "is" -> "am", "has" -> "have", "User's moving" ->
"I'm moving"), and the user joined to a relative of theirs as one ("User and his wife moved" -> "I
and my wife moved"); `text` itself when it names no such clause. In a clause the user opens, "his",
"her" or "their" before anyone else is named is the user's ("User lives with her husband Tom"),
and so is the pronoun that opens what the user is said to have said ("User said they live in
Austin" -> "I said I live in Austin"). ``names_user(text)`` says whether it would change `text`.

The slot reader (worlddb.extract._slot_reader) reads a text said in the user's voice through
``in_first_person``, so every rule that reads "I" or "my" reads the note's "User" alike. "User"
is the person only as a clause's subject, followed by a verb, or as a possessive before a noun:
"the user interface", "User stories are done", "a user of Slack" and "users" name no one, and
"the user's guide" after a verb other than "be" is left as written. Pure, deterministic, no I/O,
never raises for a ``str``.
"""

from __future__ import annotations

import re

from worlddb.extract import lexicon
from worlddb.extract._slot_words import _KIN_RE

__all__ = ["in_first_person", "names_user"]

#: where a clause begins: the text's start, a sentence's or a line's, or a clause's after a
#: comma, a quote or a conjunction
_OPENS = (r"(?:^|(?<=[.!?;:]\s)|(?<=\n)|(?<=,\s)|(?<=[\"“(])|" + "|".join(
    rf"(?<=\b{w}\s)" for w in ("and", "but", "so", "because", "since", "after", "before", "when", "while", "that",
                               "though", "although", "then", "once", "until", "now", "where", "whereas", "as")) + ")")
#: after a verb of being, the user's possessive is a predicate ("Lena Park is the user's manager")
_PREDICATE = "|".join(rf"(?<=\b{w}\s)" for w in ("is", "was", "are", "were", "became", "becomes", "remains", "as"))
#: the user as a clause's subject or as a possessive that opens a clause or is a predicate
_USER = re.compile(_OPENS + r"(?P<the>(?:[Tt]he\s+)?)(?P<u>[Uu]ser)(?P<s>['’]s)?\b(?![-'’])"
                   r"|(?:" + _PREDICATE + r")(?P<the2>the\s+)(?P<u2>user)['’]s\b")
#: adverbs between the subject and its verb ("User recently moved")
_ADVERBS = re.compile(r"\s+((?:(?:\w+ly|now|also|still|just|then|never|always|already|no\s+longer|often|soon"
                      r"|once|again)\s+)*)([A-Za-z]+?(?:n['’]t)?)\b")
#: a verb's first-person form where it is not the bare one the -s form drops to
_AGREE = {"is": "am", "isn't": "am not", "isn’t": "am not", "has": "have", "hasn't": "haven't", "hasn’t": "haven’t",
          "does": "do", "doesn't": "don't", "doesn’t": "don’t", "goes": "go"}
#: verbs whose form is the same after "I" and after "User"
_SAME = {"was", "wasn't", "wasn’t", "had", "hadn't", "did", "didn't", "didn’t", "will", "won't", "would", "wouldn't",
         "can", "can't", "cannot", "could", "couldn't", "should", "shouldn't", "might", "may", "must", "used"}
#: what follows a plural noun that a compound with "user" makes the subject ("User stories are done")
_SUBJECT_VERB = {"are", "were", "have", "had", "need", "should", "will", "would", "can", "could", "must", "do", "don't",
                 "don’t", "look", "seem", "show", "get"}
#: words after "User's" that make it "User is" or "User has" ("User's moving", "User's been"), not a possessive
_CONTRACTED = {"been": "'ve", "got": "'ve", "gotten": "'ve", "a": "'m", "an": "'m", "not": "'m", "now": "'m",
               "still": "'m", "also": "'m", "just": "'m", "currently": "'m", "going": "'m", "gonna": "'m",
               "no": "'m", "never": "'m", "back": "'m", "finally": "'m", "officially": "'m", "already": "'m",
               "in": "'m", "at": "'m", "on": "'m", "off": "'m", "from": "'m", "away": "'m", "home": "'m",
               "married": "'m", "engaged": "'m", "divorced": "'m", "single": "'m", "retired": "'m", "pregnant": "'m"}
#: words an "-ing" word after "User's" takes when it is a verb ("User's planning a trip"), not a
#: noun ("User's wedding is in June")
_ING_OBJECT = {"a", "an", "the", "to", "on", "for", "with", "in", "at", "from", "out", "up", "back", "his", "her",
               "their", "some", "into", "over", "off", "around"}
#: verbs of saying: the pronoun that opens what the user said is the user
_SAYING = {"said", "says", "mentioned", "mentions", "noted", "notes", "explained", "explains", "shared", "shares",
           "reported", "reports", "confirmed", "confirms", "stated", "states", "added", "adds", "clarified",
           "clarifies", "indicated", "indicates", "wrote", "writes", "told me", "tells me", "told us", "tells us"}
_SAID = re.compile(r"\s+(?:that\s+)?(?P<p>they|he|she)(?P<c>['’](?:re|s|ve|d|ll))?\b", re.I)
#: a relative of the user's joined to the user as one subject ("User and his wife", "the user and their kids")
_WITH_KIN = re.compile(r"\s+and\s+(?:his|her|their)\s+(?:[a-z]+\s+)?(?:" + _KIN_RE + r")\b", re.I)
_CLAUSE_END = re.compile(r"[.!?;\n]|,\s+(?:and|but)\s|\s(?:but|because|while|whereas)\s")


def names_user(text: str) -> bool:
    """Whether `text` names the user in the third person as ``in_first_person`` reads it."""
    return in_first_person(text) != text


def in_first_person(text: str) -> str:
    """`text` with the user named in the third person turned into the first (the module docstring)."""
    if "user" not in text and "User" not in text:
        return text
    out, pos = [], 0
    for m in _USER.finditer(text):
        if m.start() < pos:
            continue
        turned = _turned(text, m)
        if turned is None:
            continue
        replacement, end = turned
        out += [text[pos:m.start()], replacement]
        pos = end
    return "".join(out) + text[pos:] if out else text


def _turned(text: str, m: re.Match[str]) -> tuple[str, int] | None:
    """The first-person words for the user at `m` and where in `text` they end, or None when
    the match names no one (a compound: "the user interface")."""
    capital = (m.group("the") or m.group("u") or m.group("the2") or "")[:1].isupper()
    if m.group("u2") is not None:
        return "my", m.end()
    if m.group("s"):
        nxt = re.match(r"\s+([A-Za-z]+)(?:\s+([A-Za-z]+))?", text[m.end():])
        if nxt is None:
            return None
        word, after = nxt.group(1).lower(), (nxt.group(2) or "").lower()
        if word in _CONTRACTED or word.endswith("ing") and (lexicon.tag(word) == "VBG" or after in _ING_OBJECT):
            return _clause_rest(text, m.end(), "I" + _CONTRACTED.get(word, "'m").replace("'", "’" if "’" in
                                                                                        m.group("s") else "'"))
        if not nxt.group(1)[:1].islower():
            return None  # "the User's Guide": a title
        return ("My" if capital else "my"), m.end()
    if _WITH_KIN.match(text, m.end()):
        # "User and his wife moved to Portland": the user and a relative, "I and my wife"
        return _clause_rest(text, m.end(), "I")
    verb = _ADVERBS.match(text, m.end())
    if verb is None:
        return None
    form = _first_person(verb.group(2), _next_word(text, verb.end()))
    if form is None:
        return None
    head = "I " + verb.group(1) + form
    return _clause_rest(text, verb.end(), head, saying=_saying(verb.group(2), text, verb.end()))


def _next_word(text: str, at: int) -> str:
    found = re.match(r"\s+([\w'’]+)", text[at:])
    return found.group(1).lower() if found else ""


def _first_person(verb: str, after: str) -> str | None:
    """`verb` as it agrees with "I" after the user's third-person subject, or None when it is no
    verb ("interface" of "User interface", "stories" of "User stories are ...")."""
    low = verb.lower()
    if low in _AGREE:
        return _AGREE[low]
    if low in _SAME or lexicon.tag(low) in ("VBD", "VBN") or re.fullmatch(r"[a-z]{2,}ed", low):
        return verb
    if not re.fullmatch(r"[a-z]{2,}[^s]s", low) or after in _SUBJECT_VERB:
        return None
    if lexicon.tag(low) not in ("VBZ", "NNS", None):
        return None
    if re.search(r"[^aeiou]ies$", low):
        return low[:-3] + "y"
    if re.search(r"(?:ch|sh|ss|x|z)es$", low):
        return low[:-2]
    return low[:-1]


def _saying(verb: str, text: str, at: int) -> str:
    """The words right after a verb of saying that make it one ("told me"): the verb as
    `_SAYING` holds it, "" for another verb."""
    low = verb.lower()
    obj = re.match(r"\s+(me|us)\b", text[at:], re.I)
    if obj and f"{low} {obj.group(1).lower()}" in _SAYING:
        return f"{low} {obj.group(1).lower()}"
    return low if low in _SAYING else ""


def _clause_rest(text: str, at: int, head: str, saying: str = "") -> tuple[str, int]:
    """`head` for the user's words, and the rest of their clause from `at` with the user's "his",
    "her" and "their" before anyone else is named turned into "my", and after a verb of saying
    (`saying`) the pronoun that opens what was said turned into "I"."""
    end = _CLAUSE_END.search(text, at)
    stop = end.start() if end else len(text)
    rest = text[at:stop]
    if saying:
        said = _SAID.match(rest, len(re.match(r"(?:\s+(?:me|us)\b)?", rest, re.I).group(0)) if " " in saying else 0)
        if said is not None:
            turned, after = _pronoun_turned(said, rest)
            rest = rest[:said.start("p")] + turned + rest[after:]
    named = re.search(r"(?<!^)\b[A-Z][a-z]+", rest)
    limit = named.start() if named else len(rest)
    rest = re.sub(r"\b(?:his|her|their)\b(?=\s+[a-z])", "my", rest[:limit]) + rest[limit:]
    return head + rest, stop


def _pronoun_turned(said: re.Match[str], rest: str) -> tuple[str, int]:
    """The pronoun that opens what the user said, with its verb, in the first person, and where
    in `rest` the words turned end."""
    contraction = (said.group("c") or "").lower().replace("’", "'")
    if contraction:
        return "I" + {"'re": "'m", "'s": "'m", "'ve": "'ve", "'d": "'d", "'ll": "'ll"}[contraction], said.end()
    verb = _ADVERBS.match(rest, said.end())
    if verb is None:
        return "I", said.end()
    low = verb.group(2).lower()
    if said.group("p").lower() == "they":
        form = {"are": "am", "aren't": "am not", "aren’t": "am not", "were": "was", "weren't": "wasn't",
                "weren’t": "wasn’t"}.get(low, verb.group(2))
    else:
        form = _first_person(verb.group(2), _next_word(rest, verb.end())) or verb.group(2)
    return "I" + rest[said.end():verb.start(2)] + form, verb.end()
