"""The profile page /me/, where a signed-in user sets their language and time
zone, creates, lists and revokes API tokens, and deletes the account; and the
old /login/ and /logout/ addresses, which lead to allauth's pages (sign-up,
sign-in, verification and reset live in django-allauth under /accounts/).
A new token's secret is shown once, in the response to the POST that created
it (marked no-store), and never again."""

from __future__ import annotations

from allauth.account.adapter import get_adapter
from django import forms
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import ApiToken, User, time_zone_choices
from accounts.services import (
    TokenLimitReached,
    api_token_create,
    api_token_revoke,
    user_delete,
    user_preferences_update,
)
from digests.ask.selectors import ask_list
from portal.views.alerts import delivery_context
from portal.views.channels import channels_context
from portal.views.zotero import zotero_context


def _redirect_keeping_method(url_name: str):
    """307 keeps the method and body, so an old sign-in or sign-out form that
    posts here still reaches allauth's page (with its CSRF token)."""

    def view(request: HttpRequest) -> HttpResponse:
        url = reverse(url_name)
        if request.META.get("QUERY_STRING"):
            url = f"{url}?{request.META['QUERY_STRING']}"
        response = HttpResponseRedirect(url)
        response.status_code = 307
        return response

    return view


login_redirect = _redirect_keeping_method("account_login")
logout_redirect = _redirect_keeping_method("account_logout")


class PreferencesForm(forms.ModelForm):
    time_zone = forms.TypedChoiceField(label=gettext_lazy("Time zone"), choices=time_zone_choices)
    # Left out (a form of before this choice, a script): kept as it is.
    card_density = forms.ChoiceField(
        label=gettext_lazy("Paper cards"), choices=User.CardDensity.choices, required=False
    )

    class Meta:
        model = User
        fields = ["language", "time_zone", "card_density"]
        labels = {"language": gettext_lazy("Language")}


class DeleteAccountForm(forms.Form):
    password = forms.CharField(label=gettext_lazy("Password"), widget=forms.PasswordInput)

    def __init__(self, *args, user: User, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        # allauth's check counts failures like sign-in does, so a borrowed
        # session cannot guess the password here either.
        if not get_adapter().reauthenticate(self.user, password):
            raise forms.ValidationError(_("The password is not correct."))
        return password


class TokenCreateForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        label=gettext_lazy("Token name"),
        help_text=gettext_lazy("What the token is for, e.g. 'lab notebook'."),
    )


def _profile(
    request: HttpRequest,
    *,
    form: TokenCreateForm | None = None,
    preferences: PreferencesForm | None = None,
    secret: str | None = None,
    status: int = 200,
):
    tokens = ApiToken.objects.filter(user=request.user).order_by("revoked_at", "-created_at", "-id")
    context = {
        "form": form or TokenCreateForm(),
        "preferences": preferences or PreferencesForm(instance=request.user),
        "tokens": tokens,
        "asks": ask_list(user=request.user)[:50],
        "new_secret": secret,
        "display_zone": request.user.time_zone,
        **delivery_context(request.user),
        **channels_context(request.user),
        **zotero_context(request.user),
    }
    response = render(request, "accounts/me.html", context, status=status)
    add_never_cache_headers(response)
    return response


@login_required
@require_http_methods(["GET", "HEAD"])
def me(request: HttpRequest) -> HttpResponse:
    return _profile(request)


@login_required
@require_POST
def preferences_update(request: HttpRequest) -> HttpResponse:
    form = PreferencesForm(request.POST, instance=User.objects.get(pk=request.user.pk))
    if not form.is_valid():
        return _profile(request, preferences=form, status=400)
    user_preferences_update(
        user=request.user,
        language=form.cleaned_data["language"],
        time_zone=form.cleaned_data["time_zone"],
        card_density=form.cleaned_data["card_density"] or None,
    )
    translation.activate(request.user.language)
    messages.success(request, _("Preferences saved."))
    return redirect("accounts:me")


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    """Deleting the account asks for the password again: a borrowed session
    alone cannot destroy someone's follows and trail."""
    form = DeleteAccountForm(request.POST or None, user=request.user)
    if request.method == "POST":
        if form.is_valid():
            user = request.user
            logout(request)
            user_delete(user=user)
            messages.success(request, _("Your account and everything in it have been deleted."))
            return redirect("/")
        response = render(request, "accounts/delete.html", {"form": form}, status=400)
    else:
        response = render(request, "accounts/delete.html", {"form": form})
    add_never_cache_headers(response)
    return response


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
    return _profile(request, secret=secret)


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    if not ApiToken.objects.filter(user=request.user, pk=token_id).exists():
        raise Http404(_("No such token."))  # another user's token, as an unknown one
    if api_token_revoke(user=request.user, token_id=token_id):
        messages.success(request, _("Token revoked; it no longer works."))
    else:
        messages.error(request, _("No such active token."))
    return redirect("accounts:me")
