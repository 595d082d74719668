"""Writing guided readings through the real SDK against the fake API: success,
the error rules (429, 529, invalid replies, auth, spending limit, budget) and
exactly-once under racing workers."""

from __future__ import annotations

import json
import threading
import time
from decimal import Decimal

import pytest
from django.db import connection

from digests import llm
from digests.models import DailySpend, GuidedReading
from digests.selectors import llm_status, readings_for_versions
from digests.services import Outcome, reading_input, reading_write, readings_create_for_versions
from tests.digests.conftest import make_record, store
from tests.digests.fake_anthropic import MESSAGES, error_reply
from tests.replay_server import Reply

pytestmark = pytest.mark.django_db


def pending_reading(arxiv_id: str = "2601.00001", **kwargs) -> GuidedReading:
    (version,) = store(make_record(arxiv_id, **kwargs))[-1:]
    (reading_id,) = readings_create_for_versions(version_ids=[version.pk], dispatch=False)
    return GuidedReading.objects.get(pk=reading_id)


def test_success_stores_a_validated_bilingual_reading_with_tokens_and_cost(fake_anthropic):
    reading = pending_reading()

    assert reading_write(reading_id=reading.pk) == Outcome.DONE

    reading.refresh_from_db()
    assert reading.status == GuidedReading.Status.DONE
    assert set(reading.content) == {"zh", "en"}
    assert reading.content["en"]["method"].startswith("We propose a sparse attention pattern")
    assert reading.content["en"]["changes"] == ""
    assert reading.written_at is not None and reading.model == "claude-sonnet-4-6"  # the default model
    (usage,) = fake_anthropic.usage_log
    assert (reading.input_tokens, reading.output_tokens) == (usage["input_tokens"], usage["output_tokens"])
    expected = llm.cost_usd(model="claude-sonnet-4-6", **usage)
    assert reading.cost_usd == expected > 0
    assert DailySpend.objects.get().spent_usd == expected
    (sent,) = fake_anthropic.message_requests()
    assert sent["tool_choice"] == {"type": "tool", "name": llm.TOOL_NAME}
    assert sent["tools"][0]["input_schema"]["required"] == ["zh", "en"]
    assert sent["tools"][0]["strict"] is True
    assert readings_for_versions(version_ids=[reading.version_id]) == {reading.version_id: reading}


def test_running_again_makes_no_further_call(fake_anthropic):
    reading = pending_reading()
    assert reading_write(reading_id=reading.pk) == Outcome.DONE

    assert reading_write(reading_id=reading.pk) == Outcome.SKIPPED
    assert readings_create_for_versions(version_ids=[reading.version_id], dispatch=False) == []
    assert len(fake_anthropic.requests_to(MESSAGES)) == 1
    assert GuidedReading.objects.count() == 1


def test_a_revision_sends_both_versions_and_keeps_what_changed(fake_anthropic):
    store(make_record("2601.00002", abstract="We study A. Our first result is weak."))
    (v2,) = store(make_record("2601.00002", abstract="We study A and B. Our new result is strong.", versions=2))
    (reading_id,) = readings_create_for_versions(version_ids=[v2.pk], dispatch=False)
    fake_anthropic.reading_for = lambda params: {
        lang: {
            "takeaway": "t",
            "problem": "p",
            "method": "m",
            "results": "r",
            "limitations": "l",
            "changes": "v2 adds B.",
        }
        for lang in ("zh", "en")
    }

    assert reading_write(reading_id=reading_id) == Outcome.DONE

    content = fake_anthropic.message_requests()[0]["messages"][0]["content"]
    assert '<previous_version number="1">' in content and "Our first result is weak." in content
    assert '<current_version number="2">' in content and "Our new result is strong." in content
    assert GuidedReading.objects.get(pk=reading_id).content["en"]["changes"] == "v2 adds B."


