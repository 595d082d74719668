"""Writing guided readings through the real SDKs against the stand-ins of
both protocols (Anthropic's Messages API; OpenAI-compatible Chat Completions
with a forced function call, and in JSON mode): success, the error rules
(429, 529, invalid replies, auth, spending limit, budget) and exactly-once
under racing workers. Every test runs against each stand-in."""

from __future__ import annotations

import json
import threading
import time
from decimal import Decimal

import pytest
from django.db import connection

from digests import llm
from digests.models import DailySpend, GuidedReading
from digests.providers.registry import provider_config
from digests.selectors import llm_status, readings_for_versions
from digests.services import Outcome, reading_input, reading_write, readings_create_for_versions
from digests.tasks import summarize_version
from tests.digests.conftest import make_record, store
from tests.replay_server import Reply

pytestmark = pytest.mark.django_db


def pending_reading(arxiv_id: str = "2601.00001", **kwargs) -> GuidedReading:
    (version,) = store(make_record(arxiv_id, **kwargs))[-1:]
    (reading_id,) = readings_create_for_versions(version_ids=[version.pk], dispatch=False)
    return GuidedReading.objects.get(pk=reading_id)


def test_success_stores_a_validated_bilingual_reading_with_tokens_and_cost(stand_in):
    reading = pending_reading()

    assert reading_write(reading_id=reading.pk) == Outcome.DONE

    reading.refresh_from_db()
    assert reading.status == GuidedReading.Status.DONE
    assert set(reading.content) == {"zh", "en"}
    assert reading.content["en"]["method"].startswith("We propose a sparse attention pattern")
    assert reading.content["en"]["changes"] == ""
    assert reading.written_at is not None
    assert (reading.provider, reading.model, reading.currency) == (stand_in.provider, stand_in.model, stand_in.currency)
    (usage,) = stand_in.usage_log
    assert (reading.input_tokens, reading.output_tokens) == (usage["input_tokens"], usage["output_tokens"])
    expected = provider_config(stand_in.provider).cost(model=stand_in.model, **usage)
    assert reading.cost_usd == expected > 0
    spend = DailySpend.objects.get()
    assert (spend.provider, spend.spent_usd) == (stand_in.provider, expected)
    (sent,) = stand_in.sent()
    if sent["tool"] is not None:  # a forced tool or function call carries the schema
        assert sent["tool"] == llm.TOOL_NAME and sent["schema"]["required"] == ["zh", "en"]
    else:  # JSON mode: the schema is in the system prompt, after the fixed one
        assert sent["params"]["response_format"] == {"type": "json_object"}
        assert sent["system"].startswith(llm.SYSTEM_PROMPT) and '"required": ["zh", "en"]' in sent["system"]
    assert readings_for_versions(version_ids=[reading.version_id]) == {reading.version_id: reading}


def test_running_again_makes_no_further_call(stand_in):
    reading = pending_reading()
    assert reading_write(reading_id=reading.pk) == Outcome.DONE

    assert reading_write(reading_id=reading.pk) == Outcome.SKIPPED
    assert readings_create_for_versions(version_ids=[reading.version_id], dispatch=False) == []
    assert len(stand_in.requests_to(stand_in.path)) == 1
    assert GuidedReading.objects.count() == 1


def test_a_revision_sends_both_versions_and_keeps_what_changed(stand_in):
    store(make_record("2601.00002", abstract="We study A. Our first result is weak."))
    (v2,) = store(make_record("2601.00002", abstract="We study A and B. Our new result is strong.", versions=2))
    (reading_id,) = readings_create_for_versions(version_ids=[v2.pk], dispatch=False)
    stand_in.reading_for = lambda params: {
        "zh": {**_valid_reading()["zh"], "changes": "第二版加入 B。"},
        "en": {**_valid_reading()["en"], "changes": "v2 adds B."},
    }

    assert reading_write(reading_id=reading_id) == Outcome.DONE

    content = stand_in.sent()[0]["user"]
    assert '<previous_version number="1">' in content and "Our first result is weak." in content
    assert '<current_version number="2">' in content and "Our new result is strong." in content
    assert GuidedReading.objects.get(pk=reading_id).content["en"]["changes"] == "v2 adds B."


