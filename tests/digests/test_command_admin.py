"""`manage.py summarize` works through the backlog with progress; the admin
lists readings with status and cost and regenerates explicitly."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from digests.budget import llm_pause
from digests.models import GuidedReading
from digests.services import Outcome, reading_write, readings_create_for_versions
from tests.digests.conftest import make_record, store
from tests.digests.fake_anthropic import MESSAGES

pytestmark = pytest.mark.django_db


def pending(count: int) -> list[int]:
    versions = store(
        *[make_record(f"2605.000{i:02d}", abstract=f"Paper {i} studies X. It finds Y.") for i in range(count)]
    )
    return readings_create_for_versions(version_ids=[v.pk for v in versions], dispatch=False)


def test_summarize_writes_the_backlog_with_progress_and_respects_limit(fake_anthropic):
    pending(3)
    out = StringIO()

    call_command("summarize", "--limit", "2", stdout=out)

    text = out.getvalue()
    assert "backlog: 2 readings to write" in text
    assert "[1/2] 2605.00000v1: done (" in text and "[2/2] 2605.00001v1: done (" in text
    assert "summary: 2 done" in text
    assert GuidedReading.objects.filter(status="pending").count() == 1

    again = StringIO()
    call_command("summarize", stdout=again)
    assert "[1/1] 2605.00002v1: done" in again.getvalue()
    call_command("summarize", stdout=StringIO())
    assert len(fake_anthropic.requests_to(MESSAGES)) == 3


def test_summarize_stops_when_paused_and_resumes_on_request(fake_anthropic):
    pending(2)
    llm_pause(reason="Anthropic refused the API key (401).")

    with pytest.raises(CommandError, match="paused: Anthropic refused the API key"):
        call_command("summarize", stdout=StringIO())
    assert fake_anthropic.requests == []

    out = StringIO()
    call_command("summarize", "--resume", stdout=out)
    assert "pause cleared" in out.getvalue() and "summary: 2 done" in out.getvalue()


def test_summarize_days_queues_recent_versions_without_a_reading(fake_anthropic):
    store(make_record("2605.00100"))
    out = StringIO()

    call_command("summarize", "--days", "1", stdout=out)

    assert "1 readings pending for versions of the last 1 days" in out.getvalue()
    assert GuidedReading.objects.get().status == "done"


def test_summarize_without_a_key_says_so_and_calls_nothing(fake_anthropic, settings):
    pending(1)
    settings.ANTHROPIC_API_KEY = ""

    with pytest.raises(CommandError, match="ANTHROPIC_API_KEY is not set"):
        call_command("summarize", stdout=StringIO())
    assert fake_anthropic.requests == []


def test_summarize_rejects_a_bad_limit(fake_anthropic):
    with pytest.raises(CommandError, match="--limit must be at least 1"):
        call_command("summarize", "--limit", "0", stdout=StringIO())


def test_admin_lists_readings_with_status_and_cost(fake_anthropic, admin_client):
    (reading_id,) = pending(1)
    reading_write(reading_id=reading_id)
    reading = GuidedReading.objects.get(pk=reading_id)

    response = admin_client.get(reverse("admin:digests_guidedreading_changelist"))

    assert response.status_code == 200
    html = response.content.decode()
    assert "2605.00000v1" in html and "done" in html and str(reading.cost_usd) in html


def test_admin_reports_the_readings_a_provider_gave_no_valid_reply_for(fake_anthropic, admin_client):
    good, bad = pending(2)
    reading_write(reading_id=good)
    fake_anthropic.reading_for = lambda params: {"zh": {}, "en": {}}
    assert reading_write(reading_id=bad) == Outcome.FAILED

    response = admin_client.get(reverse("admin:digests_guidedreading_changelist") + "?reply=invalid")

    html = response.content.decode()
    assert response.status_code == 200 and "no valid reply in two tries" in html
    assert f"/{bad}/change/" in html and f"/{good}/change/" not in html
    failed = GuidedReading.objects.get(pk=bad)
    assert failed.content == {} and failed.provider == "anthropic" and failed.error.startswith("invalid reply twice")


def test_admin_regenerate_redoes_explicitly_without_a_duplicate(
    fake_anthropic, admin_client, django_capture_on_commit_callbacks
):
    (reading_id,) = pending(1)
    reading_write(reading_id=reading_id)
    paid = GuidedReading.objects.get(pk=reading_id).cost_usd

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = admin_client.post(
            reverse("admin:digests_guidedreading_changelist"),
            {"action": "regenerate", "_selected_action": [reading_id]},
            follow=True,
        )

    assert response.status_code == 200 and "1 readings set to pending" in response.content.decode()
    assert len(callbacks) == 1
    reading = GuidedReading.objects.get(pk=reading_id)
    assert GuidedReading.objects.count() == 1
    assert reading.status == "pending" and reading.content == {} and reading.written_at is None
    assert reading.cost_usd == paid  # what was paid stays on the record
    assert reading_write(reading_id=reading_id) == Outcome.DONE
    assert len(fake_anthropic.requests_to(MESSAGES)) == 2


def test_admin_regenerate_of_an_old_prompt_version_writes_under_the_current_one(fake_anthropic, admin_client, settings):
    (reading_id,) = pending(1)
    reading_write(reading_id=reading_id)
    settings.PAPERTRAIL_SUMMARY_PROMPT_VERSION = "2026-02"

    admin_client.post(
        reverse("admin:digests_guidedreading_changelist"), {"action": "regenerate", "_selected_action": [reading_id]}
    )

    old, new = GuidedReading.objects.order_by("id")
    assert (old.prompt_version, old.status) == ("2026-01", "done")
    assert (new.prompt_version, new.status, new.version_id) == ("2026-02", "pending", old.version_id)
