"""A pattern compiled the first time it is used, for the readers' module-level tables.

Contract: `compile_lazily(pattern, flags)` stands for `re.compile(pattern, flags)`, and
`lazy(pattern)` for `re.compile(pattern, re.I)`. It holds the pattern's text and flags
(`pattern`, `flags` as the compiled pattern would give them, which worlddb.extract.literals
reads without compiling) and
compiles on the first use of anything else (`search`, `finditer`, `groupindex`, ...), which is
then the compiled pattern's. A process that never reads a text (the command line's `auth`,
`identity`, `export`, a server answering `initialize`) never compiles the tables, about a
second of CPU between the slot rules, the open slots and the unread-change cues; a write
compiles what it uses. Two
threads may both compile a pattern first: the same pattern either way.
"""

from __future__ import annotations

import re

__all__ = ["LazyPattern", "compile_lazily", "lazy"]


class LazyPattern:
    """A pattern compiled on first use (see the module docstring)."""

    __slots__ = ("_compiled", "_given", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0):
        # (a str pattern's compiled flags hold re.UNICODE unless re.ASCII was given)
        self.pattern, self._given, self._compiled = pattern, flags, None
        self.flags = flags if flags & re.ASCII else flags | re.UNICODE

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern, compiled now if it was not."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self._given)
        return self._compiled

    def __getattr__(self, name: str):
        return getattr(self.compiled(), name)


def compile_lazily(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, done on first use."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]  # a re.Pattern in all but when it is compiled


def lazy(pattern: str) -> re.Pattern[str]:
    """`pattern`, case-insensitive, compiled on first use."""
    return compile_lazily(pattern, re.I)
