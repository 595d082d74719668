"""The arXiv OAI-PMH harvest against a local server replaying arXiv's replies."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings

from harvest.models import Author, HarvestRun, Paper, PaperCategory, Source, Version
from harvest.readahead import READ_AHEAD_THREAD
from harvest.runs import harvest_source
from harvest.sources.base import Window
from harvest.sources.http import PoliteSession
from harvest.sources.oai import ArxivOaiSource
from harvest.tasks import run_source
from tests.harvest import oai_pages
from tests.replay_server import Reply

pytestmark = pytest.mark.django_db

RECORDS = oai_pages.recorded_records()
IDS = oai_pages.RECORDED_IDS


def three_pages() -> list[bytes]:
    """The six recorded records over three pages joined by arXiv-style tokens."""
    return [
        oai_pages.list_records_page([RECORDS[i] for i in IDS[0:2]], token="726959|3", cursor=0),
        oai_pages.list_records_page([RECORDS[i] for i in IDS[2:4]], token="726959|5", cursor=2),
        oai_pages.list_records_page([RECORDS[i] for i in IDS[4:6]], token=None, cursor=4),
    ]


def serve(server, *bodies: bytes, status: int = 200) -> None:
    server.queue("/oai", *(Reply(status=status, body=body) for body in bodies))


def oai_client(server, waits: list[float] | None = None, **session_options) -> ArxivOaiSource:
    sleep = waits.append if waits is not None else (lambda seconds: None)
    client = ArxivOaiSource(
        base_url=f"{server.url}/oai", sets=["cs"], http=PoliteSession(sleep=sleep, **session_options)
    )
    if waits is not None:
        # The waits are recorded in this process, so the pages are read here
        # (in a thread) instead of in the reader process a harvest forks.
        client.pages_read_ahead = READ_AHEAD_THREAD
    return client


def library() -> dict[str, dict]:
    """What the library holds, without the times this site stored it."""
    return {
        paper.arxiv_id: {
            "title": paper.title,
            "authors": paper.authors,
            "categories": paper.categories,
            "published": paper.published,
            "updated": paper.updated,
            "versions": [(v.number, v.submitted, v.size, v.title) for v in paper.versions.order_by("number")],
        }
        for paper in Paper.objects.prefetch_related("versions")
    }


@pytest.mark.calendar  # a first run asks from days back from today
def test_harvest_follows_resumption_tokens_and_stores_every_version(replay_server):
    serve(replay_server, *three_pages())

    run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run.status == HarvestRun.Status.OK
    assert (run.pages, run.seen, run.new_papers, run.skipped) == (3, 6, 6, 0)
    requests = replay_server.requests_to("/oai")
    first_from = (datetime.now(UTC).date() - timedelta(days=settings.PAPERTRAIL_FIRST_RUN_DAYS)).isoformat()
    assert requests[0].query == {
        "verb": ["ListRecords"],
        "metadataPrefix": ["arXivRaw"],
        "set": ["cs"],
        "from": [first_from],
    }
    assert [r.param("resumptionToken") for r in requests[1:]] == ["726959|3", "726959|5"]
    assert all(r.headers["User-Agent"].startswith("PaperTrail/") for r in requests)

    paper = Paper.objects.get(arxiv_id="0704.0716")
    assert [v.number for v in paper.versions.all()] == [1, 2, 3, 4]
    assert paper.version_count == 4 and paper.latest_version == 4
    assert paper.published == datetime(2007, 4, 5, 12, 45, 3, tzinfo=UTC)
    assert paper.updated == datetime(2008, 11, 14, 9, 7, 25, tzinfo=UTC)
    assert paper.categories == ["math-ph", "math.MP"] and paper.primary_category == "math-ph"
    assert paper.versions.get(number=4).title == "Limit distributions and scaling functions"
    assert paper.versions.get(number=1).title == ""  # arXivRaw carries only the latest version's text
    shetty = Paper.objects.get(arxiv_id="0704.0471")
    assert shetty.authors == ["D.V. Shetty", "S.J. Yennello", "G.A. Souliotis"]
    assert list(shetty.authorships.order_by("position").values_list("author__name", flat=True)) == shetty.authors
    assert set(PaperCategory.objects.filter(paper=shetty).values_list("category", "is_primary")) == {
        ("nucl-ex", True),
        ("nucl-th", False),
    }
    assert shetty.doi == "10.1103/PhysRevC.76.024606 10.1103/PhysRevC.76.039902"
    assert '" stiff "' in shetty.abstract and "\n" not in shetty.abstract


def test_reharvesting_the_same_window_writes_nothing_new(replay_server):
    serve(replay_server, *three_pages())
    harvest_source(slug="arxiv", client=oai_client(replay_server))
    before = (library(), Version.objects.count(), Author.objects.count(), PaperCategory.objects.count())
    max_ids = (Paper.objects.latest("id").id, Version.objects.latest("id").id)

    serve(replay_server, *three_pages())
    run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run.status == HarvestRun.Status.EMPTY
    assert (run.seen, run.new_papers, run.new_versions, run.updated, run.unchanged) == (6, 0, 0, 0, 6)
    assert (library(), Version.objects.count(), Author.objects.count(), PaperCategory.objects.count()) == before
    assert (Paper.objects.latest("id").id, Version.objects.latest("id").id) == max_ids


def test_a_new_version_of_a_known_paper_adds_exactly_that_version(replay_server):
    serve(replay_server, *three_pages())
    harvest_source(slug="arxiv", client=oai_client(replay_server))
    versions_before = set(Version.objects.values_list("id", flat=True))

    revised = oai_pages.with_new_version(
        RECORDS["0704.0471"], date="Mon, 16 Nov 2026 09:00:00 GMT", size="301kb", title="A revised title"
    )
    serve(replay_server, oai_pages.list_records_page([revised], token=None, response_date="2026-11-17T01:00:00Z"))
    run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert (run.status, run.new_papers, run.new_versions) == (HarvestRun.Status.OK, 0, 1)
    added = Version.objects.exclude(id__in=versions_before)
    assert [(v.paper.arxiv_id, v.number, v.size, v.title) for v in added] == [
        ("0704.0471", 2, "301kb", "A revised title")
    ]
    paper = Paper.objects.get(arxiv_id="0704.0471")
    assert (paper.title, paper.latest_version, paper.version_count) == ("A revised title", 2, 2)
    assert paper.updated == datetime(2026, 11, 16, 9, 0, tzinfo=UTC)
    assert paper.versions.get(number=1).title.startswith("Density dependence")  # what v1 said is kept


def test_incremental_run_asks_from_the_last_response_date_without_until(replay_server):
    serve(replay_server, *three_pages())
    harvest_source(slug="arxiv", client=oai_client(replay_server))
    assert Source.objects.get(slug="arxiv").checkpoint == {"from": "2015-01-06"}

    serve(replay_server, oai_pages.error_reply("ErrorResponseNoRecordsMatch.xml"))
    run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    request = replay_server.requests_to("/oai")[-1]
    assert request.param("from") == "2015-01-06"
    assert request.param("until") is None
    assert run.status == HarvestRun.Status.EMPTY and run.error == ""


def test_explicit_window_is_sent_and_does_not_move_the_incremental_checkpoint(replay_server):
    serve(replay_server, *three_pages())
    window = Window(date_from=datetime(2014, 10, 1).date(), date_until=datetime(2014, 10, 31).date())
    harvest_source(slug="arxiv", client=oai_client(replay_server), window=window)

    first = replay_server.requests_to("/oai")[0]
    assert (first.param("from"), first.param("until")) == ("2014-10-01", "2014-10-31")
    assert Source.objects.get(slug="arxiv").checkpoint == {}


def test_malformed_and_deleted_records_are_skipped_while_the_rest_of_the_page_is_stored(replay_server, caplog):
    page = oai_pages.list_records_page(
        [
            RECORDS["0704.0471"],
            oai_pages.malformed(RECORDS["0704.0716"]),
            oai_pages.deleted(RECORDS["0704.0874"]),
            RECORDS["0704.1109"],
        ],
        token=None,
    )
    serve(replay_server, page)
    # Parsed in the reader process; logged by the run in this one.
    with caplog.at_level(logging.WARNING, logger="harvest.runs"):
        run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run.status == HarvestRun.Status.OK
    assert (run.seen, run.new_papers, run.skipped) == (4, 2, 1)
    assert set(Paper.objects.values_list("arxiv_id", flat=True)) == {"0704.0471", "0704.1109"}
    assert "arxiv: skipped malformed OAI record oai:arXiv.org:0704.0716: " in caplog.text


def test_503_with_retry_after_is_honoured_then_the_page_is_fetched(replay_server):
    replay_server.queue("/oai", Reply(status=503, body=b"busy", headers={"Retry-After": "7"}))
    serve(replay_server, *three_pages())
    waits: list[float] = []

    run = harvest_source(slug="arxiv", client=oai_client(replay_server, waits))

    assert run.status == HarvestRun.Status.OK and run.new_papers == 6
    assert 7.0 in waits
    assert len(replay_server.requests_to("/oai")) == 4


def test_requests_are_spaced_by_the_politeness_delay(replay_server):
    serve(replay_server, *three_pages())
    waits: list[float] = []

    harvest_source(slug="arxiv", client=oai_client(replay_server, waits, delay=3.0))

    assert len(waits) == 2  # before page 2 and page 3, none before the first request
    assert all(2.5 < wait <= 3.0 for wait in waits)


def test_server_errors_are_retried_a_bounded_number_of_times_then_the_run_fails(replay_server):
    replay_server.default("/oai", Reply(status=502, body=b"bad gateway"))
    waits: list[float] = []

    run = harvest_source(slug="arxiv", client=oai_client(replay_server, waits, max_retries=2, backoff_base=1.0))

    assert run.status == HarvestRun.Status.FAILED
    assert "HTTP 502" in run.error
    assert len(replay_server.requests_to("/oai")) == 3
    assert len(waits) == 2 and waits[1] > waits[0]  # backing off


def test_403_stops_the_run_at_once_and_records_the_source_as_failed(replay_server):
    replay_server.default("/oai", Reply(status=403, body=b"forbidden"))

    run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run.status == HarvestRun.Status.FAILED and "HTTP 403" in run.error
    assert len(replay_server.requests_to("/oai")) == 1
    assert Source.objects.get(slug="arxiv").checkpoint == {}


def test_an_oai_error_reply_fails_the_run_with_its_code(replay_server):
    serve(replay_server, oai_pages.error_reply("ErrorResponseBadArgument.xml"))

    run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run.status == HarvestRun.Status.FAILED
    assert run.error.startswith("OAI-PMH error badArgument")


def test_an_unparsable_reply_fails_the_run_and_keeps_earlier_pages(replay_server):
    pages = three_pages()
    serve(replay_server, pages[0], b"<OAI-PMH><ListRecords><record>")

    run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run.status == HarvestRun.Status.FAILED and "unparsable" in run.error
    assert Paper.objects.count() == 2


def test_a_refused_resumption_token_restarts_the_list_from_the_runs_window(replay_server):
    pages = three_pages()
    serve(replay_server, pages[0], oai_pages.error_reply("ErrorResponseBadResumptionToken.xml"), *pages)

    run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run.status == HarvestRun.Status.OK
    assert Paper.objects.count() == 6
    tokens = [r.param("resumptionToken") for r in replay_server.requests_to("/oai")]
    assert tokens == [None, "726959|3", None, "726959|3", "726959|5"]


def test_a_run_of_a_source_whose_lease_is_held_by_a_live_process_is_skipped(replay_server, caplog):
    import os
    import socket

    Source.objects.create(
        slug="arxiv",
        name="arXiv OAI-PMH",
        lease_owner=f"{socket.gethostname()}:{os.getpid()}:other",
        lease_expires_at=datetime(2999, 1, 1, tzinfo=UTC),
    )
    with caplog.at_level(logging.INFO, logger="harvest.runs"):
        run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run is None
    assert "skipped arxiv: another run of this source is in progress" in caplog.text
    assert replay_server.requests == []


@pytest.mark.parametrize(
    "owner, expires",
    [
        ("elsewhere:123:gone", datetime(2000, 1, 1, tzinfo=UTC)),  # expired lease from another host
        (None, datetime(2999, 1, 1, tzinfo=UTC)),  # this host, process gone
    ],
)
def test_a_lease_whose_holder_is_gone_is_taken_over(replay_server, owner, expires):
    import socket
    import subprocess
    import sys

    if owner is None:
        finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
        owner = f"{socket.gethostname()}:{int(finished.stdout)}:dead"
    Source.objects.create(slug="arxiv", name="arXiv OAI-PMH", lease_owner=owner, lease_expires_at=expires)
    serve(replay_server, *three_pages())

    run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run.status == HarvestRun.Status.OK
    source = Source.objects.get(slug="arxiv")
    assert source.lease_owner == "" and source.lease_expires_at is None


def test_the_task_tries_a_failed_request_once_and_is_queued_again_instead_of_sleeping(replay_server, settings):
    settings.ARXIV_OAI_URL = f"{replay_server.url}/oai"
    settings.ARXIV_OAI_SETS = ["cs"]
    settings.ARXIV_REQUEST_DELAY = 0
    replay_server.queue("/oai", Reply(status=503, body=b"busy", headers={"Retry-After": "7"}))
    serve(replay_server, *three_pages())

    outcome = run_source.apply(args=["arxiv"])  # eagerly: the retry runs at once, without its countdown

    # One request, no retry in the worker: the run failed saying why, the task ran again and finished.
    failed, done = HarvestRun.objects.order_by("started_at", "id")
    assert (failed.status, failed.problem, failed.problem_status, failed.retry_in) == ("failed", "http", 503, 7.0)
    assert done.status == HarvestRun.Status.OK and done.new_papers == 6
    assert outcome.successful() and "ok, 6 seen" in outcome.get()
    assert len(replay_server.requests_to("/oai")) == 4
