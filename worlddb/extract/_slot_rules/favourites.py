"""Favourites and usual choices: the rules of favourites, orders, languages and pastimes.

Contract: ``FAVOURITES`` holds, in table order, the rules of a favourite thing and a usual order,
of the programming language one uses and the languages one speaks, and of the activities one
keeps, takes up, learns or gives up, with the word sets that keep what is no pastime out.
"""

from __future__ import annotations

import re

from worlddb.extract import lexicon
from worlddb.extract._slot_rules._base import (
    _NOT_ACTIVITIES,
    _NOT_GERUNDS,
    _NOT_OUTINGS,
    _S,
    _SUBJ,
    _VAL,
    _WORKPLACES,
    _name,
    _Rule,
    _rx,
)
from worlddb.extract._slot_words import (
    _DIETS,
    _DRINKS,
    _LANGUAGES,
)

#: words a clause opens with, never the language a "spoke" names
_NOT_LANGUAGE = {"I", "I'm", "I’m", "I've", "I’ve", "I'd", "I’d", "I'll", "I’ll", "We", "He", "She", "They", "It",
                 "You", "My", "Our", "The", "A", "An", "This", "That", "Then", "And", "But", "So"}
#: what a skill learnt is when it is no name: crafts, instruments, sports and a few verbs of skill
_SKILLS = (r"(?:guitar|piano|violin|viola|cello|drums|ukulele|saxophone|sax|flute|trumpet|harp|banjo|clarinet|bass"
           r"|chess|pottery|photography|calligraphy|woodworking|knitting|crochet|sewing|coding|programming|painting"
           r"|drawing|cooking|baking|dancing|salsa|tango|ballet|swimming|surfing|skiing|sailing|climbing|boxing|fencing"
           r"|archery|sign language|code|program|cook|bake|knit|sew|draw|paint|sing|dance|swim|surf|ski|skate|sail"
           r"|climb|box|fence|juggle)\b(?:\s+(?:guitar|lessons|classes))?")
#: what "gave up on" is never an activity: a person, a thing said, a plan
_NOT_AN_ACTIVITY = {"him", "her", "them", "it", "me", "us", "you", "that", "this", "everything", "life", "hope",
                    "people", "love", "men", "women", "dating", "idea", "plan", "plans"}

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


FAVOURITES: tuple[_Rule, ...] = (
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
)


def _drink_or_dish(value: str) -> bool:
    return bool(_DRINKS.search(value))
