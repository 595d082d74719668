"""bench/follows_data.py and bench/follows.py at a tiny scale: the readers
have the documented shape, are reproducible from the seed, go away again,
and the day's matching and the read figures run through the real code."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.follows.models import Exclusion, Follow
from accounts.follows.services import follow_create
from accounts.groups.services import group_create
from accounts.models import User
from accounts.trail.models import ReaderMatch, TrailState
from accounts.trail.selectors import trail_page
from accounts.trail.services import trail_dismiss
from bench import follows, follows_data
from harvest.models import Author
from tests.accounts.conftest import harvest, record

pytestmark = pytest.mark.django_db
READERS = 40


@pytest.fixture
def small_library():
    """A day of papers in cs and beyond, authors of one to many papers."""
    records = []
    for number in range(1, 41):
        codes = [("cs.LG", "cs.CV", "cs.CL", "stat.ML", "cs.DB")[number % 5], "cs.AI"]
        authors = ["Ada Lovelace", f"Author {number % 7}", f"Solo {number}"]
        records.append(
            record(
                f"2611.{number:05d}",
                categories=codes,
                authors=authors,
                abstract=f"Learning models of graph data, part {number}.",
                versions=1 + number % 3,
            )
        )
    harvest(*records, at=timezone.now() - timedelta(hours=3))


def drawn_follows() -> list[tuple]:
    return sorted(
        Follow.objects.filter(user__username__startswith=follows_data.USER_PREFIX).values_list(
            "user__username", "kind", "name", "include_cross_lists", "include_revisions"
        )
    )


def test_readers_have_ten_follows_of_each_kind_reproducibly(small_library):
    drawn = follows_data.build_follows(users=READERS, seed=5, library_seed=1)
    assert drawn.users == READERS and drawn.follows == {"category": 400, "author": 400, "query": 400}
    rows = drawn_follows()
    per_reader = Counter((row[0], row[1]) for row in rows)
    assert set(per_reader.values()) == {10}
    assert all(len({row[2] for row in rows if row[:2] == key}) == 10 for key in per_reader)
    names = set(Author.objects.values_list("name", flat=True))
    assert {row[2] for row in rows if row[1] == "author"} <= names
    # Popularity: the big categories are followed by most readers, a cluster around the reader's field.
    categories = Counter(row[2] for row in rows if row[1] == "category")
    assert categories["cs.LG"] > READERS / 2 and categories.most_common(1)[0][1] > categories["cs.DB"]
    queries = Follow.objects.filter(kind="query", user__username__startswith=follows_data.USER_PREFIX)
    assert all(q.compiled["tree"] for q in queries)
    assert {len(q.name.split()) for q in queries} >= {1, 2}
    assert any(not row[4] for row in rows) and any(not row[3] for row in rows if row[1] == "category")

    assert follows_data.remove_bench_users() == {"users": READERS}
    again = follows_data.build_follows(users=READERS, seed=5, library_seed=1)
    assert drawn_follows() == rows and again.follows == drawn.follows
    follows_data.remove_bench_users()
    follows_data.build_follows(users=READERS, seed=6, library_seed=1)
    assert drawn_follows() != rows


def test_removing_the_bench_readers_keeps_a_lab_groups_follow(small_library):
    """A group's follow has no user: the bench's clean-up (TRUNCATE when only
    its readers hold follows) must see it and leave it."""
    owner = User.objects.create_user(username="lab-owner", password="x")
    group = group_create(owner=owner, name="NLP lab")
    kept = follow_create(group_id=group.pk, kind="category", value={"code": "cs.CL"})
    follows_data.build_follows(users=5, seed=5, library_seed=1)
    assert follows_data.remove_bench_users() == {"users": 5}
    assert list(Follow.objects.values_list("pk", flat=True)) == [kept.pk]


def test_the_day_is_matched_and_read_through_the_real_code(small_library):
    reader = User.objects.create_user(username="someone", password="x")
    follow_create(user=reader, kind="category", value={"code": "cs.CV"}, name="cv")
    follows_data.build_follows(users=READERS, seed=5, library_seed=1)
    day = follows.child_match(new=40, revisions=40)
    assert day["papers"] == 40 and day["new_papers"] == 40
    assert day["definition_matches"] > 0 and day["peak_rss_mib"] > 0
    assert not ReaderMatch.objects.exclude(user=reader).exists()  # nothing per reader at harvest time
    users = follows.sampled_users(5)
    first_read = follows.measure_catch_up(users)
    assert first_read["readers"] == 5 and first_read["cards_per_reader_mean"] > 0
    picked = follows.readers(users)
    assert len(picked) == 5
    results = follows.measure_reads(2, picked, [("category cs.LG", "category", {"code": "cs.LG"})])
    names = [r["name"] for r in results]
    assert "follows trail: first page" in names and "follows unread counts (strip and nav)" in names
    assert "follows preview: category cs.LG" in names
    assert all(r["in_process"]["runs"] == 2 and r["in_process"]["queries"] > 0 for r in results)
    # Removing the bench readers keeps everyone else's follows, cards and marks.
    (first, *_) = trail_page(user=reader).entries
    assert trail_dismiss(user=reader, item_id=first.item_id)
    trail_dismiss(user=users[0], item_id=trail_page(user=users[0]).entries[0].item_id)
    follows_data.remove_bench_users()
    assert not User.objects.filter(username__startswith=follows_data.USER_PREFIX).exists()
    assert not Exclusion.objects.exclude(user=reader).exists()
    assert Follow.objects.filter(user=reader).count() == 1 and trail_page(user=reader).entries
    assert list(TrailState.objects.values_list("user_id", flat=True)) == [reader.pk]
