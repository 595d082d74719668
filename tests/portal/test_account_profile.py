"""The profile's language and time zone, applied to every page for the
signed-in user, and deleting an account with everything it owns."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from allauth.account.models import EmailAddress
from django.test import Client

from accounts.follows.models import Follow
from accounts.follows.services import follow_create
from accounts.models import ApiToken, User
from accounts.services import api_token_create
from accounts.trail.models import ReaderMatch, TrailReadMark, TrailState
from accounts.trail.services import trail_mark_read
from harvest.models import Paper
from tests.accounts.conftest import cards
from tests.factories import record, store

pytestmark = pytest.mark.django_db
PASSWORD = "a long and unusual passphrase 42"
SUBMITTED = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def user() -> User:
    user = User.objects.create_user("ada", email="ada@example.org", password=PASSWORD)
    EmailAddress.objects.create(user=user, email="ada@example.org", verified=True, primary=True)
    return user


@pytest.fixture
def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_new_users_read_chinese_in_beijing_time(user):
    assert (user.language, user.time_zone) == ("zh-hans", "Asia/Shanghai")


def test_the_users_language_and_zone_apply_to_pages(user, browser):
    store(record("2611.00001", first_submitted=SUBMITTED), at=SUBMITTED)
    anonymous = Client().get("/papers/2611.00001/").content.decode()
    assert "2026-11-01 20:00" in anonymous and "时间均为北京时间。" in anonymous and 'lang="zh-Hans"' in anonymous

    response = browser.post("/me/preferences/", {"language": "en", "time_zone": "Europe/Berlin"})
    assert response.status_code == 302 and response["Location"] == "/me/"
    user.refresh_from_db()
    assert (user.language, user.time_zone) == ("en", "Europe/Berlin")
    page = browser.get("/papers/2611.00001/").content.decode()
    assert "2026-11-01 13:00" in page and "Times are in Europe/Berlin." in page and 'lang="en"' in page
    assert "北京时间" not in page and "Beijing time" not in page
    # The saved choice outlives an old cookie of the language switch...
    browser.cookies["django_language"] = "zh-hans"
    assert 'lang="en"' in browser.get("/papers/2611.00001/").content.decode()
    # ...and the switch, used while signed in, changes it.
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/papers/2611.00001/"})
    user.refresh_from_db()
    assert (user.language, user.time_zone) == ("zh-hans", "Europe/Berlin")
    page = browser.get("/papers/2611.00001/").content.decode()
    assert "2026-11-01 13:00" in page and "时间均为 Europe/Berlin 时区。" in page
    browser.post("/i18n/setlang/", {"language": "xx"})
    user.refresh_from_db()
    assert user.language == "zh-hans"
    # Others still read Chinese in Beijing time.
    page = Client().get("/papers/2611.00001/").content.decode()
    assert "2026-11-01 20:00" in page and "时间均为北京时间。" in page


def test_token_times_on_the_profile_are_in_the_users_zone(user, browser):
    token, _secret = api_token_create(user=user, name="notebook")
    ApiToken.objects.filter(pk=token.pk).update(created_at=SUBMITTED)
    page = browser.get("/me/").content.decode()
    assert '<td data-label="创建时间">2026-11-01 20:00</td>' in page and "时间均为北京时间。" in page
    User.objects.filter(pk=user.pk).update(time_zone="America/New_York", language="en")
    page = browser.get("/me/").content.decode()
    assert "2026-11-01 07:00" in page and "Times are in America/New_York." in page


@pytest.mark.parametrize(
    "data, field",
    [
        ({"language": "en", "time_zone": "Mars/Olympus_Mons"}, "time_zone"),
        ({"language": "fr", "time_zone": "Asia/Shanghai"}, "language"),
    ],
)
def test_bad_preferences_are_400_naming_the_field(user, browser, data, field):
    response = browser.post("/me/preferences/", data)
    assert response.status_code == 400 and f'id="id_{field}"' in response.content.decode()
    assert response.context["preferences"].errors.keys() == {field}
    user.refresh_from_db()
    assert (user.language, user.time_zone) == ("zh-hans", "Asia/Shanghai")


def test_preferences_need_a_signed_in_user(db):
    assert Client().post("/me/preferences/", {"language": "en", "time_zone": "UTC"})["Location"].startswith("/login/")


def test_deleting_the_account_removes_everything_it_owns(user, browser):
    store(record("2611.00002", categories=["cs.CL"]), at=datetime.now(UTC))
    follow = follow_create(user=user, kind="category", value={"code": "cs.CL"}, name="NLP")
    api_token_create(user=user, name="notebook")
    other = User.objects.create_user("bea", password=PASSWORD)
    follow_create(user=other, kind="category", value={"code": "cs.CL"}, name="NLP")
    # Each reader reads the card and marks the trail read: their own state rows.
    paper = Paper.objects.get(arxiv_id="2611.00002")
    for reader in (user, other):
        assert trail_mark_read(user=reader, item_ids=[paper.pk]) == 1
        trail_mark_read(user=reader)
    assert [card.paper_id for card in cards(user)] == [paper.pk]
    assert ReaderMatch.objects.filter(user=user, follow=follow).exists()
    assert TrailState.objects.filter(user=user).exists() and TrailReadMark.objects.filter(user=user).exists()

    wrong = browser.post("/me/delete/", {"password": "not it"})
    assert wrong.status_code == 400 and User.objects.filter(pk=user.pk).exists()

    response = browser.post("/me/delete/", {"password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert not User.objects.filter(pk=user.pk).exists()
    assert not Follow.objects.filter(user_id=user.pk).exists()
    assert not ReaderMatch.objects.filter(user_id=user.pk).exists()
    assert not ReaderMatch.objects.filter(follow_id=follow.pk).exists()
    assert not TrailState.objects.filter(user_id=user.pk).exists()
    assert not TrailReadMark.objects.filter(user_id=user.pk).exists()
    assert not ApiToken.objects.filter(user_id=user.pk).exists()
    assert not EmailAddress.objects.filter(email="ada@example.org").exists()
    assert Follow.objects.filter(user=other).count() == 1 and [card.paper_id for card in cards(other)] == [paper.pk]
    assert ReaderMatch.objects.filter(user=other).exists()
    assert TrailState.objects.filter(user=other).exists() and TrailReadMark.objects.filter(user=other).exists()
    assert "_auth_user_id" not in browser.session
    # The address is free again.
    assert Client().get("/me/")["Location"].startswith("/login/")


def test_guessing_the_password_on_the_deletion_page_is_rate_limited(settings, user, browser):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "login_failed": "10/900s/ip,3/900s/key"}
    for _ in range(3):
        assert browser.post("/me/delete/", {"password": "guess"}).status_code == 400
    assert browser.post("/me/delete/", {"password": PASSWORD}).status_code == 429
    assert User.objects.filter(pk=user.pk).exists()


def test_deleting_needs_a_post_with_csrf(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get("/me/delete/").status_code == 200
    assert client.post("/me/delete/", {"password": PASSWORD}).status_code == 403
    assert User.objects.filter(pk=user.pk).exists()
