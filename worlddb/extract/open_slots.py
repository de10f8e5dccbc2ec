"""Open slots: attributes outside the slot catalogue, read from how a value or a change is said.

Contract: ``read_open(text, animate=...)`` returns the ``OpenClaim``s of a text, in clause order.
It is deterministic, performs no I/O and never raises for a ``str``; worlddb.extract.slots adds
the claims to its ``Reading`` (as ``SlotClaim``s, in worlddb.extract._slot_reader) and
worlddb.extract.judge decides on them (``open_outcome``, ``replacement_kind``). Every reading
is anchored at the start of a clause, and a rule that is unsure reads nothing: a claim read
wrongly can end a true memory.

Attributes (the name carries what the slot is, so two claims are about one slot only when the
same words name it; the claims index keys them as it keys the catalogue's):

    np:<noun phrase>  the value of a named thing: "my/our/the <np> is <value>", "<np> changed to
                      <value>", "the new <np> is <value>", "we changed/updated/reset/set the <np>
                      to <value>" (or asked for: "Set the thermostat to 68"), "I use <Name> as
                      my <np>". One value at a time. The value
                      must look like an identifier (a digit in it), a name (capitalised words),
                      or - when the noun phrase's head names an identifier (password, code,
                      username, ...) - one word; never an adjective or a verb phrase. "the <np>
                      is" needs an identifier noun ("the total is $45", "the winner is Tom" name
                      no lasting slot) or is a setting's "is set to <number>" ("the thermostat
                      is set to 70"); "set the <np> to" an identifier noun or value. The
                      noun phrase is normalised (determiners, "new"/"current" dropped,
                      singular); "guest wifi password" and "wifi password" are two slots.
    prefers:<kind>    "<who> prefers <value>", "likes <value> better/more": one value of a kind
                      at a time; the kind is a drink for coffee, tea, ..., else the head noun of a
                      value of several words ("window seats" -> seat).
    prefers           a preference whose kind is unknown: several may hold; only a replacement
                      cue changes one.
    uses              "I use <Name>" with no role: several may hold.
    replaces          "switched/moved/changed (over) to (a) <Name>", "moved to <Name> for <purpose>",
                      "replaced X with <Name>",
                      "<Name> instead of X", "cancelled/quit/dropped X and joined/got <Name>",
                      "dropped/moved off/ripped X out in favour of <Name>", "swapped X for <Name>": a
                      new value with no attribute of its own. An ended
                      claim of it names the old value ("from X", "instead of X"); the judge gives
                      a positive one the slot of the one candidate it can be about.

    np:<part>         what a part of a system is written in, built with, hosted or runs on ("The API
                      is hosted on Heroku", "The frontend is a Vue 2 app", "We moved the API from our
                      old host onto Fly.io", "We run CI on Travis"; a tool's name in lower case,
                      "pnpm", is a name here; a day is none),
                      and where a thing is reached: "Staging is at <URL>" is np:staging url.

    np:<role>         the holder of a role one person holds at a time (its last word one of
                      ROLE_HEADS: "tech lead", "product manager", "CTO"), a person's name: "Our
                      CTO is Dana Lee", "The CTO is Dana Lee", and a new holder named first:
                      "Priya Nair is our new tech lead", "Priya Nair has taken over as tech
                      lead", "Mira Patel replaced Tom Okafor as our product manager" (not
                      "Biscuit is our new puppy"). A question asks for one with "who" ("Who is
                      our tech lead?"); "who" asks for no other open slot.

    np:name           also "I'm <Name>" opening a text or a sentence before a stop, a comma or a
                      dash, where the name's first word is a given name or a word the tagger
                      does not know ("I'm Sam, I work as a nurse", "I'm Priya Shah - I run ...";
                      not "I'm Happy, thanks", "I'm Canadian, eh"): the speaker's name, as "My
                      name is Sam" says it.

<who> is I, we or a name, which a relation may introduce ("My coworker Raj prefers Python": Raj),
or left out before a verb of change in the past ("Switched to Neovim", "Moved CI to Buildkite"): the
speaker. A clause that reads nothing whole is read again without the detail after its value ("...
on Heroku, two standard dynos", "... since we're going to Osaka"; not a list: "Django, React and
Postgres").
The qualifier of an open claim is its context ("at work", "at home", "on my laptop"; a purpose,
"for photo editing"; for a preference, its occasion: "tea in the morning"): claims of one slot in
different contexts are both true.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from worlddb.extract._lazy import lazy
from worlddb.extract._slot_words import _KIN_RE, _MONTHS
from worlddb.extract.given_names import is_given_name
from worlddb.extract.lexicon import is_common, singular, tag

__all__ = [
    "IDENT_NOUNS", "OPEN_SINGLE_PREFIXES", "PREFERS", "PURPOSE", "REPLACES", "USES", "OpenClaim", "asked_open",
    "is_open", "is_single", "lower_name", "read_open", "value_kind",
]

REPLACES = "replaces"
USES = "uses"
PREFERS = "prefers"
#: attribute prefixes of open slots that hold one value at a time
OPEN_SINGLE_PREFIXES = ("np:", "prefers:")


@dataclass(frozen=True, slots=True)
class OpenClaim:
    subject: str
    attribute: str
    value: str
    ended: bool = False
    qualifier: str = ""
    named: bool = False


def is_open(attribute: str) -> bool:
    """Whether `attribute` is an open slot's (this module's) rather than the catalogue's."""
    return attribute.startswith(OPEN_SINGLE_PREFIXES) or attribute in (REPLACES, USES, PREFERS)