def test_429_waits_as_long_as_retry_after_says(stand_in):
    reading = pending_reading()
    stand_in.queue(stand_in.path, stand_in.error(429, "rate_limit_error", "slow down", headers={"retry-after": "1"}))

    started = time.monotonic()
    assert reading_write(reading_id=reading.pk) == Outcome.DONE
    waited = time.monotonic() - started

    assert waited >= 1.0
    assert len(stand_in.requests_to(stand_in.path)) == 2
    # The refused call costs nothing: only the successful one is counted.
    reading.refresh_from_db()
    assert DailySpend.objects.get().spent_usd == reading.cost_usd
    assert reading.attempts == 2


def test_retry_after_longer_than_allowed_defers_the_reading(stand_in, settings):
    settings.PAPERTRAIL_SUMMARY_MAX_RETRY_AFTER = 5
    reading = pending_reading()
    stand_in.queue(stand_in.path, stand_in.error(429, "rate_limit_error", "slow down", headers={"retry-after": "3600"}))

    assert reading_write(reading_id=reading.pk) == Outcome.DEFERRED

    reading.refresh_from_db()
    assert reading.status == GuidedReading.Status.PENDING and "retry-after 3600" in reading.error
    assert len(stand_in.requests_to(stand_in.path)) == 1


def test_529_backs_off_and_then_succeeds(stand_in):
    reading = pending_reading()
    overloaded = stand_in.error(529, "overloaded_error", "Overloaded")
    stand_in.queue(stand_in.path, overloaded, overloaded)

    assert reading_write(reading_id=reading.pk) == Outcome.DONE
    assert len(stand_in.requests_to(stand_in.path)) == 3


def test_529_gives_up_after_a_bounded_number_of_attempts(stand_in, settings):
    settings.PAPERTRAIL_SUMMARY_MAX_ATTEMPTS = 3
    reading = pending_reading()
    stand_in.queue(stand_in.path, *[stand_in.error(529, "overloaded_error", "Overloaded")] * 3)
    stand_in.queue(stand_in.path, stand_in.error(500, "api_error", "Internal server error"))

    assert reading_write(reading_id=reading.pk) == Outcome.DEFERRED

    reading.refresh_from_db()
    assert reading.status == GuidedReading.Status.PENDING
    assert "gave up after 3 attempts" in reading.error
    assert len(stand_in.requests_to(stand_in.path)) == 3
    assert DailySpend.objects.get().spent_usd == 0


def test_a_time_out_backs_off_and_the_next_attempt_succeeds(stand_in, settings):
    settings.PAPERTRAIL_SUMMARY_TIMEOUT = 1.0
    reading = pending_reading()
    release = threading.Event()
    slow = Reply(status=200, body=b"{}", content_type="application/json", before_send=lambda: release.wait(5))
    stand_in.queue(stand_in.path, slow)
    try:
        assert reading_write(reading_id=reading.pk) == Outcome.DONE
    finally:
        release.set()
    assert len(stand_in.requests_to(stand_in.path)) == 2
    reading.refresh_from_db()
    assert reading.attempts == 2 and DailySpend.objects.get().spent_usd == reading.cost_usd  # the time-out cost nothing


def test_the_task_writes_the_reading_end_to_end(stand_in):
    reading = pending_reading()
    assert summarize_version(reading.pk) == f"reading {reading.pk}: done"
    reading.refresh_from_db()
    assert reading.status == GuidedReading.Status.DONE and reading.provider == stand_in.provider


def test_invalid_json_body_is_retried_once_then_succeeds(stand_in):
    reading = pending_reading()
    stand_in.queue(stand_in.path, Reply(body=b'{"id": "msg_1", "content": [', content_type="application/json"))

    assert reading_write(reading_id=reading.pk) == Outcome.DONE
    assert len(stand_in.requests_to(stand_in.path)) == 2


def test_schema_invalid_reply_twice_fails_and_stores_nothing(stand_in):
    reading = pending_reading()
    stand_in.reading_for = lambda params: {"zh": {"takeaway": "只有一句"}, "en": "not an object"}

    assert reading_write(reading_id=reading.pk) == Outcome.FAILED

    reading.refresh_from_db()
    assert reading.status == GuidedReading.Status.FAILED
    assert reading.content == {} and reading.written_at is None
    assert "invalid reply twice" in reading.error and "schema" in reading.error
    assert len(stand_in.requests_to(stand_in.path)) == 2
    # Both invalid replies were paid for, and are counted.
    assert reading.input_tokens == sum(u["input_tokens"] for u in stand_in.usage_log)
    assert readings_for_versions(version_ids=[reading.version_id]) == {}


