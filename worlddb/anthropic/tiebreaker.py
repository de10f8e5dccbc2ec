"""AnthropicTiebreaker: the resolver's Tiebreaker seam backed by the Messages API.

Any failure, or an answer that is not an option's index, falls back to the default
tiebreaker (worlddb.resolver.tiebreak), with a warning logged. Nothing is merged on its word
alone: the resolver still stages every non-exact match as a same_as proposal.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from worlddb.core.errors import ExtractionError
from worlddb.protocols import Option, Tiebreaker
from worlddb.resolver.tiebreak import DefaultTiebreaker

from . import prompts
from .client import (
    CHOICE_SCHEMA,
    DEFAULT_MODEL,
    MessagesClient,
    client_config,
    describe_error,
    fallback_errors,
    log,
    resolve_key,
)


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
