"""Delivery pages: the one-click unsubscribe link of an alert (no sign-in:
the signed token names the user and the follow, or every alert; a GET
shows a confirmation, a POST unsubscribes, which is also what a mail client
does for RFC 8058's List-Unsubscribe-Post), and the /me/ actions of the
delivery block (rotate the feed secret, resubscribe, mail a failing address
again, the weekly alert's weekday)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from accounts.alerts.models import AlertSettings
from accounts.alerts.selectors import alert_settings_of, feed_links, mail_configured, unsubscribe_target
from accounts.alerts.services import (
    alert_address_retry,
    alert_unsubscribed_follows,
    alert_weekly_day_set,
    alerts_resubscribe,
    alerts_unsubscribe,
    feed_secret_rotate,
)
from accounts.follows.models import Follow
from accounts.models import User


def _target(token: str) -> tuple[User, Follow | None]:
    found = unsubscribe_target(token)
    if found is None:
        raise Http404(_("This unsubscribe link is not valid."))
    user = User.objects.filter(pk=found[0], is_active=True).first()
    if user is None:
        raise Http404(_("This unsubscribe link is not valid."))
    follow = None
    if found[1] is not None:
        follow = Follow.objects.filter(user=user, pk=found[1]).first()
        if follow is None:
            raise Http404(_("This follow no longer exists."))
    return user, follow


# No CSRF token: a mail client's one-click POST carries none, and the signed
# token in the path is what authorises it (it can only unsubscribe).
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    user, follow = _target(token)
    done = request.method == "POST"
    if done:
        alerts_unsubscribe(user=user, follow_id=follow.pk if follow else None)
    with translation.override(request.user.language if request.user.is_authenticated else user.language):
        response = render(request, "portal/unsubscribe.html", {"follow": follow, "done": done, "token": token})
    add_never_cache_headers(response)
    response["X-Robots-Tag"] = "noindex"
    return response


@login_required
@require_POST
def feed_rotate(request: HttpRequest) -> HttpResponse:
    feed_secret_rotate(user=request.user)
    messages.success(request, _("New feed addresses made; the old ones no longer work."))
    return redirect(reverse("accounts:me") + "#delivery")


@login_required
@require_POST
def resubscribe(request: HttpRequest) -> HttpResponse:
    raw = request.POST.get("follow", "")
    if raw and not raw.isdecimal():
        raise Http404(_("No such follow."))
    follow_id = int(raw) if raw else None
    if follow_id is not None and not Follow.objects.filter(user=request.user, pk=follow_id).exists():
        raise Http404(_("No such follow."))
    if alerts_resubscribe(user=request.user, follow_id=follow_id):
        messages.success(request, _("Email alerts resumed."))
    return redirect(reverse("accounts:me") + "#delivery")


@login_required
@require_POST
def address_retry(request: HttpRequest) -> HttpResponse:
    if alert_address_retry(user=request.user):
        messages.success(request, _("Alerts will be mailed to your address again."))
    return redirect(reverse("accounts:me") + "#delivery")


@login_required
@require_POST
def weekly_day(request: HttpRequest) -> HttpResponse:
    raw = request.POST.get("weekly_day", "")
    if not raw.isdecimal() or int(raw) not in AlertSettings.Weekday.values:
        messages.error(request, _("weekly_day: choose a weekday from Monday to Friday."))
        return redirect(reverse("accounts:me") + "#delivery")
    alert_weekly_day_set(user=request.user, weekday=int(raw))
    messages.success(request, _("Weekly alert day saved."))
    return redirect(reverse("accounts:me") + "#delivery")


def delivery_context(user: User) -> dict:
    """The /me/ page's delivery block: feed URLs, alert state, what was unsubscribed."""
    alert_settings = alert_settings_of(user)
    mailed = Follow.objects.filter(user=user, delivery__in=["daily", "weekly"]).count()
    return {
        "alert_settings": alert_settings,
        "feed_links": feed_links(user=user),
        "mail_configured": mail_configured(),
        "address_failing": bool(user.email) and alert_settings.is_failing(user.email),
        "unsubscribed_follows": alert_unsubscribed_follows(user=user),
        "mailed_follows": mailed,
        "weekdays": AlertSettings.Weekday.choices,
    }
