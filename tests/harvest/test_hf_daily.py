"""Hugging Face Daily Papers against recorded replies (and the arXiv API for
papers the library lacks)."""

from __future__ import annotations

import json
from datetime import date, datetime

import pytest

from harvest.models import CommunityPick, HarvestRun, Paper
from harvest.runs import harvest_source
from harvest.services import paper_upsert_many
from harvest.source_records import PaperRecord, VersionRecord
from harvest.sources.base import Window
from harvest.sources.hf_daily import HfDailySource, days_for, parse_daily_papers
from harvest.sources.http import PermanentError, PoliteSession
from harvest.sources.registry import SOURCES
from tests.harvest.arxiv_api_replay import PATH as API_PATH
from tests.harvest.arxiv_api_replay import serve_recorded
from tests.replay_server import Reply, fixture_bytes

HF_PATH = "/api/daily_papers"
JUNE = fixture_bytes("hf_daily/sotawhat_hf_daily_papers_2026-06-12.json")
JULY = fixture_bytes("hf_daily/all-news-ai_hf_daily_papers_2026-07-31.json")


def items(body: bytes) -> list[dict]:
    return json.loads(body)


def serve_days(server, days: dict[str, bytes]) -> None:
    def respond(request):
        body = days.get(request.param("date") or "")
        if body is None:
            return Reply(status=404, body=b"not recorded", content_type="text/plain")
        return Reply(body=body, content_type="application/json; charset=utf-8")

    server.responder(HF_PATH, respond)


def store_from_hf(entries: list[dict]) -> None:
    """Test set-up: put these papers in the library (text and date as Hugging
    Face lists them) so that the check finds them there."""
    paper_upsert_many(
        records=[
            PaperRecord(
                arxiv_id=item["paper"]["id"],
                title=item["paper"]["title"],
                abstract=item["paper"]["summary"],
                authors=[author["name"] for author in item["paper"]["authors"]],
                versions=[
                    VersionRecord(
                        number=1, submitted=datetime.fromisoformat(item["paper"]["publishedAt"][:19] + "+00:00")
                    )
                ],
            )
            for item in entries
        ]
    )


@pytest.fixture
def registered(monkeypatch) -> None:
    """The source's registry line (harvest/sources/registry.py); a no-op once it is there."""
    monkeypatch.setitem(SOURCES, HfDailySource.slug, HfDailySource)


@pytest.fixture
def hf(settings, replay_server, registered):
    settings.HF_DAILY_PAPERS_URL = f"{replay_server.url}{HF_PATH}"
    settings.ARXIV_API_URL = serve_recorded(replay_server)
    return replay_server


def client() -> HfDailySource:
    return HfDailySource(http=PoliteSession(sleep=lambda seconds: None))


def test_parse_reads_every_recorded_item():
    for body, day in ((JUNE, date(2026, 6, 12)), (JULY, date(2026, 7, 31))):
        page = parse_daily_papers(body)
        raw = items(body)
        assert page.skipped == 0
        assert [(p.arxiv_id, p.upvotes) for p in page.picks] == [
            (item["paper"]["id"], item["paper"]["upvotes"]) for item in raw
        ]
        assert {p.featured_on for p in page.picks} == {day}
        assert page.picks[0].url == f"https://huggingface.co/papers/{raw[0]['paper']['id']}"


def test_malformed_items_are_skipped_and_counted_and_the_rest_kept():
    raw = items(JUNE)
    raw[0] = "not an item"
    del raw[1]["paper"]
    raw[2]["paper"]["id"] = "not-an-arxiv-id"
    raw[3]["paper"]["upvotes"] = "many"
    raw[4]["paper"]["submittedOnDailyAt"] = "yesterday"

    page = parse_daily_papers(json.dumps(raw).encode())

    assert page.skipped == 5
    assert [p.arxiv_id for p in page.picks] == [item["paper"]["id"] for item in raw[5:]]


@pytest.mark.parametrize("body", [b"<html>busy</html>", b'{"error": "Invalid date"}'])
def test_a_reply_that_is_not_an_array_is_a_permanent_error(body):
    with pytest.raises(PermanentError):
        parse_daily_papers(body)


def test_days_for_a_window():
    today = date(2026, 6, 12)
    assert days_for(Window(), today) == [date(2026, 6, 11), today]
    assert days_for(Window(date_from=date(2026, 6, 10)), today) == [date(2026, 6, 10), date(2026, 6, 11), today]
    assert days_for(Window(date_until=date(2026, 6, 1)), today) == [date(2026, 6, 1)]
    with pytest.raises(PermanentError, match="longer than"):
        days_for(Window(date_from=date(2024, 1, 1)), today)


