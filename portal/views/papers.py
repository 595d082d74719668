"""`/papers/` library and `/papers/<arXiv id>/` paper pages, and the paper
page's POST once it has loaded (`/papers/<arXiv id>/opened/`), which records
that a signed-in reader opened it."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.recommend.services import paper_opened
from accounts.records.selectors import paper_citation, record_get
from accounts.records.types import CONTENT_TYPES, SUFFIXES
from accounts.trail.selectors import trail_unread_total
from digests.tasks import search_translation
from harvest.filters import MODE_CHOICES, SORT_CHOICES, SORT_POPULAR, SORT_RELEVANCE, PaperFilterSet
from harvest.hybrid import KEYWORD
from harvest.models import Author
from harvest.query_gloss import gloss
from harvest.search_floor import close_count, is_close, splits_by_closeness
from harvest.search_syntax import looks_like_a_name
from harvest.selectors import version_change
from portal.arxiv_ids import PaperNotFound, identifier_in, identifier_lookup, paper_named, requested_paper
from portal.citation_meta import citation_tags
from portal.forms import saved_filters_query
from portal.pagination import CursorError, bounded_count, keyset_page
from portal.selectors import attach_ratings, attach_records, paper_cards, similar_paper_cards
from portal.stats import overview_stats_cached
from portal.views.ratings import rating_controls_context
from portal.views.records import controls_context

PAGE_SIZES = (10, 20, 50, 100)
DEFAULT_PAGE_SIZE = 20


def page_size(request: HttpRequest) -> int:
    raw = request.GET.get("size", "")
    if not raw:
        return DEFAULT_PAGE_SIZE
    if raw.isdecimal() and int(raw) in PAGE_SIZES:
        return int(raw)
    raise ValueError(
        _("size: use one of %(sizes)s papers per page.") % {"sizes": ", ".join(str(n) for n in PAGE_SIZES)}
    )


@require_GET
def paper_list(request: HttpRequest) -> HttpResponse:
    """The library. A search text that is an identifier (an arXiv id or URL, a
    DOI) leads to the paper's page, or says the library lacks it; a text that
    is an author's name keeps its results and offers that author's papers."""
    query = request.GET.get("q", "").strip()
    target = identifier_in(query) if query else None
    found = identifier_lookup(target) if target is not None else None
    if found is not None and found.path and not found.has_paper:
        return redirect(found.path)
    # A Chinese query's LLM translation once one is stored (asked for on the
    # first search, never waited for): the search fuses it like the gloss.
    translation = search_translation(query) if query and request.GET.get("mode") != KEYWORD else None
    filterset = PaperFilterSet(request.GET, request=request, renderings=[translation] if translation else ())
    context = {
        "filterset": filterset,
        "form": filterset.form,
        "stats": overview_stats_cached(),
        "sort_choices": SORT_CHOICES,
        "mode_choices": MODE_CHOICES,
        "page_sizes": PAGE_SIZES,
    }
    if found is not None:
        # Not in the library (or not that version): the page says so and
        # links to the paper elsewhere; a search for the id would find nothing.
        return render(request, "portal/paper_list.html", {**context, "identifier": found})
    errors = [] if filterset.is_valid() else filterset.error_messages
    size = DEFAULT_PAGE_SIZE
    try:
        size = page_size(request)
    except ValueError as exc:
        errors.append(str(exc))
    if errors:
        return render(request, "portal/paper_list.html", {**context, "errors": errors}, status=400)
    queryset = filterset.qs
    try:
        page = keyset_page(queryset, sort=filterset.chosen_sort, cursor=request.GET.get("cursor") or None, size=size)
    except CursorError as exc:
        return render(request, "portal/paper_list.html", {**context, "errors": [str(exc)]}, status=400)
    close = None
    if splits_by_closeness(page.papers):
        # Only the close papers are "found"; the candidates beyond them are the nearest others.
        count, capped = close_count(queryset), False
        close = {paper.pk for paper in page.papers if is_close(paper)}
    elif filterset.narrows or filterset.chosen_sort == SORT_POPULAR:
        count, capped = page.count or bounded_count(queryset)
    else:
        # The whole library: the total the overview keeps, not a count of it.
        count, capped = context["stats"].totals.papers, False
    context.update(
        sort=filterset.chosen_sort,
        sort_label=dict(SORT_CHOICES)[filterset.chosen_sort],
        page=page,
        cards=attach_ratings(attach_records(paper_cards(page.papers), request.user), request.user),
        count=count,
        count_capped=capped,
        close_count=count if close is not None else None,
        nearest_from=_nearest_from(page, close, first_page=not request.GET.get("cursor"), sort=filterset.chosen_sort),
        size=size,
        follow_query=saved_filters_query(request.GET),
        sort_fell_back=filterset.sort_fell_back,
        popular_window_days=settings.PAPERTRAIL_POPULAR_WINDOW_DAYS,
        author_offer=_author_named(query, filterset.form.cleaned_data.get("author") or ""),
        # What the English-side rankers read for a Chinese query, so that the
        # reader sees what was searched (the keyword mode reads the query only).
        query_gloss=" · ".join(filter(None, [gloss(query), translation])) if filterset.chosen_mode != KEYWORD else "",
    )
    return render(request, "portal/paper_list.html", context)


def _nearest_from(page, close: set[int] | None, *, first_page: bool, sort: str) -> int | None:
    """The id of the page's first paper shown under "nothing closer; the nearest
    are": the first one not close, in the relevance order only (on a later page
    only where the close ones end on it)."""
    if close is None or sort != SORT_RELEVANCE:
        return None
    for position, paper in enumerate(page.papers):
        if paper.pk not in close:
            return paper.pk if position or first_page else None
    return None


def _author_named(query: str, author_filter: str) -> str | None:
    """The stored spelling of the author the query names exactly (ignoring
    case), unless the author filter already asks for them. One indexed look-up
    (harvest's unique index on UPPER(name)), and only for name-shaped queries."""
    if not looks_like_a_name(query):
        return None
    name = " ".join(query.split())
    if " ".join(author_filter.split()).lower() == name.lower():
        return None
    return Author.objects.filter(name__iexact=name).order_by("pk").values_list("name", flat=True).first()


@require_GET
def paper_page(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    try:
        detail, version = requested_paper(arxiv_id)
    except PaperNotFound as exc:
        raise Http404(exc.message) from None
    changes = {change.newer.number: change for change in detail.changes}
    rows = [(v, detail.readings.get(v.pk), changes.get(v.number)) for v in reversed(detail.versions)]
    context = {
        "detail": detail,
        "paper": detail.paper,
        "versions": rows,
        "selected_version": version,
        "similar": similar_paper_cards(detail.paper),
        "citation_tags": citation_tags(paper=detail.paper, versions=detail.versions, shown=version),
        **_owner_record(request, detail),
        **rating_controls_context(request, detail.paper),
    }
    response = render(request, "portal/paper_detail.html", context)
    if request.user.is_authenticated:
        add_never_cache_headers(response)
    return response


def _owner_record(request: HttpRequest, detail) -> dict:
    """The signed-in reader's own record of the paper (nobody else's) and what
    changed since the version they last read (or since `?since=N`). The page
    shows the record as opened, at the latest version; the page's own POST
    once loaded (`paper_opened_view`) stores that, since a GET writes nothing."""
    if not request.user.is_authenticated:
        return {"record_controls": controls_context(request, detail.paper, None, full=True)}
    paper = detail.paper
    record = record_get(user=request.user, paper_id=paper.pk)
    context = {"record_controls": controls_context(request, paper, record, full=True)}
    if record is None:
        return context
    raw_since = request.GET.get("since", "")
    since = int(raw_since) if raw_since.isdecimal() and len(raw_since) < 5 else record.last_read_version
    by_number = {v.number: v for v in detail.versions}
    if since and since < paper.latest_version and since in by_number and paper.latest_version in by_number:
        context["since_change"] = version_change(by_number[since], by_number[paper.latest_version])
    record.last_read_version = paper.latest_version  # shown as opened; paper_opened_view stores it
    return context


@login_required
@require_POST
def paper_opened_view(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """The paper page, loaded by a signed-in reader, says so: the record's
    last read version, the paper's trail cards read, its recommendations seen
    (opening a card or a recommendation only redirects here). `version` is the
    latest version the page showed; when a newer one has arrived since, nothing
    is marked, so that its revision stays unread. Answers with the navigation's
    trail link and its unread count now, which htmx swaps in."""
    try:
        paper = paper_named(arxiv_id)
    except PaperNotFound as exc:
        raise Http404(exc.message) from None
    shown = request.POST.get("version", "")
    if not shown.isdecimal() or len(shown) > 4:
        return _plain(_("version: give the version the page showed."), status=400)
    if int(shown) != paper.latest_version:
        return _plain(_("A newer version of this paper has arrived since the page was loaded: reload it."), status=409)
    paper_opened(user=request.user, paper=paper)
    context = {"unread": trail_unread_total(user=request.user), "oob": True}
    return render(request, "portal/_nav_trail_link.html", context)


@require_GET
def paper_cite(request: HttpRequest, arxiv_id: str, format: str) -> HttpResponse:
    """`/papers/<id>/cite.bib` and `cite.ris`: the paper as a citation file,
    for anyone, from the writers the research record's export uses."""
    try:
        paper = paper_named(arxiv_id)
    except PaperNotFound as exc:
        raise Http404(exc.message) from None
    response = HttpResponse(paper_citation(paper=paper, format=format), content_type=CONTENT_TYPES[format])
    filename = "arXiv-" + paper.arxiv_id.replace("/", "-") + "." + SUFFIXES[format]
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _plain(message: str, *, status: int) -> HttpResponse:
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
