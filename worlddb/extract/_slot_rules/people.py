"""People and pets: the rules of partner, marital status, pets, names and children.

Contract: ``PARTNER`` holds the rules of a partner and of marital status, ``PETS`` those of one's
pets and of the names of pets and people, and ``CHILDREN`` those of the family one has several of,
each in table order (the package places them apart, where the table has them).
"""

from __future__ import annotations

import re

from worlddb.extract._slot_rules._base import (
    _APPOSITION_END,
    _S,
    _VAL,
    _name,
    _Rule,
    _rx,
)
from worlddb.extract._slot_words import (
    _KIN,
    _PARTNER_WORDS,
    _PETS,
)

#: what a time after a verb begins with ("divorced in May", "broke up last week")
_WHEN_WORDS = (r"(?:in|on|at|last|this|after|before|since|during|over|yesterday|today|tonight|recently|earlier|back"
               r"|years?|months?|weeks?|days?|a\s+(?:while|year|month|week|few))")
#: what a text that ends a pet by its name alone must speak of
_PET_CONTEXT = re.compile(r"\b(?:" + _PETS + r"|pets?|vet|rainbow bridge|put down)\b", re.I)


PARTNER: tuple[_Rule, ...] = (
    # ---- partner and marital status
    _Rule("partner", _rx(r"(?P<s>\b(?:my|(?-i:[A-Z][a-z]+)'s|his|her)\s+)(?:new\s+)?" + _PARTNER_WORDS
                         + r",?\s+(?:is\s+)?" + _VAL), accept=_name),
    # "Sam is my boyfriend", "Daniel, my new boyfriend, cooked": a name (a full one: "Alex Reyes is my
    # partner"), then the role it holds
    _Rule("partner", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))(?:\s+is|,)\s+(?P<s>my)\s+(?:new\s+)?"
                         + _PARTNER_WORDS
                         + _APPOSITION_END), accept=_name),
    _Rule("partner", _rx(_S + r"(?:dating|seeing|going out with|together with|in a relationship with|engaged to"
                         r"|married to|with my (?:new )?(?:boyfriend|girlfriend|partner))\s+(?:(?:someone|a\s+(?:guy|girl"
                         r"|man|woman|person))\s+(?:named|called)\s+)?(?!(?:Dr|Doctor|Prof)\b)" + _VAL), accept=_name),
    _Rule("partner", _rx(r"(?P<v>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+and\s+(?P<s>I)\s+"
                         r"(?:have\s+been|are|'ve\s+been|got|were|just)\s+"
                         r"(?:together|dating|engaged|married|a couple)"), accept=_name),
    # (not "I got divorced in May": a time after the verb names no one)
    _Rule("partner", _rx(_S + r"(?:broke up with|split up with|split from|separated from|separating from|divorced|divorcing|ended things with"
                         r"|dumped)\s+"
                         r"(?!" + _WHEN_WORDS + r"\b)" + _VAL), positive=False, ended=True, accept=lambda v: True),
    _Rule("partner", _rx(r"(?P<s>\b(?:my|our|his|her|(?-i:[A-Z][a-z]+)['’]s)\s+|\bthe\s+)(?P<v>break-?up|divorce)\b"),
          positive=False, ended=True, accept=lambda v: True),
    _Rule("partner", _rx(r"(?P<s>\b(?:we|they|(?:(?-i:[A-Z][a-z]+)|my\s+" + _PARTNER_WORDS + r")\s+and\s+I))(?:\s+|(?=['’]))"
                         r"(?:(?:just|finally|have|['’]ve|got|now|officially)\s+)*"
                         r"(?P<v>broke up|split up|separated|divorced)\b"), positive=False, ended=True, accept=lambda v: True),
    # "I got divorced in May", "I've separated": the partner, whoever it was, is no longer one
    _Rule("partner", _rx(r"(?P<s>\bI)\s+(?:just\s+|finally\s+)?(?:got|have|['’]ve|had|['’]d)\s+(?:just\s+|finally\s+)?"
                         r"(?P<v>divorced|separated)(?=\s*(?:$|[.,;:!?)]|(?:and|but|so)\b|" + _WHEN_WORDS + r"\b))"),
          positive=False, ended=True,
          accept=lambda v: True),
    _Rule("marital_status", _rx(_S + r"(?:am|'m|’m|is|are|'re|’re|got|getting|were|just got)\s+(?:now\s+)?"
                                r"(?P<v>engaged|married|divorced|separated|single|widowed)\b"), accept=lambda v: True),
    _Rule("marital_status", _rx(r"(?P<s>\b(?-i:[A-Z][a-z]+)\s+and\s+I|\bwe)\s+(?:just\s+|finally\s+)?(?:got|are|"
                                r"'re|were)\s+(?P<v>engaged|married|divorced|separated)\b"), accept=lambda v: True),
)


