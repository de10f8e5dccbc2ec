"""Contact details: the rules of phone numbers, email addresses and postal addresses.

Contract: ``CONTACT`` holds, in table order, the rules of someone's phone number, email address
and street address, including the speaker's own given as the one to use from now on.
"""

from __future__ import annotations

from worlddb.extract._slot_rules._base import (
    _S,
    _Rule,
    _rx,
)

#: a phone number after its name ("... is now +1 555 0100"); the qualifiers a bare "number" takes
_PHONE_VALUE = (r"(?:\s*:\s*|\s+(?:is\s+(?:now\s+)?|changed to\s+|will be\s+)?)[^\d+]{0,20}?"
                r"(?P<v>\+?\d[\d\s().-]{6,}\d)")
_PHONE_KINDS = "work|office|business|desk|home|cell|mobile|personal|private|main|contact|landline|direct|phone"
#: after a contact given: it is the one to use from now on
_FROM_NOW = (r"(?=\s+(?:from\s+now\s+on|going\s+forward|instead|now|from\s+here\s+on|for\s+(?:me|everything|now\s+on))"
             r"\b)")


CONTACT: tuple[_Rule, ...] = (
    # ---- contact details
    _Rule("phone", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)'s)\s+)(?P<q>(?:new\s+)?(?:\w+\s+)?)(?:phone|cell|"
                       r"mobile)(?:\s+number)?" + _PHONE_VALUE)),
    # a bare "number" or "line" is a phone's only with no qualifier or a phone's: "my order
    # number is 100-4482" is not
    _Rule("phone", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)'s)\s+)(?P<q>(?:new\s+)?(?:(?:" + _PHONE_KINDS
                       + r")\s+)?)(?:number|line)" + _PHONE_VALUE)),
    # "You can reach me at 555-0199", "call me on +44 20 7946 0958": the speaker's number
    _Rule("phone", _rx(r"(?P<s>)\b(?:reach|call|text|ring)\s+me\s+(?:on|at)\s+(?:my\s+(?:new\s+)?(?:number|cell|mobile|"
                       r"phone)\s+)?(?P<v>\+?\(?\d[\d\s().-]{6,}\d)"), speaker=True),
    _Rule("email", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)'s)\s+)(?P<q>(?:new\s+)?(?:\w+\s+)?)(?:e-?mail|email"
                       r" address|address)\b[^@]{0,60}?(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)")),
    _Rule("email", _rx(r"(?P<s>)(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"),
          context=_rx(r"\b(?:my|our)\s+(?:new\s+)?(work|personal|school|private|business|home|main)?\s*(?:e-?mail|address)"),
          speaker=True),
    # "reach me at ...", "send work stuff to ... - that's my inbox": where mail for the speaker goes
    _Rule("email", _rx(r"(?P<s>)\b(?:send|email|e-mail|mail|forward|reach|contact|write|message)\s+(?:me\s+|(?:[\w-]+\s+){1,2}?)?"
                       r"(?:at|to)\s+(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"), speaker=True,
          context=_rx(r"\b(?:me\s+(?:at|to)|my\s+(?:new\s+)?(?:\w+\s+)?(?:inbox|e-?mail))\b")),
    # "Please use alice@new.io from now on", "use 555-0199 instead": a contact the speaker gives for the future
    _Rule("email", _rx(r"(?P<s>)\b(?:use|switch\s+to)\s+(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)" + _FROM_NOW),
          speaker=True),
    _Rule("phone", _rx(r"(?P<s>)\b(?:use|switch\s+to)\s+(?P<v>\+?\(?\d[\d\s().-]{6,}\d)" + _FROM_NOW),
          speaker=True),
    # "New email: ana.k@globex.com", "Got a new work email: ...": a note that opens with a new address
    _Rule("email", _rx(r"(?P<s>)^(?:(?:update|fyi|btw|heads up|note)\s*[:,]?\s+)?"
                       r"(?:(?:I\s+|I['’]ve\s+)?(?:got|have|get)\s+a\s+)?new\s+(?:work\s+|personal\s+|private\s+)?"
                       r"e-?mail(?:\s+address)?\s*:\s*(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"), speaker=True),
    # "New number: 555-0199", "Update: new work cell: ...", "Got a new phone number: ...": a note that
    # opens with a new number is the speaker's
    _Rule("phone", _rx(r"(?P<s>)^(?:(?:update|fyi|btw|heads up|note)\s*[:,]?\s+)?"
                       r"(?:(?:I\s+|I['’]ve\s+)?(?:got|have|get)\s+a\s+)?new\s+(?P<q>(?:(?:" + _PHONE_KINDS
                       + r")\s+)?)(?:(?:phone|cell|mobile)\s+)?(?:number|phone|cell|mobile|line)\s*:\s*"
                       r"(?P<v>\+?\d[\d\s().-]{6,}\d)"), speaker=True),
    # (never the tail of a longer number: "+1 555 010 0200" is one number, not also "555 010 0200")
    _Rule("phone", _rx(r"(?P<s>)(?<![\d+(])(?<![\d)][\s.-])(?P<v>\+?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]\d{4})\b"),
          context=_rx(r"\b(?:my|our)\s+(?:new\s+)?(work|office|business|home|cell|mobile|personal|private)?\s*"
                      r"(?:phone|cell|mobile|number|line)"), speaker=True),
    _Rule("address", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)?(?P<q>(?:new\s+)?(?:\w+\s+)?)address\b[^0-9]{0,40}?"
                         r"(?P<v>\d+\s+(?-i:[A-Z])[\w.]*(?:\s+(?-i:[A-Z])[\w.]*){0,4}(?:,?\s+(?:Apt|Apartment|Unit|Suite|#)"
                         r"\.?\s*\w+)?)")),
    _Rule("address", _rx(_S + r"(?:live|lives|living|moved|moving)\s+(?:at|to)\s+(?P<v>\d+\s+(?-i:[A-Z])[\w.]*(?:\s+"
                         r"(?-i:[A-Z])[\w.]*){0,4})")),
)
