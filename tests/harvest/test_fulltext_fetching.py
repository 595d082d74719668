"""Reading full text from arXiv, politely and within bounds, against the local
stand-in server (tests/replay_server.py) serving a real recorded arXiv HTML
page and real arXiv PDFs: HTML first, the PDF where there is no HTML; one
request every ARXIV_REQUEST_DELAY seconds (observed through an injected clock
and sleeper, not wall time); Retry-After honoured; a conditional request
answered 304 keeps the stored text; a decompression bomb, a 500 MB PDF and a
page that never ends cost a bounded read and are recorded once as failures,
never retried in a loop."""

from __future__ import annotations

import gzip
import itertools
import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from harvest.fulltext.fetching import make_session
from harvest.fulltext.models import FullText
from harvest.fulltext.selectors import full_text_document
from harvest.fulltext.services import fetch_waiting, request_full_text
from harvest.fulltext.tasks import LOCK, fetch_full_texts
from harvest.models import Paper
from tests.factories import record, store, version
from tests.replay_server import Reply, fixture_bytes

pytestmark = pytest.mark.django_db

HTML_PAGE = gzip.decompress(fixture_bytes("fulltext/2501.11120v1.html.gz"))
PDF = fixture_bytes("fulltext/2304.02623v1.pdf")
NO_HTML = Reply(status=404, body=b"No HTML for this version", content_type="text/html")


