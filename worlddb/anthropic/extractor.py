"""AnthropicExtractor: the Extractor seam backed by the Messages API.

It never raises for well-formed input and never loses a call: on any API error, timeout or
reply that fails the schema it logs a warning and answers with its fallback (the built-in
extractor). An Extraction records which one produced it ("anthropic:<model>" or "builtin").
Temporal expressions always come from the deterministic pass, which is cheaper and exact,
resolved against the same timestamp the model sees.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from worlddb.core.errors import ExtractionError
from worlddb.extract import EntityCandidate, Extraction, ExtractionContext, FactCandidate
from worlddb.extract.builtin import BuiltinExtractor
from worlddb.extract.temporal import find_temporals
from worlddb.protocols import Extractor

from . import prompts
from .client import (
    DEFAULT_MODEL,
    EXTRACTION_SCHEMA,
    MessagesClient,
    client_config,
    describe_error,
    fallback_errors,
    log,
    resolve_key,
)


class AnthropicExtractor:
    """``Extractor`` backed by the Messages API, falling back to ``fallback`` (default: built-in)."""

    def __init__(self, api_key: str | None = None, *, fallback: Extractor | None = None, **options: Any) -> None:
        self._messages = MessagesClient(client_config(api_key, **options))
        self.name = f"anthropic:{self._messages.config.model}"
        self.fallback = fallback or BuiltinExtractor()

    def extract(self, text: str, ctx: ExtractionContext) -> Extraction:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        prompt = json.dumps({"timestamp": ctx.timestamp.isoformat() if ctx.timestamp else None,
                             "speaker": ctx.speaker, "user_name": ctx.user_name,
                             "known_names": list(ctx.known_names), "message": text}, ensure_ascii=False)
        system = prompts.EXTRACT_SYSTEM.format(schema=json.dumps(EXTRACTION_SCHEMA))
        try:
            data = self._messages.ask_json(system, prompt, EXTRACTION_SCHEMA, 2048)
            return self._build(data, text, ctx)
        except fallback_errors() as err:
            log.warning("%s failed (%s); falling back to the %s extractor", self.name, describe_error(err),
                        self.fallback.name)
            return self.fallback.extract(text, ctx)

    def _build(self, data: dict[str, Any], text: str, ctx: ExtractionContext) -> Extraction:
        entities: dict[str, EntityCandidate] = {}
        if ctx.speaker:
            entities[ctx.speaker.casefold()] = EntityCandidate(ctx.speaker, "person", (), None)
        for e in data["entities"]:
            name = e["name"].strip()
            span = text.find(name)
            entities.setdefault(name.casefold(), EntityCandidate(
                name, e["type"], tuple(a for a in e["aliases"] if a), (span, span + len(name)) if span >= 0 else None))
        facts = tuple(FactCandidate(f["subject"], f["relation"], f["object"], f["text"] or text,
                                    _when(f["valid_from"], ctx), _when(f["valid_to"], ctx)) for f in data["facts"])
        return Extraction(tuple(entities.values()), facts, tuple(find_temporals(text, ctx.timestamp)), self.name)


def _when(value: str | None, ctx: ExtractionContext) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as err:
        raise ExtractionError(f"not an ISO-8601 date: {value!r}") from err
    if parsed.tzinfo is None and ctx.timestamp is not None and ctx.timestamp.tzinfo is not None:
        parsed = parsed.replace(tzinfo=ctx.timestamp.tzinfo)
    return parsed


def configured_extractor(api_key: str | None = None, base_url: str | None = None,
                         model: str = DEFAULT_MODEL, **options: Any) -> Extractor:
    """The Anthropic extractor when a key is given or in ``ANTHROPIC_API_KEY``, else the built-in."""
    if resolve_key(api_key) is None:
        return BuiltinExtractor()
    return AnthropicExtractor(api_key, base_url=base_url, model=model, **options)
