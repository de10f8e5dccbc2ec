"""Goals and reading: the rules of a goal (a race trained for) and of the book one or a group reads.

Contract: ``GOALS`` holds, in table order, the rules of one's goal, kept or dropped, and of the
book the speaker or a group of the speaker's reads now or has finished.
"""

from __future__ import annotations

from worlddb.extract._slot_rules._base import (
    _NAME_ALONE,
    _S,
    _VAL,
    _Rule,
    _rx,
)

#: events one trains for
_RACES = (r"marathon|half[- ]marathon|half|race|triathlon|ultra|ironman|10k|5k|century|fondo|trek|competition"
          r"|tournament|meet")
#: a group that reads a book together, of the speaker's or named by its article, and the verb of what it reads now
_GROUP_READS = _rx(r"(?P<t>\b(?:my|our|the)\s+(?:(?!(?:is|are|was|now)\b|[\w-]+['’]s\b)[\w'’-]+\s+)?(?:book\s+club|book\s+group"
                   r"|reading\s+group|reading\s+circle|class))\s+(?:is|are|['’]s)\s+(?:(?:now|currently|still|finally"
                   r"|also)\s+)*(?:re)?reading\s+")
#: a title written with capitals, the short words of a title between them ("Klara and the Sun", "The Name of the Wind")
_TITLE = (r"(?:(?-i:[A-Z][\w'’.-]*)(?:\s+(?:(?-i:of|and|the|a|an|in|on|to|for|at|with|from|&)\s+)*"
          r"(?-i:[A-Z][\w'’.-]*))*)")
#: a title in quotes
_QUOTED_TITLE = r"(?:[\"'“‘][^\"'”’]{1,80}[\"'”’])"
#: "I just finished", "Finished" opening a sentence, "finished rereading": before a title read
_FINISHED = (r"(?:\b(?:I|we)\s+(?:just\s+|finally\s+|recently\s+)?|(?:^|[.!;]\s+)(?:just\s+)?)"
             r"finished\s+(?:(?:re)?reading\s+)?")


GOALS: tuple[_Rule, ...] = (
    # ---- goals and what a group is reading
    _Rule("goal", _rx(r"(?P<s>\b(?:my|our)\s+)(?:\w+\s+)?goal\s+(?:this year\s+|for this year\s+|for \d{4}\s+)?"
                      r"(?:is|was)\s+(?:now\s+)?(?:to\s+)?" + _VAL), accept=lambda v: bool(v)),
    # "New goal: a sub-three marathon", "My running goal: ...": a goal written as a heading, the speaker's
    _Rule("goal", _rx(r"^(?:(?:my|our)\s+)?(?:new\s+)?(?:(?!(?:the|a|an|his|her|their|your|its)\b)\w+\s+)?goal(?:\s+(?:this|for this|for next)\s+year)?"
                      r"\s*:\s*(?:to\s+)?" + _VAL), accept=lambda v: bool(v), speaker=True),
    _Rule("goal", _rx(_S + r"(?:training|train|trains|prepping|preparing|signed up)\s+for\s+(?:a|an|the|my)\s+" + _VAL),
          accept=lambda v: bool(v)),
    # "I pulled out of the marathon", "no marathon this year": an event trained for, dropped
    _Rule("goal", _rx(_S + r"(?:dropped\s+out\s+of|pulled\s+out\s+of|withdrew\s+from|withdrawn\s+from|skipping|"
                      r"(?:am|['’]m)\s+not\s+(?:running|doing)|won['’]t\s+be\s+(?:running|doing)|deferred)\s+"
                      r"(?:the|my|this\s+year['’]s)\s+(?P<v>(?:[\w-]+\s+){0,3}?(?:" + _RACES + r"))\b"),
          positive=False, ended=True, accept=lambda v: bool(v)),
    _Rule("goal", _rx(r"(?P<s>)\bno\s+(?P<v>(?:[\w-]+\s+){0,2}?(?:" + _RACES + r"))\s+(?:for\s+me\s+)?(?:this|next)\s+"
                      r"(?:year|season|spring|summer|fall|autumn|time)\b"), positive=False, ended=True,
          accept=lambda v: bool(v), speaker=True),
    # (in a text of a book club, the club's; a group named as the verb's subject is the rule below's)
    _Rule("reading", _rx(r"(?:reading|doing|picked|chose|choosing|switched to|moving on to|starting)\s+"
                         r"(?P<v>[\"'“‘][^\"'”’]{1,80}[\"'”’])"), accept=lambda v: bool(v),
          context=_rx(r"\b(book club|reading group|class|we|i)\b"), unless=_GROUP_READS),
    # "Our book club is reading Piranesi this month", "The book club is now reading Klara and the Sun": what a
    # group of the speaker's reads now, one book at a time; the group is the subject (not the speaker, who
    # may read another; nor someone else's group: "Tom's book club", "my son's class")
    _Rule("reading", _rx(_GROUP_READS.pattern + r"(?P<v>" + _QUOTED_TITLE + r"|" + _TITLE + r")"), thing=True,
          accept=lambda v: bool(v)),
    # "I'm reading Project Hail Mary", "Currently reading Dune": a title written as a name, read now
    _Rule("reading", _rx(r"(?:\b(?:I|we)\s*(?:['’]m|['’]re|am|are)\s+(?:currently\s+|now\s+|still\s+)?|"
                         r"(?:^|[.!;]\s+)(?:currently|now|still)\s+)(?:re)?reading\s+" + _NAME_ALONE),
          accept=lambda v: bool(v)),
    # "Finished Project Hail Mary", "I just finished reading "Dune"": the book read is done
    _Rule("reading", _rx(_FINISHED + r"(?P<v>[\"“][^\"”]{1,80}[\"”])"), positive=False, ended=True,
          accept=lambda v: bool(v)),
    _Rule("reading", _rx(_FINISHED + _NAME_ALONE), positive=False, ended=True, accept=lambda v: bool(v)),
)
