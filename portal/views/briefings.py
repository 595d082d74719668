"""`/briefings/<kind>/`: exactly the papers behind one overview number, for the
current window or for a past one (`?end=`, Beijing time)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from portal.pagination import CursorError, bounded_count, keyset_page
from portal.selectors import BRIEFING_KINDS, BRIEFING_SORT, attach_records, briefing_cards, briefing_papers
from portal.stats.overview import window_counts
from portal.stats.windows import WindowError, current_window, parse_window_end, window_ending

BRIEFING_PAGE_SIZE = 50
BRIEFING_TITLES = {
    "new": _("New papers"),
    "ai": _("New AI-related papers"),
    "revisions": _("Revisions of papers already in the library"),
    "readings": _("New AI guided readings"),
}


BRIEFING_COUNT_CAP = 100_000


@require_GET
def briefing(request: HttpRequest, kind: str) -> HttpResponse:
    if kind not in BRIEFING_KINDS:
        raise Http404(_("There is no such briefing."))
    now = timezone.now()
    context: dict = {"kind": kind, "kinds": [(k, BRIEFING_TITLES[k]) for k in BRIEFING_KINDS]}
    context["title"] = BRIEFING_TITLES[kind]
    end_text = request.GET.get("end", "").strip()
    try:
        window = window_ending(parse_window_end(end_text, now=now)) if end_text else current_window(now)
    except WindowError as exc:
        return render(request, "portal/briefing.html", {**context, "errors": [str(exc)]}, status=400)
    papers = briefing_papers(kind=kind, window=window)
    try:
        page = keyset_page(
            papers, sort=BRIEFING_SORT[kind], cursor=request.GET.get("cursor") or None, size=BRIEFING_PAGE_SIZE
        )
    except CursorError as exc:
        return render(request, "portal/briefing.html", {**context, "errors": [str(exc)]}, status=400)
    # Exact: the briefing lists the papers behind an overview number (about a day's worth).
    paper_count, _capped = bounded_count(papers, cap=BRIEFING_COUNT_CAP)
    context.update(
        window=window,
        is_current=not end_text,
        previous_end=window.previous().end_param,
        counts=window_counts(window),
        paper_count=paper_count,
        page=page,
        cards=attach_records(briefing_cards(kind=kind, window=window, papers=page.papers), request.user),
    )
    return render(request, "portal/briefing.html", context)
