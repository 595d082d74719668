"""`/trail/picks/`: the ranking's cold start from picks. The latest
announcement day's papers in the researcher's categories, a checkbox each;
one POST of up to ten picks, each a thumbs up that seeds the ranking
(accounts.recommend.picks, services.picks_record). GET only shows the page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods

from accounts.recommend.selectors import pick_day, pick_page
from accounts.recommend.services import picks_record
from accounts.recommend.types import MAX_PICKS, InvalidDay, PickPage
from portal.selectors import paper_cards

# The page's inputs as it names them, to name a refused one (the API keeps `day` and `papers`).
PICK_LABELS = {"day": gettext_lazy("arXiv listing day"), "papers": gettext_lazy("Papers you pick")}


def _labelled(field: str, message: str) -> str:
    return _("%(field)s: %(message)s") % {"field": PICK_LABELS.get(field, field), "message": message}


def _render(request: HttpRequest, page: PickPage | None, *, errors=(), chosen=(), status: int = 200) -> HttpResponse:
    groups = []
    if page is not None:
        cards = {card.paper.pk: card for card in paper_cards(page.papers)}
        groups = [(group.category, [cards[paper.pk] for paper in group.papers]) for group in page.groups]
    context = {"page": page, "groups": groups, "errors": list(errors), "chosen": set(chosen), "max_picks": MAX_PICKS}
    response = render(request, "portal/trail_picks.html", context, status=status)
    add_never_cache_headers(response)
    return response


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def picks(request: HttpRequest) -> HttpResponse:
    params = request.POST if request.method == "POST" else request.GET
    try:
        day = pick_day(params.get("day", ""))
    except InvalidDay as error:
        return _render(request, None, errors=[_labelled("day", str(error))], status=400)
    if request.method != "POST":
        return _render(request, pick_page(user=request.user, day=day))
    chosen = request.POST.getlist("papers")
    try:
        result = picks_record(user=request.user, arxiv_ids=chosen, day=day)
    except ValidationError as error:
        errors = [_labelled(field, message) for field, found in error.message_dict.items() for message in found]
        return _render(request, pick_page(user=request.user, day=day), errors=errors, chosen=chosen, status=400)
    messages.success(
        request,
        ngettext(
            "You picked %(n)d paper: your ranking is learnt from it in a few seconds.",
            "You picked %(n)d papers: your ranking is learnt from them in a few seconds.",
            len(result.picked),
        )
        % {"n": len(result.picked)},
    )
    return redirect("portal:trail")
