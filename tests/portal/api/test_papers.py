"""/api/v1/papers/: the library's filters and sorts (the page's FilterSet),
cursor pages, and a paper with its versions, changes and readings."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from urllib.parse import parse_qs, urlparse

import pytest
from django.core.management import call_command
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext

from digests.models import GuidedReading
from harvest.announcements import announcement_store
from harvest.filters import PaperFilterSet
from harvest.models import Paper, Version
from harvest.source_records import FeedAnnouncement, ListedItem, PaperRecord, VersionRecord
from tests import factories
from tests.factories import many_papers, pick, reading, source, store
from tests.replay_server import FIXTURES

pytestmark = pytest.mark.django_db

V1 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)


def record(arxiv_id: str, *, first: datetime = V1, **fields) -> PaperRecord:
    """A paper about sparse attention (the API tests search for it), v1 at `first`."""
    return factories.record(
        arxiv_id, abstract="We study sparse attention over long documents.", first_submitted=first, **fields
    )


T0 = datetime(2026, 11, 12, 1, 0, tzinfo=UTC)


@pytest.fixture
def library():
    store(
        record("2611.00001", title="Sparse attention", categories=["cs.LG", "cs.CL"], versions=2),
        record("2611.00002", title="Graph databases", categories=["cs.DB"], authors=["Edgar Codd"]),
        record("hep-th/9901001", title="Strings", categories=["hep-th"], first=datetime(1999, 1, 4, tzinfo=UTC)),
        at=T0,
    )
    store(record("2611.00003", title="Robot grasping", categories=["cs.RO"]), at=T0 + timedelta(hours=2))
    pick(Paper.objects.get(arxiv_id="2611.00002"), source("hf_daily", "Hugging Face Daily Papers"))


def ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [item["arxiv_id"] for item in response.json()["results"]]


def test_a_list_item_has_what_a_card_shows(client_api, library):
    item = next(i for i in client_api.get("/api/v1/papers/").json()["results"] if i["arxiv_id"] == "2611.00001")
    assert item["title"] == "Sparse attention"
    assert item["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert item["categories"] == ["cs.LG", "cs.CL"] and item["primary_category"] == "cs.LG"
    assert item["ai_related"] is True and item["latest_version"] == 2 and item["has_revisions"] is True
    assert item["published"] == "2026-10-01T09:00:00Z" and item["updated"] == "2026-10-08T09:00:00Z"
    assert item["included_at"] == "2026-11-12T01:00:00Z"
    assert item["links"] == {
        "abs": "https://arxiv.org/abs/2611.00001",
        "pdf": "https://arxiv.org/pdf/2611.00001",
        "page": "/papers/2611.00001/",
        "api": "/api/v1/papers/2611.00001/",
    }
    assert item["reading"] is None and item["community_picks"] == []


@pytest.mark.parametrize(
    "query",
    [
        "",
        "ai=1",
        "ai=0",
        "revised=1",
        "hf=1",
        "hf=0",
        "category=cs.DB&category=hep-th",
        "category=cs.CL,cs.RO",
        "author=edgar codd",
        "q=attention",
        "sort=published",
        "sort=included_at",
        "sort=published&since=2026-10-01",
        "sort=included_at&until=2026-11-12",
        "days=30&sort=published",
    ],
)
def test_filters_and_sorts_give_what_the_library_page_filterset_gives(client_api, library, query):
    expected = list(PaperFilterSet(QueryDict(query)).qs.values_list("arxiv_id", flat=True))
    assert ids(client_api.get(f"/api/v1/papers/?{query}")) == expected


def test_sorts_order_newest_first_by_their_own_date(client_api, library):
    assert ids(client_api.get("/api/v1/papers/?sort=updated"))[:2] == ["2611.00001", "2611.00003"]
    assert ids(client_api.get("/api/v1/papers/?sort=included_at"))[0] == "2611.00003"
    assert ids(client_api.get("/api/v1/papers/?sort=published"))[-1] == "hep-th/9901001"
    assert ids(client_api.get("/api/v1/papers/?hf=1")) == ["2611.00002"]


@pytest.mark.parametrize(
    "query, parameter",
    [
        ("category=not a category!", "category"),
        ("ai=maybe", "ai"),
        ("sort=citations", "sort"),
        ("since=2026-13-01", "since"),
        ("since=2026-11-10&until=2026-11-01", "until"),
        ("until=9999-12-31", "until"),
        ("days=0", "days"),
        ("days=ten", "days"),
        ("q=a%00b", "q"),
        ("author=" + "x" * 600, "author"),
        ("page_size=0", "page_size"),
        ("page_size=101", "page_size"),
        ("page_size=ten", "page_size"),
        ("cursor=not-a-cursor", "cursor"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(client_api, library, query, parameter):
    response = client_api.get(f"/api/v1/papers/?{query}")
    assert response.status_code == 400
    body = response.json()
    assert parameter in body["errors"], body
    assert body["detail"].startswith(f"{parameter}: ") and body["code"] == "invalid_parameter"


def test_cursor_pages_neither_repeat_nor_skip_while_papers_are_inserted(client_api):
    many_papers(7, at=T0)
    first = client_api.get("/api/v1/papers/?page_size=3&ai=1").json()
    assert len(first["results"]) == 3 and first["next"]
    # Newer papers arrive between the two requests; they sort before page one.
    store(record("2611.09998", first=datetime(2026, 11, 12, tzinfo=UTC)), at=T0 + timedelta(hours=1))
    seen = [item["arxiv_id"] for item in first["results"]]
    url = first["next"]
    while url:
        assert parse_qs(urlparse(url).query)["ai"] == ["1"]  # the filters travel with the cursor
        page = client_api.get(url).json()
        seen += [item["arxiv_id"] for item in page["results"]]
        url = page["next"]
    expected = [f"2610.{n:05d}" for n in range(7, 0, -1)]
    assert seen == expected


def test_a_cursor_made_for_another_sort_is_refused(client_api):
    many_papers(3, at=T0)
    cursor = parse_qs(urlparse(client_api.get("/api/v1/papers/?page_size=1").json()["next"]).query)["cursor"][0]
    response = client_api.get(f"/api/v1/papers/?page_size=1&sort=published&cursor={cursor}")
    assert response.status_code == 400 and "cursor" in response.json()["errors"]


def test_a_page_never_counts_the_whole_table(client_api):
    many_papers(5, at=T0)
    with CaptureQueriesContext(connection) as queries:
        assert client_api.get("/api/v1/papers/?page_size=2").status_code == 200
    assert not [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"].upper()]


# --- one paper -------------------------------------------------------------------


@pytest.fixture
def revised_paper():
    store(record("2611.00001", title="Sparse attention", versions=1), at=T0)
    store(
        record(
            "2611.00001",
            title="Sparse attention for long documents",
            authors=["Ada Lovelace", "Grace Hopper"],
            versions=2,
            comments="12 pages",
        ),
        at=T0 + timedelta(days=1),
    )
    v1, v2 = Version.objects.order_by("number")
    reading(v1, written_at=T0 + timedelta(hours=1), takeaway="v1 takeaway")
    reading(v2, written_at=T0 + timedelta(days=1, hours=1), takeaway="v2 takeaway", zh_takeaway="简短结论。")


@pytest.mark.parametrize("path", ["2611.00001", "2611.00001v2", "2611.00001v1"])
def test_a_paper_is_found_with_or_without_version_suffix(client_api, revised_paper, path):
    body = client_api.get(f"/api/v1/papers/{path}/").json()
    assert body["arxiv_id"] == "2611.00001"
    assert body["requested_version"] == (int(path[-1]) if "v" in path else None)


def test_a_paper_shows_every_version_what_changed_and_the_readings(client_api, revised_paper):
    body = client_api.get("/api/v1/papers/2611.00001/").json()
    assert [v["label"] for v in body["versions"]] == ["v1", "v2"]
    assert body["versions"][0]["title"] == "Sparse attention"
    assert body["versions"][1]["submitted"] == "2026-10-08T09:00:00Z" and body["versions"][1]["size"] == "102kb"
    assert body["versions"][1]["announced"] is None
    assert body["versions"][0]["reading"]["content"]["en"]["takeaway"] == "v1 takeaway"
    assert body["versions"][1]["reading"]["content"]["zh"]["takeaway"] == "简短结论。"
    [change] = body["changes"]
    assert (change["from_version"], change["to_version"], change["recorded"]) == (1, 2, True)
    fields = {field["name"]: field for field in change["fields"]}
    assert {"op": "insert", "text": " for long documents"} in fields["title"]["segments"]
    assert fields["authors"]["removed"] == ["Alan Turing"] and fields["authors"]["added"] == ["Grace Hopper"]
    assert "comments" in fields


def test_a_reading_says_what_it_was_written_from_and_which_sections_each_field_rests_on(client_api, revised_paper):
    cite = {"ref": "3.2", "heading": "Results", "anchor": "S3.SS2", "page": None}
    cite["url"] = "https://arxiv.org/html/2611.00001v2#S3.SS2"
    GuidedReading.objects.filter(version__number=2).update(
        source="full_text", citations={"origin": "html", "fields": {"results": [cite]}}
    )

    v1, v2 = client_api.get("/api/v1/papers/2611.00001/").json()["versions"]

    assert v1["reading"]["source"] == "abstract" and v1["reading"]["citations"]["results"] == []
    assert v2["reading"]["source"] == "full_text"
    assert v2["reading"]["citations"]["results"] == [
        {"ref": "3.2", "heading": "Results", "url": "https://arxiv.org/html/2611.00001v2#S3.SS2"}
    ]
    assert v2["reading"]["citations"]["method"] == []


def test_an_old_style_id_is_found(client_api, library):
    body = client_api.get("/api/v1/papers/hep-th/9901001v1/").json()
    assert body["arxiv_id"] == "hep-th/9901001" and body["links"]["abs"] == "https://arxiv.org/abs/hep-th/9901001"


@pytest.mark.parametrize(
    "path, status",
    [("2611.99999", 404), ("2611.00001v9", 404), ("not-an-id", 400), ("2611.1", 400), ("a/b/c", 400)],
)
def test_unknown_or_malformed_ids_name_arxiv_id(client_api, revised_paper, path, status):
    response = client_api.get(f"/api/v1/papers/{path}/")
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert "arxiv_id" in response.json()["errors"]


@pytest.mark.parametrize("path", ["/api/v1/nothing/here/", "/api/v1/papers/%C3%AB%0A8%5D/", "/api/v1/%0A"])
def test_an_unknown_api_path_is_a_json_404(client_api, db, path):
    response = client_api.get(path)
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_v1_dates_come_from_the_first_version(client_api, library):
    body = client_api.get("/api/v1/papers/2611.00001/").json()
    assert body["published"] == V1.isoformat().replace("+00:00", "Z")


def test_a_version_known_only_from_the_announcement_feed_has_its_announcement_day(client_api):
    store(record("2611.00007"), at=T0)
    listed = record("2611.00007", versions=2)
    listed.versions = [VersionRecord(2)]  # the feed carries no submission date
    announcement_store(
        records=[listed],
        announcement=FeedAnnouncement("cs", date(2026, 11, 24), [ListedItem("2611.00007", 2, "replace")]),
    )
    [first, second] = client_api.get("/api/v1/papers/2611.00007/").json()["versions"]
    assert (first["submitted"], first["announced"]) == ("2026-10-01T09:00:00Z", None)
    assert (second["submitted"], second["announced"], second["size"]) == (None, "2026-11-24", "")


def test_a_paper_gives_each_authors_affiliation_beside_the_names(client_api, db):
    """0704.0025 (the Kaggle snapshot), numbered affiliations resolved; the
    names are what they always were, and a paper without any gives ""s."""
    call_command("import_snapshot", str(FIXTURES / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"), stdout=None)
    paper = client_api.get("/api/v1/papers/0704.0025/").json()
    assert paper["authors"] == ["A. S. Mishchenko", "N. Nagaosa"]
    assert paper["affiliations"] == [
        "CREST, Japan Science and Technology Agency; Russian Research Centre ``Kurchatov Institute''",
        "CREST, Japan Science and Technology Agency; The University of Tokyo",
    ]
    [listed] = client_api.get("/api/v1/papers/", {"author": "Miguel Nebot"}).json()["results"]
    assert listed["authors"] == ["Francisco J. Botella", "Miguel Nebot"]
    assert listed["affiliations"] == ["Valencia U. & Valencia U., IFIC", "Lisbon, IST"]
    assert client_api.get("/api/v1/papers/0704.0001/").json()["affiliations"] == ["", "", "", ""]
