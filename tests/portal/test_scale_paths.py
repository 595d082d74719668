"""What keeps the portal fast on a large library without changing what
it shows: totals kept by the database, bounded counts, ranking bounded to the
newest matches of a broad query."""

import itertools
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from harvest.filters import PaperFilterSet
from harvest.models import Paper
from portal import pagination
from portal.stats import overview
from portal.stats.overview import totals
from tests import factories as f

pytestmark = pytest.mark.django_db


def counted() -> tuple[int, int, int]:
    return (
        Paper.objects.count(),
        Paper.objects.filter(ai_related=True).count(),
        Paper.objects.filter(version_count__gt=1).count(),
    )


def kept() -> tuple[int, int, int]:
    numbers = totals()
    return numbers.papers, numbers.ai_related, numbers.with_revisions


def test_totals_follow_inserts_updates_and_deletes():
    now = timezone.now()
    assert kept() == (0, 0, 0)
    f.store(
        f.record("2611.00001", categories=["cs.LG"]),
        f.record("2611.00002", categories=["cs.DS"], versions=2),
        f.record("2611.00003", categories=["math.CO", "cs.DM"]),
        at=now,
    )
    assert kept() == counted() == (3, 1, 1)
    # A new version and a category change arrive for known papers.
    f.store(f.record("2611.00001", categories=["cs.LG"], versions=2), at=now)
    f.store(f.record("2611.00003", categories=["math.CO", "cs.AI"]), at=now)
    assert kept() == counted() == (3, 2, 2)
    Paper.objects.filter(arxiv_id="2611.00002").update(ai_related=True)
    assert kept() == counted() == (3, 3, 2)
    Paper.objects.filter(arxiv_id="2611.00001").delete()
    assert kept() == counted() == (2, 2, 1)


def test_totals_survive_folding():
    now = timezone.now()
    for number in range(1, 8):
        f.store(f.record(f"2611.{number:05d}", versions=1 + number % 2), at=now)
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(overview, "TOTALS_FOLD_ROWS", 2)
    try:
        assert kept() == counted() == (7, 7, 4)
        assert kept() == counted()  # read again after folding the rows into one
    finally:
        monkeypatch.undo()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM harvest_paper_totals")
            assert cursor.fetchone()[0] == 1


@pytest.mark.django_db(transaction=True)
def test_totals_are_emptied_with_the_table():
    f.store(f.record("2611.00001"), f.record("2611.00002", versions=2), at=timezone.now())
    assert kept() == (2, 2, 1)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE harvest_paper CASCADE")
    else:
        Paper.objects.all().delete()
    assert kept() == counted() == (0, 0, 0)


def count_line(response) -> str:
    return re.search(r'<p class="count-line" data-count="(\d+)">([^·]*)', response.content.decode()).group(0)


def test_count_line_counts_a_filtered_library_up_to_the_cap_and_reads_the_total_otherwise(client, monkeypatch):
    now = timezone.now()
    f.store(*(f.record(f"2611.{n:05d}", categories=["cs.LG" if n % 2 else "cs.DS"]) for n in range(1, 8)), at=now)
    monkeypatch.setattr(pagination, "COUNT_CAP", 3)
    assert 'data-count="7"' in count_line(client.get("/papers/"))
    assert 'data-count="3">找到超过 3 篇论文' in count_line(client.get("/papers/", {"category": "cs.LG"}))
    assert 'data-count="3"' in count_line(client.get("/papers/", {"category": "cs.DS"}))
    assert 'data-count="7"' in count_line(client.get("/papers/", {"q": "   "}))


def ranked(params: str) -> list[str]:
    filterset = PaperFilterSet(QueryDict(params))
    assert filterset.is_valid(), filterset.errors
    page = pagination.keyset_page(filterset.qs, sort=filterset.chosen_sort, cursor=None, size=20)
    return [paper.arxiv_id for paper in page.papers]


def test_a_broad_query_is_ranked_among_its_newest_matches(monkeypatch):
    first = datetime(2026, 1, 1, tzinfo=UTC)
    now = timezone.now()
    # The oldest paper is the most relevant (the word in its title, twice).
    f.store(f.record("2601.00001", title="Walks walks", abstract="Walks.", first_submitted=first), at=now)
    for n in range(2, 6):
        f.store(f.record(f"2601.{n:05d}", abstract="On walks.", first_submitted=first + timedelta(days=n)), at=now)
    everything = ranked("q=walks")
    assert sorted(everything) == [f"2601.{n:05d}" for n in range(1, 6)]
    monkeypatch.setattr(pagination, "RANK_CANDIDATES", 3)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE harvest_paper")  # the bound follows the planner's estimate of matches
    newest = ranked("q=walks")
    if connection.vendor == "postgresql":
        assert everything[0] == "2601.00001"  # ranked first while every match is a candidate
        assert sorted(newest) == ["2601.00003", "2601.00004", "2601.00005"]
    else:
        # No ranking on SQLite: "relevance" pages by update time, nothing to bound.
        assert newest == everything


@pytest.mark.calendar  # which days are finished depends on the hour in Beijing
def test_the_cached_chart_keeps_finished_days_and_counts_today_afresh():
    from portal.stats.chart import daily_chart

    now = timezone.now()
    f.store(f.record("2611.00001"), at=now - timedelta(days=3))
    f.store(f.record("2611.00002"), at=now - timedelta(days=1))
    f.store(f.record("2611.00001", versions=2), at=now - timedelta(days=1))
    plain = daily_chart(now=now, days=7)
    assert daily_chart(now=now, days=7, cache_past_days=True) == plain
    assert daily_chart(now=now, days=7, cache_past_days=True) == plain  # finished days from the cache
    f.store(f.record("2611.00003"), f.record("2611.00002", versions=2), at=now)
    later = daily_chart(now=now + timedelta(seconds=1), days=7, cache_past_days=True)
    assert later == daily_chart(now=now + timedelta(seconds=1), days=7)
    assert (later[-1].papers, later[-1].revisions) == (plain[-1].papers + 1, plain[-1].revisions + 1)


