"""`/sources/`: each source's health in words, the library's completeness and
its indexes, for every reader; `/sources/operator/`: the same sources with
their schedules, checkpoints, counts and the site's configuration warnings,
for staff only."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import user_passes_test
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from accounts.alerts.selectors import mail_configured
from digests.selectors import llm_status
from harvest.completeness import announcement_completeness
from harvest.embeddings.selectors import pending_count
from harvest.fulltext.selectors import full_text_status
from harvest.search_index import index_status
from harvest.selectors import source_progress_list
from portal.health import broker_up, cache_up

COMPLETENESS_DAYS = 14


def _shared(progress: list) -> dict:
    return {
        "progress": progress,
        "failing": [item for item in progress if item.is_failing],
        "llm_status": llm_status(),
        "search_index": index_status(),
        "embeddings_pending": pending_count(),
        "completeness": announcement_completeness(days=COMPLETENESS_DAYS),
        "completeness_days": COMPLETENESS_DAYS,
        "full_text": full_text_status(),
        "full_text_for_you": settings.PAPERTRAIL_FULLTEXT_FOR_YOU,
        "full_text_popular": settings.PAPERTRAIL_FULLTEXT_POPULAR,
    }


@require_GET
def sources(request: HttpRequest) -> HttpResponse:
    return render(request, "portal/sources.html", _shared(source_progress_list()))


@require_GET
@user_passes_test(lambda user: user.is_staff)
def sources_operator(request: HttpRequest) -> HttpResponse:
    context = {
        **_shared(source_progress_list()),
        "dependencies": {"broker": broker_up(), "cache": cache_up()},
        "mail_configured": mail_configured(),
    }
    return render(request, "portal/sources_operator.html", context)
