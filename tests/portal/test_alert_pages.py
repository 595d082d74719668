"""Delivery pages: one-click unsubscribe from a real mail's link (GET
confirms, POST unsubscribes, no sign-in, no CSRF token), resubscribing and
the feed URLs on /me/, the failing-address and no-mail notices, the API's
feed list and the admin's lists."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.alerts.links import alert_settings_for, unsubscribe_url
from accounts.alerts.models import AlertMail, AlertSettings
from accounts.alerts.sending import send_alerts
from accounts.follows.models import Follow
from accounts.models import User
from accounts.services import api_token_create
from tests.accounts.alerts.world import DAY, day_of_papers, follows, reader

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice():
    user = reader("alice")
    follows(user)
    day_of_papers()
    return user


def _path(url: str) -> str:
    return url.removeprefix("http://127.0.0.1:8000")


def test_the_mails_one_click_link_confirms_on_get_and_unsubscribes_on_post(alice, mailbox):
    send_alerts(frequency="daily", day=DAY)
    (message,) = mailbox.to(alice.email)
    url = _path(message["List-Unsubscribe"].strip()[1:-1])
    anonymous = Client(enforce_csrf_checks=True)
    page = anonymous.get(url)
    assert page.status_code == 200 and "Stop every email alert?" in page.content.decode()
    assert not AlertSettings.objects.filter(user=alice, unsubscribed_all=True).exists()
    # What a mail client sends for RFC 8058: a POST with this body, no cookie, no CSRF token.
    done = anonymous.post(url, data="List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert done.status_code == 200 and "You will get no more email alerts." in done.content.decode()
    assert AlertSettings.objects.get(user=alice).unsubscribed_all
    assert anonymous.post(url).status_code == 200  # twice is fine
    assert send_alerts(frequency="daily", day=DAY.replace(day=2)).users == 0


def test_a_follows_link_stops_that_follow_only_and_me_puts_it_back(alice, mailbox):
    send_alerts(frequency="daily", day=DAY)
    text = mailbox.body(mailbox.to(alice.email)[0])
    (follow_link,) = re.findall(r"Stop mails for this follow: (\S+)", text)
    daily = Follow.objects.get(user=alice, name="Learning")
    assert Client().get(_path(follow_link)).content.decode().count("Learning") >= 1
    Client().post(_path(follow_link))
    daily.refresh_from_db()
    assert daily.delivery == "trail"
    session = Client()
    session.force_login(alice)
    me = session.get(reverse("accounts:me")).content.decode()
    assert "Learning" in me and 'name="follow"' in me
    session.post(reverse("accounts:alerts_resubscribe"), {"follow": daily.pk})
    daily.refresh_from_db()
    assert daily.delivery == "daily"


def test_a_tampered_or_foreign_token_is_404(alice):
    bob = reader("bob")
    url = _path(unsubscribe_url(user_id=alice.pk))
    token = url.split("/")[2]
    forged = token.replace(str([alice.pk, None]).replace(" ", ""), "x")
    for bad in (f"/unsubscribe/{token[:-2]}xx/", f"/unsubscribe/{forged}x/", "/unsubscribe/nonsense/"):
        assert Client().get(bad).status_code == 404 and Client().post(bad).status_code == 404
    # A token for a follow that is not the user's names nothing.
    other = follows(bob)[0]
    assert Client().get(_path(unsubscribe_url(user_id=alice.pk, follow_id=other.pk))).status_code == 404


def test_me_shows_the_feed_urls_and_rotating_them_replaces_them(alice):
    session = Client()
    session.force_login(alice)
    secret = alert_settings_for(alice).feed_secret
    me = session.get(reverse("accounts:me")).content.decode()
    assert f"/feeds/{secret}/trail.atom" in me and f"/feeds/{secret}/follows/" in me
    session.post(reverse("accounts:feed_rotate"))
    new_secret = alert_settings_for(alice).feed_secret
    me = session.get(reverse("accounts:me")).content.decode()
    assert new_secret != secret and secret not in me and new_secret in me


def test_me_says_when_the_address_is_failing_and_mail_can_be_asked_for_again(alice, mailbox):
    mailbox.refused[alice.email] = "550 5.1.1 No such user"
    send_alerts(frequency="daily", day=DAY)
    session = Client()
    session.force_login(alice)
    me = session.get(reverse("accounts:me")).content.decode()
    assert 'id="address-failing"' in me and "550 5.1.1 No such user" in me
    session.post(reverse("accounts:alerts_address_retry"))
    assert 'id="address-failing"' not in session.get(reverse("accounts:me")).content.decode()


def test_me_and_sources_say_when_no_mail_is_configured(alice, settings):
    session = Client()
    session.force_login(alice)
    operator = Client()
    operator.force_login(User.objects.create_user("ops", is_staff=True))
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    assert 'id="no-mail"' not in session.get(reverse("accounts:me")).content.decode()
    assert 'id="no-mail"' not in operator.get(reverse("portal:sources_operator")).content.decode()
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    assert 'id="no-mail"' in session.get(reverse("accounts:me")).content.decode()
    assert 'id="no-mail"' in operator.get(reverse("portal:sources_operator")).content.decode()
    # The public page never shows configuration warnings.
    assert 'id="no-mail"' not in Client().get(reverse("portal:sources")).content.decode()


def test_the_weekly_day_is_chosen_on_me_and_a_bad_one_is_named(alice):
    session = Client()
    session.force_login(alice)
    session.post(reverse("accounts:alerts_weekly_day"), {"weekly_day": "3"})
    assert AlertSettings.objects.get(user=alice).weekly_day == 3
    page = session.post(reverse("accounts:alerts_weekly_day"), {"weekly_day": "6"}, follow=True)
    assert "weekly_day" in page.content.decode() and AlertSettings.objects.get(user=alice).weekly_day == 3


def test_the_api_lists_the_users_feed_urls(alice):
    _token, secret = api_token_create(user=alice, name="reader")
    body = json.loads(Client(HTTP_AUTHORIZATION=f"Bearer {secret}").get("/api/v1/me/").content)
    feed_secret = alert_settings_for(alice).feed_secret
    assert body["feeds"][0] == {
        "follow_id": None,
        "name": "",
        "url": f"http://127.0.0.1:8000/feeds/{feed_secret}/trail.atom",
    }
    assert [feed["name"] for feed in body["feeds"][1:]] == ["Learning", "Language", "Robots"]


def test_the_admin_lists_alerts_and_failing_addresses(alice, mailbox, client):
    mailbox.refused[alice.email] = "550 5.1.1 No such user"
    send_alerts(frequency="daily", day=DAY)
    root = User.objects.create_superuser("root", "", "a long admin password")
    client.force_login(root)
    mails = client.get(reverse("admin:accounts_alertmail_changelist")).content.decode()
    assert "failed" in mails and "550 5.1.1" in mails
    failing = client.get(reverse("admin:accounts_alertsettings_changelist") + "?failing=yes").content.decode()
    assert alice.email in failing
    assert client.get(reverse("admin:accounts_alertmail_change", args=[AlertMail.objects.get().pk])).status_code == 200
