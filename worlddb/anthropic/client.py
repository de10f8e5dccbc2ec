"""The Anthropic Messages API client the model-backed parts share, and how replies are checked.

Retries are ours, not the SDK's (the client runs with ``max_retries=0``) so the policy is explicit
and testable: 429, 5xx and connection errors are retried up to ``max_attempts`` in all, sleeping
``backoff_base * 2**attempt`` (capped at ``backoff_max``, jittered to 50-100 %), or the server's
``retry-after`` when it sends one; a ``retry-after`` beyond the cap ends the retries at once. A
timeout is not retried: one attempt already spent the caller's budget of ``timeout`` seconds, so
the built-in answers at once. Other 4xx errors are not retried either.

The model is told the exact JSON schema of its answer; the reply is parsed tolerantly (code fences,
text around the object: the first balanced JSON object wins) and then validated strictly (required
keys, types, no unknown keys). The SDK is imported on first use: a process with no key never
loads it.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from worlddb.core.errors import ExtractionError

if TYPE_CHECKING:
    import anthropic

log = logging.getLogger("worlddb.anthropic")
DEFAULT_MODEL = "claude-haiku-4-5"

_NULLABLE_STR = {"type": ["string", "null"]}
EXTRACTION_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["entities", "facts"],
    "properties": {
        "entities": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["name", "type", "aliases"],
            "properties": {"name": {"type": "string", "minLength": 1}, "type": _NULLABLE_STR,
                           "aliases": {"type": "array", "items": {"type": "string"}}}}},
        "facts": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["subject", "relation", "object", "text", "valid_from", "valid_to"],
            "properties": {"subject": {"type": "string", "minLength": 1},
                           "relation": {"type": "string", "minLength": 1},
                           "object": {"type": "string", "minLength": 1}, "text": {"type": "string"},
                           "valid_from": _NULLABLE_STR, "valid_to": _NULLABLE_STR}}},
    },
}
SUMMARY_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False, "required": ["summary"],
                                  "properties": {"summary": {"type": "string"}}}
CHOICE_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False, "required": ["choice"],
                                 "properties": {"choice": {"type": ["integer", "null"]}}}



@dataclass(frozen=True, slots=True)
class BridgeConfig:
    """How to reach the API. ``timeout`` (seconds) bounds each attempt's connect and each read;
    ``max_attempts`` counts the first try; ``sleep`` is injectable so tests can observe backoff
    without waiting."""

    api_key: str
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    timeout: float = 30.0
    max_attempts: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.timeout <= 0 or self.backoff_base < 0:
            raise ValueError("max_attempts must be >= 1, timeout > 0 and backoff_base >= 0")


def _sdk():
    """The SDK, imported on first use: importing it takes seconds, and a process with no key (which
    gets the built-ins from the factories) never needs it."""
    import anthropic

    return anthropic


def fallback_errors() -> tuple[type[BaseException], ...]:
    """What a fallback answers: any SDK error (HTTP status, connection, timeout) or a bad reply."""
    return (_sdk().AnthropicError, ExtractionError)


def resolve_key(api_key: str | None) -> str | None:
    return api_key or os.environ.get("ANTHROPIC_API_KEY") or None


@functools.lru_cache(maxsize=16)
def _sdk_client(api_key: str, base_url: str | None, timeout: float) -> anthropic.Anthropic:
    """One SDK client per key, address and timeout, shared by the parts that use them (the
    extractor, judge, summarizer and tiebreaker of one engine): one connection pool, and the SDK's
    TLS set-up (about 50 ms of CPU) made once rather than by each."""
    return _sdk().Anthropic(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)


class MessagesClient:
    """One place that talks to the API: retries with backoff, returns the reply's text."""

    def __init__(self, config: BridgeConfig) -> None:
        self.config = config
        self._client = _sdk_client(config.api_key, config.base_url, config.timeout)
        self._jitter = random.Random()

    def ask_json(self, system: str, prompt: str, schema: dict[str, Any], max_tokens: int) -> dict[str, Any]:
        """The reply's JSON object, checked against `schema` (ExtractionError if it is not one)."""
        data = parse_json_object(self.ask(system, prompt, max_tokens))
        validate(data, schema)
        return data

    def ask(self, system: str, prompt: str, max_tokens: int) -> str:
        cfg, sdk = self.config, _sdk()
        for attempt in range(cfg.max_attempts):
            try:
                reply = self._client.messages.create(model=cfg.model, max_tokens=max_tokens, system=system,
                                                     messages=[{"role": "user", "content": prompt}])
            except sdk.APITimeoutError:
                raise
            except (sdk.RateLimitError, sdk.InternalServerError, sdk.APIConnectionError) as err:
                delay = self._delay(attempt, err)
                if attempt + 1 >= cfg.max_attempts or delay is None:
                    raise
                log.info("anthropic call failed (%s); retry %d/%d in %.2fs", describe_error(err), attempt + 1,
                         cfg.max_attempts - 1, delay)
                cfg.sleep(delay)
                continue
            text = "".join(getattr(block, "text", "") for block in reply.content or ()
                           if getattr(block, "type", None) == "text")
            if not text:
                raise ExtractionError("the reply has no text content")
            return text
        raise AssertionError("unreachable: the loop returns or raises")

    def _delay(self, attempt: int, err: anthropic.APIError) -> float | None:
        """Seconds to wait before the next attempt, or None when the server asks for longer than
        ``backoff_max``: retrying sooner than asked is wasted, waiting longer blows the budget."""
        cfg = self.config
        delay = min(cfg.backoff_max, cfg.backoff_base * 2 ** attempt) * (0.5 + 0.5 * self._jitter.random())
        response = getattr(err, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        try:
            hinted = float(header) if header is not None else None
        except ValueError:
            hinted = None
        if hinted is None or hinted < 0:
            return delay
        return hinted if hinted <= cfg.backoff_max else None


def describe_error(err: BaseException) -> str:
    status = getattr(err, "status_code", None)
    return f"{type(err).__name__}{f' {status}' if status else ''}: {err}"


def parse_json_object(raw: str) -> dict[str, Any]:
    """The first balanced JSON object in ``raw`` that parses, ignoring code fences and any text
    around it. Raises ``ExtractionError`` when there is none. Fences need no stripping: the scan
    starts at a brace, and removing them could corrupt a string that quotes one."""
    text = raw
    for start in (m.start() for m in re.finditer(r"\{", text)):
        depth, in_string, escaped = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    try:
                        value = json.loads(text[start:i + 1])
                    except json.JSONDecodeError:
                        break
                    if isinstance(value, dict):
                        return value
                    break
    raise ExtractionError(f"no JSON object in the reply: {raw[:200]!r}")


_TYPES = {"object": dict, "array": list, "string": str, "null": type(None)}


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> None:
    """Check ``value`` against the JSON Schema subset used here (type, required, properties,
    additionalProperties: false, items, minLength). Raises ``ExtractionError`` naming the path."""
    types = schema.get("type")
    if types is not None:
        allowed = types if isinstance(types, list) else [types]
        ok = any(isinstance(value, int) and not isinstance(value, bool) if t == "integer"
                 else isinstance(value, _TYPES[t]) for t in allowed)
        if not ok:
            raise ExtractionError(f"{path}: expected {' or '.join(allowed)}, got {type(value).__name__}")
    if isinstance(value, dict):
        missing = [k for k in schema.get("required", ()) if k not in value]
        if missing:
            raise ExtractionError(f"{path}: missing {', '.join(missing)}")
        props = schema.get("properties", {})
        extra = [k for k in value if k not in props]
        if extra and schema.get("additionalProperties", True) is False:
            raise ExtractionError(f"{path}: unexpected {', '.join(extra)}")
        for key, sub in props.items():
            if key in value:
                validate(value[key], sub, f"{path}.{key}")
    elif isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validate(item, schema["items"], f"{path}[{i}]")
    elif isinstance(value, str) and len(value) < schema.get("minLength", 0):
        raise ExtractionError(f"{path}: empty string")


def client_config(api_key: str | None, **options: Any) -> BridgeConfig:
    key = resolve_key(api_key)
    if key is None:
        raise ValueError("no Anthropic API key: pass api_key or set ANTHROPIC_API_KEY")
    return BridgeConfig(api_key=key, **options)
