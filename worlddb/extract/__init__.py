"""Extraction contract: what the write path gets out of a piece of text before resolution.

An ``Extractor`` turns one text (a turn, a memory) into candidate entities, candidate facts and
temporal expressions. Candidates are proposals: the resolver decides whether an entity is new or
already known, and the reconciler decides what a fact does to the graph. Nothing here performs I/O;
the types are frozen so an ``Extraction`` can be cached, hashed and shared between threads.

Implementations in this package:

* ``worlddb.extract.builtin.BuiltinExtractor`` - deterministic, rule based, no model, no network.
* ``worlddb.anthropic.AnthropicExtractor`` - asks a model; falls back to the built-in one on
  any failure, so it never raises.

The only exception an ``Extractor``/``Summarizer`` may raise is ``ExtractionError`` (bad input such
as a non-string text is a programming error and raises ``TypeError`` as usual). Callers that want a
result whatever happens catch ``ExtractionError`` and fall back to the built-in implementation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from worlddb.core.errors import ExtractionError

__all__ = [
    "EntityCandidate",
    "Extraction",
    "ExtractionContext",
    "ExtractionError",
    "FactCandidate",
    "GENERIC_ROLES",
    "Granularity",
    "TemporalExpression",
]

#: speaker roles that say what kind of party spoke, not who ("user" is the scope's user)
GENERIC_ROLES = frozenset({"user", "assistant", "system", "tool"})

# How precise a resolved time is: "weekend" for "last weekend", "season" for "last summer".
Granularity = Literal["day", "weekend", "week", "month", "season", "year"]


@dataclass(frozen=True, slots=True)
class EntityCandidate:
    """A thing the text names. ``type`` is a coarse guess ("person", "place", "organization",
    "work", "animal", "concept") or None when the extractor cannot tell; "concept" marks a common
    noun phrase rather than a name. ``span`` is the [start, end) character offset of the first
    mention in the text, or None when the entity is implied (the speaker of a turn)."""

    name: str
    type: str | None = None
    aliases: tuple[str, ...] = ()
    span: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class FactCandidate:
    """A subject-relation-object statement. ``relation`` is a snake_case verb phrase ("lives_in",
    "is_a"). ``text`` is the sentence it came from. A None ``valid_from`` means the text gives no
    time of its own: the engine uses the write's valid time."""

    subject: str
    relation: str
    object: str
    text: str
    valid_from: datetime | None = None
    valid_to: datetime | None = None


@dataclass(frozen=True, slots=True)
class TemporalExpression:
    """A time the text mentions ("last Tuesday", "in May 2023"). ``resolved`` is the start of the
    period named ("last week" -> its Monday, "May 2023" -> 1 May), or for an offset ("two weeks
    ago") the day it lands on, computed against the message's timestamp and carrying its tzinfo;
    None when a relative expression had no timestamp to resolve against. ``granularity`` says how
    precise ``resolved`` is."""

    text: str
    span: tuple[int, int]
    resolved: datetime | None
    granularity: Granularity


@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything extracted from one text, and which extractor produced it (e.g. "builtin",
    "anthropic:claude-haiku-4-5"), so provenance survives a fallback. ``unsure``: words that may
    be names but that the text alone does not show to be (a capital at the start of a sentence:
    "Ana got a job" or "Coffee is great"); not in ``entities``. A caller that knows more (the
    entities of the scope, worlddb.memory.write) keeps those it already knows by that name."""

    entities: tuple[EntityCandidate, ...]
    facts: tuple[FactCandidate, ...]
    temporals: tuple[TemporalExpression, ...]
    extractor: str
    unsure: tuple[EntityCandidate, ...] = ()


@dataclass(frozen=True, slots=True)
class ExtractionContext:
    """What the caller knows about the text. ``timestamp`` anchors relative times; ``speaker`` is
    who said it (a turn's speaker); ``user_name`` is the scope's user. First-person statements
    ("I", "my", "me") are tied to the speaker, else to the user. ``known_names`` are names the
    engine already knows in this scope (e.g. the other participant of a conversation): they are
    recognised even where capitalisation alone would not tell (at the start of a sentence)."""

    timestamp: datetime | None = None
    speaker: str | None = None
    user_name: str | None = None
    known_names: tuple[str, ...] = field(default=())

