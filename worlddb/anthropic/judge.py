"""AnthropicJudge: the UpdateJudge seam backed by the Messages API.

The model is shown the new memory and the numbered candidates (text, valid-from, and the slot
claims the rules read) and answers one outcome per candidate under a strict JSON schema. Any
API error, timeout, or reply that fails the schema - a missing or repeated index, an unknown
outcome - falls back to the built-in judge (worlddb.extract.judge) for the whole write, with a
warning logged: a write is never lost and never decided on half an answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from worlddb.core.errors import ExtractionError
from worlddb.core.timeutil import to_datetime
from worlddb.extract.judge import OUTCOMES, BuiltinJudge, Statement, Verdict
from worlddb.protocols import UpdateJudge

from . import prompts
from .client import DEFAULT_MODEL, MessagesClient, client_config, describe_error, fallback_errors, log, resolve_key

JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["verdicts"],
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object", "additionalProperties": False, "required": ["index", "outcome", "reason"],
        "properties": {"index": {"type": "integer"}, "outcome": {"type": "string", "enum": list(OUTCOMES)},
                       "reason": {"type": "string"}}}}},
}


class AnthropicJudge:
    """``UpdateJudge`` backed by the Messages API; failures fall back to ``fallback``."""

    def __init__(self, api_key: str | None = None, *, fallback: UpdateJudge | None = None, **options: Any) -> None:
        self._messages = MessagesClient(client_config(api_key, **options))
        self.name = f"anthropic:{self._messages.config.model}"
        self.fallback = fallback or BuiltinJudge()

    def judge(self, new: Statement, candidates: Sequence[Statement]) -> list[Verdict]:
        if not candidates:
            return []
        system = prompts.JUDGE_SYSTEM.format(schema=json.dumps(JUDGE_SCHEMA))
        prompt = json.dumps({"new": _shown(new), "candidates": [
            {"index": i, **_shown(c)} for i, c in enumerate(candidates)]}, ensure_ascii=False)
        try:
            data = self._messages.ask_json(system, prompt, JUDGE_SCHEMA, 1024)
            return _verdicts(data, len(candidates))
        except fallback_errors() as err:
            log.warning("%s judge failed (%s); falling back to the %s judge", self.name, describe_error(err),
                        self.fallback.name)
            return self.fallback.judge(new, candidates)


def _shown(statement: Statement) -> dict[str, Any]:
    return {"text": statement.text,
            "valid_from": to_datetime(statement.valid_from).isoformat(),
            "slots": [{"subject": c.subject, "attribute": c.attribute, "value": c.value, "negated": not c.positive,
                       "ended": c.ended} for c in statement.reading.claims]}


def _verdicts(data: dict[str, Any], count: int) -> list[Verdict]:
    found: dict[int, Verdict] = {}
    for item in data["verdicts"]:
        index, outcome = item["index"], item["outcome"]
        if not 0 <= index < count or index in found:
            raise ExtractionError(f"verdict index {index} is out of range or repeated")
        if outcome not in OUTCOMES:
            raise ExtractionError(f"unknown outcome {outcome!r}")
        found[index] = Verdict(outcome, item["reason"])
    if len(found) != count:
        raise ExtractionError(f"{count - len(found)} candidate(s) got no verdict")
    return [found[i] for i in range(count)]


def configured_judge(api_key: str | None = None, base_url: str | None = None, model: str = DEFAULT_MODEL,
                     fallback: UpdateJudge | None = None, **options: Any) -> UpdateJudge:
    """The Anthropic judge when a key is configured, else `fallback` (default: the built-in)."""
    if resolve_key(api_key) is None:
        return fallback or BuiltinJudge()
    return AnthropicJudge(api_key, base_url=base_url, model=model, fallback=fallback, **options)
