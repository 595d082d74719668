"""The accounts in the admin: API tokens are listed by name and prefix, never
with their secret or its hash; ratings are listed and cannot be changed."""

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken, User
from accounts.recommend.models import Rating
from accounts.recommend.services import rating_set
from accounts.services import api_token_create
from tests import factories as f

pytestmark = pytest.mark.django_db


def test_api_tokens_are_listed_without_their_secrets(client):
    root = User.objects.create_superuser("root", "", "a long admin password")
    client.force_login(root)
    token, secret = api_token_create(user=root, name="lab notebook")
    listing = client.get(reverse("admin:accounts_apitoken_changelist")).content.decode()
    page = client.get(reverse("admin:accounts_apitoken_change", args=[token.pk])).content.decode()
    assert "lab notebook" in listing and token.prefix in listing
    stored = ApiToken.objects.get(pk=token.pk).secret_hash
    for html in (listing, page):
        assert secret not in html and stored not in html


def test_ratings_are_listed_and_read_only(client):
    root = User.objects.create_superuser("root", "", "a long admin password")
    client.force_login(root)
    f.store(f.record("2611.00001", title="Sparse attention"), at=timezone.now())
    rating, _created = rating_set(user=root, paper=f.paper("2611.00001"), value=-1)
    listing = client.get(reverse("admin:accounts_rating_changelist"))
    assert listing.status_code == 200 and "2611.00001" in listing.content.decode()
    assert client.get(reverse("admin:accounts_rating_add")).status_code == 403
    change = client.post(reverse("admin:accounts_rating_change", args=[rating.pk]), {"value": "1"})
    assert change.status_code == 403 and Rating.objects.get(pk=rating.pk).value == -1