def test_a_text_reply_without_the_tool_call_is_invalid(stand_in):
    reading = pending_reading()
    stand_in.text_for = lambda params: '{"zh": {"takeaway": "broken'

    assert reading_write(reading_id=reading.pk) == Outcome.FAILED
    error = GuidedReading.objects.get(pk=reading.pk).error
    assert "no record_guided_reading tool call" in error or "not JSON" in error
    assert len(stand_in.requests_to(stand_in.path)) == 2


def test_authentication_error_pauses_summarising_without_retry(stand_in, settings):
    setattr(settings, stand_in.key_setting, "sk-revoked")
    first, second = pending_reading("2601.00010"), pending_reading("2601.00011")

    assert reading_write(reading_id=first.pk) == Outcome.PAUSED
    assert reading_write(reading_id=second.pk) == Outcome.PAUSED

    assert len(stand_in.requests_to(stand_in.path)) == 1
    status = llm_status()
    assert status["configured"] and status["paused"]
    assert "API key" in status["reason"] and "401" in status["reason"]
    assert GuidedReading.objects.get(pk=first.pk).status == GuidedReading.Status.PENDING


@pytest.mark.parametrize("which", [0, 1], ids=["first-documented-reply", "second-documented-reply"])
def test_spending_limit_reply_pauses_summarising(stand_in, which):
    reading = pending_reading()
    stand_in.queue(stand_in.path, stand_in.spend_limit_replies()[which])

    assert reading_write(reading_id=reading.pk) == Outcome.PAUSED

    assert len(stand_in.requests_to(stand_in.path)) == 1
    status = llm_status()
    assert status["paused"] and "Spending limit" in status["reason"] and stand_in.provider in status["reason"]


@pytest.mark.calendar  # the budget is a day's, in Beijing
def test_daily_budget_stops_new_calls_and_says_so(stand_in, settings):
    first, second = pending_reading("2601.00020"), pending_reading("2601.00021")
    worst = provider_config(stand_in.provider).worst_case_cost(reading_input(first.version).request)
    settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD = settings.PAPERTRAIL_OPENAI_DAILY_BUDGET = float(
        worst + Decimal("0.001")
    )

    assert reading_write(reading_id=first.pk) == Outcome.DONE
    assert reading_write(reading_id=second.pk) == Outcome.BUDGET

    assert len(stand_in.requests_to(stand_in.path)) == 1
    assert GuidedReading.objects.get(pk=second.pk).status == GuidedReading.Status.PENDING
    status = llm_status()
    assert status["budget_reached"] and "budget" in status["reason"]
    assert status["spent_today_usd"] == GuidedReading.objects.get(pk=first.pk).cost_usd <= status["budget_usd"]
    assert status["backlog"] == 1


def test_one_papers_failure_never_stops_the_others(stand_in):
    readings = [pending_reading(f"2601.0003{i}", abstract=f"Paper {i} studies X. It finds Y.") for i in range(3)]
    stand_in.reading_for = lambda params: {"zh": {}, "en": {}} if "Paper 1 " in json.dumps(params) else _valid_reading()

    outcomes = [reading_write(reading_id=r.pk) for r in readings]

    assert outcomes == [Outcome.DONE, Outcome.FAILED, Outcome.DONE]


def _valid_reading() -> dict:
    en = {"takeaway": "t", "problem": "p", "method": "m", "results": "r", "limitations": "l", "changes": ""}
    zh = {
        "takeaway": "要点",
        "problem": "问题",
        "method": "方法",
        "results": "结果",
        "limitations": "局限",
        "changes": "",
    }
    return {"zh": zh, "en": en}


@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_version_make_exactly_one_call(stand_in):
    reading = pending_reading()
    start = threading.Barrier(2)
    loser_done = threading.Event()
    # The winner's reply is held until the loser has tried its claim, so the
    # two really overlap while the reading is running.
    original = stand_in._complete

    def held(request):
        reply = original(request)
        reply.before_send = lambda: loser_done.wait(timeout=10)
        return reply

    stand_in.responder(stand_in.path, held)
    outcomes: list[Outcome] = []

    def worker() -> None:
        try:
            start.wait(timeout=10)
            outcome = reading_write(reading_id=reading.pk)
            outcomes.append(outcome)
            if outcome == Outcome.SKIPPED:
                loser_done.set()
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(outcomes) == [Outcome.DONE, Outcome.SKIPPED]
    assert len(stand_in.requests_to(stand_in.path)) == 1
    assert GuidedReading.objects.get(pk=reading.pk).status == GuidedReading.Status.DONE