def test_429_waits_as_long_as_retry_after_says(fake_anthropic):
    reading = pending_reading()
    fake_anthropic.queue(MESSAGES, error_reply(429, "rate_limit_error", "slow down", headers={"retry-after": "1"}))

    started = time.monotonic()
    assert reading_write(reading_id=reading.pk) == Outcome.DONE
    waited = time.monotonic() - started

    assert waited >= 1.0
    assert len(fake_anthropic.requests_to(MESSAGES)) == 2
    # The refused call costs nothing: only the successful one is counted.
    reading.refresh_from_db()
    assert DailySpend.objects.get().spent_usd == reading.cost_usd
    assert reading.attempts == 2


def test_retry_after_longer_than_allowed_defers_the_reading(fake_anthropic, settings):
    settings.PAPERTRAIL_SUMMARY_MAX_RETRY_AFTER = 5
    reading = pending_reading()
    fake_anthropic.queue(MESSAGES, error_reply(429, "rate_limit_error", "slow down", headers={"retry-after": "3600"}))

    assert reading_write(reading_id=reading.pk) == Outcome.DEFERRED

    reading.refresh_from_db()
    assert reading.status == GuidedReading.Status.PENDING and "retry-after 3600" in reading.error
    assert len(fake_anthropic.requests_to(MESSAGES)) == 1


def test_529_backs_off_and_then_succeeds(fake_anthropic):
    reading = pending_reading()
    overloaded = error_reply(529, "overloaded_error", "Overloaded")
    fake_anthropic.queue(MESSAGES, overloaded, overloaded)

    assert reading_write(reading_id=reading.pk) == Outcome.DONE
    assert len(fake_anthropic.requests_to(MESSAGES)) == 3


def test_529_gives_up_after_a_bounded_number_of_attempts(fake_anthropic, settings):
    settings.PAPERTRAIL_SUMMARY_MAX_ATTEMPTS = 3
    reading = pending_reading()
    fake_anthropic.queue(MESSAGES, *[error_reply(529, "overloaded_error", "Overloaded")] * 3)
    fake_anthropic.queue(MESSAGES, error_reply(500, "api_error", "Internal server error"))

    assert reading_write(reading_id=reading.pk) == Outcome.DEFERRED

    reading.refresh_from_db()
    assert reading.status == GuidedReading.Status.PENDING
    assert "gave up after 3 attempts" in reading.error
    assert len(fake_anthropic.requests_to(MESSAGES)) == 3
    assert DailySpend.objects.get().spent_usd == 0


def test_invalid_json_body_is_retried_once_then_succeeds(fake_anthropic):
    reading = pending_reading()
    fake_anthropic.queue(MESSAGES, Reply(body=b'{"id": "msg_1", "content": [', content_type="application/json"))

    assert reading_write(reading_id=reading.pk) == Outcome.DONE
    assert len(fake_anthropic.requests_to(MESSAGES)) == 2


def test_schema_invalid_reply_twice_fails_and_stores_nothing(fake_anthropic):
    reading = pending_reading()
    fake_anthropic.reading_for = lambda params: {"zh": {"takeaway": "只有一句"}, "en": "not an object"}

    assert reading_write(reading_id=reading.pk) == Outcome.FAILED

    reading.refresh_from_db()
    assert reading.status == GuidedReading.Status.FAILED
    assert reading.content == {} and reading.written_at is None
    assert "invalid reply twice" in reading.error and "schema" in reading.error
    assert len(fake_anthropic.requests_to(MESSAGES)) == 2
    # Both invalid replies were paid for, and are counted.
    assert reading.input_tokens == sum(u["input_tokens"] for u in fake_anthropic.usage_log)
    assert readings_for_versions(version_ids=[reading.version_id]) == {}


def test_a_text_reply_without_the_tool_call_is_invalid(fake_anthropic):
    reading = pending_reading()
    fake_anthropic.raw_content_for = lambda params: [{"type": "text", "text": '{"zh": {"takeaway": "broken'}]

    assert reading_write(reading_id=reading.pk) == Outcome.FAILED
    assert "no record_guided_reading tool call" in GuidedReading.objects.get(pk=reading.pk).error


