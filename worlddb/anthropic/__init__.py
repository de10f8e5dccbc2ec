"""The model-backed extractor, summarizer and tiebreaker, over the Anthropic Messages API.

Each implements a seam of worlddb.protocols and is used only when an API key is configured
(passed, or in ``ANTHROPIC_API_KEY``); the ``configured_*`` factories return the
deterministic built-ins otherwise. On any API error, timeout, or reply that fails its
schema they log a warning on the ``worlddb.anthropic`` logger and answer with the built-in
one, so a call is never lost. The read path never calls a model.

    client.py      MessagesClient: retries with backoff, strict JSON replies
    prompts.py     what is said to the model
    extractor.py   AnthropicExtractor      (fallback: worlddb.extract.builtin)
    summarizer.py  AnthropicSummarizer     (fallback: worlddb.extract.summarize)
    tiebreaker.py  AnthropicTiebreaker     (fallback: worlddb.resolver.tiebreak)
    judge.py       AnthropicJudge          (fallback: worlddb.extract.judge)
"""

from .client import DEFAULT_MODEL, EXTRACTION_SCHEMA, BridgeConfig, MessagesClient, parse_json_object, validate
from .extractor import AnthropicExtractor, configured_extractor
from .judge import JUDGE_SCHEMA, AnthropicJudge, configured_judge
from .summarizer import AnthropicSummarizer, configured_summarizer
from .tiebreaker import AnthropicTiebreaker, configured_tiebreaker

__all__ = [
    "DEFAULT_MODEL", "EXTRACTION_SCHEMA", "JUDGE_SCHEMA", "AnthropicExtractor", "AnthropicJudge", "AnthropicSummarizer",
    "AnthropicTiebreaker", "BridgeConfig", "MessagesClient", "configured_extractor", "configured_judge",
    "configured_summarizer", "configured_tiebreaker",
    "parse_json_object", "validate",
]
