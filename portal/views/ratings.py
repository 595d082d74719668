"""Thumbs up / down on a paper: the cards' and the paper page's form
(`POST /ratings/<arXiv id>/`, value up, down or clear, back to `next`), and
the email alerts' signed "more / less like this" links, which work without
signing in: a GET shows what the link will do and writes nothing, its one
POST button applies the rating. A bad or expired link is a 400 saying so."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.alerts.selectors import rating_link_target
from accounts.alerts.types import InvalidRatingLink
from accounts.models import User
from accounts.recommend.models import Rating
from accounts.recommend.selectors import rating_get
from accounts.recommend.services import RATING_WORDS, rating_clear, rating_set
from harvest.models import Paper
from portal.arxiv_ids import PaperNotFound, requested_paper

CLEAR = "clear"


def _back(request: HttpRequest, paper: Paper) -> HttpResponse:
    """To the page the form was on (its `next`, when it is this site's), at the paper's controls."""
    target = request.POST.get("next", "")
    if not (target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure())):
        target = reverse("portal:paper_detail", args=[paper.arxiv_id])
    return redirect(f"{target.split('#', 1)[0]}#rating-{paper.pk}")


def _bad_value(request: HttpRequest) -> HttpResponse:
    message = _("value: use up, down or clear.")
    response = render(request, "portal/rating_error.html", {"message": message}, status=400)
    add_never_cache_headers(response)
    return response


@login_required
@require_POST
def rate(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Set the reader's rating of a paper, or clear it (pressing a pressed thumb undoes it)."""
    try:
        detail, _version = requested_paper(arxiv_id)
    except PaperNotFound as exc:
        raise Http404(exc.message) from None
    word = request.POST.get("value", "")
    if word == CLEAR:
        rating_clear(user=request.user, paper=detail.paper)
    elif word in RATING_WORDS:
        rating_set(user=request.user, paper=detail.paper, value=RATING_WORDS[word])
    else:
        return _bad_value(request)
    return _back(request, detail.paper)


def rating_controls_context(request: HttpRequest, paper: Paper) -> dict:
    """The paper page's thumbs: the signed-in reader's own rating (nobody else's)."""
    if not request.user.is_authenticated:
        return {}
    found = rating_get(user=request.user, paper_id=paper.pk)
    return {"rating": found.value if found else None}


def _link_language(request: HttpRequest, user: User | None) -> str:
    if request.user.is_authenticated:
        return request.user.language
    return user.language if user is not None else translation.get_language()


@require_http_methods(["GET", "HEAD", "POST"])
def rating_link(request: HttpRequest, token: str) -> HttpResponse:
    """An alert's link: GET asks, POST (its button, CSRF-checked) rates."""
    user = paper = None
    expired = False
    try:
        target = rating_link_target(token)
    except InvalidRatingLink as exc:
        expired = exc.expired
    else:
        user = User.objects.filter(pk=target.user_id, is_active=True).first()
        paper = Paper.objects.filter(pk=target.paper_id).first()
    context = {"days": settings.PAPERTRAIL_RATING_LINK_DAYS, "expired": expired, "paper": paper}
    with translation.override(_link_language(request, user)):
        if user is None or paper is None:
            response = render(request, "portal/rating_link.html", {**context, "invalid": True}, status=400)
        else:
            done = request.method == "POST"
            if done:
                rating_set(user=user, paper=paper, value=target.value)
            context.update(done=done, up=target.value == Rating.Value.UP)
            response = render(request, "portal/rating_link.html", context)
    add_never_cache_headers(response)
    response["X-Robots-Tag"] = "noindex"
    return response