def is_single(attribute: str) -> bool:
    """Whether an open slot holds one value at a time."""
    return attribute.startswith(OPEN_SINGLE_PREFIXES)


def value_kind(value: str) -> str:
    """"id" (a digit or @ in it, but for a name's version: "Hunter22", "555-0100"), "name" (begins
    with a capital word: "SvelteKit", "Vue 2", "Python 3.11", "ThinkPad X1") or "word" (a tool's
    name in lower case, "pnpm", is a word here; `lower_name` tells it)."""
    first = value.split()[0] if value.split() else ""
    if re.search(r"[\d@]", first) or re.search(r"[\d@]", value) and not first[:1].isupper():
        return "id"
    return "name" if value[:1].isupper() else "word"


def lower_name(value: str) -> bool:
    """A tool's name written in lower case, as many are ("pnpm", "vitest", "eslint"): one word
    that is no word of the language."""
    return re.fullmatch(r"[a-z][a-z0-9.+#-]{1,20}", value) is not None and not is_common(value.rstrip("."))


# ---------------------------------------------------------------------------- lexicons
#: head nouns whose value is an identifier, so one plain word can be it ("the password is sunflower")
IDENT_NOUNS = frozenset("""
password passcode passphrase code pin username login handle nickname name id number combination ssid
extension plate callsign alias tag account url domain address email
""".split())
#: words that never make a lasting slot's noun phrase ("the problem is", "my favourite ... is")
_NP_STOP = frozenset("""
favourite favorite fave go-to best worst only main first last biggest hardest easiest problem thing part
reason idea point issue question answer truth secret trick key goal plan dream hope guess bet fear concern
worry feeling sense mood situation life day week month year weekend time moment place way lesson rule
news result fact deal story job team one kind type sort lot bit
it this that there here what who which everything something anything nothing
""".split())
_DETERMINERS = frozenset("a an the my our your his her their its this that new current updated latest present whole"
                         " entire".split())
_DRINKS = frozenset("""
coffee tea chai matcha latte cortado espresso cappuccino americano mocha macchiato decaf juice water soda
cola milk smoothie beer wine whiskey whisky cocktail lemonade kombucha cocoa
""".split())
#: a time a clause may open with that dates what it says, not a value ("As of Friday the site
#: lives on Cloudflare Pages", "Since May the API runs on Fly.io"); never one still to come
_SINCE = (r"(?:as\s+of|since)\s+(?:today|yesterday|now|(?:last|this)\s+\w+|(?:" + _MONTHS + r"|(?:mon|tues|wednes|thurs"
          r"|fri|satur|sun)day)(?:\s+\d{1,2}(?:st|nd|rd|th)?)?|\d{1,2}(?:st|nd|rd|th)?\s+(?:" + _MONTHS + r"))")
_FILLER = (r"(?:(?:so|and|but|oh|well|also|okay|ok|update|fyi|btw|now|honestly|actually|lately|heads up|" + _SINCE
           + r")[:,]?\s+)*")
#: a short label before a colon that a clause may open with ("Quick context:", "Project note:"),
#: taken off before the clause is read
_LABEL = re.compile(r"^[a-z]+(?:\s+[a-z]+){0,2}:\s+(?=\S)", re.I)
_NAME = r"(?-i:[A-Z][a-z]+)"
_CAP_VALUE = r"(?-i:[A-Z0-9][\w+#.'’&\u2024-]*(?:\s+(?:[A-Z0-9][\w+#.'’&\u2024-]*)){0,3})"
_NP = r"[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?"
#: a part's value: a name, or a tool's name in lower case ("pnpm"; `lower_name` decides)
_TOOL_VALUE = r"(?:" + _CAP_VALUE + r"|(?-i:[a-z][a-z0-9.+#-]{1,20}))"
#: what may follow a value before the clause ends
#: a purpose after a value, what a thing is used for: a gerund after "for" ("for coding", "for
#: note-taking"), with one word before it that is no determiner ("for photo editing"); not "for
#: everything", "for morning": words in -ing that are no gerund
PURPOSE = (r"\s+for\s+(?:(?!(?:a|an|the|my|our|your|his|her|their|this|that|some|any|each)\s)[a-z]+[\s-])?"
           r"(?!(?:every|any|no|some)thing\b|morning\b|evening\b|spring\b|wedding\b|building\b)[a-z]+ing")
_CTX = (r"(?P<ctx>\s+(?:at|for|on|in)\s+(?:my\s+|our\s+|the\s+)?(?:work|home|school|the office|office|laptop"
        r"|desktop|phone|job)|" + PURPOSE + r")?")
_TAIL = (_CTX + r"(?:\s+(?:now|again|these days|nowadays|from now on|instead|lately|recently|for everything"
         r"|(?:last|this) (?:week|weekend|month|year|sprint|quarter)|yesterday|today"
         r"|as of (?:today|this week|this month))|,\s*(?:now|too))*\s*[.!;]*$")
#: the past-tense verbs of a change a clause may open with, its subject left out as in a chat or a
#: commit message ("Switched to Neovim", "Moved CI to Buildkite"): the speaker's
_PAST_CHANGES = (r"switched|changed|migrated|swapped|moved|went|replaced|cancell?ed|quit|left|dropped|ditched"
                 r"|rewrote|rebuilt|ported|upgraded|ripped|pulled|phased|traded")
