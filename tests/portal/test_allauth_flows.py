"""Sign-up, email verification, sign-in by email or by username and password
reset through allauth's real views, with the mails sent over SMTP to a real
local server (the `mailbox` fixture) and their links followed."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from allauth.account.models import EmailAddress
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db
PASSWORD = "a long and unusual passphrase 42"
SITE = "https://papertrail.example.org"


@pytest.fixture(autouse=True)
def site(settings):
    settings.SITE_URL = SITE
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    settings.SIGNUP_OPEN = True


def sign_up(client: Client, *, username: str = "ada", email: str = "ada@example.org"):
    return client.post(
        "/accounts/signup/",
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


def sign_in(login: str, password: str = PASSWORD):
    client = Client()
    return client, client.post("/accounts/login/", {"username": login, "password": password})


def on_site(url: str) -> str:
    """The path of a link from a mail, which must point at PAPERTRAIL_SITE_URL."""
    assert url.startswith(f"{SITE}/"), url
    return urlsplit(url).path


def test_sign_up_verify_by_the_mailed_link_then_sign_in_by_email_and_by_username(mailbox):
    response = sign_up(Client())
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    user = User.objects.get(username="ada")
    assert user.email == "ada@example.org" and not EmailAddress.objects.get(user=user).verified

    # Unverified, signing in leads back to "check your mail" (no second mail
    # within allauth's cooldown).
    client, response = sign_in("ada")
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    assert client.get("/me/").status_code == 302
    (mail,) = mailbox.to("ada@example.org")
    assert mail["Subject"].strip().startswith("[研踪 PaperTrail]") and mail["From"] == "PaperTrail <noreply@localhost>"

    link = on_site(mailbox.link("ada@example.org", r"https?://\S+/accounts/confirm-email/\S+/"))
    page = Client().get(link)
    assert page.status_code == 200 and "ada@example.org" in page.content.decode()
    assert not EmailAddress.objects.get(user=user).verified  # a GET (a mail scanner) confirms nothing
    assert Client().post(link).status_code == 302
    assert EmailAddress.objects.get(user=user).verified

    for login in ("ada@example.org", "ADA@example.org", "ada"):
        client, response = sign_in(login)
        assert response.status_code == 302 and response["Location"] == "/follows/", login
        assert client.get("/me/").status_code == 200


def test_the_sign_up_page_is_chinese_and_checks_the_fields(mailbox):
    page = Client().get("/accounts/signup/").content.decode()
    assert "注册" in page and 'name="email"' in page and 'name="username"' in page
    response = sign_up(Client(), email="not-an-address")
    assert response.status_code == 200 and not User.objects.exists()
    User.objects.create_user("taken", email="ada@example.org", password=PASSWORD)
    EmailAddress.objects.create(user=User.objects.get(), email="ada@example.org", verified=True, primary=True)
    # A taken address is not revealed on the page: the owner gets a mail instead.
    response = sign_up(Client(), username="other")
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    assert User.objects.count() == 1
    (mail,) = mailbox.to("ada@example.org")
    assert "/accounts/confirm-email/" not in mailbox.body(mail)
    assert f"{SITE}/accounts/password/reset/" in mailbox.body(mail)


def test_password_reset_by_the_mailed_link(mailbox):
    user = User.objects.create_user("ada", email="ada@example.org", password="the old password 1")
    EmailAddress.objects.create(user=user, email="ada@example.org", verified=True, primary=True)

    response = Client().post("/accounts/password/reset/", {"email": "ada@example.org"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password/reset/done/"
    link = on_site(mailbox.link("ada@example.org", r"https?://\S+/accounts/password/reset/key/\S+/"))

    client = Client()
    form = client.get(link, follow=True)
    assert form.status_code == 200 and 'name="password1"' in form.content.decode()
    set_password = form.redirect_chain[-1][0]
    response = client.post(set_password, {"password1": "a new password 2025", "password2": "a new password 2025"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password/reset/key/done/"

    assert sign_in("ada", "the old password 1")[1].status_code == 200
    assert sign_in("ada", "a new password 2025")[1]["Location"] == "/follows/"
    # The link works once.
    again = Client().get(link, follow=True)
    assert 'name="password1"' not in again.content.decode()


def test_a_reset_for_an_unknown_address_sends_no_link(mailbox):
    response = Client().post("/accounts/password/reset/", {"email": "nobody@example.org"})
    assert response.status_code == 302
    assert all("/password/reset/key/" not in mailbox.body(m) for m in mailbox.to("nobody@example.org"))


def test_closed_sign_up_creates_no_account(settings, mailbox):
    settings.SIGNUP_OPEN = False
    page = Client().get("/accounts/signup/")
    assert page.status_code == 200 and 'name="password1"' not in page.content.decode()
    sign_up(Client())
    assert not User.objects.exists() and mailbox.messages == []
    assert 'href="/accounts/signup/"' not in Client().get("/accounts/login/").content.decode()


@pytest.mark.parametrize(
    "verification, signed_in, mails",
    [("none", True, 0), ("optional", True, 1), ("mandatory", False, 1)],
)
def test_email_verification_setting(settings, mailbox, verification, signed_in, mails):
    settings.ACCOUNT_EMAIL_VERIFICATION = verification
    client = Client()
    response = sign_up(client)
    assert response.status_code == 302
    assert ("_auth_user_id" in client.session) is signed_in
    assert len(mailbox.to("ada@example.org")) == mails
    assert (client.get("/me/").status_code == 200) is signed_in


def test_changing_the_email_address_by_the_mailed_link(mailbox):
    user = User.objects.create_user("ada", email="ada@example.org", password=PASSWORD)
    EmailAddress.objects.create(user=user, email="ada@example.org", verified=True, primary=True)
    client, _response = sign_in("ada")
    page = client.get("/accounts/email/").content.decode()
    assert "ada@example.org" in page

    response = client.post("/accounts/email/", {"email": "lovelace@example.org", "action_add": ""})
    assert response.status_code == 302
    assert "lovelace@example.org" in client.get("/accounts/email/").content.decode()
    user.refresh_from_db()
    assert user.email == "ada@example.org"  # unchanged until the new address is confirmed

    link = on_site(mailbox.link("lovelace@example.org", r"https?://\S+/accounts/confirm-email/\S+/"))
    assert client.post(link).status_code == 302
    user.refresh_from_db()
    assert user.email == "lovelace@example.org"
    assert list(EmailAddress.objects.filter(user=user).values_list("email", "verified", "primary")) == [
        ("lovelace@example.org", True, True)
    ]
    assert sign_in("lovelace@example.org")[1]["Location"] == "/follows/"
    assert sign_in("ada@example.org")[1].status_code == 200