PETS: tuple[_Rule, ...] = (
    # ---- pets: which, and their names
    # a pet's value is its kind and, when the text gives it, its name ("beagle Biscuit"), so that
    # "we lost Biscuit" can end it
    _Rule("pet", _rx(_S + r"(?:have|has|got|adopted|own|owns|bought|rescued|picked out|brought home)\s+(?:a|an|two|"
                     r"three)\s+(?:new\s+)?(?P<v>(?:[\w-]+\s+){0,2}?(?:" + _PETS + r"))\b"
                     r"(?:\s+(?:named|called)\s+(?P<n>(?-i:[A-Z][a-z]+)))?"), accept=lambda v: True),
    _Rule("pet", _rx(r"(?P<s>)\b(?:after|since|when)?\s*(?:the|our|my)\s+(?:old\s+)?(?P<v>(?:\w+\s+)?(?:" + _PETS
                     + r"))(?:,?\s+(?P<n>(?-i:[A-Z][a-z]+)),?)?\s+(?:just\s+|sadly\s+)?(?:died|passed away|passed|ran away|"
                     r"was put down|had to be put down)"), positive=False, ended=True,
          accept=lambda v: True),
    # "I have a dog named Rex and a cat named Tom": the pets a have-clause goes on to name
    _Rule("pet", _rx(r"(?P<s>)\b(?:I|we)\s+(?:have|got|adopted|own|rescued)\s+[^.!?;]*?\band\s+(?:a|an)\s+(?:new\s+)?"
                     r"(?P<v>(?:[\w-]+\s+){0,2}?(?:" + _PETS + r"))\b(?:\s+(?:named|called)\s+(?P<n>(?-i:[A-Z][a-z]+)))?"),
          speaker=True, accept=lambda v: True),
    # "I have two dogs, Rex and Fido", "we adopted two cats named Luna and Milo": each pet a count
    # names, the first and the last of the list (the kind made singular: worlddb.extract._slot_reader)
    _Rule("pet", _rx(r"(?P<s>)\b(?:I|we)\s+(?:have|got|adopted|own|rescued)\s+(?:two|three|four|[234])\s+(?:\w+\s+)?"
                     r"(?P<v>(?:" + _PETS + r")(?:s|es)?)(?:,|:|\s+(?:named|called))\s+(?P<n>(?-i:[A-Z][a-z]+))\b"),
          speaker=True, accept=lambda v: True),
    _Rule("pet", _rx(r"(?P<s>)\b(?:I|we)\s+(?:have|got|adopted|own|rescued)\s+(?:two|three|four|[234])\s+(?:\w+\s+)?"
                     r"(?P<v>(?:" + _PETS + r")(?:s|es)?)(?:,|:|\s+(?:named|called))\s+(?:(?-i:[A-Z][a-z]+),?\s+)+"
                     r"and\s+(?P<n>(?-i:[A-Z][a-z]+))\b"),
          speaker=True, accept=lambda v: True),
    # "Our beagle Biscuit is twelve": a pet of the speaker's, by kind and name
    _Rule("pet", _rx(r"(?P<s>\b(?:my|our)\s+)(?:old\s+|new\s+)?(?P<v>(?:" + _PETS + r"))\s+(?P<n>(?-i:[A-Z][a-z]+))\b"),
          accept=lambda v: True),
    # "We lost Biscuit in the spring", "Biscuit passed away": a pet named, whatever its kind, and only
    # in a text that speaks of pets ("Tom died in 1990" does not)
    _Rule("pet", _rx(r"(?P<s>)\b(?:we|I)\s+(?:just\s+|sadly\s+)?(?:lost|had\s+to\s+put\s+down|said\s+goodbye\s+to)\s+"
                     r"(?P<v>(?-i:[A-Z][a-z]+))\b(?!\s+(?:(?-i:[A-Z])|\d))"), positive=False, ended=True, speaker=True,
          accept=lambda v: v.lower() not in _KIN, context=_PET_CONTEXT),
    _Rule("pet", _rx(r"(?P<s>)(?:^|(?<=[.!?]\s))(?P<v>(?-i:[A-Z][a-z]+))\s+(?:just\s+|sadly\s+)?(?:died|passed\s+away)\b"),
          positive=False, ended=True, speaker=True, accept=lambda v: v.lower() not in _KIN, context=_PET_CONTEXT),
    _Rule("name", _rx(r"(?P<t>\b(?:my|our|the|his|her)\s+(?:\w+\s+)?(?:" + _PETS + r"))(?:'s\s+name)?\s+(?:is\s+)?"
                      r"(?:named|called|is)\s+" + _VAL), thing=True, accept=_name),
    _Rule("name", _rx(r"(?:renamed|rename|renaming|named|call|called|calling)\s+(?P<t>(?:the|our|my|his|her)\s+(?:\w+\s+)?"
                      r"(?:" + _PETS + r"))\s+" + _VAL), thing=True, accept=_name),
    _Rule("name", _rx(r"(?P<t>\b(?:my|our|the)\s+(?:new\s+)?(?:\w+\s+)?(?:coworker|colleague|neighbou?r|roommate|"
                      r"manager|boss|landlord|teacher|doctor|dentist|intern|hire))(?:'s|’s)\s+name\s+is\s+" + _VAL),
          thing=True, accept=_name),
)


CHILDREN: tuple[_Rule, ...] = (
    # ---- family one has several of
    _Rule("children", _rx(_S + r"(?:has|have|had|welcomed)\s+(?:a|another|a new)\s+(?:baby\s+)?(?:daughter|son|boy|girl"
                          r"|baby)(?:\s+boy|\s+girl)?,?\s+(?:named\s+|called\s+)?" + _VAL), accept=_name),
)
