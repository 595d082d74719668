"""allauth's rate limits on sign-in, sign-up and password reset, and the
admin's sign-in going through the same allauth page."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core.cache import cache
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db
PASSWORD = "a long and unusual passphrase 42"


@pytest.fixture(autouse=True)
def limits(settings):
    settings.ACCOUNT_RATE_LIMITS = {
        **settings.ACCOUNT_RATE_LIMITS,
        "login_failed": "10/900s/ip,3/900s/key",
        "signup": "2/m/ip",
        "reset_password": "2/m/ip,5/m/key",
    }
    cache.clear()
    yield
    cache.clear()


def verified_user(username: str, email: str, **extra) -> User:
    user = User.objects.create_user(username, email=email, password=PASSWORD, **extra)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def test_repeated_failed_sign_ins_by_email_answer_429_with_retry_after(mailbox):
    verified_user("ada", "ada@example.org")
    client = Client()
    for _ in range(3):
        assert client.post("/accounts/login/", {"username": "ada@example.org", "password": "wrong"}).status_code == 200
    response = client.post("/accounts/login/", {"username": "Ada@Example.org", "password": PASSWORD})
    assert response.status_code == 429 and 850 < int(response["Retry-After"]) <= 900
    assert "尝试次数过多" in response.content.decode() and "_auth_user_id" not in client.session
    # The address limit counts every login it tries.
    other = Client()
    for n in range(7):
        other.post("/accounts/login/", {"username": f"guess{n}", "password": "wrong"})
    assert other.post("/accounts/login/", {"username": "guess9", "password": "wrong"}).status_code == 429


def test_sign_up_is_rate_limited_per_address(mailbox):
    for n in range(2):
        data = {"username": f"u{n}", "email": f"u{n}@example.org", "password1": PASSWORD, "password2": PASSWORD}
        assert Client().post("/accounts/signup/", data).status_code == 302
    data = {"username": "u9", "email": "u9@example.org", "password1": PASSWORD, "password2": PASSWORD}
    assert Client().post("/accounts/signup/", data).status_code == 429
    assert not User.objects.filter(username="u9").exists()


def test_password_reset_is_rate_limited(mailbox):
    verified_user("ada", "ada@example.org")
    for _ in range(2):
        assert Client().post("/accounts/password/reset/", {"email": "ada@example.org"}).status_code == 302
    assert Client().post("/accounts/password/reset/", {"email": "ada@example.org"}).status_code == 429
    assert len(mailbox.to("ada@example.org")) == 2


def test_the_admin_signs_in_through_allauth(mailbox):
    verified_user("root", "root@example.org", is_staff=True, is_superuser=True)
    client = Client()
    response = client.get("/admin/login/?next=/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=")
    response = client.get(response["Location"])
    assert response.status_code == 307 and response["Location"].startswith("/accounts/login/?next=")
    # The admin's own form posts credentials to /admin/login/: they are not accepted there.
    client.post("/admin/login/", {"username": "root", "password": PASSWORD})
    assert "_auth_user_id" not in client.session
    response = client.post("/accounts/login/", {"username": "root", "password": PASSWORD, "next": "/admin/"})
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_the_admin_refuses_signed_in_non_staff(mailbox):
    verified_user("ada", "ada@example.org")
    client = Client()
    client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    assert client.get("/admin/login/").status_code == 403


def test_an_operator_account_without_an_address_signs_in_under_mandatory_verification(settings, mailbox):
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    User.objects.create_superuser("root", email="", password=PASSWORD)
    client = Client()
    response = client.post("/accounts/login/", {"username": "root", "password": PASSWORD, "next": "/admin/"})
    assert response["Location"] == "/admin/" and client.get("/admin/").status_code == 200
    # createsuperuser asks for an address; the operator who typed it is not sent to verify it.
    User.objects.create_superuser("ops", email="ops@example.org", password=PASSWORD)
    client = Client()
    response = client.post("/accounts/login/", {"username": "ops", "password": PASSWORD, "next": "/admin/"})
    assert response["Location"] == "/admin/" and client.get("/admin/").status_code == 200
    assert mailbox.to("ops@example.org") == []
    # An ordinary account's address that was never verified is still asked for.
    verified = User.objects.create_user("bea", email="bea@example.org", password=PASSWORD)
    assert not verified.emailaddress_set.exists()
    response = Client().post("/accounts/login/", {"username": "bea", "password": PASSWORD})
    assert response["Location"] == "/accounts/confirm-email/" and len(mailbox.to("bea@example.org")) == 1


def test_old_sign_in_and_out_addresses_keep_method_and_query(db):
    response = Client().get("/login/?next=/papers/")
    assert response.status_code == 307 and response["Location"] == "/accounts/login/?next=/papers/"
    assert Client().post("/logout/")["Location"] == "/accounts/logout/"