def test_authentication_error_pauses_summarising_without_retry(fake_anthropic, settings):
    settings.ANTHROPIC_API_KEY = "sk-ant-revoked"
    first, second = pending_reading("2601.00010"), pending_reading("2601.00011")

    assert reading_write(reading_id=first.pk) == Outcome.PAUSED
    assert reading_write(reading_id=second.pk) == Outcome.PAUSED

    assert len(fake_anthropic.requests_to(MESSAGES)) == 1
    status = llm_status()
    assert status["configured"] and status["paused"]
    assert "API key" in status["reason"] and "401" in status["reason"]
    assert GuidedReading.objects.get(pk=first.pk).status == GuidedReading.Status.PENDING


@pytest.mark.parametrize(
    "reply",
    [
        error_reply(
            400,
            "invalid_request_error",
            "You have reached your specified workspace API usage limits. You will regain access on 2026-06-01.",
        ),
        error_reply(429, "rate_limit_error", "Spend limit reached", error_code="enforced_spend_limit_reached"),
    ],
    ids=["400-usage-limit", "429-enforced-spend-limit"],
)
def test_spending_limit_reply_pauses_summarising(fake_anthropic, reply):
    reading = pending_reading()
    fake_anthropic.queue(MESSAGES, reply)

    assert reading_write(reading_id=reading.pk) == Outcome.PAUSED

    assert len(fake_anthropic.requests_to(MESSAGES)) == 1
    status = llm_status()
    assert status["paused"] and "Spending limit" in status["reason"]


@pytest.mark.calendar  # the budget is a day's, in Beijing
def test_daily_budget_stops_new_calls_and_says_so(fake_anthropic, settings):
    first, second = pending_reading("2601.00020"), pending_reading("2601.00021")
    worst = llm.worst_case_cost(reading_input(first.version).params)
    settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD = float(worst + Decimal("0.001"))

    assert reading_write(reading_id=first.pk) == Outcome.DONE
    assert reading_write(reading_id=second.pk) == Outcome.BUDGET

    assert len(fake_anthropic.requests_to(MESSAGES)) == 1
    assert GuidedReading.objects.get(pk=second.pk).status == GuidedReading.Status.PENDING
    status = llm_status()
    assert status["budget_reached"] and "budget" in status["reason"]
    assert status["spent_today_usd"] == GuidedReading.objects.get(pk=first.pk).cost_usd <= status["budget_usd"]
    assert status["backlog"] == 1


def test_one_papers_failure_never_stops_the_others(fake_anthropic):
    readings = [pending_reading(f"2601.0003{i}", abstract=f"Paper {i} studies X. It finds Y.") for i in range(3)]
    fake_anthropic.reading_for = lambda params: (
        {"zh": {}, "en": {}} if "Paper 1 " in json.dumps(params) else _valid_reading()
    )

    outcomes = [reading_write(reading_id=r.pk) for r in readings]

    assert outcomes == [Outcome.DONE, Outcome.FAILED, Outcome.DONE]


def _valid_reading() -> dict:
    section = {"takeaway": "t", "problem": "p", "method": "m", "results": "r", "limitations": "l", "changes": ""}
    return {"zh": dict(section), "en": dict(section)}


@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_version_make_exactly_one_call(fake_anthropic):
    reading = pending_reading()
    start = threading.Barrier(2)
    loser_done = threading.Event()
    # The winner's reply is held until the loser has tried its claim, so the
    # two really overlap while the reading is running.
    original = fake_anthropic._messages

    def held(request):
        reply = original(request)
        reply.before_send = lambda: loser_done.wait(timeout=10)
        return reply

    fake_anthropic.responder(MESSAGES, held)
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
    assert len(fake_anthropic.requests_to(MESSAGES)) == 1
    assert GuidedReading.objects.get(pk=reading.pk).status == GuidedReading.Status.DONE
