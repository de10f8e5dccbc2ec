"""A pattern compiled the first time it is used, for the readers' module-level tables.

Contract: `lazy(pattern)` stands for `re.compile(pattern, re.I)`. It holds the pattern's text
and flags (`pattern`, `flags`, which worlddb.extract.literals reads without compiling) and
compiles on the first use of anything else (`search`, `finditer`, `groupindex`, ...), which is
then the compiled pattern's. A process that never reads a text (the command line's `auth`,
`identity`, `export`, a server answering `initialize`) never compiles the tables, about a
second of CPU between the slot rules and the open slots; a write compiles what it uses. Two
threads may both compile a pattern first: the same pattern either way.
"""

from __future__ import annotations

import re

__all__ = ["LazyPattern", "lazy"]


class LazyPattern:
    """A case-insensitive pattern compiled on first use (see the module docstring)."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str):
        self.pattern, self.flags, self._compiled = pattern, re.I | re.U, None

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern, compiled now if it was not."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, re.I)
        return self._compiled

    def __getattr__(self, name: str):
        return getattr(self.compiled(), name)


def lazy(pattern: str) -> re.Pattern[str]:
    """`pattern`, case-insensitive, compiled on first use."""
    return LazyPattern(pattern)  # type: ignore[return-value]  # a re.Pattern in all but when it is compiled
