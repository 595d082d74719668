"""Backlogs through the Message Batches API: submit, collect ended batches at
half price, and send errored or invalid results back for another try."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from digests import llm
from digests.batches import batch_submit, batches_collect
from digests.models import DailySpend, GuidedReading, SummaryBatch
from digests.providers.registry import provider_config
from digests.services import Outcome, reading_write, readings_create_for_versions
from tests.digests.conftest import make_record, start_stand_in, store
from tests.digests.fake_anthropic import BATCHES, MESSAGES
from tests.digests.fake_openai import COMPLETIONS

pytestmark = pytest.mark.django_db


def pending(count: int) -> list[int]:
    versions = store(
        *[make_record(f"2604.000{i:02d}", abstract=f"Paper {i} studies X. It finds Y.") for i in range(count)]
    )
    return readings_create_for_versions(version_ids=[v.pk for v in versions], dispatch=False)


def test_a_batch_is_submitted_collected_and_priced_at_half(fake_anthropic):
    ids = pending(3)

    summary = batch_submit()

    assert len([r for r in fake_anthropic.requests_to(BATCHES) if r.method == "POST"]) == 1
    (batch_id,) = fake_anthropic.batches
    assert summary == f"submitted batch {batch_id} with 3 readings"
    requests = fake_anthropic.batches[batch_id]["requests"]
    assert [r["custom_id"] for r in requests] == [f"reading-{i}" for i in ids]
    assert all(r["params"]["tool_choice"] == {"type": "tool", "name": llm.TOOL_NAME} for r in requests)
    assert set(GuidedReading.objects.values_list("status", flat=True)) == {"running"}
    # Still processing: collecting stores nothing and the readings are not claimable.
    assert batches_collect() == "collected 0 results"
    assert reading_write(reading_id=ids[0]) == Outcome.SKIPPED

    fake_anthropic.end_batch(batch_id)
    assert batches_collect() == "collected 3 results"

    readings = GuidedReading.objects.order_by("id")
    assert [r.status for r in readings] == ["done"] * 3
    for reading, usage in zip(readings, fake_anthropic.usage_log, strict=True):
        assert reading.cost_usd == provider_config("anthropic").cost(model=reading.model, batch=True, **usage)
        assert reading.provider == "anthropic"
    assert DailySpend.objects.get().spent_usd == sum(r.cost_usd for r in readings)
    assert SummaryBatch.objects.get().status == SummaryBatch.Status.ENDED
    assert fake_anthropic.requests_to(MESSAGES) == []


def test_errored_and_invalid_batch_results_go_back_for_one_more_try(fake_anthropic):
    ids = pending(3)
    batch_submit()
    (batch_id,) = fake_anthropic.batches

    def result(item: dict) -> dict:
        if item["custom_id"] == f"reading-{ids[0]}":
            return {
                "type": "errored",
                "error": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            }
        if item["custom_id"] == f"reading-{ids[1]}":
            message = fake_anthropic.message_for(item["params"])
            message["content"][0]["input"] = {"zh": {}, "en": {}}
            return {"type": "succeeded", "message": message}
        return {"type": "expired"}

    fake_anthropic.end_batch(batch_id, result_for=result)
    batches_collect()

    readings = {r.pk: r for r in GuidedReading.objects.all()}
    assert [readings[i].status for i in ids] == ["pending"] * 3
    assert "overloaded_error" in readings[ids[0]].error
    assert readings[ids[1]].error.startswith("invalid reply (batch)")
    assert readings[ids[1]].input_tokens > 0 and readings[ids[1]].content == {}
    # The invalid one has had its retry: one more invalid direct reply fails it.
    fake_anthropic.reading_for = lambda params: {"zh": {}, "en": {}}
    assert reading_write(reading_id=ids[1]) == Outcome.FAILED
    assert len(fake_anthropic.requests_to(MESSAGES)) == 1


def test_without_a_key_no_batch_is_submitted(fake_anthropic, settings):
    pending(2)
    settings.ANTHROPIC_API_KEY = ""

    assert batch_submit() == Outcome.NOT_CONFIGURED
    assert fake_anthropic.requests == []


@pytest.mark.django_db(transaction=True)
def test_two_collectors_of_one_batch_store_and_pay_its_results_once(fake_anthropic):
    ids = pending(3)
    batch_submit()
    (batch_id,) = fake_anthropic.batches
    fake_anthropic.end_batch(batch_id)
    second: dict[str, str] = {}

    def second_collector() -> None:
        try:
            second["summary"] = batches_collect()
        finally:
            connection.close()

    def while_the_first_waits_for_results() -> None:
        # The first collector holds the batch: the second one runs to its end now.
        fake_anthropic.before_results = None
        thread = threading.Thread(target=second_collector)
        thread.start()
        thread.join(timeout=60)

    fake_anthropic.before_results = while_the_first_waits_for_results
    first = batches_collect()

    assert (first, second["summary"]) == ("collected 3 results", "collected 0 results")
    results_fetched = [r for r in fake_anthropic.requests_to(f"{BATCHES}/{batch_id}/results")]
    assert len(results_fetched) == 1
    readings = GuidedReading.objects.filter(pk__in=ids)
    assert [r.status for r in readings] == ["done"] * 3
    assert DailySpend.objects.get().spent_usd == sum(r.cost_usd for r in readings) > 0
    # Collecting again finds nothing to pay for.
    assert batches_collect() == "collected 0 results"
    assert DailySpend.objects.get().spent_usd == sum(r.cost_usd for r in readings)


def test_a_batch_is_collected_from_its_provider_after_the_readings_moved_to_another(fake_anthropic, settings):
    ids = pending(2)
    batch_submit()
    (batch_id,) = fake_anthropic.batches
    settings.OPENAI_API_KEY = "sk-openai-elsewhere"
    settings.PAPERTRAIL_LLM_READINGS = "openai:deepseek-chat"  # no batch API: new readings go one by one
    fake_anthropic.end_batch(batch_id)

    assert batches_collect() == "collected 2 results"

    readings = GuidedReading.objects.filter(pk__in=ids)
    assert {(r.status, r.provider) for r in readings} == {("done", "anthropic")}
    assert SummaryBatch.objects.get().provider == "anthropic"


@pytest.fixture
def openai_batches(settings, monkeypatch):
    """The OpenAI-compatible stand-in, its endpoint declaring OpenAI's Batch API."""
    server = start_stand_in("openai", settings, monkeypatch)
    settings.PAPERTRAIL_OPENAI_BATCHES = True
    try:
        yield server
    finally:
        server.stop()


