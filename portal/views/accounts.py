"""Sign-in, sign-out and the profile page /me/, where a signed-in user creates,
lists and revokes API tokens. A new token's secret is shown once, in the
response to the POST that created it (marked no-store), and never again."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from accounts import throttling
from accounts.models import ApiToken
from accounts.services import TokenLimitReached, api_token_create, api_token_revoke


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        username = request.POST.get("username", "")[:150]
        wait = throttling.retry_after(request, username)
        if wait is not None:
            return self._throttled(wait)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        username = self.request.POST.get("username", "")[:150]
        throttling.record_failure(self.request, username)
        return super().form_invalid(form)

    def form_valid(self, form):
        throttling.clear_failures(self.request, form.get_user().get_username())
        return super().form_valid(form)

    def _throttled(self, wait: int) -> HttpResponse:
        message = _("Too many failed sign-in attempts. Try again in %(seconds)d seconds.") % {"seconds": wait}
        response = render(self.request, self.template_name, {"form": self.get_form(), "throttled": message}, status=429)
        response["Retry-After"] = str(wait)
        return response


class LogoutView(auth_views.LogoutView):
    """POST only (Django's rule): a link cannot sign anyone out."""


class TokenCreateForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        label=gettext_lazy("Token name"),
        help_text=gettext_lazy("What the token is for, e.g. 'lab notebook'."),
    )


def _profile(request: HttpRequest, *, form: TokenCreateForm, secret: str | None = None, status: int = 200):
    tokens = ApiToken.objects.filter(user=request.user).order_by("revoked_at", "-created_at", "-id")
    context = {"form": form, "tokens": tokens, "new_secret": secret, "display_zone": settings.DISPLAY_TIME_ZONE}
    response = render(request, "accounts/me.html", context, status=status)
    add_never_cache_headers(response)
    return response


@login_required
@require_http_methods(["GET", "HEAD"])
def me(request: HttpRequest) -> HttpResponse:
    return _profile(request, form=TokenCreateForm())


@login_required
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    form = TokenCreateForm(request.POST)
    if not form.is_valid():
        return _profile(request, form=form, status=400)
    try:
        token, secret = api_token_create(user=request.user, name=form.cleaned_data["name"])
    except TokenLimitReached as exc:
        form.add_error(None, str(exc))
        return _profile(request, form=form, status=400)
    messages.success(request, _("Token “%(name)s” created.") % {"name": token.name})
    return _profile(request, form=TokenCreateForm(), secret=secret)


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    if api_token_revoke(user=request.user, token_id=token_id):
        messages.success(request, _("Token revoked; it no longer works."))
    else:
        messages.error(request, _("No such active token."))
    return redirect("accounts:me")
