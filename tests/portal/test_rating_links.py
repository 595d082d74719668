"""The email alerts' "more / less like this" links: in both parts of a real
mail (over the loopback SMTP server), a GET shows what the link will do and
writes nothing, its POST button rates for the mail's reader without a
session; a tampered, made-up or expired link is a 400 that says so."""

from __future__ import annotations

import re
import time

import pytest
from django.core import signing
from django.test import Client

from accounts.alerts.links import (
    _RATING_SALT,
    InvalidRatingLink,
    rating_link_target,
    rating_token,
    rating_url,
    unsubscribe_token,
)
from accounts.alerts.sending import send_alerts
from accounts.recommend.models import Rating
from harvest.models import Paper
from tests.accounts.alerts.world import DAY, day_of_papers, follows, reader
from tests.accounts.conftest import ago, harvest, record
from tests.portal.db_writes import rows_written

pytestmark = pytest.mark.django_db
LINK = re.compile(r"http://127\.0\.0\.1:8000(/ratings/mail/[^/\s\"<>]+/)")


def _parts(message) -> dict[str, str]:
    return {part.get_content_type(): part.get_content() for part in message.walk() if not part.is_multipart()}


class _OldSigner(signing.TimestampSigner):
    """The links' signer as it was `days` ago: a link mailed then."""

    def __init__(self, days: float) -> None:
        super().__init__(salt=_RATING_SALT, sep=".")
        self.days = days

    def timestamp(self) -> str:
        return signing.b62_encode(int(time.time() - self.days * 86400))


@pytest.fixture
def alice():
    user = reader("alice")
    harvest(record("2611.00009"), at=ago(days=30))
    return user


def test_every_paper_of_an_alert_has_both_links_and_they_rate_without_a_session(mailbox, alice):
    follows(alice)
    day_of_papers()
    assert send_alerts(frequency="daily", day=DAY).sent == 1
    (message,) = mailbox.to("alice@example.org")
    parts = _parts(message)
    text, html = parts["text/plain"], parts["text/html"]
    assert "More like this: http://127.0.0.1:8000/ratings/mail/" in text
    assert "Less like this: http://127.0.0.1:8000/ratings/mail/" in text
    assert "More like this</a>" in html and "Less like this</a>" in html
    links = LINK.findall(text)
    assert len(links) == 4 and set(links) == set(LINK.findall(html))  # two papers, up and down each
    targets = [rating_link_target(path.split("/")[3]) for path in links]
    papers = {Paper.objects.get(pk=target.paper_id).arxiv_id for target in targets}
    assert papers == {"2611.00001", "2611.00002"} and {t.user_id for t in targets} == {alice.pk}
    assert sorted(t.value for t in targets) == [-1, -1, 1, 1]

    up = next(path for path, t in zip(links, targets, strict=True) if t.value == 1)
    visitor = Client(enforce_csrf_checks=True)
    before = rows_written()
    page = visitor.get(up)
    assert page.status_code == 200 and rows_written() == before, "the link's GET wrote"
    body = page.content.decode()
    assert "as “more like this”? Your recommendations learn from it." in body
    assert page["X-Robots-Tag"] == "noindex" and not Rating.objects.exists()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body).group(1)
    done = visitor.post(up, {"csrfmiddlewaretoken": token})
    assert done.status_code == 200 and "Done: you will see more papers like" in done.content.decode()
    (rating,) = Rating.objects.all()
    assert (rating.user_id, rating.value) == (alice.pk, 1)
    # A POST without the page's CSRF token (another site's form) rates nothing.
    down = next(path for path, t in zip(links, targets, strict=True) if t.value == -1)
    assert Client(enforce_csrf_checks=True).post(down).status_code == 403
    assert Rating.objects.get().value == 1


def test_the_page_speaks_the_readers_language(alice):
    alice.language = "zh-hans"
    alice.save(update_fields=["language"])
    paper = Paper.objects.get(arxiv_id="2611.00009")
    path = rating_url(user_id=alice.pk, paper_id=paper.pk, value=-1).removeprefix("http://127.0.0.1:8000")
    body = Client().get(path).content.decode()
    assert "标记为“少推荐这类”吗？你的推荐会据此学习。" in body


@pytest.mark.parametrize("how", ["tampered", "made up", "unsubscribe token", "wrong shape", "expired", "gone user"])
def test_bad_and_expired_links_are_a_400_that_says_so(alice, settings, how):
    settings.PAPERTRAIL_RATING_LINK_DAYS = 30
    paper = Paper.objects.get(arxiv_id="2611.00009")
    good = rating_token(user_id=alice.pk, paper_id=paper.pk, value=1)
    token = {
        "tampered": good[:-2] + ("aa" if not good.endswith("aa") else "bb"),
        "made up": "WzEsMSwxXQ.made.up",
        "unsubscribe token": unsubscribe_token(user_id=alice.pk),
        "wrong shape": signing.TimestampSigner(salt=_RATING_SALT, sep=".").sign_object([alice.pk, paper.pk, 5]),
        "expired": _OldSigner(days=31).sign_object([alice.pk, paper.pk, 1]),
        "gone user": rating_token(user_id=alice.pk + 1000, paper_id=paper.pk, value=1),
    }[how]
    client = Client()
    for method in (client.get, client.post):
        response = method(f"/ratings/mail/{token}/")
        assert response.status_code == 400, (how, method)
        body = response.content.decode()
        if how == "expired":
            assert "这个链接已过期：邮件提醒里的评价链接只在 30 天内有效。" in body  # no reader known: Chinese first
        else:
            assert "这个评价链接无效" in body
        assert paper.title not in body
    assert not Rating.objects.exists()
    if how == "expired":
        with pytest.raises(InvalidRatingLink) as refused:
            rating_link_target(token)
        assert refused.value.expired
        # Within the setting's days the same old link still works.
        settings.PAPERTRAIL_RATING_LINK_DAYS = 32
        assert rating_link_target(token).paper_id == paper.pk