#: after a clause's subject: a space, or the contraction of its auxiliary ("I've switched", "I'm using")
_AFTER_WHO = r"(?:\s+|(?=['’](?:ve|m|re|d)\s))"
#: a clause's opening up to its verb: fillers ("so", "update:"), then who ("My coworker Raj": Raj)
_SUBJECT = (r"^" + _FILLER + r"(?:(?:my|our)\s+(?:" + _KIN_RE + r")\s+(?=" + _NAME + r"\b))?"
            r"(?:(?P<who>I|we|" + _NAME + r")" + _AFTER_WHO + r"|(?P<unsaid>)(?=(?:just\s+|finally\s+|recently\s+)?"
            r"(?:" + _PAST_CHANGES + r")\b))")
#: (a colon only inside a number, "6:30", or a URL's "https://")
_VALUE_WORDS = r"(?P<v>[$€£]?(?:[\w@+#.'’&/-]|:(?=\d|//))+(?:\s+(?:[\w@+#.'’&/-]|:(?=\d|//))+){0,3}?)"


def _rx(pattern: str) -> re.Pattern[str]:
    """A pattern of the table, case-insensitive, compiled on first use (worlddb.extract._lazy)."""
    return lazy(pattern)


_IS = _rx(r"^" + _FILLER + r"(?P<owner>my|our|the|" + _NAME + r"['’]s)\s+(?P<np>" + _NP + r")\s+"
          r"(?P<set>is\s+(?:now\s+|still\s+)?set\s+to|was\s+set\s+to|has\s+been\s+set\s+to)?"
          r"(?(set)|(?:is\s+now|is|['’]s|(?<=s\s)are\s+now|(?<=s\s)are"
          r"|has\s+(?:been\s+)?changed\s+to|was\s+changed\s+to|changed\s+to|got\s+changed\s+to|is\s+changing\s+to"
          r"|was\s+updated\s+to|has\s+been\s+updated\s+to|was\s+reset\s+to))\s+(?:now\s+|still\s+)?"
          + _VALUE_WORDS + _TAIL)
#: (also said as a request, which states the setting from then on: "Set the thermostat to 68")
_SET = _rx(r"(?:" + _SUBJECT + r"(?:(?:just|finally|recently|have|['’]ve|has|had)\s+)*|^" + _FILLER
           + r"(?=(?:set|reset|change)\s))"
           r"(?:changed|updated|reset|set|switched|change|upped|raised|increased|lowered|reduced|cut|bumped|extended"
           r"|shortened)\s+(?P<owner>my|our|the|his|her|their)\s+(?P<np>" + _NP
           + r")\s+(?:over\s+)?to\s+" + _VALUE_WORDS + _TAIL)
_USE_AS = _rx(_SUBJECT + r"(?:(?:now|mostly|mainly|still|currently|just)\s+)*"
              r"(?:use|uses|am using|['’]m using|are using|['’]re using|is using)\s+(?P<v>" + _CAP_VALUE + r")\s+as\s+"
              r"(?P<owner>my|our|his|her|their)\s+(?:main\s+|primary\s+|daily\s+)?(?P<np>" + _NP + r")" + _TAIL)
_USE = _rx(_SUBJECT + r"(?:(?:now|mostly|mainly|still|currently|just)\s+)*"
           r"(?:use|uses|am using|['’]m using|are using|['’]re using|is using)\s+(?P<v>" + _CAP_VALUE + r")"
           r"(?:\s+instead\s+of\s+(?P<old>" + _CAP_VALUE + r"))?" + _TAIL)
#: what a part of a system is written in, built with, runs on or uses: "The frontend is written in
#: React", "Our CI runs on GitHub Actions"; changed: "We rewrote the frontend in Svelte", "We moved CI
#: to Buildkite"; said the other way round: "We use React for the frontend"
_STACK_IS = _rx(r"^" + _FILLER + r"(?P<owner>my|our|the)\s+(?P<np>" + _NP + r")\s+(?:(?:now|still|currently)\s+)?"
                r"(?:uses?|(?:is|are)\s+using|runs?\s+on|(?:is|are)\s+running\s+on|lives?\s+on"
                r"|(?:is|are)\s+(?:now\s+)?(?:written|built|hosted|deployed|running)\s+(?:in|with|on|to)"
                r"|(?P<kind>is\s+(?:now\s+)?an?))\s+(?P<v>" + _TOOL_VALUE + r")"
                # ("The frontend is a Vue 2 app": what kind of thing the part is, by the name it is built on)
                r"(?(kind)\s+(?:app|application|site|website|service|project|codebase|setup|stack|server|cluster))"
                + _TAIL)
#: where a thing is reached: "Staging is at staging.example.com", "The docs live at https://..."
_AT_URL = _rx(r"^" + _FILLER + r"(?:(?P<owner>my|our|the)\s+)?(?P<np>" + _NP + r")\s+(?:(?:is|are|lives?|runs?)\s+"
              r"(?:now\s+)?|(?:is|are)\s+(?:now\s+)?(?:served|hosted|deployed)\s+)(?:at|on)\s+"
              r"(?P<v>(?:https?://)?[\w-]+(?:\.[\w-]+)+(?:/[^\s,;]*)?)" + _TAIL)
