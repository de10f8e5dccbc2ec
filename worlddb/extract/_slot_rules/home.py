"""Where someone lives: the rules of the ``home`` attribute, and the checks of a move.

Contract: ``HOME`` holds the rules of where someone lives, lives now or moved to (and the home a
move from one place to another ends), in table order. ``moved_home`` says whether a move to a name
is to a new home, not a tool's (the extractor asks it too: worlddb.extract.builtin), and
``_place_in`` finds the place in a lower-case phrase of a home (worlddb.extract._slot_reader asks
it of a ``home`` value). The checks read the word list (worlddb.extract.lexicon) and the
gazetteer (worlddb.extract.places), never a particular sentence.
"""

from __future__ import annotations

import re

from worlddb.extract import lexicon, places
from worlddb.extract._slot_rules._base import (
    _S,
    _VAL,
    _has_time,
    _Rule,
    _rx,
    _school,
)
from worlddb.extract._slot_words import (
    _LANGUAGES,
    _MONTHS,
    _WEEKDAYS,
    corporate,
)


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
#: (and no home is "a" or "a new" something of a name: "moved to a new GP, Dr. Patel")
_NOT_FOR_SOFTWARE = r"(?!" + _SOFTWARE_AFTER + r")(?!(?:a|an)\s+(?:new\s+|different\s+)?(?-i:[A-Z]))"


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
    in it (`_NOT_A_MOVE`: "Grafana Cloud", "Jira Server"), or a school's ("Alba moved up to
    Northgate Secondary"). The gazetteer is asked only about the names the word list cannot
    settle, so that most processes never load it."""
    if not _moved_to_name(value):
        return False
    words = value.split()
    tool_like = (len(words) == 1 and lexicon.is_common(value)) or any(w[:1].isdigit() for w in words) \
        or _NOT_A_MOVE.search(value) is not None or _school(value)
    return (not tool_like and _known_name(value)) or places.is_place(value)


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


#: a stay that is no home ("I'm in Paris now for the conference", "moved my flight")
_OUTING_NOW = _rx(r"\b(?:trip|travel\w*|vacation|holiday|conference|visit\w*|flight|hotel|week|weekend|meeting"
                  r"|for work|moved (?:the|my|our))\b")


HOME: tuple[_Rule, ...] = (
    # ---- where someone lives
    _Rule("home", _rx(_S + r"(?:live|lives|living|lived|reside|resides|residing|based|settled)"
                      r"(?:\s+(?:back|over|out|down|up|away))?\s+(?:in|to|into)\s+" + _VAL), accept=_place),
    # a move to a place the word list or the gazetteer knows ("I moved to Lagos"), or to another name
    # where the text says it is a home ("We moved to Bexley, into a two-bed flat"), not a tool's
    # ("We moved to Buildkite", "We're moving to Kubernetes", "We moved to Vue for the frontend")
    _Rule("home", _rx(_S + _MOVED + r"\s+(?:in|to|into)\s+" + _NOT_FOR_SOFTWARE + _VAL), accept=_moved_to_place),
    _Rule("home", _rx(_S + _MOVED + r"\s+(?:in|to|into)\s+" + _VAL), accept=_moved_to_name, context=_A_HOME),
    # "Dad moved in with us on Saturday", "I moved in with Sam": the home one had is left, for one whose
    # place the text does not name
    _Rule("home", _rx(_S + r"(?:moved|moving)\s+in\s+with\s+(?:me|us|(?-i:[A-Z][a-z]+)|(?:my|our|his|her)\s+[\w-]+)\b"
                      r"(?P<v>)"), positive=False, ended=True, accept=lambda v: True),
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
                      r"condo|home|place|townhouse|studio|semi|terrace|bungalow|cottage|maisonette|duplex|loft)\s+in\s+"
                      + _VAL), accept=_place,
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
)
