"""Amounts and ages: the rules of sums of money, counts and how old someone is.

Contract: ``AMOUNTS`` holds, in table order, the rules of a sum (rent, salary, a fee: ``_SUMS``
names them, and worlddb.extract._slot_questions asks about them by the same words), of a count
(the people of a team one runs, one's pets or children), and of someone's age.
"""

from __future__ import annotations

from worlddb.extract._slot_rules._base import (
    _AUX,
    _S,
    _SUBJ,
    _Rule,
    _rx,
)
from worlddb.extract._slot_words import (
    _KIN_RE,
    _NUM_WORDS,
    _PETS,
)

#: an age in years, in digits or words
_UNITS = r"one|two|three|four|five|six|seven|eight|nine"
_AGE = (r"(?:1[0-1]\d|\d{1,2}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:" + _UNITS + r"))?"
        r"|" + _UNITS + r"|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)")


def _an_age(value: str) -> bool:
    return bool(value) and (not value[0].isdigit() or int(value.split()[0]) > 0)


#: what a sum of money is ("my rent is $1,800", "what is my budget?")
_SUMS = r"rent|salary|mortgage|pay|wage|allowance|budget|premium|tuition|car payment|fee|fees|dues|price"
#: a sum of money: "$1,800", "£90k", "3000 dollars", "4,000 euros"
_MONEY = r"(?:[$€£]\s?[\d,.]+k?|\d[\d,.]*k?\s*(?:dollars|bucks|euros|pounds|usd|eur|gbp)\b)"


