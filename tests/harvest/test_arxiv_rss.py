"""arXiv's announcement feed as a source, on the recorded feeds served over HTTP."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from lxml import etree

from harvest.models import Announcement, AnnouncementItem, HarvestRun, Paper, PaperCategory, Source, Version
from harvest.runs import harvest_source
from harvest.sources.arxiv_rss import ArxivRssSource, parse_feed
from harvest.sources.registry import SOURCES
from tests.harvest import rss_feeds
from tests.harvest.arxiv_api_replay import PATH as API_PATH
from tests.harvest.arxiv_api_replay import body_of, serve_recorded
from tests.replay_server import Reply

pytestmark = pytest.mark.django_db

STAT_DAY = date(2024, 3, 26)
ITEMS = rss_feeds.items()
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def feeds(settings, replay_server):
    """The feed and the arXiv API on the replay server; categories `stat`."""
    settings.ARXIV_RSS_URL = f"{replay_server.url}/rss"
    settings.ARXIV_RSS_CATEGORIES = ["stat"]
    settings.ARXIV_API_URL = serve_recorded(replay_server)
    return replay_server


def serve(server, body: bytes, *, path: str = "/rss/stat", headers: dict | None = None) -> None:
    server.queue(path, Reply(body=body, content_type="application/rss+xml", headers=headers or {}))


def check() -> HarvestRun:
    return harvest_source(slug="arxiv_rss")


def versions(arxiv_id: str) -> list[tuple]:
    return list(
        Version.objects.filter(paper__arxiv_id=arxiv_id)
        .order_by("number")
        .values_list("number", "submitted", "size", "announced")
    )


def test_the_source_is_registered():
    assert SOURCES["arxiv_rss"] is ArxivRssSource


def test_the_recorded_rss_feed_is_read_item_by_item():
    parsed = parse_feed(rss_feeds.recorded())

    assert parsed.announced_on == STAT_DAY
    assert [(i.arxiv_id, i.version, i.announce_type) for i in parsed.items] == rss_feeds.listed()
    assert rss_feeds.type_counts() == {"new": 35, "cross": 27, "replace": 41, "replace-cross": 20}
    assert len(parsed.records) == 123 and parsed.malformed == []
    first = parsed.records[0]
    assert (first.arxiv_id, first.latest_version) == ("2403.15527", 1)
    assert first.title == "Conformal online model aggregation"
    assert first.authors == ["Matteo Gasparin", "Aaditya Ramdas"]
    assert first.categories == ["stat.ML", "cs.LG"]
    assert first.license == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
    assert first.abstract.startswith("Conformal prediction equips machine learning models")
    assert "Announce Type" not in first.abstract and first.versions[0].submitted is None
    journal = next(r for r in parsed.records if r.arxiv_id == "2304.04712")
    assert (journal.doi, journal.journal_ref) == ("10.1007/s00180-023-01445-2", "Computational Statistics, 2024")


def test_the_recorded_atom_feed_is_read_the_same_way():
    body = rss_feeds.recorded(rss_feeds.ATOM_CS_AI)
    entries = etree.fromstring(body).findall(f"{ATOM}entry")

    parsed = parse_feed(body)

    assert parsed.announced_on == date(2025, 8, 20)
    assert [f"oai:arXiv.org:{i.arxiv_id}v{i.version}" for i in parsed.items] == [
        e.findtext(f"{ATOM}id") for e in entries
    ]
    assert [i.announce_type for i in parsed.items] == ["cross"] * 5 + ["new"] * 2
    first = parsed.records[0]
    assert first.title.startswith("ALIGN: Word Association Learning")
    assert first.categories == ["cs.CL", "cs.AI"]
    assert first.authors == ["Chunhua Liu", "Kabir Manandhar Shrestha", "Sukai Huang"]
    assert first.abstract.startswith("As large language models (LLMs) increasingly mediate")


def test_a_first_check_stores_every_item_and_records_the_announcement(feeds):
    serve(feeds, rss_feeds.recorded())

    run = check()

    assert run.status == HarvestRun.Status.OK and run.error == ""
    assert (run.pages, run.seen, run.new_papers, run.skipped) == (1, 123, 123, 0)
    [request] = feeds.requests_to("/rss/stat")
    assert request.headers["User-Agent"].startswith("PaperTrail/") and "If-None-Match" not in request.headers
    assert Paper.objects.count() == 123 and Version.objects.count() == 123
    for arxiv_id, version, _ in rss_feeds.listed():
        # The listed version only, dated by the announcement until OAI-PMH gives the rest.
        assert versions(arxiv_id) == [(version, None, "", STAT_DAY)]
    assert Paper.objects.filter(published__isnull=False).count() == 0
    announcement = Announcement.objects.get()
    assert (announcement.feed, announcement.announced_on) == ("stat", STAT_DAY)
    assert sorted(announcement.items.values_list("arxiv_id", "version", "announce_type")) == sorted(rss_feeds.listed())


def test_each_announce_type_against_a_library_that_knows_the_papers(feeds):
    replaced, crossed = ITEMS["oai:arXiv.org:2403.14152v2"], ITEMS["oai:arXiv.org:2403.15881v1"]
    replaced_cross = ITEMS["oai:arXiv.org:2403.11782v2"]
    earlier = rss_feeds.feed(
        [
            rss_feeds.relabelled(replaced, version=1, announce_type="new"),
            rss_feeds.relabelled(replaced_cross, version=1, announce_type="new"),
            rss_feeds.relabelled(crossed, announce_type="new", categories=["cs.LG"]),
        ],
        pub_date="Mon, 25 Mar 2024 00:00:00 -0400",
    )
    serve(feeds, earlier)
    check()
    Paper.objects.filter(arxiv_id="2403.14152").update(comments="30 pages, 4 figures")
    serve(feeds, rss_feeds.feed([replaced, crossed, replaced_cross]))

    run = check()

    assert (run.new_papers, run.new_versions, run.updated) == (0, 2, 1)
    for arxiv_id in ("2403.14152", "2403.11782"):
        assert versions(arxiv_id) == [(1, None, "", date(2024, 3, 25)), (2, None, "", STAT_DAY)]
    paper = Paper.objects.get(arxiv_id="2403.14152")
    assert (paper.latest_version, paper.version_count) == (2, 2)
    assert paper.comments == "30 pages, 4 figures"  # the feed carries no comments: the library's are kept
    cross = Paper.objects.get(arxiv_id="2403.15881")
    assert cross.categories == ["cs.LG", "stat.ML"] and cross.primary_category == "cs.LG"
    assert set(PaperCategory.objects.filter(paper=cross).values_list("category", flat=True)) == {"cs.LG", "stat.ML"}
    # A cross-listing announces no version: v1 keeps the day it was announced.
    assert versions("2403.15881") == [(1, None, "", date(2024, 3, 25))]


def test_one_paper_in_two_category_feeds_is_stored_once(feeds, settings):
    item = ITEMS["oai:arXiv.org:2403.15881v1"]
    serve(feeds, rss_feeds.feed([item]))
    check()
    settings.ARXIV_RSS_CATEGORIES = ["cs.LG"]
    serve(feeds, rss_feeds.feed([rss_feeds.relabelled(item, announce_type="new")]), path="/rss/cs.LG")

    run = check()

    assert run.status == HarvestRun.Status.EMPTY and run.unchanged == 1
    assert Paper.objects.filter(arxiv_id="2403.15881").count() == 1
    assert versions("2403.15881") == [(1, None, "", STAT_DAY)]
    assert sorted(AnnouncementItem.objects.values_list("announcement__feed", "announce_type")) == [
        ("cs.LG", "new"),
        ("stat", "cross"),
    ]


def test_a_multi_category_feed_is_one_request_and_lists_a_paper_once(feeds, settings):
    settings.ARXIV_RSS_CATEGORIES = ["stat", "cs.LG"]
    item = ITEMS["oai:arXiv.org:2403.15881v1"]
    serve(feeds, rss_feeds.feed([item, rss_feeds.relabelled(item, announce_type="new")]), path="/rss/stat+cs.LG")

    run = check()

    assert run.new_papers == 1 and len(feeds.requests_to("/rss/stat+cs.LG")) == 1
    assert list(AnnouncementItem.objects.values_list("announcement__feed", "arxiv_id", "announce_type")) == [
        ("stat+cs.LG", "2403.15881", "new")
    ]


def api_dates(name_prefix: str) -> tuple[datetime, datetime]:
    entry = etree.fromstring(body_of(name_prefix)).find(f"{ATOM}entry")
    published, updated = (entry.findtext(f"{ATOM}{tag}") for tag in ("published", "updated"))
    return tuple(datetime.fromisoformat(v.replace("Z", "+00:00")) for v in (published, updated))


def test_a_replacement_of_a_paper_the_library_lacks_takes_its_first_version_from_the_api(feeds):
    item = rss_feeds.relabelled(ITEMS["oai:arXiv.org:2403.14152v2"], arxiv_id="1605.08386", version=2)
    serve(feeds, rss_feeds.feed([item]))
    published, _ = api_dates("id_1605.08386_")

    run = check()

    assert run.status == HarvestRun.Status.OK and run.new_papers == 1
    assert [r.param("id_list") for r in feeds.requests_to(API_PATH)] == ["1605.08386"]
    assert versions("1605.08386") == [(1, published, "", None), (2, None, "", STAT_DAY)]
    paper = Paper.objects.get(arxiv_id="1605.08386")
    assert paper.published == published and paper.latest_version == 2
    assert paper.title == ITEMS["oai:arXiv.org:2403.14152v2"].findtext("title")  # the listed version's text
    assert Announcement.objects.get().left_for_oai == []


def test_replacements_the_api_cannot_answer_are_left_for_oai_pmh_without_failing_the_check(feeds):
    template = ITEMS["oai:arXiv.org:2403.14152v2"]
    serve(
        feeds,
        rss_feeds.feed(
            [
                rss_feeds.relabelled(template, arxiv_id="0808.05394", version=2),
                rss_feeds.relabelled(template, arxiv_id="1707.08567", version=2),
            ]
        ),
    )
    run = check()
    assert run.status == HarvestRun.Status.OK and run.new_papers == 2
    assert Announcement.objects.get().left_for_oai == ["0808.05394"]  # the API does not know it
    assert versions("0808.05394") == [(2, None, "", STAT_DAY)]
    assert [number for number, *_ in versions("1707.08567")] == [1, 2]

    # The whole recorded feed: its 61 replacements make a lookup the API
    # refuses (not recorded: 404); every item is stored all the same.
    Announcement.objects.all().delete()
    serve(feeds, rss_feeds.recorded())
    run = check()
    assert run.status == HarvestRun.Status.OK and run.error == ""
    later = sorted({i for i, version, _ in rss_feeds.listed() if version > 1})
    assert Announcement.objects.get().left_for_oai == later and len(later) == 61
    assert feeds.requests_to(API_PATH)[-1].param("id_list") == ",".join(later)


def test_a_304_is_an_empty_successful_check_of_one_request(feeds):
    validators = {"ETag": '"stat-2024-03-26"', "Last-Modified": "Tue, 26 Mar 2024 04:00:03 GMT"}
    serve(feeds, rss_feeds.recorded(), headers=validators)
    check()
    feeds.queue("/rss/stat", Reply(status=304, body=b""))

    run = check()

    first, second = feeds.requests_to("/rss/stat")
    assert "If-None-Match" not in first.headers
    assert second.headers["If-None-Match"] == validators["ETag"]
    assert second.headers["If-Modified-Since"] == validators["Last-Modified"]
    assert run.status == HarvestRun.Status.EMPTY and (run.seen, run.pages, run.error) == (0, 1, "")
    checkpoint = Source.objects.get(slug="arxiv_rss").checkpoint
    assert checkpoint["etag"] == validators["ETag"] and checkpoint["announced_on"] == "2024-03-26"
    assert Announcement.objects.count() == 1 and Paper.objects.count() == 123


def test_the_weekend_feed_is_an_empty_successful_check(feeds, settings):
    settings.ARXIV_RSS_CATEGORIES = ["cs.CL"]
    serve(feeds, rss_feeds.recorded(rss_feeds.WEEKEND), path="/rss/cs.CL")

    run = check()

    assert run.status == HarvestRun.Status.EMPTY and (run.seen, run.skipped, run.error) == (0, 0, "")
    assert Paper.objects.count() == 0 and Announcement.objects.count() == 0
    assert Source.objects.get(slug="arxiv_rss").checkpoint["announced_on"] == "2026-08-01"


def test_a_malformed_item_is_skipped_and_counted_while_the_rest_are_stored(feeds, caplog):
    good = [ITEMS["oai:arXiv.org:2403.15527v1"], ITEMS["oai:arXiv.org:2403.15670v1"]]
    broken = rss_feeds.with_broken_guid(ITEMS["oai:arXiv.org:2403.15720v1"])
    untitled = rss_feeds.relabelled(ITEMS["oai:arXiv.org:2403.15755v1"], title="")
    serve(feeds, rss_feeds.feed([good[0], broken, untitled, good[1]]))

    run = check()

    assert run.status == HarvestRun.Status.OK and (run.new_papers, run.skipped, run.seen) == (2, 2, 4)
    assert set(Paper.objects.values_list("arxiv_id", flat=True)) == {"2403.15527", "2403.15670"}
    assert "not-an-identifier" in caplog.text and "2403.15755v1: no title" in caplog.text
    # The untitled item was announced all the same: the report will miss it.
    assert sorted(AnnouncementItem.objects.values_list("arxiv_id", flat=True)) == [
        "2403.15527",
        "2403.15670",
        "2403.15755",
    ]


def test_an_unparsable_feed_fails_the_check_permanently(feeds):
    serve(feeds, b"<html><body>Service unavailable</body></html")

    run = check()

    assert run.status == HarvestRun.Status.FAILED and "unparsable announcement feed" in run.error
    assert Source.objects.get(slug="arxiv_rss").checkpoint == {}


def test_a_feed_then_oai_pmh_for_the_same_papers_gives_one_paper_and_one_row_per_version(feeds, settings):
    from tests.harvest import oai_pages

    template = ITEMS["oai:arXiv.org:2403.15527v1"]
    serve(
        feeds,
        rss_feeds.feed(
            [
                rss_feeds.relabelled(template, arxiv_id="0704.1114"),
                rss_feeds.relabelled(template, arxiv_id="0704.0716", version=4, announce_type="replace"),
            ]
        ),
    )
    check()
    records = oai_pages.recorded_records()
    settings.ARXIV_OAI_URL = f"{feeds.url}/oai"
    feeds.queue(
        "/oai", Reply(body=oai_pages.list_records_page([records["0704.1114"], records["0704.0716"]], token=None))
    )

    run = harvest_source(slug="arxiv")

    assert run.status == HarvestRun.Status.OK and (run.new_papers, run.new_versions) == (0, 3)
    assert Paper.objects.count() == 2
    assert versions("0704.1114") == [(1, datetime(2007, 4, 9, 20, 13, 36, tzinfo=UTC), "163kb", STAT_DAY)]
    stored = versions("0704.0716")
    assert [(number, size) for number, _, size, _ in stored] == [(1, "43kb"), (2, "48kb"), (3, "48kb"), (4, "49kb")]
    assert stored[3][1] == datetime(2008, 11, 14, 9, 7, 25, tzinfo=UTC) and stored[3][3] == STAT_DAY
    assert [announced for *_, announced in stored[:3]] == [None, None, None]
    paper = Paper.objects.get(arxiv_id="0704.0716")
    assert paper.published == datetime(2007, 4, 5, 12, 45, 3, tzinfo=UTC)
    assert paper.title == "Limit distributions and scaling functions"  # OAI-PMH's text of v4 wins
