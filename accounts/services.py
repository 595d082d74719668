"""Writes for accounts: API tokens, preferences, deleting an account."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import ApiToken, User
from accounts.tokens import full_token, hash_secret, new_token_parts

MAX_ACTIVE_TOKENS = 20


class TokenLimitReached(ValueError):
    """A user already holds the most active tokens allowed."""


@transaction.atomic
def api_token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token and its full secret, which is returned here once and never stored."""
    # Lock the user's row so that two concurrent requests cannot both pass the limit.
    User.objects.select_for_update().filter(pk=user.pk).first()
    if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= MAX_ACTIVE_TOKENS:
        raise TokenLimitReached(f"at most {MAX_ACTIVE_TOKENS} active tokens; revoke one first")
    prefix, secret = new_token_parts()
    token = ApiToken.objects.create(user=user, name=name.strip()[:100], prefix=prefix, secret_hash=hash_secret(secret))
    return token, full_token(prefix, secret)


@transaction.atomic
def api_token_revoke(*, user: User, token_id: int) -> bool:
    """Revoke one of the user's tokens; False when it is not theirs or already revoked."""
    return (
        ApiToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(revoked_at=timezone.now()) == 1
    )


@transaction.atomic
def user_preferences_update(*, user: User, language: str, time_zone: str, card_density: str | None = None) -> User:
    """Save the language, time zone and card density pages are shown in for this user."""
    user.language = language
    user.time_zone = time_zone
    if card_density is not None:
        user.card_density = card_density
    user.full_clean(validate_unique=False, exclude=["password", "username", "email"])
    user.save(update_fields=["language", "time_zone", "card_density"])
    return user


@transaction.atomic
def user_delete(*, user: User) -> None:
    """Delete the account and everything it owns: tokens, follows, exclusions,
    the trail, research records with their notes and tags go with the user
    row (their foreign keys cascade), and so do its email addresses and
    confirmations."""
    User.objects.filter(pk=user.pk).delete()
