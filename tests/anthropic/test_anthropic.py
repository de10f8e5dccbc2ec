"""The Anthropic bridge against a loopback fake of the Messages API: no test touches the network."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import time
from datetime import datetime

import pytest

from tests.fake_anthropic import FakeAnthropic
from worlddb.anthropic import (
    EXTRACTION_SCHEMA,
    AnthropicExtractor,
    AnthropicSummarizer,
    AnthropicTiebreaker,
    configured_extractor,
    configured_summarizer,
    configured_tiebreaker,
    parse_json_object,
)
from worlddb.extract import ExtractionContext, ExtractionError
from worlddb.extract.builtin import BuiltinExtractor
from worlddb.extract.summarize import ExtractiveSummarizer
from worlddb.protocols import Option
from worlddb.resolver.tiebreak import DefaultTiebreaker

KEY = "test-key-not-real"
MODEL = "claude-test-model"
CTX = ExtractionContext(datetime(2023, 5, 10, 13, 56), "Caroline", "caroline", ("Melanie",))
TEXT = "I moved to Denver two weeks ago with my dog Oliver."
GOOD = json.dumps({
    "entities": [{"name": "Denver", "type": "place", "aliases": []},
                 {"name": "Oliver", "type": "animal", "aliases": ["Ollie"]}],
    "facts": [{"subject": "Caroline", "relation": "lives_in", "object": "Denver",
               "text": "I moved to Denver two weeks ago.", "valid_from": "2023-04-26", "valid_to": None}],
})


@pytest.fixture
def fake():
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def options(fake, sleeps):
    return {"base_url": fake.base_url, "model": MODEL, "timeout": 5.0, "max_attempts": 3,
            "backoff_base": 0.01, "backoff_max": 0.5, "sleep": sleeps.append}


def sent_key(request) -> str | None:
    # SDK 2.x sends the key as a bearer token; older ones used x-api-key. Either proves it was sent.
    bearer = request.headers.get("authorization", "")
    return request.headers.get("x-api-key") or (bearer[7:] if bearer.startswith("Bearer ") else None)


def fell_back(caplog) -> bool:
    return any(r.levelno == logging.WARNING and "falling back" in r.getMessage() for r in caplog.records)


# --- extractor --------------------------------------------------------------------------------

def test_model_reply_becomes_the_extraction_and_the_request_carries_key_model_and_schema(fake, options):
    fake.reply(GOOD)
    result = AnthropicExtractor(KEY, **options).extract(TEXT, CTX)

    assert result.extractor == f"anthropic:{MODEL}"
    assert [(e.name, e.type) for e in result.entities] == [("Caroline", "person"), ("Denver", "place"),
                                                           ("Oliver", "animal")]
    oliver = result.entities[2]
    assert oliver.aliases == ("Ollie",) and TEXT[oliver.span[0]:oliver.span[1]] == "Oliver"
    (fact,) = result.facts
    assert (fact.subject, fact.relation, fact.object, fact.valid_from) == (
        "Caroline", "lives_in", "Denver", datetime(2023, 4, 26))
    assert [t.text for t in result.temporals] == ["two weeks ago"]

    (request,) = fake.requests
    assert request.path == "/v1/messages"
    assert sent_key(request) == KEY
    assert "anthropic-version" in request.headers
    assert request.body["model"] == MODEL
    assert json.dumps(EXTRACTION_SCHEMA) in request.body["system"]
    prompt = json.loads(request.body["messages"][0]["content"])
    assert prompt["message"] == TEXT and prompt["timestamp"] == "2023-05-10T13:56:00"
    assert prompt["speaker"] == "Caroline"


def test_reply_wrapped_in_fences_and_chatter_is_still_parsed(fake, options):
    fake.reply(f"Sure! Here is the JSON:\n```json\n{GOOD}\n```\nLet me know {{if}} you need more.")
    result = AnthropicExtractor(KEY, **options).extract(TEXT, CTX)
    assert result.extractor == f"anthropic:{MODEL}"
    assert {e.name for e in result.entities} == {"Caroline", "Denver", "Oliver"}


@pytest.mark.parametrize("reply", [
    "I could not find any entities.",
    '{"entities": []}',
    '{"entities": [{"name": "Denver"}], "facts": []}',
    '{"entities": [], "facts": [], "mood": "happy"}',
    '{"entities": "Denver", "facts": []}',
    '{"entities": [{"name": "", "type": null, "aliases": []}], "facts": []}',
    json.dumps({"entities": [], "facts": [{"subject": "Caroline", "relation": "lives_in", "object": "Denver",
                                           "text": "", "valid_from": "two weeks ago", "valid_to": None}]}),
    '{"entities": [], "facts": [',
])
def test_malformed_output_falls_back_to_the_builtin_and_is_logged(fake, options, caplog, reply):
    fake.reply(reply)
    result = AnthropicExtractor(KEY, **options).extract(TEXT, CTX)
    assert result == BuiltinExtractor().extract(TEXT, CTX)
    assert result.extractor == "builtin"
    assert fell_back(caplog)
    assert len(fake.requests) == 1  # a bad answer is not a transient failure: no retry


def test_rate_limit_is_retried_with_growing_backoff_then_succeeds(fake, options, sleeps):
    fake.fail(429).fail(429).reply(GOOD)
    result = AnthropicExtractor(KEY, **options).extract(TEXT, CTX)
    assert result.extractor == f"anthropic:{MODEL}"
    assert len(fake.requests) == 3
    assert len(sleeps) == 2
    assert 0.005 <= sleeps[0] <= 0.01 and 0.01 <= sleeps[1] <= 0.02  # base * 2**n, jittered 50-100 %


@pytest.mark.parametrize("status", [500, 503, 529])
def test_server_error_is_retried_then_succeeds(fake, options, sleeps, status):
    fake.fail(status).reply(GOOD)
    result = AnthropicExtractor(KEY, **options).extract(TEXT, CTX)
    assert result.extractor == f"anthropic:{MODEL}"
    assert len(fake.requests) == 2 and len(sleeps) == 1


def test_retry_after_header_is_honoured_when_within_the_cap(fake, options, sleeps):
    fake.fail(429, headers={"retry-after": "0.2"}).reply(GOOD)
    AnthropicExtractor(KEY, **options).extract(TEXT, CTX)
    assert sleeps == [0.2]


def test_retry_after_beyond_the_cap_ends_the_retries_at_once(fake, options, sleeps, caplog):
    fake.fail(429, headers={"retry-after": "60"}).reply(GOOD)
    result = AnthropicExtractor(KEY, **options).extract(TEXT, CTX)
    assert result.extractor == "builtin"
    assert len(fake.requests) == 1 and sleeps == []
    assert fell_back(caplog)


def test_persistent_overload_gives_up_after_max_attempts_and_falls_back(fake, options, sleeps, caplog):
    fake.fail(429).fail(503).fail(429)
    result = AnthropicExtractor(KEY, **options).extract(TEXT, CTX)
    assert result.extractor == "builtin"
    assert len(fake.requests) == 3 and len(sleeps) == 2
    assert fell_back(caplog) and "RateLimitError 429" in caplog.text


def test_client_error_is_not_retried(fake, options, sleeps, caplog):
    fake.fail(400)
    result = AnthropicExtractor(KEY, **options).extract(TEXT, CTX)
    assert result.extractor == "builtin"
    assert len(fake.requests) == 1 and sleeps == []
    assert fell_back(caplog)


def test_timeout_falls_back_at_once_without_retrying(fake, options, sleeps, caplog):
    fake.reply(GOOD, delay=10)
    started = time.monotonic()
    result = AnthropicExtractor(KEY, **{**options, "timeout": 0.3}).extract(TEXT, CTX)
    assert time.monotonic() - started < 3
    assert result.extractor == "builtin"
    assert len(fake.requests) == 1 and sleeps == []
    assert fell_back(caplog) and "APITimeoutError" in caplog.text


def test_unreachable_server_is_retried_then_falls_back(options, sleeps, caplog):
    with socket.socket() as s:  # a loopback port that nothing listens on
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    result = AnthropicExtractor(KEY, **{**options, "base_url": f"http://127.0.0.1:{closed_port}"}).extract(TEXT, CTX)
    assert result.extractor == "builtin"
    assert len(sleeps) == 2
    assert fell_back(caplog) and "APIConnectionError" in caplog.text


# --- summarizer and tiebreaker ----------------------------------------------------------------

NOTES = ["Caroline moved to Denver in April.", "She adopted a dog named Oliver.", "The weather was fine."]


def test_the_parts_of_one_key_and_address_share_one_connection(fake, options):
    fake.reply(GOOD).reply('{"summary": "Caroline moved to Denver."}')
    AnthropicExtractor(KEY, **options).extract(TEXT, CTX)
    AnthropicSummarizer(KEY, **options).summarize(NOTES, max_chars=80)
    with FakeAnthropic() as other:
        other.reply('{"choice": 0}')
        assert AnthropicTiebreaker(KEY, **{**options, "base_url": other.base_url}).choose("Jonny", OPTIONS) == 0
        (elsewhere,) = other.requests
    first, second = fake.requests
    assert first.peer == second.peer  # one SDK client, one pooled connection
    assert elsewhere.peer != first.peer


def test_summary_comes_from_the_model_and_the_budget_is_in_the_prompt(fake, options):
    fake.reply('{"summary": "Caroline moved to Denver and adopted Oliver."}')
    summary = AnthropicSummarizer(KEY, **options).summarize(NOTES, max_chars=80)
    assert summary == "Caroline moved to Denver and adopted Oliver."
    (request,) = fake.requests
    assert "at most 80 characters" in request.body["system"]
    assert all(note in request.body["messages"][0]["content"] for note in NOTES)


def test_overlong_model_summary_is_cut_at_a_sentence_within_the_budget(fake, options):
    fake.reply('{"summary": "Caroline moved to Denver. She adopted Oliver, a very energetic dog."}')
    assert AnthropicSummarizer(KEY, **options).summarize(NOTES, max_chars=40) == "Caroline moved to Denver."


def test_summarizer_failure_falls_back_to_the_extractive_summary(fake, options, caplog):
    fake.reply('{"text": "wrong key"}')
    summary = AnthropicSummarizer(KEY, **options).summarize(NOTES, max_chars=80)
    assert summary == ExtractiveSummarizer().summarize(NOTES, max_chars=80)
    assert fell_back(caplog)


OPTIONS = [Option("Jon", tier="fuzzy", score=0.9), Option("John Smith", ("John",), tier="exact", score=1.0)]


@pytest.mark.parametrize("reply, expected", [('{"choice": 0}', 0), ('{"choice": null}', None)])
def test_tiebreak_choice_comes_from_the_model(fake, options, reply, expected):
    fake.reply(reply)
    assert AnthropicTiebreaker(KEY, **options).choose("Jonny", OPTIONS) == expected
    prompt = json.loads(fake.requests[0].body["messages"][0]["content"])
    assert prompt["mention"] == "Jonny" and [o["name"] for o in prompt["options"]] == ["Jon", "John Smith"]


@pytest.mark.parametrize("reply", ['{"choice": 2}', '{"choice": -1}', '{"choice": "0"}', "no idea"])
def test_invalid_tiebreak_answer_falls_back_to_the_default_order(fake, options, caplog, reply):
    fake.reply(reply)
    assert AnthropicTiebreaker(KEY, **options).choose("Jonny", OPTIONS) == 1  # exact beats fuzzy
    assert fell_back(caplog)


def test_tiebreak_without_options_asks_nobody(fake, options):
    assert AnthropicTiebreaker(KEY, **options).choose("Jonny", []) is None
    assert fake.requests == []


# --- configuration ----------------------------------------------------------------------------

def test_without_a_key_the_factories_return_the_builtins(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert isinstance(configured_extractor(), BuiltinExtractor)
    assert isinstance(configured_summarizer(), ExtractiveSummarizer)
    assert isinstance(configured_tiebreaker(), DefaultTiebreaker)
    from worlddb.anthropic import configured_judge
    from worlddb.extract.judge import BuiltinJudge

    assert isinstance(configured_judge(), BuiltinJudge)
    with pytest.raises(ValueError):
        AnthropicExtractor()


def test_a_key_from_the_environment_or_the_caller_selects_the_model_backed_ones(monkeypatch, fake):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert isinstance(configured_extractor(base_url=fake.base_url), AnthropicExtractor)
    assert isinstance(configured_summarizer(base_url=fake.base_url), AnthropicSummarizer)
    assert isinstance(configured_tiebreaker(base_url=fake.base_url), AnthropicTiebreaker)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    extractor = configured_extractor(api_key="other-key", base_url=fake.base_url, model=MODEL)
    fake.reply(GOOD)
    assert extractor.extract(TEXT, CTX).extractor == f"anthropic:{MODEL}"
    assert sent_key(fake.requests[0]) == "other-key"


# --- tolerant parsing -------------------------------------------------------------------------

@pytest.mark.parametrize("raw, expected", [
    ('{"a": 1}', {"a": 1}),
    ('noise {"a": "}{"} more', {"a": "}{"}),
    ('{"a": "say \\"hi\\" {"}', {"a": 'say "hi" {'}),
    ('{bad} then {"a": {"b": [1, 2]}} and {"c": 3}', {"a": {"b": [1, 2]}}),
    ('```json\n{"a": "```"}\n```', {"a": "```"}),
])
def test_first_balanced_json_object_is_found(raw, expected):
    assert parse_json_object(raw) == expected


@pytest.mark.parametrize("raw", ["", "[1, 2]", "{unclosed", "just words"])
def test_reply_without_a_json_object_is_an_extraction_error(raw):
    with pytest.raises(ExtractionError):
        parse_json_object(raw)


def test_a_process_without_a_key_never_imports_the_sdk():
    # Importing the SDK takes seconds; a server with no key must not pay for it at start-up.
    code = ("import sys; from worlddb.anthropic import configured_extractor; "
            "print(type(configured_extractor()).__name__, 'anthropic' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["BuiltinExtractor", "False"]


# --- update judge -----------------------------------------------------------------------------

def _statements():
    from worlddb.extract.judge import Statement
    from worlddb.extract.slots import read

    new = Statement("", "Lately Khruangbin is all I play.", 20, read("Lately Khruangbin is all I play."))
    olds = [Statement("a", "My favourite band is Radiohead.", 10, read("My favourite band is Radiohead."), 0.6),
            Statement("b", "I bought concert tickets.", 12, read("I bought concert tickets."), 0.4)]
    return new, olds


def test_the_model_judge_decides_each_candidate_under_the_schema(fake, options):
    from worlddb.anthropic import JUDGE_SCHEMA, AnthropicJudge

    fake.reply(json.dumps({"verdicts": [{"index": 0, "outcome": "update", "reason": "new favourite band"},
                                        {"index": 1, "outcome": "unrelated", "reason": ""}]}))
    new, olds = _statements()
    verdicts = AnthropicJudge(KEY, **options).judge(new, olds)
    assert [v.outcome for v in verdicts] == ["update", "unrelated"]
    body = fake.requests[0].body
    assert json.dumps(JUDGE_SCHEMA) in body["system"] and "Radiohead" in body["messages"][0]["content"]


@pytest.mark.parametrize("reply", [
    json.dumps({"verdicts": [{"index": 0, "outcome": "update", "reason": ""}]}),            # one missing
    json.dumps({"verdicts": [{"index": 0, "outcome": "replace", "reason": ""},
                             {"index": 1, "outcome": "related", "reason": ""}]}),           # unknown outcome
    json.dumps({"verdicts": [{"index": 0, "outcome": "update", "reason": ""},
                             {"index": 0, "outcome": "related", "reason": ""}]}),           # repeated index
    "I think the first one is an update.",                                                 # not JSON
])
def test_a_bad_judge_reply_falls_back_to_the_rules(fake, options, caplog, reply):
    from worlddb.anthropic import AnthropicJudge
    from worlddb.extract.judge import BuiltinJudge

    fake.reply(reply)
    new, olds = _statements()
    with caplog.at_level(logging.WARNING, logger="worlddb.anthropic"):
        verdicts = AnthropicJudge(KEY, **options).judge(new, olds)
    assert verdicts == BuiltinJudge().judge(new, olds) and fell_back(caplog)


def test_an_engine_with_the_model_judge_supersedes_what_the_model_says(fake, options, tmp_path):
    from tests.support import ALICE, open_engine
    from worlddb.anthropic import AnthropicJudge

    with open_engine(tmp_path / "m.db", judge=AnthropicJudge(KEY, **options)) as engine:
        # the first write has no candidates: the model is not asked
        old = engine.write_memory("Radiohead is the band I play most.", ALICE, valid_from="2024-01-01")
        assert fake.requests == []
        fake.reply(json.dumps({"verdicts": [{"index": 0, "outcome": "update", "reason": "a new favourite"}]}))
        # the rules read no slot here; the model's verdict decides
        new = engine.write_memory("Khruangbin is the band I play most these days.", ALICE)
        assert len(fake.requests) == 1
        assert new.superseded == [old.id] and engine.store.get(old.id).valid_to is not None
