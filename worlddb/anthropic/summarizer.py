"""AnthropicSummarizer: the Summarizer seam backed by the Messages API.

An over-long summary is cut at the last sentence (or word) that fits; any failure falls
back to the built-in extractive summarizer, with a warning logged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from worlddb.extract.summarize import ExtractiveSummarizer
from worlddb.protocols import Summarizer

from . import prompts
from .client import (
    DEFAULT_MODEL,
    SUMMARY_SCHEMA,
    MessagesClient,
    client_config,
    describe_error,
    fallback_errors,
    log,
    resolve_key,
)


class AnthropicSummarizer:
    """``Summarizer`` backed by the Messages API; an over-long summary is cut at the last sentence
    (or word) that fits; failures fall back to ``ExtractiveSummarizer``."""

    def __init__(self, api_key: str | None = None, *, fallback: Summarizer | None = None, **options: Any) -> None:
        self._messages = MessagesClient(client_config(api_key, **options))
        self.name = f"anthropic:{self._messages.config.model}"
        self.fallback = fallback or ExtractiveSummarizer()

    def summarize(self, texts: Sequence[str], *, max_chars: int) -> str:
        if max_chars < 1:
            raise ValueError("max_chars must be at least 1")
        if not texts:
            return ""
        system = prompts.SUMMARY_SYSTEM.format(schema=json.dumps(SUMMARY_SCHEMA), max_chars=max_chars)
        prompt = "\n\n".join(f"[{i}] {t}" for i, t in enumerate(texts, 1))
        try:
            summary = self._messages.ask_json(system, prompt, SUMMARY_SCHEMA, max_chars // 2 + 256)["summary"]
        except fallback_errors() as err:
            log.warning("%s summary failed (%s); falling back to the extractive summarizer", self.name,
                        describe_error(err))
            return self.fallback.summarize(texts, max_chars=max_chars)
        return _fit(summary.strip(), max_chars)


def _fit(summary: str, max_chars: int) -> str:
    if len(summary) <= max_chars:
        return summary
    head = summary[:max_chars]
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s|$)", head)]
    if ends:
        return head[:ends[-1]]
    head = summary[:max_chars - 1]
    return (head[:head.rindex(" ")] if " " in head else head).rstrip() + "…"


def configured_summarizer(api_key: str | None = None, base_url: str | None = None,
                          model: str = DEFAULT_MODEL, **options: Any) -> Summarizer:
    """The Anthropic summarizer when a key is configured, else the extractive one."""
    if resolve_key(api_key) is None:
        return ExtractiveSummarizer()
    return AnthropicSummarizer(api_key, base_url=base_url, model=model, **options)