#: a part of a system named after a verb: "the frontend", "our CI", or an acronym alone ("CI")
_PART = r"(?:(?P<owner>my|our|the)\s+(?P<np>" + _NP + r")|(?P<acronym>(?-i:[A-Z]{2,6})))"
#: the head nouns of a slot whose value is an address already
_ADDRESS_NOUNS = frozenset("url address domain site website link endpoint host hostname".split())
_STACK_MOVE = _rx(_SUBJECT + r"(?:(?:just|finally|recently|have|['’]ve|has|had)\s+)*"
                  r"(?:moved|migrated|switched|ported|rewrote|rebuilt|upgraded)\s+" + _PART
                  + r"(?:\s+from\s+(?:(?:my|our|the|an?)\s+)?(?:old\s+)?[\w.+#-]+(?:\s+[\w.+#-]+)?)?"
                  r"\s+(?:over\s+)?(?:to|in|onto|into)\s+"
                  r"(?P<v>" + _TOOL_VALUE + r")" + _TAIL)
_STACK_USE = _rx(_SUBJECT + r"(?:(?:now|mostly|mainly|still|currently|just)\s+)*(?:use|are\s+using|['’]re\s+using"
                 r"|am\s+using|['’]m\s+using)\s+(?P<v>" + _TOOL_VALUE + r")\s+(?:for|on|in)\s+(?P<owner>my|our|the)\s+"
                 r"(?P<np>" + _NP + r")" + _TAIL)
#: "We run CI on Travis", "We host the docs on Netlify": the part named after the verb
_STACK_RUN = _rx(_SUBJECT + r"(?:(?:now|still|currently|just)\s+)*(?:run|host|deploy|build)\s+" + _PART
                 + r"\s+(?:on|with|in|through)\s+(?P<v>" + _TOOL_VALUE + r")" + _TAIL)
_SWITCH = _rx(_SUBJECT + r"(?:(?:just|finally|recently|have|['’]ve|has|had"
              r"|officially)\s+)*(?:switched|changed|migrated|swapped|(?:moved|went)(?=\s+(?:over|back|from)\b)"
              # ("We moved to Grafana Cloud for monitoring": a move made for a purpose is a tool's)
              r"|moved(?=\s+to\s+[^.!?;]{1,60}?" + PURPOSE + r"))"
              r"\s+(?:over\s+|back\s+)?"
              r"(?:from\s+(?:(?:a|an)\s+)?(?P<old>" + _CAP_VALUE + r")\s+)?to\s+(?:(?:a|an)\s+)?"
              r"(?P<v>" + _CAP_VALUE + r")"
              r"(?:\s+from\s+(?P<old2>" + _CAP_VALUE + r"))?" + _TAIL)
_REPLACED = _rx(_SUBJECT + r"(?:(?:just|finally|recently|have|['’]ve|has)\s+)*"
                r"replaced\s+(?P<old>" + _CAP_VALUE + r")\s+with\s+(?P<v>" + _CAP_VALUE + r")" + _TAIL)
_DROPPED = _rx(_SUBJECT + r"(?:(?:just|finally|recently|have"
               r"|['’]ve|has|had)\s+)*(?:cancell?ed|quit|left|dropped|ditched|dumped|gave\s+up|stopped\s+using"
               r"|got\s+rid\s+of|sold)\s+(?:(?:the|my|our)\s+)?(?P<old>" + _CAP_VALUE + r")(?:\s+and|,\s*and|,)\s+"
               r"(?:then\s+)?(?:joined|signed\s+up\s+(?:for|with|at)|signed\s+with|switched\s+to|went\s+with"
               r"|started\s+using|bought|got|picked|chose)\s+(?:(?:a|an|the)\s+)?(?P<v>" + _CAP_VALUE + r")" + _TAIL)
#: "Ripped GORM out in favour of sqlc", "We dropped Jest in favor of Vitest", "I swapped Notion for Obsidian":
#: the old value given up for the new one
_GIVEN_UP = r"(?:(?:the|our|my)\s+)?"
_FAVOURED = _rx(_SUBJECT + r"(?:(?:just|finally|recently|have|['’]ve|has|had)\s+)*"
                r"(?:(?:(?:ripped|pulled|took|threw|phased|swapped)\s+" + _GIVEN_UP
                + r"(?P<old>" + _TOOL_VALUE + r")\s+out"
                r"|(?:dropped|ditched|dumped|abandoned|retired|replaced|gave\s+up|moved\s+(?:off|away\s+from)"
                r"|got\s+rid\s+of)\s+" + _GIVEN_UP + r"(?P<old2>" + _TOOL_VALUE + r"))\s+in\s+favou?r\s+of"
                r"|(?:swapped|traded|ditched|dumped)\s+" + _GIVEN_UP + r"(?P<old3>" + _TOOL_VALUE + r")\s+for)"
                r"\s+(?P<v>" + _TOOL_VALUE + r")" + _TAIL)
_PREFER = _rx(_SUBJECT + r"(?:(?:now|still|really|much|actually|definitely"
              r"|mostly|generally|usually)\s+)*(?:prefer|prefers|['’]d\s+rather\s+have|would\s+rather\s+have"
              r"|like|likes)\s+" + _VALUE_WORDS + r"(?P<better>\s+(?:better|more))?"
              r"(?:\s+(?:over|to|than|rather\s+than)\s+[\w' -]{1,30}?)?" + _TAIL)
