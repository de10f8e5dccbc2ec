"""Resolver tiebreaking: when a mention matches several known entities, which one is it?

The seam is `worlddb.protocols.Tiebreaker`: it gets the mention and the candidate
`Option`s the resolver's tiers produced, and returns the index of the chosen option, or
None for "cannot tell" (the resolver then reports the mention as Ambiguous; nothing is
ever merged on a tiebreaker's word alone, since every non-exact match still goes through
a `same_as` proposal).

`DefaultTiebreaker` is deterministic and needs no model: it prefers the tier order
exact > fuzzy > embedding > phonetic (an exact alias match is evidence, a sound-alike key the
weakest), then the higher score. Two options equal on both are a genuine tie: it answers None
rather than pick by position.

`AnthropicTiebreaker` asks the Messages API (worlddb.extract.anthropic) and answers with the
default one on any failure; `configured_tiebreaker()` picks it when a key is configured.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from worlddb.extract import ExtractionError, prompts
from worlddb.extract.anthropic import (
    CHOICE_SCHEMA, DEFAULT_MODEL, MessagesClient, client_config, describe_error, fallback_errors, resolve_key,
)
from worlddb.protocols import TIER_ORDER, Option, Tiebreaker

__all__ = ["AnthropicTiebreaker", "DefaultTiebreaker", "configured_tiebreaker"]

log = logging.getLogger(__name__)


class DefaultTiebreaker:
    """Tier first (exact > fuzzy > embedding > phonetic), then score; None on an exact tie."""

    name = "default"

    def choose(self, mention: str, options: Sequence[Option]) -> int | None:
        if not options:
            return None
        keys = [(TIER_ORDER.index(o.tier), -o.score) for o in options]
        best = min(range(len(options)), key=lambda i: (keys[i], i))
        if sum(1 for k in keys if k == keys[best]) > 1:
            return None
        return best


class AnthropicTiebreaker:
    """``Tiebreaker`` backed by the Messages API; failures fall back to ``DefaultTiebreaker``."""

    def __init__(self, api_key: str | None = None, *, fallback: Tiebreaker | None = None, **options: Any) -> None:
        self._messages = MessagesClient(client_config(api_key, **options))
        self.name = f"anthropic:{self._messages.config.model}"
        self.fallback = fallback or DefaultTiebreaker()

    def choose(self, mention: str, options: Sequence[Option]) -> int | None:
        if not options:
            return None
        system = prompts.CHOICE_SYSTEM.format(schema=json.dumps(CHOICE_SCHEMA))
        prompt = json.dumps({"mention": mention, "options": [
            {"index": i, "name": o.name, "aliases": list(o.aliases), "tier": o.tier, "score": o.score}
            for i, o in enumerate(options)]}, ensure_ascii=False)
        try:
            choice = self._messages.ask_json(system, prompt, CHOICE_SCHEMA, 64)["choice"]
            if choice is not None and not 0 <= choice < len(options):
                raise ExtractionError(f"choice {choice} is not an option index")
            return choice
        except fallback_errors() as err:
            log.warning("%s tiebreak failed (%s); falling back to the default tiebreaker", self.name,
                        describe_error(err))
            return self.fallback.choose(mention, options)


def configured_tiebreaker(api_key: str | None = None, base_url: str | None = None,
                          model: str = DEFAULT_MODEL, **options: Any) -> Tiebreaker:
    """The Anthropic tiebreaker when a key is configured, else the default one."""
    if resolve_key(api_key) is None:
        return DefaultTiebreaker()
    return AnthropicTiebreaker(api_key, base_url=base_url, model=model, **options)
