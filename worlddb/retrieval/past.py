"""Questions about what held before what holds now.

"Where did I live before?", "What was my old job?", "What was my previous / former / last
job?", "Which editor did I use to use?" ask about what was replaced, not about what is. Asked
with the history (include_retired, no time pin), recall answers them with what a later memory
replaced: the slot step puts the replaced statements of the asked slot first
(worlddb.retrieval.slot_preference), and the page deals each set joined by a supersession or
a revision out replaced first (worlddb.memory.search). A time named so ("my last trip", "my
last day", "before merging") asks about no replaced thing, nor does "how old" (an age).

Contract: ``asks_before(question)`` says whether a question asks about what held before;
deterministic, no I/O.
"""

from __future__ import annotations

import re

from worlddb.extract._slot_cues import _TIMES

__all__ = ["asks_before"]

#: words of a question about what held before now ("how old" asks an age, "old" before a noun
#: asks what was replaced, as "former", "previous" and one's "last" thing do; "before merging"
#: asks what comes first, and "my last trip" a time)
_BEFORE = re.compile(r"\b(?:before(?!\s+\w+ing\b)|previous(?:ly)?|former(?:ly)?|used\s+to|did\s+\w+\s+use\s+to|"
                     r"originally|at\s+first|prior|earlier|in\s+the\s+past|(?<!how\s)old\s+(?!enough\b)[a-z]|"
                     r"(?:my|our|his|her|their)\s+last\s+(?!" + _TIMES + r"\b)[a-z]+|"
                     r"last\s+(?:job|home|address|car|phone|number|apartment|flat|house|place|employer|company|team|"
                     r"manager|boss|doctor|dentist|school))", re.I)


def asks_before(question: str) -> bool:
    """Whether a question asks about what held before what holds now (module docstring)."""
    return _BEFORE.search(question) is not None