#: the clause pieces a claim is read in: sentences, and their parts after a comma or a conjunction
#: a role one person holds at a time, by its last word ("tech lead", "engineering manager", "CTO")
ROLE_HEADS = frozenset("""lead manager director head boss supervisor ceo cto cfo coo cmo cpo vp president chair
chairperson captain coach principal headteacher owner pm master""".split())
_PERSON = _NAME + r"(?:\s+" + _NAME + r"){0,2}"
#: a role's new holder, named first: "Priya Nair is our new tech lead", "Priya Nair has taken over
#: as tech lead", "Mira replaced Tom as our product manager"
_HOLDER = _rx(r"^" + _FILLER + r"(?P<v>" + _PERSON + r")\s+(?:"
              r"(?:is|['’]s)\s+(?:now\s+)?(?P<owner>my|our|the)\s+new\s+"
              r"|(?:has\s+|have\s+|['’]s\s+|just\s+)*(?:taken|took|is\s+taking|['’]s\s+taking)\s+over\s+as\s+"
              r"(?:(?:my|our|the)\s+)?(?:new\s+)?"
              r"|(?:has\s+|just\s+)*replaced\s+" + _PERSON + r"\s+as\s+(?:(?:my|our|the)\s+)?(?:new\s+)?"
              r")(?P<np>" + _NP + r")" + _TAIL)
#: a role's holder said by the verb of the role: "Priya coaches me now" (one who manages or
#: supervises is the manager: worlddb.extract._slot_rules.work)
_HOLDS_BY_VERB = _rx(r"^" + _FILLER + r"(?P<v>(?!(?-i:He|She|They|It|Who|That|This)\b)" + _PERSON + r")\s+"
                     r"(?:(?:now|also|still)\s+)?(?P<verb>coaches)\s+(?:me|us)\b(?:\s+(?:now|these\s+days))?\s*[.!]?\s*$")
_ROLE_OF_VERB = {"coaches": "coach"}
_PIECES = re.compile(r"(?<=[.!?;])\s+|\n+|\s+[-–—]+\s+|,\s+(?:and|but|so)\s+"
                     r"|\s+(?:and|but)\s+(?=(?:I|we|my|our|the)\b)", re.I)
#: an abbreviation's period ends no sentence (it becomes a one-dot leader while reading)
_ABBREV = re.compile(r"\b(Dr|Mr|Mrs|Ms|St|Mt|Jr|Sr|Prof)\.", re.I)
_NEGATION = re.compile(r"\b(?:not|never|no longer|don['’]t|doesn['’]t|didn['’]t|won['’]t|isn['’]t|wasn['’]t)\b", re.I)


#: a question about an open slot's value: "What is my thermostat set to?", "What's the wifi
#: password?", "What is Sarah's locker code at work?"
_ASK_IS = _rx(r"^(?:so\s+|and\s+|remind me,?\s+)?(?P<wh>what|which|who)(?:['’]s|\s+is|\s+was)\s+(?P<owner>my|our|the|"
              + _NAME + r"['’]s)\s+(?P<np>" + _NP + r")(?:\s+(?:set\s+to|(?:currently\s+|now\s+)?set\s+at|now|currently"
              r"|these\s+days|again|right\s+now))?" + _CTX + r"\s*[?.!]*$")
#: last words of a question's noun phrase that make it no slot's ("What is Joanna's screenplay about?")
_ASK_ENDS = frozenset("about for to with of in on at from like by into".split())
#: "What browser do I use?", "Which editor does Sarah use at work?"
_ASK_USE = _rx(r"^(?:so\s+|and\s+)?(?:what|which)\s+(?P<np>" + _NP + r")\s+(?:do|does|did|am|are|is)\s+(?P<who>I|we|"
               + _NAME + r")\s+(?:(?:now|currently|usually|mostly|still|normally)\s+)*(?:use|using|run|running)"
               r"(?:\s+(?:now|currently|these\s+days|again))?" + _CTX + r"\s*[?.!]*$")

#: a question about a part of a system: "What frontend framework does the project use?", "What
#: database does our backend run on?"
_ASK_PART = _rx(r"^(?:so\s+|and\s+)?(?:what|which)\s+(?P<np>" + _NP + r")\s+(?:do|does|is|are)\s+(?:the|our|my)\s+"
                r"(?P<part>" + _NP + r")\s+(?:(?:now|currently|still)\s+)*(?:use|using|run\s+on|running\s+on|target"
                r"|targeting|(?:built|written)\s+(?:with|on|in)|(?:hosted|deployed)\s+(?:on|to|at))\s*[?.!]*$")
#: "Where is the API hosted?", "Where are our docs deployed?"
_ASK_WHERE = _rx(r"^(?:so\s+|and\s+)?where\s+(?:is|are)\s+(?:the|our|my)\s+(?P<np>" + _NP + r")\s+"
                 r"(?:now\s+|currently\s+)?(?:hosted|deployed|running|served|run)\s*[?.!]*$")