AMOUNTS: tuple[_Rule, ...] = (
    # ---- amounts and counts
    # ("our HOA fee", "the gym's price": one word may say whose or what for; "is set to" a sum says it too)
    # (a sum that opens a sentence needs no "my": "Rent went up to $2,350")
    _Rule("amount", _rx(r"(?P<t>(?:\b(?:my|our|the|his|her)\s+|(?:^|(?<=[.!?]\s))(?=(?:" + _SUMS + r")\b))"
                        r"(?:monthly\s+|yearly\s+|annual\s+)?(?:[\w'’-]+\s+)??(?:"
                        + _SUMS + r"))\s+(?:is|was|are|were|(?:is|are)\s+(?:now\s+)?set\s+to|(?:was|were)\s+set\s+to|ha(?:s|ve)\s+been\s+set\s+to"
                        r"|went up to|goes up to|is going up to|"
                        r"went down to|goes down to|"
                        r"rose to|jumped to|dropped to|increased to|decreased to|is now|will be|came to)\s+"
                        r"(?:now\s+)?(?:about\s+|around\s+)?(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:month|year|week|"
                        r"hour))?)"), thing=True),
    # ("The landlord's put the rent up to £1,240")
    _Rule("amount", _rx(r"(?:raised|increased|lowered|cut|dropped|bumped|hiked|reduced|put)\s+(?P<t>(?:the|my|our)\s+"
                        r"(?:monthly\s+)?(?:" + _SUMS + r"))\s+"
                        r"(?:up\s+|down\s+)?to\s+(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:month|year|week|hour))?)"),
          thing=True),
    # ("I'm paying £1,150 a month in rent")
    _Rule("amount", _rx(r"(?P<s>\bI\s*)(?:pay|earn|make|(?:am|['’]m)\s+(?:now\s+)?paying)\s+(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:month|year|week|"
                        r"hour))?)\s+(?:in|for)\s+(?P<t>(?:my\s+)?(?:rent|mortgage|tuition|salary))"), thing=True),
    # "I got a raise to $105k", "Got a pay rise to £48,000": the salary it brings
    _Rule("amount", _rx(r"(?:(?P<s>\bI)\s+(?:just\s+|finally\s+)?|^(?:just\s+|finally\s+)?)(?:got|received|was\s+given)"
                        r"\s+(?:a|my)\s+(?:\w+\s+)?(?:raise|pay\s+rise|pay\s+bump|salary\s+bump)\s+(?:up\s+)?to\s+"
                        r"(?P<v>" + _MONEY + r"(?:\s+(?:a|per)\s+(?:year|month|week|hour))?)"), thing=True, fixed="salary"),
    # "I make $110k now", "I'm earning 90k euros a year": what one earns is one's salary (never what one
    # makes in, for or from something, or doing it: "I make $50 in tips", "I earn $5 per referral", "I
    # make $20 an hour babysitting")
    _Rule("amount", _rx(r"(?P<s>\bI)(?:\s+now|\s+currently)?(?:\s+(?:earn|make|take\s+home)|(?:\s+am|['’]m)\s+"
                        r"(?:now\s+|currently\s+)?(?:making|earning))\s+(?:now\s+)?(?:about\s+|around\s+|roughly\s+)?(?P<v>(?>" + _MONEY
                        + r"(?:\s+(?:a|an|per)\s+(?:year|month|week|hour)|\s+annually)?))(?!\s+(?:in|for|from|on|off|"
                        r"per|each|a\s+(?:piece|pop|sale|shift|gig|day)|[a-z]+ing)\b)"), thing=True, fixed="salary"),
    _Rule("count", _rx(r"(?P<s>\b(?:I|we)\s+)(?:manage|lead|run|have|supervise|oversee)\s+a\s+(?P<q>team|staff|group|"
                       r"class|crew)\s+of\s+(?P<v>(?:" + _NUM_WORDS + r")\s+\w+)")),
    _Rule("count", _rx(r"(?:(?P<s>\b(?:my|our)\s+)|\bthe\s+)(?P<q>team|staff|group|class|crew)\s*(?:is|has|grew|went"
                       r"|is now|now has|has grown|shrank|is down|is up|['’]s\s+(?:grown|shrunk|gone\s+(?:up|down)|now|down"
                       r"|up)|has\s+(?:shrunk|gone\s+(?:up|down)))\s+(?:now\s+)?(?:up\s+|down\s+)?(?:to\s+)?"
                       r"(?P<v>(?:" + _NUM_WORDS + r")\s+\w+)"), speaker=True),
    # "We have three cats now", "I've got two kids": how many of a kind of animal or child one has
    # (the kind is the qualifier: cats and dogs are counted apart)
    _Rule("count", _rx(r"(?P<s>\b(?:I|we)\s*)(?:now\s+|still\s+|only\s+)?(?:have|own|['’]ve\s+got|have\s+got)\s+"
                       r"(?:now\s+)?(?P<v>(?:" + _NUM_WORDS + r")\s+(?P<q>(?:" + _PETS + r")(?:s|es)?|kids?|child|children"
                       r"|sons?|daughters?))\b")),
    # "..., which makes three cats", "bringing us to four kids": the count an addition reaches (the
    # clause's subject's: "bringing her to ..." is left unread)
    _Rule("count", _rx(r"\b(?:which\s+(?:now\s+)?makes?\s+(?:it\s+|us\s+|me\s+)?"
                       r"|(?:making|bringing)\s+(?:(?P<s>us|me)|it|the total)\s+(?:to\s+)?)"
                       r"(?P<v>(?:" + _NUM_WORDS + r")\s+(?P<q>(?:" + _PETS + r")(?:s|es)?|kids|children|sons|daughters))\b")),
    # ---- how old someone is: "Lily just turned 8", "I'm 34 years old", "she's 3 months old", "my son is 6"
    # (a bare number only after a person: "the meeting is 3" is no age; "she turns 8 in May" is still to
    # come; "when I turned ten" is a time, not an age now)
    _Rule("age", _rx(r"(?<!\bwhen\s)(?<!\bafter\s)(?<!\bbefore\s)(?<!\bsince\s)(?<!\bonce\s)(?<!\buntil\s)"
                     r"(?<!\btime\s)(?<!\bas\s)(?P<s>\b" + _SUBJ + r"|\b(?:my|our|his|her|their)\s+(?:" + _PETS
                     + r"))(?:\s+|(?=['’]))(?:" + _AUX + r"\s+)*(?:turned|has\s+turned)\s+(?P<v>" + _AGE + r")"
                     r"(?:\s+(?:years?|yrs?)\s+old)?"
                     r"(?=\s*(?:$|[.!?,;]|(?:and|but|so|today|yesterday|this|last|on|in)\b))"), accept=_an_age),
    _Rule("age", _rx(_S + r"(?:is|am|['’]m|['’]s|are|['’]re)\s+(?:now\s+|already\s+|almost\s+|nearly\s+)?"
                     r"(?P<v>" + _AGE + r"(?=\s+(?:years?|yrs?)\s+old\b)|" + _AGE + r"\s+(?:months?|weeks?)(?=\s+old\b))"),
          accept=_an_age),
    _Rule("age", _rx(r"(?P<s>\b(?:I|he|she|(?:my|our|his|her)\s+(?:" + _KIN_RE + r")(?:\s+(?-i:[A-Z][a-z]+))?"
                     r"|(?-i:[A-Z][a-z]+)['’]s\s+(?:" + _KIN_RE + r")))\s*(?:is|am|['’]m|['’]s)\s+(?:now\s+|already\s+)?"
                     r"(?P<v>" + _AGE + r")(?=\s*(?:$|[.!?,;]|(?:and|but|now|today)\b))"), accept=_an_age),
)
