"""The accounts in the admin: API tokens are listed by name and prefix, never
with their secret or its hash."""

import pytest
from django.urls import reverse

from accounts.models import ApiToken, User
from accounts.services import api_token_create

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