def asked_open(question: str, animate: frozenset[str] = frozenset()) -> tuple[OpenClaim, ...]:
    """The open slots a question asks about, as claims without a value: "What browser do I
    use?" asks about (me, np:browser); "What is the wifi password?" about (me, np:wifi password);
    "Where is the API hosted?" about (me, np:api); "What frontend framework does the project
    use?" about np:frontend framework, np:frontend and np:project.
    The noun phrase is read as a statement's is (a lasting slot's; after "the", an identifier's);
    one that ends in a preposition asks what a thing is about or for, no slot's value ("What is
    Nate's screenplay about?")."""
    q = question.strip()
    m = _ASK_IS.match(q)
    if m:
        owner = m.group("owner")
        subject, named = _owner(owner, None)
        np = _noun_phrase(m.group("np"), animate)
        # "who" asks for a person: the holder of a role ("Who is our tech lead?")
        if subject is None or np is None or np.split()[-1] in _ASK_ENDS or (
                owner.lower() == "the" and np.split()[-1] not in IDENT_NOUNS | ROLE_HEADS) or (
                m.group("wh").lower() == "who" and np.split()[-1] not in ROLE_HEADS):
            return ()
        return (OpenClaim(subject, "np:" + np, "", qualifier=_context(m), named=named),)
    m = _ASK_USE.match(q)
    if m:
        subject, named = _who(m.group("who"))
        np = _noun_phrase(m.group("np"), frozenset())
        if subject is None or np is None:
            return ()
        return (OpenClaim(subject, "np:" + np, "", qualifier=_context(m), named=named),)
    # a part of a system: the slot of the thing asked for ("frontend framework"), of its first
    # word ("frontend"), and of the part named ("backend")
    m = _ASK_PART.match(q)
    if m:
        np, part = _noun_phrase(m.group("np"), animate), _noun_phrase(m.group("part"), animate)
        nps = [np, np.split()[0] if np and len(np.split()) > 1 else None, part]
        return tuple(OpenClaim("me", "np:" + n, "") for n in dict.fromkeys(n for n in nps if n))
    m = _ASK_WHERE.match(q)
    if m:
        np = _noun_phrase(m.group("np"), animate)
        return (OpenClaim("me", "np:" + np, ""),) if np else ()
    return ()


# ---------------------------------------------------------------------------- reading
def read_open(text: str, animate: frozenset[str] = frozenset()) -> tuple[OpenClaim, ...]:
    """The open claims of `text`. `animate`: nouns naming people or animals ("sister",
    "dentist", "dog"): "my dentist is Dr Lee" is a person, which the catalogue reads, and no
    open slot."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    out: list[OpenClaim] = []
    for piece in _PIECES.split(_ABBREV.sub(lambda m: m.group(1) + "\u2024", text)):
        piece = piece.strip()
        if ":" in piece:
            piece = _LABEL.sub("", piece)
        if piece and not _NEGATION.search(piece):
            claims = _piece_claims(piece, animate)
            head = _head(piece) if not claims else piece
            if head != piece:
                claims = _piece_claims(head, animate)
            found = [replace(c, value=c.value.replace("\u2024", ".")) for c in claims]
            out += [c for c in found if c not in out]
    return tuple(out)


#: where what a clause says of its value ends and a detail about it begins: "The API is hosted on
#: Heroku, two standard dynos", "We use Yarn 1 for the monorepo, with workspaces", "I switched to
#: Japanese since we're going to Osaka" (not a list: "Django, React and Postgres")
_DETAIL = re.compile(r",\s+(?!(?-i:[A-Z])[\w.+#-]*(?:\s+[\w.+#-]+)?\s*(?:,|\band\b|\bor\b))|\s+\("
                     r"|\s+(?:since|because|which|with|running|behind)\s+", re.I)


def _head(piece: str) -> str:
    """A clause without the detail after its value (`_DETAIL`), or the clause itself."""
    m = _DETAIL.search(piece)
    return piece[:m.start()] if m else piece


#: "I'm Sam, ...": a name said of oneself before a stop, a comma or a dash (not "I'm Frank about
#: it": a word after it); its words are letters of any script, each capitalised (`_capitalised`:
#: "Tomás", "Zoë")
_INTRO = _rx(r"^" + _FILLER + r"(?:(?:hi|hey|hello)[,!]?\s+)?(?:I['’]m|I\s+am|my\s+name['’]s)\s+"
             r"(?P<v>[^\W\d_]+(?:\s+[^\W\d_]+)?)(?=\s*(?:[,.;!]|\s[-–—]|$))")


def _capitalised(word: str) -> bool:
    """A word written as a name is: a capital, then small letters ("Sam", "Tomás"; not "sam", "SAM")."""
    return len(word) > 1 and word[0].isupper() and word[1:].islower()


def _read_intro(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    m = _INTRO.match(piece)
    first = m.group("v").split()[0] if m else ""
    if not m or not all(_capitalised(w) for w in m.group("v").split()) or not (
            is_given_name(first) or tag(first) is None):
        return []
    subject, named = _who("I")
    return [] if subject is None else [OpenClaim(subject, "np:name", m.group("v"), named=named)]


def _piece_claims(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    for reader in (_read_is, _read_intro, _read_holder, _read_set, _read_use_as, _read_stack, _read_url, _read_switch,
                   _read_replaced, _read_use, _read_prefer):
        claims = reader(piece, animate)
        if claims:
            return claims
    return []


def _read_is(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    m = _IS.match(piece)
    if not m:
        return []
    owner = m.group("owner")
    subject, named = _owner(owner, None)
    np = _noun_phrase(m.group("np"), animate)
    value = _clean(m.group("v"))
    # "the total is $45", "the score is 3-1": after "the", only an identifier noun names a lasting slot,
    # or a setting said as one ("the thermostat is set to 70", as "we set the thermostat to 68" is read)
    # or a name a thing is now ("the whole frontend is SvelteKit now": a change says the value lasts)
    if subject is None or np is None or not _value_fits(value, np) or (
            owner.lower() == "the" and np.split()[-1] not in IDENT_NOUNS | ROLE_HEADS
            and not (m.group("set") and re.match(r"[\d$€£]", value))
            and not (value_kind(value) == "name" and re.search(r"\bnow\b", m.group(0), re.I))):
        return []
    return [OpenClaim(subject, "np:" + np, value, qualifier=_context(m), named=named)]


def _read_holder(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    """A role's new holder (`_HOLDER`): the speaker's slot of the role, for a role one person
    holds at a time (`ROLE_HEADS`: not "Biscuit is our new puppy"); or the holder said by the
    role's verb (`_HOLDS_BY_VERB`: "Priya coaches me now")."""
    m = _HOLDER.match(piece)
    if not m:
        m = _HOLDS_BY_VERB.match(piece)
        value = _clean(m.group("v")) if m else ""
        return [OpenClaim("me", "np:" + _ROLE_OF_VERB[m.group("verb").lower()], value)] if value else []
    np = _noun_phrase(m.group("np"), animate)
    value = _clean(m.group("v"))
    if np is None or np.split()[-1] not in ROLE_HEADS or not _value_fits(value, np):
        return []
    return [OpenClaim("me", "np:" + np, value, qualifier=_context(m))]