@pytest.mark.django_db
def test_picks_of_papers_in_the_library_are_stored_without_asking_arxiv(hf):
    store_from_hf(items(JUNE))
    serve_days(hf, {"2026-06-12": JUNE})

    run = harvest_source(slug="hf_daily", window=Window(date(2026, 6, 12), date(2026, 6, 12)), client=client())

    assert run.status != HarvestRun.Status.FAILED
    assert [r.param("date") for r in hf.requests_to(HF_PATH)] == ["2026-06-12"]
    assert hf.requests_to(API_PATH) == []
    picks = {p.paper.arxiv_id: p for p in CommunityPick.objects.select_related("paper", "source")}
    assert {arxiv_id: p.upvotes for arxiv_id, p in picks.items()} == {
        item["paper"]["id"]: item["paper"]["upvotes"] for item in items(JUNE)
    }
    pick = picks["2606.13681"]
    assert (pick.featured_on, pick.upvotes, pick.source.slug) == (date(2026, 6, 12), 118, "hf_daily")
    assert pick.url == "https://huggingface.co/papers/2606.13681"


@pytest.mark.django_db
def test_papers_not_in_the_library_are_looked_up_on_arxiv_in_one_request(hf):
    # Derived from the recorded July reply: the first two items name papers
    # that the recorded arXiv API replies cover (0808.05394 is unknown to
    # arXiv, 1707.08567 exists); the other three are already in the library.
    raw = items(JULY)
    raw[0]["paper"]["id"], raw[1]["paper"]["id"] = "0808.05394", "1707.08567"
    store_from_hf(raw[2:])
    serve_days(hf, {"2026-07-31": json.dumps(raw).encode()})

    run = harvest_source(slug="hf_daily", window=Window(date(2026, 7, 31), date(2026, 7, 31)), client=client())

    assert run.status == HarvestRun.Status.OK
    assert run.new_papers == 1
    [lookup] = hf.requests_to(API_PATH)
    assert lookup.param("id_list") == "0808.05394,1707.08567"
    paper = Paper.objects.get(arxiv_id="1707.08567")
    assert paper.categories and paper.versions.count() == 1
    picked = set(CommunityPick.objects.values_list("paper__arxiv_id", flat=True))
    assert picked == {"1707.08567"} | {item["paper"]["id"] for item in raw[2:]}
    assert CommunityPick.objects.get(paper=paper).upvotes == raw[1]["paper"]["upvotes"]


@pytest.mark.django_db
def test_a_second_check_updates_upvotes_without_new_picks(hf):
    store_from_hf(items(JULY))
    serve_days(hf, {"2026-07-31": JULY})
    window = Window(date(2026, 7, 31), date(2026, 7, 31))
    harvest_source(slug="hf_daily", window=window, client=client())
    first_ids = list(CommunityPick.objects.order_by("id").values_list("id", flat=True))

    later = items(JULY)
    later[2]["paper"]["upvotes"] += 5
    serve_days(hf, {"2026-07-31": json.dumps(later).encode()})
    harvest_source(slug="hf_daily", window=window, client=client())

    assert list(CommunityPick.objects.order_by("id").values_list("id", flat=True)) == first_ids
    assert CommunityPick.objects.get(paper__arxiv_id=later[2]["paper"]["id"]).upvotes == later[2]["paper"]["upvotes"]


@pytest.mark.django_db
def test_a_refused_request_fails_the_check_honestly(hf):
    hf.queue(HF_PATH, Reply(status=403, body=b"forbidden", content_type="text/plain"))

    run = harvest_source(slug="hf_daily", window=Window(date(2026, 6, 12), date(2026, 6, 12)), client=client())

    assert run.status == HarvestRun.Status.FAILED
    assert "HTTP 403" in run.error
    assert CommunityPick.objects.count() == 0


@pytest.mark.django_db
def test_incremental_check_asks_for_yesterday_and_today(hf):
    store_from_hf(items(JUNE))
    serve_days(hf, {"2026-06-12": JUNE})
    source = HfDailySource(http=PoliteSession(sleep=lambda seconds: None), today=lambda: date(2026, 6, 13))
    pages = source.pages(window=Window(), source_checkpoint={}, resume={})

    first = next(pages)
    assert first.checkpoint == {"done": "2026-06-12"} and len(first.picks) == 30
    with pytest.raises(PermanentError, match="HTTP 404"):
        next(pages)
    assert [r.param("date") for r in hf.requests_to(HF_PATH)] == ["2026-06-12", "2026-06-13"]
