"""`/trail/recommended/`: the trail's "推荐 / Recommended" tab, papers like
the ones the user saved, each with why, and the marks on them (not
interested, save, open). Another user's recommendation is a 404."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.recommend.models import Recommendation
from accounts.recommend.selectors import recommendation_get, recommendations_for_user, recommender_status
from accounts.recommend.services import (
    MAX_DESCRIPTION,
    recommendation_not_interested,
    recommendation_save,
    recommender_set_description,
    recommender_set_per_tag,
)
from portal.selectors import attach_ratings, paper_cards

PAGE = 20


@login_required
@require_GET
def recommended(request: HttpRequest) -> HttpResponse:
    status = recommender_status(request.user)
    tag_id = None
    raw_tag = request.GET.get("tag", "")
    if raw_tag:
        if not raw_tag.isdecimal() or int(raw_tag) not in {tag.pk for tag in status.tags}:
            raise Http404(_("No such tag."))
        tag_id = int(raw_tag)
    entries = recommendations_for_user(request.user, PAGE, tag_id=tag_id) if status.ready else []
    cards = attach_ratings(paper_cards([entry.paper for entry in entries]), request.user)
    response = render(
        request,
        "portal/trail_recommended.html",
        {
            "status": status,
            "entries": list(zip(entries, cards, strict=True)),
            "tag_id": tag_id,
            "window_days": settings.RECOMMEND_WINDOW_DAYS,
        },
    )
    add_never_cache_headers(response)
    return response


def _own(request: HttpRequest, recommendation_id: int) -> Recommendation:
    found = recommendation_get(user=request.user, recommendation_id=recommendation_id)
    if found is None:
        raise Http404(_("No such recommendation."))
    return found


@login_required
@require_GET
def recommendation_open_view(request: HttpRequest, recommendation_id: int) -> HttpResponse:
    """Opening a recommendation goes to its paper, whose page's own POST once
    loaded marks it seen (a GET writes nothing)."""
    found = _own(request, recommendation_id)
    return redirect("portal:paper_detail", found.paper.arxiv_id)


@login_required
@require_POST
def recommendation_not_interested_view(request: HttpRequest, recommendation_id: int) -> HttpResponse:
    found = _own(request, recommendation_id)
    recommendation_not_interested(user=request.user, recommendation=found)
    messages.success(request, _("Fewer papers like “%(title)s” from now on.") % {"title": found.paper.title})
    return redirect("portal:trail_recommended")


@login_required
@require_POST
def recommendation_save_view(request: HttpRequest, recommendation_id: int) -> HttpResponse:
    found = _own(request, recommendation_id)
    recommendation_save(user=request.user, recommendation=found)
    messages.success(request, _("“%(title)s” is saved to your research record.") % {"title": found.paper.title})
    return redirect("portal:trail_recommended")


@login_required
@require_POST
def recommender_settings(request: HttpRequest) -> HttpResponse:
    recommender_set_per_tag(user=request.user, per_tag=request.POST.get("per_tag", "") in ("1", "on", "true"))
    messages.success(request, _("Saved: your recommendations are retrained in a few seconds."))
    return redirect(reverse("portal:trail_recommended"))


@login_required
@require_POST
def recommender_interests(request: HttpRequest) -> HttpResponse:
    """The researcher's description of their interests, which seeds the ranking."""
    try:
        recommender_set_description(user=request.user, description=request.POST.get("description", ""))
    except ValueError:
        messages.error(request, _("description: at most %(n)d characters.") % {"n": MAX_DESCRIPTION})
        return redirect(f"{reverse('portal:trail_recommended')}#interests")
    messages.success(request, _("Saved: your ranking is retrained from it in a few seconds."))
    return redirect(f"{reverse('portal:trail_recommended')}#interests")