def _read_set(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    m = _SET.match(piece)
    if not m:
        return []
    subject, named = _owner(m.group("owner"), m.group("who"))
    np = _noun_phrase(m.group("np"), animate)
    value = _clean(m.group("v"))
    # a setting changed ("set the thermostat to 68"): after "the", an identifier value or noun
    if subject is None or np is None or not _value_fits(value, np) or (
            m.group("owner").lower() == "the" and np.split()[-1] not in IDENT_NOUNS and value_kind(value) != "id"):
        return []
    return [OpenClaim(subject, "np:" + np, value, qualifier=_context(m), named=named)]


def _read_use_as(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    m = _USE_AS.match(piece)
    if not m:
        return []
    subject, named = _owner(m.group("owner"), m.group("who"))
    np = _noun_phrase(m.group("np"), frozenset())
    value = _clean(m.group("v"))
    if subject is None or np is None or not value:
        return []
    return [OpenClaim(subject, "np:" + np, value, qualifier=_context(m), named=named)]


def _read_stack(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    """What a part of a system is made with or runs on: a name, the value of the part's slot."""
    for pattern in (_STACK_IS, _STACK_MOVE, _STACK_USE, _STACK_RUN):
        m = pattern.match(piece)
        if not m:
            continue
        groups = m.groupdict()
        # ("We moved CI to Buildkite": an acronym names the part without a determiner)
        subject, named = _owner(groups.get("owner") or "our", groups.get("who"))
        np = _noun_phrase(groups.get("np") or groups.get("acronym") or "", animate)
        value = _clean(m.group("v"))
        if subject is None or np is None or value_kind(value) == "word" and not lower_name(value) \
                or not _value_fits(value, np) or _MONTH_OR_DAY.match(value):
            return []
        return [OpenClaim(subject, "np:" + np, value, qualifier=_context(m), named=named)]
    return []


def _read_url(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    """Where a thing is reached, an address: the slot is the thing's URL ("staging url")."""
    m = _AT_URL.match(piece)
    if not m:
        return []
    np = _noun_phrase(m.group("np"), animate)
    if np is None:
        return []
    if np.split()[-1] not in _ADDRESS_NOUNS:
        np += " url"
    return [OpenClaim("me", "np:" + np, m.group("v").rstrip("."), qualifier=_context(m))]


def _read_use(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    m = _USE.match(piece)
    if not m:
        return []
    subject, named = _who(m.group("who"))
    value = _clean(m.group("v"))
    if subject is None or not value or value_kind(value) != "name":
        return []
    claims = [OpenClaim(subject, USES, value, qualifier=_context(m), named=named)]
    if m.group("old"):
        claims.append(OpenClaim(subject, REPLACES, _clean(m.group("old")), ended=True, qualifier=_context(m),
                                named=named))
    return claims


def _read_switch(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    m = _SWITCH.match(piece)
    if not m:
        return []
    return _replacement(m, m.group("old") or m.group("old2"))


def _read_replaced(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    """"replaced X with Y", then "cancelled X and joined Y", then "dropped X in favour of Y" or "swapped X
    for Y": a new value and the old one it names."""
    m = _REPLACED.match(piece) or _DROPPED.match(piece)
    if m:
        return _replacement(m, m.group("old"))
    m = _FAVOURED.match(piece)
    # (the new value given for a named old one may be a tool's name in lower case: "in favour of sqlc")
    return _replacement(m, m.group("old") or m.group("old2") or m.group("old3"), lower=True) if m else []


def _replacement(m: re.Match[str], old: str | None, lower: bool = False) -> list[OpenClaim]:
    """A new value with no attribute of its own, and the old one if the text names it; with `lower`,
    the new value may be a tool's name in lower case (`lower_name`)."""
    subject, named = _who(m.group("who"))
    value = _clean(m.group("v"))
    if subject is None or not value or _MONTH_OR_DAY.match(value) \
            or value_kind(value) == "word" and not (lower and lower_name(value)):
        return []
    claims = [OpenClaim(subject, REPLACES, value, qualifier=_context(m), named=named)]
    if old and _clean(old):
        claims.append(OpenClaim(subject, REPLACES, _clean(old), ended=True, qualifier=_context(m), named=named))
    return claims


def _read_prefer(piece: str, animate: frozenset[str]) -> list[OpenClaim]:
    m = _PREFER.match(piece)
    if not m:
        return []
    liking = re.search(r"\blikes?\b", m.group(0), re.I) is not None
    if liking and not m.group("better"):
        return []  # "I like hiking" is a taste among many, not a preference over the other
    subject, named = _who(m.group("who"))
    value, when = _preference_value(_clean(m.group("v")))
    words = value.lower().split()
    if subject is None or not words or words[0] in _NOT_VALUES or words[0].endswith("ing"):
        return []
    kind = _preference_kind(words)
    attribute = f"{PREFERS}:{kind}" if kind else PREFERS
    return [OpenClaim(subject, attribute, value, qualifier=when or _context(m), named=named)]


def _preference_value(phrase: str) -> tuple[str, str]:
    """The value a preference names and the occasion it holds for: "tea in the morning" ->
    ("tea", "morning"); a preference for one occasion leaves the others alone."""
    m = re.search(r"\s+(?:in|on|at|for|with|during|after|before|when)\s+(?:the\s+|a\s+|an\s+|my\s+|our\s+)?", phrase,
                  re.I)
    if not m:
        return phrase, ""
    occasion = phrase[m.end():].split()
    return phrase[:m.start()], singular(occasion[-1].lower()) if occasion else ""


# ---------------------------------------------------------------------------- parts
#: first words of what follows "prefer" when it is a verb phrase or a clause, not a value
_NOT_VALUES = frozenset("to that it them him her not when if being doing having".split())
_MONTH_OR_DAY = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*"
                           r"(?:\s|$)", re.I)


def _who(word: str | None) -> tuple[str | None, bool]:
    """The subject key of a clause's subject word: "me" for I/we or a subject left out (None),
    the lower-cased name, or None for a word that names nobody in particular ("Everyone", "Then")."""
    low = (word or "i").lower()
    if low in ("i", "we"):
        return "me", False
    return (None, False) if low in _NOBODY else (low, True)


_NOBODY = frozenset("""
he she they it this that everyone everybody someone somebody nobody people then today now yesterday tomorrow
there here so and but also finally recently eventually everything anyone
""".split())


def _owner(owner: str, who: str | None) -> tuple[str | None, bool]:
    """Whose the noun phrase is: the speaker's for my/our/the (a thing of the speaker's world),
    a named person's for "Sarah's" or for his/her after "Sarah"; None when it cannot be told."""
    low = owner.lower().replace("’", "'")
    if low.endswith("'s"):
        return low[:-2], True
    if low in ("my", "our", "the"):
        if who is None or who.lower() in ("i", "we") or low == "the":
            return "me", False
        return None, False
    if who is not None and who.lower() not in ("i", "we"):
        return _who(who)
    return None, False


def _noun_phrase(phrase: str, animate: frozenset[str]) -> str | None:
    """The normalised noun phrase, or None for one that names no lasting slot."""
    words = [w for w in phrase.lower().split() if w not in _DETERMINERS]
    # (a team names a role it leads: "the team lead is Dana")
    if not words or len(words) > 3 or any(w in _NP_STOP and not (w == "team" and words[-1] in ROLE_HEADS)
                                          for w in words):
        return None
    words = [singular(w) for w in words]
    # a person may be a slot's value where one holds a role at a time ("Our CTO is Dana Lee")
    if words[-1] in animate and words[-1] not in ROLE_HEADS or words[-1] in _VERBISH:
        return None
    return " ".join(words)


_VERBISH = frozenset("is are was were be been has have had do does did go going get got make made".split())


def _clean(value: str | None) -> str:
    value = re.sub(r"^(?:a|an|the)\s+", "", (value or "").strip(), flags=re.I)
    return value.strip(" .,!'\"“”‘’")


#: first words of no value: a negation, a degree word, a preposition ("is on September 14")
_NOT_VALUE_STARTS = frozenset("not no still so very really too also on in at by for from to with about around".split())


def _value_fits(value: str, np: str) -> bool:
    """Whether `value` can be the value of the slot `np`: an identifier, a name of at most four
    words, or one word for an identifier noun - never an adjective or a verb phrase."""
    if not value or value.split()[0].lower() in _NOT_VALUE_STARTS:
        return False
    kind, head_ident = value_kind(value), np.split()[-1] in IDENT_NOUNS
    if kind == "name":
        return all(w[:1].isupper() or w[:1].isdigit() for w in value.split())
    if kind == "word":
        return head_ident and len(value.split()) == 1 or lower_name(value)
    return len(value.split()) <= 3


def _context(m: re.Match[str]) -> str:
    ctx = m.groupdict().get("ctx")
    if not ctx:
        return ""
    word = ctx.split()[-1].lower()
    return {"office": "work", "job": "work", "desktop": "laptop"}.get(word, word)


def _preference_kind(words: list[str]) -> str:
    """The kind of a preferred value: a drink, else the head noun of a value of several words."""
    if any(w in _DRINKS for w in words):
        return "drink"
    if len(words) > 1 and words[-1].isalpha():
        return singular(words[-1])
    return ""
