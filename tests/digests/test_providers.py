"""What differs between providers, and what must not: the real recorded
OpenAI reply read as a structured reply, JSON mode's one repair attempt,
two OpenAI-compatible endpoints at once with budgets of their own, the
choice per task, settings refused at start, and the synchronous path where
a provider has no batch API."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from digests.models import DailySpend, GuidedReading
from digests.providers import registry
from digests.providers.base import ProviderConfig, StructuredRequest
from digests.providers.openai_api import REPAIR_INSTRUCTION, OpenAICompatibleProvider
from digests.selectors import llm_status
from digests.services import Outcome, reading_write, readings_create_for_versions
from digests.tasks import readings_enqueue
from papertrail.settings.env import env_json_endpoints
from tests.digests.conftest import OPENAI_MODEL, make_record, start_stand_in, store
from tests.digests.fake_anthropic import default_reading
from tests.digests.fake_openai import COMPLETIONS, FakeOpenAI
from tests.replay_server import Reply

pytestmark = pytest.mark.django_db

RECORDED = Path(__file__).parents[1] / "fixtures" / "llm" / "openai_chat_completion_tool_call.json"


def pending_reading(arxiv_id: str = "2605.00001") -> GuidedReading:
    (version,) = store(make_record(arxiv_id))
    (reading_id,) = readings_create_for_versions(version_ids=[version.pk], dispatch=False)
    return GuidedReading.objects.get(pk=reading_id)


def test_the_real_recorded_function_call_is_read_as_a_structured_reply_with_its_token_counts():
    server = FakeOpenAI().start()
    try:
        server.queue(COMPLETIONS, Reply(body=RECORDED.read_bytes(), content_type="application/json"))
        config = ProviderConfig(name="openai", protocol="openai", api_key=server.api_key, base_url=f"{server.url}/v1")
        schema = {
            "type": "object",
            "properties": {"location": {"type": "string"}},
            "required": ["location"],
            "additionalProperties": False,
        }
        request = StructuredRequest(
            model="gpt-4o",
            system="s",
            user="u",
            tool_name="get_weather",
            tool_description="d",
            schema=schema,
            max_tokens=50,
        )
        reply = OpenAICompatibleProvider(config, timeout=5).complete(request)
    finally:
        server.stop()
    assert reply.data == {"location": "Shanghai"}
    assert (reply.model, reply.input_tokens, reply.output_tokens) == ("gpt-4o-2024-08-06", 91, 14)


def test_the_stand_in_answers_with_the_fields_of_the_recorded_reply():
    recorded = json.loads(RECORDED.read_text())
    server = FakeOpenAI()
    params = {
        "model": OPENAI_MODEL,
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "<abstract>A. B. C.</abstract>"}],
        "tools": [{"type": "function", "function": {"name": "record_guided_reading", "parameters": {}}}],
        "tool_choice": {"type": "function", "function": {"name": "record_guided_reading"}},
    }
    made = server.completion_for(params)
    assert set(made) >= set(recorded) - {"usage"} and set(made["usage"]) >= {"prompt_tokens", "completion_tokens"}
    assert set(made["choices"][0]) == set(recorded["choices"][0])
    assert set(made["choices"][0]["message"]) == set(recorded["choices"][0]["message"])
    call = made["choices"][0]["message"]["tool_calls"][0]
    recorded_call = recorded["choices"][0]["message"]["tool_calls"][0]
    assert set(call) == set(recorded_call) and set(call["function"]) == set(recorded_call["function"])
    assert isinstance(call["function"]["arguments"], str)  # a JSON string, as the API writes it


def test_json_mode_repairs_an_invalid_reply_once_and_stores_the_valid_one(settings, monkeypatch):
    server = start_stand_in("openai-json", settings, monkeypatch)
    replies = iter([{"zh": {"takeaway": "只有一句"}, "en": "not an object"}])
    server.reading_for = lambda params: next(replies, None) or default_reading(params)
    try:
        reading = pending_reading()
        assert reading_write(reading_id=reading.pk) == Outcome.DONE
        first, repair = server.requests_json()
    finally:
        server.stop()
    assert first["response_format"] == {"type": "json_object"} and "tools" not in first
    # The repair carries the invalid reply and what was wrong with it.
    assert [m["role"] for m in repair["messages"]] == ["system", "user", "assistant", "user"]
    assert '"not an object"' in repair["messages"][2]["content"]
    assert repair["messages"][3]["content"].startswith(REPAIR_INSTRUCTION.split("{error}")[0])
    assert "schema" in repair["messages"][3]["content"]
    reading.refresh_from_db()
    assert reading.status == GuidedReading.Status.DONE and reading.provider == "openai"
    assert reading.input_tokens == sum(u["input_tokens"] for u in server.usage_log)  # both tries paid, both counted


def test_an_openai_compatible_provider_without_a_batch_api_writes_a_long_backlog_one_by_one(settings, monkeypatch):
    server = start_stand_in("openai", settings, monkeypatch)
    settings.PAPERTRAIL_SUMMARY_BATCH_THRESHOLD = 1
    published = []
    monkeypatch.setattr("digests.tasks.summarize_version.delay", lambda reading_id: published.append(reading_id))
    try:
        assert readings_enqueue([1, 2, 3]) == "enqueued 3 readings"
    finally:
        server.stop()
    assert published == [1, 2, 3]


def test_two_openai_compatible_endpoints_at_once_each_with_its_own_key_budget_and_currency(settings, monkeypatch):
    deepseek, ollama = FakeOpenAI(api_key="sk-deepseek").start(), FakeOpenAI(api_key="ollama").start()
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-deepseek")
    monkeypatch.setenv(
        "PAPERTRAIL_LLM_ENDPOINTS",
        json.dumps(
            {
                "deepseek": {
                    "base_url": f"{deepseek.url}/v1",
                    "api_key_env": "DEEPSEEK_API_KEY",
                    "currency": "¥",
                    "daily_budget": 20,
                    "price": [2, 3],
                },
                "ollama": {"base_url": f"{ollama.url}/v1", "structured": "json", "price": [0, 0], "daily_budget": 0},
            }
        ),
    )
    ollama.api_key = "local"  # a local server takes any key; the SDK sends this word
    settings.PAPERTRAIL_LLM_ENDPOINTS = env_json_endpoints("PAPERTRAIL_LLM_ENDPOINTS")
    settings.ANTHROPIC_API_KEY = ""
    settings.PAPERTRAIL_LLM_READINGS = "deepseek:deepseek-chat"
    settings.PAPERTRAIL_SUMMARY_SCOPE = "ai"
    try:
        first = pending_reading("2605.00010")
        assert reading_write(reading_id=first.pk) == Outcome.DONE
        settings.PAPERTRAIL_LLM_READINGS = "ollama:qwen2.5:7b"
        second = pending_reading("2605.00011")
        assert reading_write(reading_id=second.pk) == Outcome.DONE
    finally:
        deepseek.stop()
        ollama.stop()
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.provider, first.model, first.currency) == ("deepseek", "deepseek-chat", "¥")
    assert (second.provider, second.model, second.cost_usd) == ("ollama", "qwen2.5:7b", Decimal("0"))
    (usage,) = deepseek.usage_log
    assert first.cost_usd == (2 * Decimal(usage["input_tokens"]) + 3 * Decimal(usage["output_tokens"])) / 1_000_000
    assert "response_format" in json.loads(ollama.requests_to(COMPLETIONS)[0].body)  # JSON mode for Ollama
    spend = dict(DailySpend.objects.values_list("provider", "spent_usd"))
    assert spend == {"deepseek": first.cost_usd, "ollama": Decimal("0")}
    status = llm_status()
    assert (status["provider"], status["model"], status["currency"]) == ("ollama", "qwen2.5:7b", "$")
    assert {(row["provider"], row["model"]) for row in status["written_today"]} == {
        ("deepseek", "deepseek-chat"),
        ("ollama", "qwen2.5:7b"),
    }


def test_each_task_names_its_provider_and_model_and_the_defaults_keep_anthropic(settings):
    assert registry.task_choice("readings") == ("anthropic", settings.PAPERTRAIL_SUMMARY_MODEL)
    assert registry.task_choice("ask") == ("anthropic", settings.PAPERTRAIL_SUMMARY_MODEL)
    settings.PAPERTRAIL_LLM_ASK = "openai:deepseek-reasoner"
    assert registry.task_choice("ask") == ("openai", "deepseek-reasoner")
    assert registry.task_choice("readings")[0] == "anthropic"
    settings.OPENAI_API_KEY = ""
    assert registry.is_configured("ask") is False and registry.missing_key_setting("ask") == "OPENAI_API_KEY"


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("not json", "not JSON"),
        ('{"openai": {"base_url": "https://x.example"}}', "built in"),
        ('{"deepseek": {"base_url": "ftp://x.example"}}', "base_url"),
        ('{"deepseek": {"base_url": "https://x.example", "structured": "xml"}}', "structured"),
        ('{"deepseek": {"base_url": "https://x.example", "price": "cheap"}}', "price"),
        ('{"deepseek": {"base_url": "https://x.example", "api_key": "sk-in-the-clear"}}', "keys among"),
    ],
)
def test_a_bad_endpoint_declaration_is_refused_at_start_naming_what_is_wrong(monkeypatch, value, words):
    monkeypatch.setenv("PAPERTRAIL_LLM_ENDPOINTS", value)
    with pytest.raises(ImproperlyConfigured, match=words):
        env_json_endpoints("PAPERTRAIL_LLM_ENDPOINTS")
