"""Links that work without signing in: the one-click unsubscribe token (signed,
naming a user and one follow or all of them), the "more / less like this"
rating token (signed with its time, naming a user, a paper and the rating)
and the private feeds' secret, with the absolute URLs built on
PAPERTRAIL_SITE_URL, never on a request."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.alerts.models import AlertSettings, new_feed_secret
from accounts.follows.models import Follow
from accounts.models import User

_UNSUBSCRIBE_SALT = "papertrail.alerts.unsubscribe"
_RATING_SALT = "papertrail.alerts.rating"


def _signer() -> signing.Signer:
    # "." rather than ":" between the parts: a colon makes mail libraries
    # encode the List-Unsubscribe header, which mail clients then cannot read.
    return signing.Signer(salt=_UNSUBSCRIBE_SALT, sep=".")


def absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def unsubscribe_token(*, user_id: int, follow_id: int | None = None) -> str:
    """A token naming the user and a follow (None: every alert)."""
    return _signer().sign_object([user_id, follow_id])


def unsubscribe_target(token: str) -> tuple[int, int | None] | None:
    """(user id, follow id or None) of a valid token; None for anything else."""
    try:
        value = _signer().unsign_object(token)
    except signing.BadSignature:
        return None
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], int)):
        return None
    if value[1] is not None and not isinstance(value[1], int):
        return None
    return value[0], value[1]


def unsubscribe_url(*, user_id: int, follow_id: int | None = None) -> str:
    token = unsubscribe_token(user_id=user_id, follow_id=follow_id)
    return absolute(_UNSUBSCRIBE_PATH.replace("TOKEN", token))


class _LazyPath:
    """reverse() once, when first needed (URLs are not loaded at import)."""

    def __init__(self, name: str, parameter: str) -> None:
        self.name, self.parameter, self.path = name, parameter, ""

    def replace(self, old: str, new: str) -> str:
        if not self.path:
            self.path = reverse(self.name, kwargs={self.parameter: old})
        return self.path.replace(old, new)


_UNSUBSCRIBE_PATH = _LazyPath("portal:unsubscribe", "token")


_RATING_PATH = _LazyPath("portal:rating_link", "token")


class InvalidRatingLink(Exception):
    """A rating link that was tampered with, made up, or is older than
    PAPERTRAIL_RATING_LINK_DAYS (`expired`)."""

    def __init__(self, *, expired: bool = False) -> None:
        super().__init__("expired" if expired else "invalid")
        self.expired = expired


@dataclass(frozen=True)
class RatingLink:
    user_id: int
    paper_id: int
    value: int  # +1 up, -1 down


def _rating_signer() -> signing.TimestampSigner:
    return signing.TimestampSigner(salt=_RATING_SALT, sep=".")


def rating_token(*, user_id: int, paper_id: int, value: int) -> str:
    return _rating_signer().sign_object([user_id, paper_id, value])


def rating_link_target(token: str) -> RatingLink:
    """What a valid, unexpired rating token names; InvalidRatingLink otherwise."""
    max_age = timedelta(days=settings.PAPERTRAIL_RATING_LINK_DAYS)
    try:
        value = _rating_signer().unsign_object(token, max_age=max_age)
    except signing.SignatureExpired:
        raise InvalidRatingLink(expired=True) from None
    except (signing.BadSignature, ValueError):
        raise InvalidRatingLink() from None
    shaped = isinstance(value, list) and len(value) == 3 and all(type(part) is int for part in value)
    if not shaped or value[2] not in (1, -1):
        raise InvalidRatingLink()
    return RatingLink(*value)


def rating_url(*, user_id: int, paper_id: int, value: int) -> str:
    token = rating_token(user_id=user_id, paper_id=paper_id, value=value)
    return absolute(_RATING_PATH.replace("TOKEN", token))


def alert_settings_of(user: User) -> AlertSettings:
    """The user's delivery settings, read only: made with the account
    (accounts.alerts.receivers); an unsaved default for an account made
    around the ORM (a bulk load), which a write then stores."""
    return AlertSettings.objects.filter(user=user).first() or AlertSettings(user=user, feed_secret="")


def alert_settings_for(user: User) -> AlertSettings:
    """The user's delivery settings for a write, created if missing."""
    found = AlertSettings.objects.filter(user=user).first()
    if found is None:
        found, _ = AlertSettings.objects.get_or_create(user=user)
    return found


@transaction.atomic
def feed_secret_rotate(*, user: User) -> AlertSettings:
    """A new feed secret: the old feed URLs answer 404 from now on."""
    alert_settings = alert_settings_for(user)
    alert_settings.feed_secret = new_feed_secret()
    alert_settings.feed_secret_rotated_at = timezone.now()
    alert_settings.save(update_fields=["feed_secret", "feed_secret_rotated_at"])
    return alert_settings


@dataclass
class FeedLink:
    follow_id: int | None
    name: str
    url: str


def feed_links(*, user: User) -> list[FeedLink]:
    """The whole trail's feed, then one per follow, in the follows' order
    (none before the account has its settings)."""
    secret = alert_settings_of(user).feed_secret
    if not secret:
        return []
    links = [FeedLink(None, "", absolute(reverse("portal:feed_trail", kwargs={"secret": secret})))]
    for follow_id, name in Follow.objects.filter(user=user).order_by("id").values_list("id", "name"):
        url = reverse("portal:feed_follow", kwargs={"secret": secret, "follow_id": follow_id})
        links.append(FeedLink(follow_id, name, absolute(url)))
    return links
