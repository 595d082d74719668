"""API token authentication: `Authorization: Bearer pt_…` (or `Token pt_…`).

A token is read from the Authorization header only. A token in the URL would
end up in server logs, browser history and Referer headers, so a request that
carries one there is refused with 400 before anything else happens; the
message names the parameter, never the value. Nothing here logs a secret.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from accounts.models import ApiToken
from accounts.tokens import TOKEN_TAG, secret_matches, split_token

KEYWORDS = (b"bearer", b"token")
# Parameter names that clients use for credentials; refused in the URL.
CREDENTIAL_PARAMETERS = frozenset({"token", "access_token", "api_key", "apikey", "key", "auth", "authorization"})
# last_used_at is written at most this often, not on every request.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenInQueryString(exceptions.ParseError):
    """400 naming the parameter that carried credentials (never its value)."""

    default_code = "token_in_query_string"

    def __init__(self, parameter: str):
        self.parameter = parameter[:40]
        super().__init__(
            _(
                "Tokens are not accepted in the URL, where they would be logged; send them in the "
                "Authorization header (Authorization: Bearer <token>) and revoke a token that was sent in a URL."
            )
        )


def refuse_credentials_in_query(request: Request) -> None:
    for name, values in request.query_params.lists():
        if name.lower() in CREDENTIAL_PARAMETERS or any(
            v.startswith(f"{TOKEN_TAG}_") and split_token(v) for v in values
        ):
            raise TokenInQueryString(name)


class ApiTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Request):
        refuse_credentials_in_query(request)
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(_("Malformed Authorization header: use 'Bearer <token>'."))
        try:
            raw = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        return self.authenticate_token(raw)

    def authenticate_token(self, raw: str):
        split = split_token(raw)
        if split is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        prefix, secret = split
        token = ApiToken.objects.select_related("user").filter(prefix=prefix).first()
        if token is None or not secret_matches(secret, token.secret_hash):
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed(_("This token has been revoked."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("This account is inactive."))
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token created on the profile page (/me/), sent as "
            "`Authorization: Bearer pt_…`. Never in the URL.",
        }