class Clock:
    """A monotonic clock that moves only when the session sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds


@pytest.fixture
def arxiv(replay_server, settings):
    settings.PAPERTRAIL_ARXIV_HTML_URL = f"{replay_server.url}/html"
    settings.PAPERTRAIL_ARXIV_PDF_URL = f"{replay_server.url}/pdf"
    settings.ARXIV_REQUEST_DELAY = 3.0
    return replay_server


@pytest.fixture
def clock() -> Clock:
    return Clock()


def session(clock: Clock, **overrides):
    return make_session(sleep=clock.sleep, clock=clock, **overrides)


def wanted(*arxiv_ids: str, reason: str = FullText.Reason.SAVED) -> list[int]:
    store(*(record(a) for a in arxiv_ids), at=timezone.now())
    ids = [version(a, 1).id for a in arxiv_ids]
    request_full_text(version_ids=ids, reason=reason)
    return ids


def row(version_id: int) -> FullText:
    return FullText.objects.get(version_id=version_id)


def test_the_html_rendering_is_read_and_stored_compressed(arxiv, clock):
    (vid,) = wanted("2501.11120")
    arxiv.queue("/html/2501.11120v1", Reply(body=HTML_PAGE, content_type="text/html", headers={"ETag": '"abc"'}))
    outcome = fetch_waiting(session=session(clock))
    assert outcome.read == 1
    stored = row(vid)
    assert (stored.status, stored.origin, stored.etag, stored.reasons) == ("done", "html", '"abc"', ["saved"])
    assert 0 < stored.stored_bytes < len(HTML_PAGE) / 5
    document = full_text_document(version_id=vid)
    assert document.section("S3.SS1").number == "3.1"
    request = arxiv.requests_to("/html/2501.11120v1")[0]
    assert "full-text reader" in request.headers["User-Agent"]
    assert arxiv.requests_to("/pdf/2501.11120v1") == []


def test_without_html_the_pdf_is_read_with_the_papers_licence(arxiv, clock):
    (vid,) = wanted("2304.02623")
    Paper.objects.filter(arxiv_id="2304.02623").update(license="http://creativecommons.org/licenses/by/4.0/")
    arxiv.queue("/html/2304.02623v1", NO_HTML)
    arxiv.queue("/pdf/2304.02623v1", Reply(body=PDF, content_type="application/pdf"))
    fetch_waiting(session=session(clock))
    stored = row(vid)
    assert (stored.status, stored.origin) == ("done", "pdf")
    assert stored.licence == "http://creativecommons.org/licenses/by/4.0/"
    assert ("1", "INTRODUCTION") in [(s.number, s.heading) for s in full_text_document(version_id=vid).sections]


def test_requests_are_three_seconds_apart(arxiv, clock):
    ids = wanted("2601.00001", "2601.00002", "2601.00003")
    for n in (1, 2, 3):
        arxiv.queue(f"/html/2601.0000{n}v1", Reply(body=HTML_PAGE, content_type="text/html"))
    assert fetch_waiting(session=session(clock)).read == 3
    # The first request goes at once; each next one waits the whole delay.
    assert clock.sleeps == [3.0, 3.0]
    assert all(row(vid).status == "done" for vid in ids)


def test_a_503_with_retry_after_is_waited_out(arxiv, clock):
    (vid,) = wanted("2601.00004")
    arxiv.queue(
        "/html/2601.00004v1",
        Reply(status=503, body=b"busy", headers={"Retry-After": "7"}),
        Reply(body=HTML_PAGE, content_type="text/html"),
    )
    fetch_waiting(session=session(clock))
    assert 7.0 in clock.sleeps
    assert row(vid).status == "done"


def test_a_long_retry_after_stops_the_run_and_keeps_the_rest_waiting(arxiv, clock, settings):
    settings.HTTP_MAX_RETRY_AFTER = 60
    first, second = wanted("2601.00005", "2601.00006")
    arxiv.queue("/html/2601.00005v1", Reply(status=429, body=b"slow down", headers={"Retry-After": "3600"}))
    outcome = fetch_waiting(session=session(clock))
    assert outcome.stopped_by_rate_limit
    assert (row(first).status, row(first).failure, row(first).attempts) == ("waiting", "rate_limited", 1)
    assert row(first).next_attempt_at > timezone.now() + timedelta(minutes=59)
    assert row(second).status == "waiting" and row(second).attempts == 0
    assert arxiv.requests_to("/html/2601.00006v1") == []


def test_a_text_read_before_is_asked_for_conditionally_and_a_304_keeps_it(arxiv, clock):
    (vid,) = wanted("2501.11120")
    arxiv.queue(
        "/html/2501.11120v1",
        Reply(body=HTML_PAGE, content_type="text/html", headers={"ETag": '"v1"', "Last-Modified": "Sun, 19 Jan 2025"}),
    )
    fetch_waiting(session=session(clock))
    stored_before = bytes(row(vid).document)
    later = timezone.now() + timedelta(days=40)
    assert request_full_text(version_ids=[vid], reason=FullText.Reason.ASKED, now=later) == 1
    arxiv.queue("/html/2501.11120v1", Reply(status=304, body=b""))
    outcome = fetch_waiting(session=session(clock), now=later)
    assert outcome.unchanged == 1
    conditional = arxiv.requests_to("/html/2501.11120v1")[-1]
    assert conditional.headers["If-None-Match"] == '"v1"'
    assert conditional.headers["If-Modified-Since"] == "Sun, 19 Jan 2025"
    assert bytes(row(vid).document) == stored_before and row(vid).status == "done"
    assert row(vid).reasons == ["saved", "asked"]


def test_a_decompression_bomb_is_refused_and_recorded_once(arxiv, clock, settings):
    settings.PAPERTRAIL_FULLTEXT_MAX_BYTES = 1024 * 1024
    bomb = gzip.compress(b"\0" * (50 * 1024 * 1024))  # 50 MiB of zeros in about 50 KiB
    (vid,) = wanted("2601.00007")
    arxiv.default(
        "/html/2601.00007v1", Reply(body=bomb, headers={"Content-Encoding": "gzip"}, content_type="text/html")
    )
    fetch_waiting(session=session(clock))
    failed = row(vid)
    assert (failed.status, failed.failure, failed.attempts) == ("failed", "too_large", 1)
    assert "over the limit of 1,048,576 bytes (decoded)" in failed.error
    # Asked for again, run again: nothing is fetched, the failure stands.
    request_full_text(version_ids=[vid], reason=FullText.Reason.ASKED)
    fetch_waiting(session=session(clock))
    assert len(arxiv.requests_to("/html/2601.00007v1")) == 1
    assert row(vid).status == "failed"


def test_a_500_mb_pdf_is_refused_before_it_is_read(arxiv, clock):
    (vid,) = wanted("2601.00008")
    arxiv.queue("/html/2601.00008v1", NO_HTML)
    sent: list[int] = []

    def huge():
        for _ in range(500 * 16):  # 500 MB in 64 KiB chunks, if anyone read it
            sent.append(1)
            yield b"%PDF" + b"\0" * (64 * 1024 - 4)

    arxiv.queue(
        "/pdf/2601.00008v1",
        Reply(stream=huge, declared_length=500 * 1024 * 1024, content_type="application/pdf"),
    )
    fetch_waiting(session=session(clock))
    failed = row(vid)
    assert (failed.status, failed.failure) == ("failed", "too_large")
    assert "524,288,000 bytes, over the limit" in failed.error
    assert len(sent) < 100  # the declared size refused it: a few buffers at most left the server


def test_a_page_that_never_ends_is_cut_off_at_the_deadline(arxiv, clock, settings):
    settings.PAPERTRAIL_FULLTEXT_SECONDS = 1.0
    (vid,) = wanted("2601.00009")

    def endless():
        for _ in itertools.count():
            time.sleep(0.05)  # the remote server's pace, not synchronisation
            yield b"<p>more</p>"

    arxiv.queue("/html/2601.00009v1", Reply(stream=endless, content_type="text/html"))
    started = time.monotonic()
    fetch_waiting(session=session(clock))
    assert time.monotonic() - started < 10
    failed = row(vid)
    assert (failed.status, failed.failure) == ("failed", "too_slow")
    assert "still arriving after 1 s" in failed.error


def test_a_passing_failure_is_tried_again_later_and_at_most_three_times(arxiv, clock):
    (vid,) = wanted("2601.00010")
    arxiv.default("/html/2601.00010v1", Reply(status=500, body=b"oops"))
    now = timezone.now()
    fetch_waiting(session=session(clock, max_retries=0), now=now)
    assert (row(vid).status, row(vid).attempts, row(vid).failure) == ("waiting", 1, "unavailable")
    # Not before its time: a run at once asks nothing.
    fetch_waiting(session=session(clock, max_retries=0), now=now)
    assert len(arxiv.requests_to("/html/2601.00010v1")) == 1
    fetch_waiting(session=session(clock, max_retries=0), now=now + timedelta(hours=2))
    fetch_waiting(session=session(clock, max_retries=0), now=now + timedelta(hours=9))
    assert (row(vid).status, row(vid).attempts) == ("failed", 3)
    fetch_waiting(session=session(clock, max_retries=0), now=now + timedelta(days=3))
    assert len(arxiv.requests_to("/html/2601.00010v1")) == 3


def test_the_tasks_run_on_their_own_queue_on_a_schedule_that_expires(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["harvest-fetch-full-texts"]
    assert entry["options"]["queue"] == "fulltext" and entry["options"]["expires"] > 0
    assert settings.CELERY_TASK_ROUTES["harvest.fetch_full_texts"] == {"queue": "fulltext"}
    assert settings.CELERY_BEAT_SCHEDULE["harvest-select-full-texts"]["options"]["queue"] == "fulltext"


def test_two_runs_never_overlap(arxiv):
    (vid,) = wanted("2601.00011")
    cache.add(LOCK, "1", timeout=60)
    try:
        assert fetch_full_texts() == "another run is reading"
    finally:
        cache.delete(LOCK)
    assert row(vid).status == "waiting" and arxiv.requests == []
