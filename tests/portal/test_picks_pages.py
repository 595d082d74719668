"""`/trail/picks/`: the day's papers in the reader's categories as compact
cards with a checkbox each (the takeaway when there is a reading, harvested
text escaped), Chinese first; a GET writes nothing; one POST of one to ten
offered papers stores them as picks and goes back to the trail, anything
else is a 400 naming the parameter; the trail's note links here and says
how many papers the ranking was learnt from."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.cache import cache
from django.shortcuts import resolve_url
from django.test import Client
from django.utils import timezone

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.debounce import RETRAIN_KEY
from accounts.recommend.jobs import retrain_and_rescore
from accounts.recommend.models import Rating
from harvest.completeness import latest_expected_announcement, listing_day
from harvest.models import Version
from tests.accounts.conftest import ago
from tests.factories import latest_listing, reading, record, store, submitted_for_listing
from tests.portal.db_writes import rows_written

# Calendar: the page offers the latest listing day's papers, found from now.
pytestmark = [pytest.mark.django_db, pytest.mark.calendar]
URL = "/trail/picks/"


@pytest.fixture
def day(reader) -> dict[str, list[str]]:
    """Twelve papers of cs.SE today (one with a reading, one whose title holds
    markup), two of an earlier day, three of cs.CV today; cs.SE followed."""
    cache.delete(RETRAIN_KEY.format(user_id=reader.pk))
    today = [f"2612.{n:05d}" for n in range(1, 13)]
    now = submitted_for_listing(latest_listing())
    before = submitted_for_listing(listing_day(latest_expected_announcement(at=ago(days=9))))
    store(*(record(arxiv_id, categories=["cs.SE"], first_submitted=now) for arxiv_id in today[1:]), at=ago(minutes=30))
    flaky = record(today[0], title="<b>Flaky</b> tests & their causes", categories=["cs.SE"], first_submitted=now)
    store(flaky, at=ago(minutes=30))
    older = [record(f"2611.0000{n}", categories=["cs.SE"], first_submitted=before) for n in (1, 2)]
    store(*older, at=ago(days=9))
    store(
        *(record(f"2613.{n:05d}", categories=["cs.CV"], first_submitted=now) for n in range(1, 4)), at=ago(minutes=30)
    )
    reading(
        Version.objects.get(paper__arxiv_id=today[1], number=1),
        written_at=timezone.now(),
        zh_takeaway="用变异测试找出测试集的盲区",
        takeaway="Mutation testing finds the blind spots of a test suite",
    )
    follow_create(user=reader, kind="category", value={"code": "cs.SE"})
    return {"today": today, "older": ["2611.00001", "2611.00002"], "vision": ["2613.00001"]}


def _offered(body: str) -> list[str]:
    return re.findall(r'name="papers" value="([^"]+)"', body)


def test_the_page_lists_the_days_followed_papers_in_chinese_and_writes_nothing(
    reader, reader_client, day, django_assert_max_num_queries
):
    before = rows_written()
    # Bounded whatever the day holds; the navigation's unread count, composed
    # from the reader's follows, exclusions, mark, matches and states, is five.
    with django_assert_max_num_queries(18):
        response = reader_client.get(URL)
    assert rows_written() == before
    assert response.status_code == 200
    body = response.content.decode()
    assert sorted(_offered(body)) == day["today"]
    assert "挑选" in body and "来自你关注的分类" in body and 'data-picks-basis="follows"' in body
    assert "用变异测试找出测试集的盲区" in body  # the takeaway, in the reader's language
    assert "&lt;b&gt;Flaky&lt;/b&gt; tests &amp; their causes" in body and "<b>Flaky" not in body
    assert 'data-max="10"' in body and "已选 0 篇" in body
    assert not Rating.objects.filter(user=reader).exists()
    User.objects.filter(pk=reader.pk).update(language="en")
    body = reader_client.get(URL).content.decode()
    assert "From the categories you follow" in body and "Mutation testing finds the blind spots" in body
    assert "0 of 10 chosen" in body


def test_a_post_of_offered_papers_picks_them_and_goes_back_to_the_trail(
    reader, reader_client, day, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = reader_client.post(URL, {"papers": day["today"][:3], "day": _day_of(reader_client)}, follow=True)
    assert response.redirect_chain == [("/trail/", 302)]
    assert "你挑选了 3 篇论文" in response.content.decode()
    assert len(queued) == 1  # one retraining, debounced
    picks = Rating.objects.filter(user=reader).order_by("paper__arxiv_id")
    assert [(r.paper.arxiv_id, r.value, r.source) for r in picks] == [(a, 1, "pick") for a in day["today"][:3]]
    # Back on the page the picked papers are marked, the others still offered.
    body = reader_client.get(URL).content.decode()
    assert sorted(_offered(body)) == day["today"][3:] and body.count("data-picked") == 3
    assert 'data-picks-before="3"' in body


def _day_of(client: Client) -> str:
    return re.search(r'name="day" value="([0-9-]+)"', client.get(URL).content.decode()).group(1)


@pytest.mark.parametrize(
    ("picked", "expected"),
    [
        ([], "Pick at least one paper."),
        (None, "Pick at most 10 papers; you chose 11."),
        (["2611.00001"], "2611.00001: not among the papers offered to you"),
        (["2613.00001"], "2613.00001: not among the papers offered to you"),
        (["9999.99999"], "9999.99999: not among the papers offered to you"),
    ],
)
def test_a_post_of_none_too_many_or_papers_not_offered_is_a_400_naming_papers(
    reader, reader_client, day, picked, expected
):
    User.objects.filter(pk=reader.pk).update(language="en")
    picked = day["today"][:11] if picked is None else picked
    response = reader_client.post(URL, {"papers": picked})
    assert response.status_code == 400
    body = response.content.decode()
    assert f"Papers you pick: {expected}" in body  # named as the page names its picks, not the parameter
    assert sorted(_offered(body)) == day["today"]  # the page again, to pick anew
    assert set(re.findall(r'value="([^"]+)" checked', body)) == set(picked) & set(day["today"])
    assert not Rating.objects.filter(user=reader).exists()


def test_a_bad_day_is_a_400_naming_it(reader_client, day):
    for params in ({"day": "soon"}, {"day": "2026-12-05"}):
        response = reader_client.get(URL, params)
        body = response.content.decode()
        assert response.status_code == 400 and "arXiv 公告日：" in body and "day:" not in body
    assert reader_client.post(URL, {"papers": day["today"][:1], "day": "soon"}).status_code == 400
    assert not Rating.objects.exists()


def test_a_visitor_is_sent_to_sign_in(day):
    for response in (Client().get(URL), Client().post(URL, {"papers": day["today"][:1]})):
        assert response.status_code == 302 and response.url.startswith(f"{resolve_url(settings.LOGIN_URL)}?next=")
    assert not Rating.objects.exists()


def test_the_trail_links_here_before_and_after_a_ranking_and_counts_the_picks(reader, reader_client, day):
    body = reader_client.get("/trail/").content.decode()
    note = re.search(r"<p class=\"muted\" data-ranking-seed>.*?</p>", body, flags=re.S).group(0)
    assert 'href="/trail/picks/"' in note and "挑选" in note
    assert 'href="/trail/picks/"' in reader_client.get("/trail/recommended/").content.decode()
    reader_client.post(URL, {"papers": day["today"][:2]})
    retrain_and_rescore(reader.pk)  # as the queued task does, seconds later
    User.objects.filter(pk=reader.pk).update(language="en")
    body = reader_client.get("/trail/").content.decode()
    note = re.search(r"<p class=\"muted\" data-ranking-seed>.*?</p>", body, flags=re.S).group(0)
    assert "the 2 papers you picked" in note and "you saved" not in note
    assert 'href="/trail/picks/"' in note
