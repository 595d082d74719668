"""The day's full-text selection: harvest's task asks through its signal and
accounts answers with saved papers and the top of each active researcher's
"for you" list (deduplicated), harvest adds the most popular; harvest never
reads accounts' tables itself."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from accounts.models import User
from accounts.recommend.models import Recommendation
from accounts.records.models import Record
from harvest.fulltext.models import FullText
from harvest.fulltext.tasks import select_full_texts
from harvest.models import Paper
from tests.factories import paper, record, store, version


def reasons() -> dict[str, list[str]]:
    return {
        row.version.paper.arxiv_id: row.reasons
        for row in FullText.objects.select_related("version__paper").order_by("version__paper__arxiv_id")
    }


def test_saved_for_you_and_popular_papers_are_queued_once_each(user, other_user, settings):
    settings.PAPERTRAIL_FULLTEXT_FOR_YOU = 2
    settings.PAPERTRAIL_FULLTEXT_POPULAR = 1
    now = timezone.now()
    ids = ["2611.00001", "2611.00002", "2611.00003", "2611.00004", "2611.00005", "2611.00006"]
    store(*(record(a, versions=2 if a.endswith("1") else 1) for a in ids), at=now)
    User.objects.filter(pk=user.pk).update(last_login=now - timedelta(days=1))
    User.objects.filter(pk=other_user.pk).update(last_login=now - timedelta(days=40))
    Record.objects.create(user=user, paper=paper("2611.00001"))
    for arxiv_id, score in (("2611.00002", 0.9), ("2611.00003", 0.8), ("2611.00004", 0.7), ("2611.00001", 0.95)):
        Recommendation.objects.create(user=user, paper=paper(arxiv_id), score=score, event_at=now)
    # An inactive researcher's list is not read.
    Recommendation.objects.create(user=other_user, paper=paper("2611.00005"), score=0.99, event_at=now)
    Paper.objects.filter(arxiv_id="2611.00006").update(upvotes=80)

    select_full_texts()

    assert reasons() == {
        "2611.00001": ["saved", "for_you"],
        "2611.00002": ["for_you"],
        "2611.00006": ["popular"],
    }
    # The saved paper's latest version is read, and the one before it: what changed is a diff of the two.
    revised = FullText.objects.filter(version__paper__arxiv_id="2611.00001")
    assert sorted(revised.values_list("version__number", "reasons")) == [
        (1, ["saved", "for_you"]),
        (2, ["saved", "for_you"]),
    ]
    assert FullText.objects.filter(version=version("2611.00001", 2)).exists()
    # Asked the next day: nothing new, no duplicate rows.
    select_full_texts()
    assert FullText.objects.count() == 4