def test_the_word_diff_rebuilds_both_texts_and_keeps_whitespace_where_it_was():
    import random

    from harvest.selectors import word_diff

    words = ["the", "of", "a", "model", "graph", "data", "learn", "we", "show", "x", "y"]
    rng = random.Random(3)
    for _ in range(500):
        old = " ".join(rng.choice(words) for _ in range(rng.randint(0, 30)))
        changed = old.split(" ")
        for _ in range(rng.randint(0, 4)):
            if changed:
                changed[rng.randrange(len(changed))] = rng.choice(words)
        new = " ".join(changed)
        segments = word_diff(old, new)
        assert "".join(text for op, text in segments if op != "insert") == old
        assert "".join(text for op, text in segments if op != "delete") == new
        assert all(a[0] != b[0] for a, b in itertools.pairwise(segments))
    assert word_diff("8 pages", "12 pages") == [("delete", "8"), ("insert", "12"), ("equal", " pages")]


def walks_library() -> list[str]:
    """40 papers updated a day apart, every fourth about walks; newest first."""
    first = datetime(2026, 1, 1, tzinfo=UTC)
    now = timezone.now()
    f.store(
        *(
            f.record(
                f"2601.{n:05d}",
                abstract="On walks." if n % 4 == 0 else "On trees.",
                first_submitted=first + timedelta(days=n),
            )
            for n in range(1, 41)
        ),
        at=now,
    )
    return [f"2601.{n:05d}" for n in range(40, 0, -1) if n % 4 == 0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ranking is PostgreSQL's")
@pytest.mark.parametrize(
    ("walk_ratio", "margin", "count"),
    [
        (1000, 1.5, None),  # GIN collection since a bound holding enough matches: count unknown
        (1000, 0.1, (10, False)),  # the bound holds too few matches: every match collected
        (1000, 5, (10, False)),  # a bound keeping most of the library: every match collected
        (0, 1.5, (10, False)),  # a common word: walking the update-time index
    ],
)
def test_a_ranked_search_ranks_its_newest_matches_whichever_way_it_finds_them(monkeypatch, walk_ratio, margin, count):
    walks = walks_library()
    monkeypatch.setattr(pagination, "RANK_CANDIDATES", 3)
    monkeypatch.setattr(pagination, "BOUND_MARGIN", margin)
    monkeypatch.setattr(pagination, "WALK_COST_RATIO", walk_ratio)
    # The planner's estimate: 10 of the 40 papers match.
    monkeypatch.setattr(pagination, "_planned_rows", lambda queryset: 10)
    monkeypatch.setattr(pagination, "_library_size", lambda: 40)
    filterset = PaperFilterSet(QueryDict("q=walks"))
    assert filterset.is_valid()
    page = pagination.keyset_page(filterset.qs, sort=filterset.chosen_sort, cursor=None, size=20)
    assert sorted(p.arxiv_id for p in page.papers) == sorted(walks[:3])
    assert page.count == count


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ranking is PostgreSQL's")
def test_the_count_line_of_a_ranked_search_comes_from_finding_its_candidates(client, monkeypatch):
    walks_library()
    monkeypatch.setattr(pagination, "RANK_CANDIDATES", 3)
    monkeypatch.setattr(pagination, "COUNT_CAP", 4)
    monkeypatch.setattr(pagination, "BOUND_MARGIN", 1.5)
    monkeypatch.setattr(pagination, "_planned_rows", lambda queryset: 10)
    client.get("/")  # the overview numbers the page reads
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/papers/", {"q": "walks"})
    assert 'data-count="4">找到超过 4 篇论文' in count_line(response)
    assert not [q for q in queries.captured_queries if q["sql"].startswith("SELECT COUNT(*)")]
    monkeypatch.setattr(pagination, "COUNT_CAP", 1000)
    assert 'data-count="10"' in count_line(client.get("/papers/", {"q": "walks"}))


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ranking is PostgreSQL's")
def test_the_update_time_bound_is_kept_and_stays_correct_as_papers_arrive(monkeypatch, django_assert_num_queries):
    walks = walks_library()
    monkeypatch.setattr(pagination, "RANK_CANDIDATES", 3)
    monkeypatch.setattr(pagination, "BOUND_MARGIN", 1.5)
    monkeypatch.setattr(pagination, "_planned_rows", lambda queryset: 10)
    monkeypatch.setattr(pagination, "_library_size", lambda: 40)

    def newest() -> list[str]:
        filterset = PaperFilterSet(QueryDict("q=walks"))
        assert filterset.is_valid()
        page = pagination.keyset_page(filterset.qs, sort=filterset.chosen_sort, cursor=None, size=20)
        return sorted(p.arxiv_id for p in page.papers)

    assert newest() == sorted(walks[:3])
    bound = pagination._updated_at_depth(18)
    with django_assert_num_queries(0):
        assert pagination._updated_at_depth(18) == bound  # kept, not walked again
    # Newer matches arrive: the kept bound holds them too, so they are the candidates now.
    later = datetime(2026, 3, 1, tzinfo=UTC)
    f.store(
        *(f.record(f"2603.{n:05d}", abstract="On walks.", first_submitted=later + timedelta(days=n)) for n in (1, 2)),
        at=timezone.now(),
    )
    assert newest() == sorted(["2603.00001", "2603.00002", walks[0]])
