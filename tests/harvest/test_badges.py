"""harvest.badges decides every version badge: a version stored long after
arXiv dated it is archival (the offline bundle's 2016 papers loaded today),
a revision links its diff only when the previous version's text is stored,
and the library's card, the trail and the paper page say the same."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone, translation

from harvest.badges import BadgeKind, DiffState, latest_versions
from harvest.models import Paper, Version
from harvest.source_records import PaperRecord, VersionRecord
from tests import factories as f

pytestmark = pytest.mark.django_db
MARCH_2016 = datetime(2016, 3, 9, 12, tzinfo=UTC)


def _only_latest(arxiv_id: str, number: int, submitted: datetime) -> PaperRecord:
    """A record as an API search gives it: the latest version alone."""
    record = f.record(arxiv_id, first_submitted=submitted)
    record.versions = [VersionRecord(number=number, submitted=submitted, size="1kb", source_type="D")]
    return record


def _badge(arxiv_id: str):
    paper = Paper.objects.get(arxiv_id=arxiv_id)
    return latest_versions([paper.pk])[paper.pk][1]


def test_badges_are_decided_by_arxivs_dates_and_the_stored_versions():
    now = timezone.now()
    f.store(f.record("2612.00001"), at=now)
    f.store(f.record("2612.00002", versions=2), at=now)  # v1 stored with its date only
    f.store(f.record("2612.00003", abstract="First."), at=now - timedelta(days=8))
    f.store(f.record("2612.00003", abstract="Second.", versions=2, first_submitted=now - timedelta(days=8)), at=now)
    f.store(_only_latest("2612.00004", 2, now - timedelta(days=1)), at=now)
    f.store(f.record("1603.00001", first_submitted=MARCH_2016), at=now)
    f.store(_only_latest("1603.00002", 3, MARCH_2016), at=now)
    seen = {arxiv_id: _badge(arxiv_id) for arxiv_id in Paper.objects.values_list("arxiv_id", flat=True)}
    assert (seen["2612.00001"].kind, seen["2612.00001"].diff) == (BadgeKind.NEW, DiffState.NONE)
    assert (seen["2612.00002"].kind, seen["2612.00002"].diff) == (BadgeKind.REVISION, DiffState.NO_TEXT)
    assert (seen["2612.00003"].kind, seen["2612.00003"].diff) == (BadgeKind.REVISION, DiffState.SHOWN)
    assert (seen["2612.00004"].kind, seen["2612.00004"].diff) == (BadgeKind.REVISION, DiffState.NOT_STORED)
    assert (seen["1603.00001"].kind, seen["1603.00001"].dated) == (BadgeKind.ARCHIVAL, MARCH_2016.date())
    assert (seen["1603.00002"].kind, seen["1603.00002"].diff) == (BadgeKind.ARCHIVAL, DiffState.NOT_STORED)
    # A week after arXiv dated it is still a new paper (a holiday's delay); more is a back-fill.
    f.store(f.record("2612.00005", first_submitted=now - timedelta(days=6)), at=now)
    assert _badge("2612.00005").kind == BadgeKind.NEW


@pytest.mark.parametrize(
    ("language", "archival", "not_stored"),
    [
        ("zh-hans", "历史论文 · 2016-03 发布", "早期版本未收录"),
        ("en", "Archival · published 2016-03", "earlier versions not stored"),
    ],
)
def test_the_card_and_the_paper_page_say_the_same_and_promise_no_missing_diff(client, language, archival, not_stored):
    now = timezone.now()
    f.store(f.record("1603.00001", first_submitted=MARCH_2016), at=now)
    f.store(_only_latest("2612.00004", 2, now - timedelta(days=1)), at=now)
    client.cookies["django_language"] = language
    with translation.override(language):
        library = client.get("/papers/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        old = client.get("/papers/1603.00001/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        gapped = client.get("/papers/2612.00004/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert library.count(archival) == 1 and archival in old
    assert '<span class="badge">新论文' not in old and '<span class="badge">New paper' not in old
    # v2 whose v1 is not stored: a revision on both pages, with no diff link.
    revision = "修订 · v2" if language == "zh-hans" else "Revision · v2"
    assert revision in gapped and not_stored in gapped and "data-what-changed" not in gapped
    assert library.count(not_stored) == 1 and "data-what-changed" not in library
    assert Version.objects.filter(paper__arxiv_id="2612.00004").count() == 1
