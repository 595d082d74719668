"""A full-text reading whose version's text is stored again (a refresh, a
re-parse) and now differs from the text it was sent is marked stale and
written again once through the upgrade machinery (digests/upgrades.py), on
a real recorded PDF (2304.02623v1, read whole and read from its first two
pages); the same text stored again, or a second change, pays nothing."""

from __future__ import annotations

from functools import cache

import pytest

from digests.models import GuidedReading
from digests.services import Outcome, reading_write, readings_create_for_versions
from digests.upgrades import reading_upgrade
from harvest.fulltext.document import Document
from harvest.fulltext.pdf_parser import parse_pdf
from harvest.fulltext.services import store_document
from harvest.models import Version
from tests.digests.conftest import make_record, store
from tests.digests.fake_anthropic import default_reading
from tests.replay_server import fixture_bytes

pytestmark = pytest.mark.django_db

ARXIV_ID = "2304.02623"


@cache
def pdf_text(pages: int) -> Document:
    return parse_pdf(fixture_bytes(f"fulltext/{ARXIV_ID}v1.pdf"), max_pages=pages, seconds=60)


def full_text_reading(params: dict) -> dict:
    return {
        **default_reading(params),
        "sources": {key: [] for key in ("problem", "method", "results", "limitations", "changes")},
    }


def written(version: Version, document: Document, capture) -> GuidedReading:
    with capture(execute=True):
        store_document(version=version, document=document)
    (reading_id,) = readings_create_for_versions(version_ids=[version.pk], dispatch=False)
    assert reading_write(reading_id=reading_id) == Outcome.DONE
    return GuidedReading.objects.get(pk=reading_id)


def versions(count: int = 1) -> list[Version]:
    document = pdf_text(4)
    store(make_record(ARXIV_ID, title=document.title, abstract=document.abstract or "A paper.", versions=count))
    return list(Version.objects.filter(paper__arxiv_id=ARXIV_ID).order_by("number"))


def test_a_reading_keeps_the_hash_of_what_it_was_sent_and_the_same_text_again_costs_nothing(
    fake_anthropic, published, django_capture_on_commit_callbacks
):
    fake_anthropic.reading_for = full_text_reading
    (version,) = versions()
    reading = written(version, pdf_text(4), django_capture_on_commit_callbacks)
    assert reading.source == "full_text" and len(reading.text_hash) == 64 and not reading.stale

    with django_capture_on_commit_callbacks(execute=True):
        store_document(version=version, document=pdf_text(4))

    reading.refresh_from_db()
    assert (reading.stale, reading.upgrade, published) == (False, "", [])
    assert len(fake_anthropic.message_requests()) == 1


def test_a_changed_text_marks_the_reading_stale_and_writes_it_again_once(
    fake_anthropic, published, django_capture_on_commit_callbacks
):
    fake_anthropic.reading_for = full_text_reading
    (version,) = versions()
    reading = written(version, pdf_text(4), django_capture_on_commit_callbacks)
    first_hash, first_cost = reading.text_hash, reading.cost_usd

    with django_capture_on_commit_callbacks(execute=True):
        store_document(version=version, document=pdf_text(2))

    waiting = GuidedReading.objects.get(pk=reading.pk)
    assert (waiting.stale, waiting.upgrade, waiting.content) == (True, "wanted", reading.content)  # still shown
    assert published == [{"queue": "llm", "args": [reading.pk]}]
    assert reading_upgrade(reading_id=reading.pk) == Outcome.DONE
    again = GuidedReading.objects.get(pk=reading.pk)
    assert (again.stale, again.reread, again.upgrade) == (False, True, "done")
    assert again.text_hash != first_hash and again.cost_usd > first_cost
    first_sent, again_sent = (sent["user"] for sent in fake_anthropic.sent())
    assert len(again_sent) < len(first_sent)  # written from the two pages it now has

    with django_capture_on_commit_callbacks(execute=True):
        store_document(version=version, document=pdf_text(4))

    last = GuidedReading.objects.get(pk=reading.pk)
    assert (last.stale, last.upgrade, last.text_hash) == (True, "done", again.text_hash)  # stale, not paid again
    assert len(published) == 1 and len(fake_anthropic.message_requests()) == 2


def test_a_revisions_reading_goes_stale_when_the_previous_versions_text_changes_its_diff(
    fake_anthropic, published, django_capture_on_commit_callbacks
):
    fake_anthropic.reading_for = full_text_reading
    v1, v2 = versions(2)
    with django_capture_on_commit_callbacks(execute=True):
        store_document(version=v1, document=pdf_text(2))
    reading = written(v2, pdf_text(4), django_capture_on_commit_callbacks)
    assert "<revision_diff>" in fake_anthropic.sent()[-1]["user"]

    with django_capture_on_commit_callbacks(execute=True):
        store_document(version=v1, document=pdf_text(4))

    reading.refresh_from_db()
    assert (reading.stale, reading.upgrade) == (True, "wanted")
    assert published == [{"queue": "llm", "args": [reading.pk]}]


def test_a_stale_reading_waiting_for_the_budget_keeps_its_text_and_its_place(
    fake_anthropic, published, settings, django_capture_on_commit_callbacks
):
    fake_anthropic.reading_for = full_text_reading
    (version,) = versions()
    reading = written(version, pdf_text(4), django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        store_document(version=version, document=pdf_text(2))
    settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD = 0.0001

    assert reading_upgrade(reading_id=reading.pk) == Outcome.BUDGET

    waiting = GuidedReading.objects.get(pk=reading.pk)
    assert (waiting.stale, waiting.upgrade, waiting.reread, waiting.content) == (True, "wanted", False, reading.content)
