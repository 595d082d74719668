"""Which versions get a reading, and how the work reaches the "llm" queue:
the harvest's versions_created signal creates pending readings and enqueues
tasks after commit (real publishes to the configured broker)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from celery.signals import after_task_publish
from django.template.loader import render_to_string

from digests.models import GuidedReading
from digests.selectors import llm_status
from digests.services import Outcome, reading_write
from harvest.signals import versions_created
from papertrail.celery import app
from tests.digests.conftest import make_record, store
from tests.digests.fake_anthropic import MESSAGES

pytestmark = pytest.mark.django_db


@pytest.fixture
def published() -> Iterator[list[dict]]:
    """The digests' tasks really published to the broker: name, queue and
    arguments (other apps listen to new versions too, on their own queues)."""
    sent: list[dict] = []

    def record(sender=None, headers=None, routing_key=None, body=None, **kwargs) -> None:
        if headers["task"].startswith("digests."):
            sent.append({"task": headers["task"], "queue": routing_key, "args": list(body[0])})

    after_task_publish.connect(record, weak=False)
    try:
        yield sent
    finally:
        after_task_publish.disconnect(record)
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge("llm")
            conn.default_channel.queue_purge("default")


def test_new_versions_of_ai_papers_get_pending_readings_and_tasks_after_commit(
    fake_anthropic, published, django_capture_on_commit_callbacks
):
    ai, other = store(make_record("2603.00001"), make_record("2603.00002", categories=["math.CO"]))

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        versions_created.send(sender=None, version_ids=[ai.pk, other.pk])
        assert published == []  # nothing leaves before the commit

    assert len([callback for callback in callbacks if callback.__module__.startswith("digests.")]) == 1
    (reading,) = GuidedReading.objects.all()
    assert reading.version_id == ai.pk and reading.status == GuidedReading.Status.PENDING
    assert published == [{"task": "digests.summarize_version", "queue": "llm", "args": [reading.pk]}]
    assert fake_anthropic.requests == []


def test_scope_setting_extends_readings_to_all_of_cs(
    fake_anthropic, published, settings, django_capture_on_commit_callbacks
):
    settings.PAPERTRAIL_SUMMARY_SCOPE = "cs"
    versions = store(make_record("2603.00003", categories=["cs.DS"]), make_record("2603.00004", categories=["cs.CR"]))

    with django_capture_on_commit_callbacks(execute=True):
        versions_created.send(sender=None, version_ids=[v.pk for v in versions])

    assert GuidedReading.objects.count() == 2
    assert [p["task"] for p in published] == ["digests.summarize_version"] * 2


def test_a_backlog_above_the_threshold_goes_to_one_batch_task(
    fake_anthropic, published, settings, django_capture_on_commit_callbacks
):
    settings.PAPERTRAIL_SUMMARY_BATCH_THRESHOLD = 2
    versions = store(*[make_record(f"2603.0001{i}") for i in range(3)])

    with django_capture_on_commit_callbacks(execute=True):
        versions_created.send(sender=None, version_ids=[v.pk for v in versions])

    assert GuidedReading.objects.count() == 3
    assert published == [{"task": "digests.submit_batch", "queue": "llm", "args": []}]


def test_without_a_key_nothing_is_created_called_or_shown(fake_anthropic, published, settings):
    settings.ANTHROPIC_API_KEY = ""
    (version,) = store(make_record("2603.00020"))

    versions_created.send(sender=None, version_ids=[version.pk])

    assert GuidedReading.objects.count() == 0 and published == []
    status = llm_status()
    assert status["configured"] is False and "ANTHROPIC_API_KEY" in status["reason"]
    html = render_to_string("digests/_reading.html", {"reading": None})
    assert "本站未开启 AI 导读" in html and "ANTHROPIC_API_KEY" not in html  # readers get no operator instructions
    assert "未配置" in render_to_string("digests/_llm_status.html", {"llm_status": status})
    assert fake_anthropic.requests == []


def test_without_a_key_an_existing_pending_reading_is_not_written(fake_anthropic, settings):
    (version,) = store(make_record("2603.00021"))
    reading = GuidedReading.objects.create(version=version, prompt_version=settings.PAPERTRAIL_SUMMARY_PROMPT_VERSION)
    settings.ANTHROPIC_API_KEY = ""

    assert reading_write(reading_id=reading.pk) == Outcome.NOT_CONFIGURED
    assert fake_anthropic.requests_to(MESSAGES) == []


def test_a_harvest_run_enqueues_readings_for_the_versions_it_stored_after_each_page_commits(
    fake_anthropic, published, settings, replay_server, django_capture_on_commit_callbacks
):
    """End to end from the harvest: the recorded arXivRaw pages hold no AI
    paper, so the scope is widened to every paper of the library."""
    from harvest.runs import harvest_source
    from tests.harvest.test_oai_harvest import oai_client, serve, three_pages

    settings.PAPERTRAIL_SUMMARY_SCOPE = "cs"
    settings.PAPERTRAIL_SUMMARY_MAX_AGE_DAYS = 0  # the recorded versions are from 2007 to 2014
    serve(replay_server, *three_pages())

    with django_capture_on_commit_callbacks(execute=True):
        run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    readings = GuidedReading.objects.order_by("pk")
    assert run.new_papers == 6 and readings.count() == 12  # every version of the six papers
    assert all(r.status == GuidedReading.Status.PENDING for r in readings)
    assert sorted(p["args"][0] for p in published) == [r.pk for r in readings]
    assert {p["task"] for p in published} == {"digests.summarize_version"}


def test_old_versions_brought_by_a_harvest_get_no_reading(
    fake_anthropic, published, settings, replay_server, django_capture_on_commit_callbacks
):
    from harvest.runs import harvest_source
    from tests.harvest.test_oai_harvest import oai_client, serve, three_pages

    settings.PAPERTRAIL_SUMMARY_SCOPE = "cs"
    settings.PAPERTRAIL_SUMMARY_MAX_AGE_DAYS = 30
    serve(replay_server, *three_pages())

    with django_capture_on_commit_callbacks(execute=True):
        run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run.new_papers == 6
    assert GuidedReading.objects.count() == 0 and published == []
