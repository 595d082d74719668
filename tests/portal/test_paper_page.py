"""/papers/<arXiv id>/: versions, what changed, readings, links, HF signals, 404s."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from harvest.announcements import announcement_store
from harvest.source_records import FeedAnnouncement, ListedItem, VersionRecord
from tests import factories as f
from tests.replay_server import FIXTURES

pytestmark = pytest.mark.django_db


@pytest.fixture
def revised_paper():
    """v1 stored, then v2 with a new title, abstract, authors and comments,
    then v3 with text unchanged, each version seen as it arrived."""
    now = timezone.now()
    first = datetime(2026, 10, 1, 8, tzinfo=UTC)
    f.store(
        f.record(
            "2610.04242",
            title="Sparse attention for long documents",
            abstract="We propose a sparse method.",
            authors=["Ada Lovelace", "Alan Turing"],
            comments="8 pages",
            first_submitted=first,
        ),
        at=now - timedelta(days=20),
    )
    f.store(
        f.record(
            "2610.04242",
            title="Sparse attention for very long documents",
            versions=2,
            abstract="We propose a faster sparse method.",
            authors=["Ada Lovelace", "Grace Hopper"],
            comments="12 pages",
            first_submitted=first,
        ),
        at=now - timedelta(days=10),
    )
    f.store(
        f.record(
            "2610.04242",
            title="Sparse attention for very long documents",
            versions=3,
            abstract="We propose a faster sparse method.",
            authors=["Ada Lovelace", "Grace Hopper"],
            comments="12 pages",
            first_submitted=first,
        ),
        at=now - timedelta(days=1),
    )
    return f.paper("2610.04242")


def test_every_version_with_its_date_and_size(client, revised_paper):
    page = client.get("/papers/2610.04242/").content.decode()
    assert "共 3 个版本" in page
    for number, submitted in ((1, "2026-10-01 16:00"), (2, "2026-10-08 16:00"), (3, "2026-10-15 16:00")):
        assert f'id="v{number}"' in page
        assert f"提交于 {submitted}</span>" in page
        assert f"大小 {100 + number}kb" in page
    versions = page.split('id="versions-heading"', 1)[1].split("</ol>", 1)[0]
    assert versions.count("北京时间") == 1 and "时间均为北京时间。" in versions  # once for the list, not per date


def test_a_version_known_only_from_the_announcement_feed_says_when_it_was_announced(client):
    f.store(
        f.record("2610.06000", first_submitted=datetime(2026, 11, 1, tzinfo=UTC)), at=timezone.now() - timedelta(days=2)
    )
    listed = f.record("2610.06000", versions=2)
    listed.versions = [VersionRecord(2)]  # the feed carries no submission date
    announcement_store(
        records=[listed],
        announcement=FeedAnnouncement("cs", date(2026, 11, 24), [ListedItem("2610.06000", 2, "replace")]),
    )
    page = client.get("/papers/2610.06000/").content.decode()
    second = page.split('id="v2"', 1)[1].split("</h3>", 1)[0]
    first = page.split('id="v1"', 1)[1].split("</h3>", 1)[0]
    assert "公告于 2026-11-24" in second and "提交于" not in second and "—" not in second
    assert "提交于 2026-11-01 08:00" in first and "公告于" not in first
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    english = client.get("/papers/2610.06000/").content.decode()
    assert "announced 2026-11-24" in english
    # A label's colon as each language writes it.
    assert "<dt>Latest version: </dt>" in english and "<dt>最新版本：</dt>" in page


def test_what_changed_between_consecutive_versions_is_a_readable_diff(client, revised_paper):
    page = client.get("/papers/2610.04242/").content.decode()
    assert "v1 → v2 的改动" in page
    assert "Sparse attention for <ins>very </ins>long documents" in page
    assert "We propose a <ins>faster </ins>sparse method." in page
    assert "新增：<ins>Grace Hopper</ins>" in page
    assert "删除：<del>Alan Turing</del>" in page
    assert "<del>8</del><ins>12</ins> pages" in page
    assert "v2 → v3 的改动" in page
    assert "标题、摘要、作者和备注均未改动。" in page


def test_versions_whose_text_was_never_stored_say_so(client):
    now = timezone.now()
    f.store(f.record("2610.05000", versions=3, title="First seen at v3"), at=now)
    page = client.get("/papers/2610.05000/").content.decode()
    assert "本站没有同时保存 v1 和 v2 的文本" in page
    assert "本站没有同时保存 v2 和 v3 的文本" in page


def test_guided_reading_per_version_through_the_digests_template(client, revised_paper):
    f.reading(f.version("2610.04242", 2), written_at=timezone.now(), text="第二版导读")
    page = client.get("/papers/2610.04242/").content.decode()
    assert page.count('class="guided-reading" lang="zh-Hans" data-version="') == 1
    assert "第二版导读 takeaway" in page


def test_links_go_to_arxiv_and_hf_signals_are_shown(client, revised_paper):
    f.pick(
        revised_paper,
        f.source("hf_daily"),
        upvotes=17,
        url="https://huggingface.co/papers/2610.04242",
        featured_on=date(2026, 10, 2),
    )
    page = client.get("/papers/2610.04242/").content.decode()
    assert 'href="https://arxiv.org/abs/2610.04242"' in page
    assert 'href="https://arxiv.org/pdf/2610.04242"' in page
    assert 'href="https://arxiv.org/pdf/2610.04242v2"' in page
    assert "2026-10-02 入选 Daily Papers,▲17 赞" in page
    assert '<li class="primary"><a href="/papers/?category=cs.LG">cs.LG</a></li>' in page


def test_a_version_suffix_selects_that_version(client, revised_paper):
    response = client.get("/papers/2610.04242v2/")
    assert response.status_code == 200
    assert 'class="version version--selected" data-version="2"' in response.content.decode()


def test_old_style_identifiers(client):
    f.store(f.record("hep-th/9901001", categories=["hep-th"], title="Old style"), at=timezone.now())
    f.store(
        f.record("math.GT/0309136", categories=["math.GT"], title="Old style with subject class"), at=timezone.now()
    )
    assert "Old style" in client.get("/papers/hep-th/9901001/").content.decode()
    assert client.get("/papers/hep-th/9901001v1/").status_code == 200
    assert "subject class" in client.get("/papers/math.GT/0309136/").content.decode()


@pytest.mark.parametrize(
    "path", ["/papers/2610.99999/", "/papers/2610.04242v9/", "/papers/not-an-id/", "/papers/hep-th/99/"]
)
def test_unknown_papers_are_a_clean_404_page(client, revised_paper, path):
    response = client.get(path)
    assert response.status_code == 404
    page = response.content.decode()
    assert "<h1>未找到</h1>" in page
    assert "Traceback" not in page


def test_paper_page_query_count_does_not_grow_with_versions(client, django_assert_max_num_queries):
    now = timezone.now()
    f.store(f.record("2610.06000", versions=12), at=now)
    for n in range(1, 13):
        f.reading(f.version("2610.06000", n), written_at=now)
    with django_assert_max_num_queries(5):
        response = client.get("/papers/2610.06000/")
    assert response.content.decode().count('class="guided-reading"') == 12


def test_each_author_is_shown_with_the_affiliation_the_paper_gives_escaped(client):
    """0704.0174 (the Kaggle snapshot): "Francisco J. Botella (Valencia U. &
    Valencia U., IFIC), Miguel Nebot (Lisbon, IST)"."""
    call_command("import_snapshot", str(FIXTURES / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"), stdout=None)
    page = client.get("/papers/0704.0174/").content.decode()
    authors = page.split('class="paper-card__authors">')[1].split("</p>")[0]
    assert authors == (
        '<a href="/papers/?author=Francisco%20J.%20Botella">Francisco J. Botella</a> '
        '<span class="author-affiliation" title="所属机构">(Valencia U. &amp; Valencia U., IFIC)</span>, '
        '<a href="/papers/?author=Miguel%20Nebot">Miguel Nebot</a> '
        '<span class="author-affiliation" title="所属机构">(Lisbon, IST)</span>'
    )
    # Following an author follows the person, whatever their affiliation.
    assert 'data-follow-author="Francisco J. Botella"' in page
    plain = client.get("/papers/0704.0001/").content.decode()
    assert "author-affiliation" not in plain.split('class="paper-card__authors">')[1].split("</p>")[0]
