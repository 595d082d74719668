"""`/` overview and the fragment its numbers refresh from every minute."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from harvest.filters import SORT_UPDATED, sorted_papers
from harvest.models import Paper
from portal.pagination import keyset_page
from portal.selectors import paper_cards
from portal.stats import overview_stats_cached

OVERVIEW_PAPERS = 10


@require_GET
def overview(request: HttpRequest) -> HttpResponse:
    stats = overview_stats_cached()
    page = keyset_page(
        sorted_papers(Paper.objects.all(), SORT_UPDATED), sort=SORT_UPDATED, cursor=None, size=OVERVIEW_PAPERS
    )
    return render(
        request,
        "portal/overview.html",
        {"stats": stats, "cards": paper_cards(page.papers), "next_cursor": page.next_cursor},
    )


@require_GET
def overview_numbers(request: HttpRequest) -> HttpResponse:
    """The statistics block alone, polled by htmx (hx-trigger="every 60s")."""
    return render(request, "portal/_overview_numbers.html", {"stats": overview_stats_cached()})
