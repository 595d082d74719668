"""The library in the admin: every change list and change page answers, none
counts a whole table, searches find papers by id and by words, harvested rows
are read-only, and a source can be run, enabled and disabled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from harvest.admin import COUNT_CAP, BoundedCountPaginator
from harvest.models import Author, CommunityPick, HarvestRun, Paper, Source, Version
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def library():
    now = timezone.now()
    f.store(
        f.record("2611.00001", title="Sparse attention for long documents", categories=["cs.LG", "cs.CL"], versions=2),
        f.record("2611.00002", title="Graph colouring", categories=["math.CO"]),
        f.record("hep-th/9901001", title="Strings", categories=["hep-th"]),
        at=now - timedelta(hours=1),
    )
    arxiv, hf = f.source("arxiv", "arXiv OAI-PMH"), f.source("hf_daily", "Hugging Face Daily Papers")
    f.run(arxiv, started_at=now - timedelta(hours=2), seen=3, new_papers=3)
    f.run(hf, started_at=now - timedelta(hours=1), status=HarvestRun.Status.FAILED, error="HTTP 503")
    f.pick(f.paper("2611.00001"), hf, upvotes=12)
    return now


@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create_superuser("root", "root@example.org", "a long admin password"))
    return client


def changelist(model) -> str:
    return reverse(f"admin:harvest_{model._meta.model_name}_changelist")


def change(obj) -> str:
    return reverse(f"admin:harvest_{obj._meta.model_name}_change", args=[obj.pk])


@pytest.mark.parametrize("model", [Paper, Version, Author, HarvestRun, CommunityPick])
def test_each_change_list_answers_without_counting_a_whole_table(admin_client, library, model):
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(changelist(model))
    assert response.status_code == 200
    unbounded_counts = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].upper().startswith("SELECT COUNT(") and "LIMIT" not in q["sql"].upper()
    ]
    assert unbounded_counts == []
    assert len(queries.captured_queries) < 20


def test_each_change_page_answers(admin_client, library):
    paper = f.paper("2611.00001")
    for obj in (paper, f.version("2611.00001", 2), Author.objects.first(), Source.objects.get(slug="arxiv")):
        assert admin_client.get(change(obj)).status_code == 200
    page = admin_client.get(change(paper)).content.decode()
    # The inlines: both versions, the authors in order, the HF pick.
    assert page.count("Sparse attention for long documents") >= 1 and "Ada Lovelace" in page and ">12<" in page


@pytest.mark.parametrize(
    "term, expected",
    [
        ("2611.00002", ["2611.00002"]),
        ("2611.00001v2", ["2611.00001"]),
        ("https://arxiv.org/abs/hep-th/9901001", ["hep-th/9901001"]),
        ("sparse attention", ["2611.00001"]),
    ],
)
def test_papers_are_found_by_id_or_by_words(admin_client, library, term, expected):
    response = admin_client.get(changelist(Paper), {"q": term})
    assert response.status_code == 200
    shown = [paper.arxiv_id for paper in response.context["cl"].result_list]
    assert shown == expected


def test_papers_filter_by_ai_primary_category_and_revisions(admin_client, library):
    def shown(**params) -> set[str]:
        return {p.arxiv_id for p in admin_client.get(changelist(Paper), params).context["cl"].result_list}

    assert shown(ai_related__exact="1") == {"2611.00001"}
    assert shown(primary="cs.LG") == {"2611.00001"}
    assert shown(primary="cs.CL") == set()  # a cross-list, not the primary category
    assert shown(revised="1") == {"2611.00001"}
    assert shown(revised="0") == {"2611.00002", "hep-th/9901001"}


def test_harvested_papers_cannot_be_added_or_edited_here(admin_client, library):
    paper = f.paper("2611.00002")
    assert admin_client.get(reverse("admin:harvest_paper_add")).status_code == 403
    admin_client.post(change(paper), {"title": "Changed in the admin"})
    paper.refresh_from_db()
    assert paper.title == "Graph colouring"


def test_authors_show_their_paper_counts(admin_client, library):
    response = admin_client.get(changelist(Author), {"q": "Ada"})
    [ada] = response.context["cl"].result_list
    assert ada.name == "Ada Lovelace" and ada.papers == 3


def test_the_paginator_caps_a_filtered_count_and_estimates_a_whole_table(library):
    assert BoundedCountPaginator(Paper.objects.filter(ai_related=True).order_by("pk"), 50).count == 1
    filtered = Paper.objects.filter(pk__in=list(Paper.objects.values_list("pk", flat=True))).order_by("pk")
    assert BoundedCountPaginator(filtered, 50).count == 3 <= COUNT_CAP
    # Never analysed: no estimate, so the capped count; analysed: the estimate.
    assert BoundedCountPaginator(Paper.objects.order_by("pk"), 50).count == 3
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE harvest_paper")
    assert BoundedCountPaginator(Paper.objects.order_by("pk"), 50).count == 3


def test_sources_are_run_enabled_and_disabled_from_the_list(admin_client, library, django_capture_on_commit_callbacks):
    url = changelist(Source)
    arxiv, hf = Source.objects.get(slug="arxiv"), Source.objects.get(slug="hf_daily")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = admin_client.post(url, {"action": "run_now", "_selected_action": [arxiv.pk]}, follow=True)
    assert "Queued a check of arxiv" in response.content.decode() and len(callbacks) == 1
    admin_client.post(url, {"action": "disable", "_selected_action": [hf.pk]})
    hf.refresh_from_db()
    assert not hf.enabled
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        admin_client.post(url, {"action": "run_now", "_selected_action": [hf.pk]})
    assert callbacks == []  # a disabled source is not run
    listing = admin_client.get(url).content.decode()
    assert "failed" in listing and "ok" in listing


def test_a_checkpoint_with_a_bad_date_is_refused(admin_client, library):
    arxiv = Source.objects.get(slug="arxiv")
    data = {"slug": "arxiv", "name": "arXiv OAI-PMH", "enabled": "on", "checkpoint": '{"from": "2026-13-45"}'}
    response = admin_client.post(change(arxiv), data)
    assert response.status_code == 200 and "is not a date YYYY-MM-DD" in response.content.decode()
    data["checkpoint"] = '{"from": "2026-11-20"}'
    assert admin_client.post(change(arxiv), data).status_code == 302
    arxiv.refresh_from_db()
    assert arxiv.checkpoint == {"from": "2026-11-20"}


def test_community_picks_list_their_papers(admin_client, library):
    response = admin_client.get(changelist(CommunityPick))
    assert [pick.paper.arxiv_id for pick in response.context["cl"].result_list] == ["2611.00001"]
