"""`/sources/`: the progress and health of every source, of the full-text
index that follows the harvest, and of guided readings."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from accounts.alerts.mail import mail_configured
from digests.selectors import llm_status
from harvest.completeness import announcement_completeness
from harvest.embeddings.selectors import pending_count
from harvest.search_index import index_status
from harvest.selectors import source_progress_list
from portal.health import broker_up, cache_up

COMPLETENESS_DAYS = 14


@require_GET
def sources(request: HttpRequest) -> HttpResponse:
    progress = source_progress_list()
    return render(
        request,
        "portal/sources.html",
        {
            "progress": progress,
            "failing": [item for item in progress if item.is_failing],
            "llm_status": llm_status(),
            "search_index": index_status(),
            "embeddings_pending": pending_count(),
            "completeness": announcement_completeness(days=COMPLETENESS_DAYS),
            "completeness_days": COMPLETENESS_DAYS,
            "dependencies": {"broker": broker_up(), "cache": cache_up()},
            "mail_configured": mail_configured(),
        },
    )
