"""Each endpoint runs a small fixed number of SQL queries, whatever the page
size (and whatever the number of papers on the page)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from harvest.models import HarvestRun, Paper, Version
from tests.factories import many_papers, pick, reading, run, source

pytestmark = pytest.mark.django_db


@pytest.fixture
def busy_library():
    now = timezone.now()
    many_papers(30, at=now - timedelta(hours=2), abstract="We study sparse attention over long documents.")
    many_papers(30, at=now - timedelta(days=3), start=100, abstract="We study sparse attention over long documents.")
    hf = source("hf_daily", "Hugging Face Daily Papers")
    arxiv = source("arxiv", "arXiv OAI-PMH")
    for paper in Paper.objects.all()[:40]:
        pick(paper, hf)
    for version in Version.objects.all()[:40]:
        reading(version, written_at=now - timedelta(hours=1))
    for hours in range(5):
        run(arxiv, started_at=now - timedelta(hours=hours))
        run(hf, started_at=now - timedelta(hours=hours), status=HarvestRun.Status.FAILED, error="503")
    return now


def count_queries(client, url: str, **headers) -> int:
    with CaptureQueriesContext(connection) as context:
        response = client.get(url, **headers)
    assert response.status_code == 200, response.content
    return len(context.captured_queries)


@pytest.mark.parametrize(
    "url, limit",
    [
        ("/api/v1/papers/?page_size={size}", 5),
        ("/api/v1/papers/?page_size={size}&category=cs.CL&hf=1&revised=0&sort=published", 5),
        # 8: the hybrid search reads the keyword ranking and the newest vectors
        # of the papers and of their readings first.
        ("/api/v1/papers/?page_size={size}&q=sparse", 8),
        ("/api/v1/briefings/new/?page_size={size}", 6),
        ("/api/v1/briefings/readings/?page_size={size}", 6),
    ],
)
def test_paper_lists_run_a_fixed_number_of_queries_whatever_the_page_size(client_api, busy_library, url, limit):
    small = count_queries(client_api, url.format(size=2))
    large = count_queries(client_api, url.format(size=50))
    assert small == large <= limit


def test_a_paper_page_runs_four_queries_whatever_its_versions(client_api, busy_library, django_assert_max_num_queries):
    with django_assert_max_num_queries(4):
        assert client_api.get("/api/v1/papers/2610.00001/").status_code == 200


def test_stats_are_computed_once_a_minute_then_served_from_the_cache(client_api, busy_library):
    assert count_queries(client_api, "/api/v1/stats/") <= 12
    assert count_queries(client_api, "/api/v1/stats/") == 0
    # papers, versions, readings, and the readings by provider and model
    assert count_queries(client_api, "/api/v1/stats/?end=2026-11-01") <= 4


def test_sources_run_a_fixed_number_of_queries(client_api, busy_library, django_assert_max_num_queries):
    with django_assert_max_num_queries(8):  # the last day's readings by provider and model among them
        assert client_api.get("/api/v1/sources/").status_code == 200


def test_a_token_adds_at_most_two_queries(client_api, busy_library, token):
    anonymous = count_queries(client_api, "/api/v1/papers/?page_size=20")
    first = count_queries(client_api, "/api/v1/papers/?page_size=20", HTTP_AUTHORIZATION=f"Bearer {token}")
    again = count_queries(client_api, "/api/v1/papers/?page_size=20", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert first == anonymous + 2  # lookup and last_used_at
    assert again == anonymous + 1  # last_used_at is written at most once a minute