def test_an_openai_compatible_batch_goes_as_one_jsonl_file_and_is_collected_at_its_discount(openai_batches):
    ids = pending(3)

    summary = batch_submit()

    (batch_id,) = openai_batches.batches
    assert summary == f"submitted batch {batch_id} with 3 readings"
    sent = openai_batches.batches[batch_id]["requests"]
    assert [line["custom_id"] for line in sent] == [f"reading-{i}" for i in ids]
    assert {(line["method"], line["url"]) for line in sent} == {("POST", "/v1/chat/completions")}
    assert all(line["body"]["tool_choice"]["function"]["name"] == llm.TOOL_NAME for line in sent)
    assert batches_collect() == "collected 0 results"  # still validating

    refused = openai_batches.error(400, "invalid_request_error", "This model's maximum context length is exceeded")
    too_long = f"reading-{ids[2]}"
    openai_batches.end_batch(batch_id, error_for=lambda item: refused if item["custom_id"] == too_long else None)
    assert batches_collect() == "collected 3 results"

    done = list(GuidedReading.objects.filter(pk__in=ids[:2]).order_by("id"))
    failed = GuidedReading.objects.get(pk=ids[2])
    config = provider_config("openai")
    for reading, usage in zip(done, openai_batches.usage_log, strict=True):
        assert reading.status == "done" and reading.provider == "openai" and reading.currency == "¥"
        assert reading.cost_usd == config.cost(model=reading.model, batch=True, **usage)
    assert failed.status == "failed" and "maximum context length" in failed.error
    assert DailySpend.objects.get(provider="openai").spent_usd == sum(r.cost_usd for r in done)
    assert openai_batches.requests_to(COMPLETIONS) == []  # no synchronous call was made
