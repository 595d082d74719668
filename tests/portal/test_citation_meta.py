"""The paper page's citation meta tags, read back as Zotero's browser connector
reads them. `connector_item` applies the mapping documented in Zotero's
Embedded Metadata translator (zotero/translators, `Embedded Metadata.js`:
HIGHWIRE_MAPPINGS, processHighwireCreators with Zotero.Utilities.cleanAuthor,
the PDF attachment and the URL fallback); it is written from that mapping, so
a tag the connector does not read, or reads differently, fails here."""

from datetime import UTC, datetime, timedelta

import bibtexparser
import pytest
import rispy
from bibtexparser import middlewares
from django.urls import reverse
from django.utils import timezone
from lxml import html

from accounts.zotero.items import item_arxiv_id
from harvest.sources.abs_files import abs_records
from tests import factories as f
from tests.replay_server import FIXTURES

pytestmark = pytest.mark.django_db

# Embedded Metadata.js, HIGHWIRE_MAPPINGS: the first value of each tag.
FIELDS = {
    "citation_title": "title",
    "citation_publication_date": "date",
    "citation_date": "date",
    "citation_journal_title": "publicationTitle",
    "citation_abstract": "abstractNote",
    "citation_doi": "DOI",
}


def meta_tags(page: bytes) -> list[tuple[str, str]]:
    tree = html.fromstring(page)
    return [(meta.get("name"), meta.get("content")) for meta in tree.xpath("/html/head/meta[@name][@content]")]


def creator(value: str) -> dict:
    """cleanAuthor: a name with a comma is "last, first"; without one, the
    last word is the last name (a name of one word has no first name)."""
    value = " ".join(value.split())
    if "," in value:
        last, first = (part.strip() for part in value.split(",", 1))
    else:
        first, _, last = value.rpartition(" ")
    return {"lastName": last, "firstName": first, "creatorType": "author"}


def connector_item(page: bytes) -> dict:
    tags = meta_tags(page)
    item: dict = {"itemType": "journalArticle", "creators": [], "attachments": []}
    for tag, field in FIELDS.items():
        values = [content for name, content in tags if name == tag]
        if values and field not in item:
            item[field] = " ".join(values[0].split())
    # Several citation_author tags: each is one name (split only at ";").
    for name, content in tags:
        if name == "citation_author":
            item["creators"] += [creator(part) for part in content.split(";") if part.strip()]
        if name == "citation_pdf_url":
            item["attachments"].append({"title": "Full Text PDF", "url": content, "mimeType": "application/pdf"})
    item["url"] = dict(tags).get("citation_abstract_html_url", "")
    return item


@pytest.fixture
def accented_paper():
    """A real arXiv record (0704.0496, three versions): a TeX accent in a name
    (C\\'edric), affiliations written after the names, a DOI."""
    [record] = abs_records(FIXTURES / "arxiv_abs_0704" / "0704.0496.abs")
    f.store(record, at=datetime(2007, 8, 25, tzinfo=UTC))
    return f.paper("0704.0496")


def test_the_connector_reads_title_authors_date_doi_and_pdf_of_a_paper(client, accented_paper):
    page = client.get(reverse("portal:paper_detail", args=["0704.0496"])).content
    item = connector_item(page)
    assert item["title"] == (
        "Fusion process studied with preequilibrium giant dipole resonance in time dependent Hartree-Fock theory"
    )
    assert [(c["lastName"], c["firstName"]) for c in item["creators"]] == [
        ("Simenel", "Cédric"),
        ("Chomaz", "Philippe"),
        ("France", "Gilles De"),
    ]
    assert item["date"] == "2007/04/04"  # v1, as arXiv's citation_date
    assert item["DOI"] == "10.1103/PhysRevC.76.024609"
    assert item["attachments"] == [
        {"title": "Full Text PDF", "url": "https://arxiv.org/pdf/0704.0496v3", "mimeType": "application/pdf"}
    ]
    assert item["url"] == "https://arxiv.org/abs/0704.0496v3"
    assert item["abstractNote"].startswith("The equilibration of macroscopic degrees of freedom during the fusion")
    tags = dict(meta_tags(page))
    assert tags["citation_arxiv_id"] == "0704.0496"
    assert tags["citation_online_date"] == "2007/08/24"


def test_the_arxiv_id_reaches_the_saved_item_through_the_doi_and_url_not_citation_arxiv_id(client):
    """Embedded Metadata.js maps no `citation_arxiv_id` (it is in neither
    HIGHWIRE_MAPPINGS nor the tags handled apart): a paper without a journal
    DOI carries arXiv's DOI, so the item the connector saves names the paper,
    and the Zotero sync brings it back as that paper."""
    assert "citation_arxiv_id" not in FIELDS
    f.store(f.record("2611.00009"), at=timezone.now() - timedelta(hours=1))
    item = connector_item(client.get("/papers/2611.00009/").content)
    assert item["DOI"] == "10.48550/arXiv.2611.00009"
    assert item["url"] == "https://arxiv.org/abs/2611.00009v1"
    assert item["attachments"][0]["url"] == "https://arxiv.org/pdf/2611.00009v1"
    assert item_arxiv_id({"DOI": item["DOI"]}) == "2611.00009"
    assert item_arxiv_id({"url": item["url"]}) == "2611.00009"


def test_affiliations_stay_out_of_the_author_tags(client, accented_paper):
    authors = [
        v for n, v in meta_tags(client.get(f"/papers/{accented_paper.arxiv_id}/").content) if n == "citation_author"
    ]
    assert authors == ["Simenel, Cédric", "Chomaz, Philippe", "France, Gilles De"]
    assert not any("GANIL" in name or "(" in name for name in authors)


def test_a_version_page_names_that_versions_pdf_and_date(client, accented_paper):
    tags = meta_tags(client.get(reverse("portal:paper_detail", args=["0704.0496v2"])).content)
    item = connector_item(client.get(reverse("portal:paper_detail", args=["0704.0496v2"])).content)
    assert item["attachments"][0]["url"] == "https://arxiv.org/pdf/0704.0496v2"
    assert item["url"] == "https://arxiv.org/abs/0704.0496v2"
    assert item["date"] == "2007/04/04"
    assert ("citation_online_date", "2007/07/11") in tags


def test_chinese_names_are_kept_as_given_and_romanised_ones_split(client):
    [record] = abs_records(FIXTURES / "arxiv_abs" / "ftp" / "arxiv" / "papers" / "1601" / "1601.04345.abs")
    f.store(record, at=datetime(2016, 2, 1, tzinfo=UTC))
    f.store(
        f.record("2611.00007", authors=["王小明", "Yu Li", "Laurens van der Maaten"]),
        at=timezone.now() - timedelta(hours=1),
    )
    romanised = connector_item(client.get("/papers/1601.04345/").content)["creators"]
    assert [(c["lastName"], c["firstName"]) for c in romanised] == [
        ("Luo", "Liantong"),
        ("Katz", "Boaz"),
        ("Dong", "Subo"),
    ]
    given = connector_item(client.get("/papers/2611.00007/").content)["creators"]
    assert [(c["lastName"], c["firstName"]) for c in given] == [
        ("王小明", ""),
        ("Li", "Yu"),
        ("van der Maaten", "Laurens"),
    ]


def test_harvested_text_in_the_tags_is_escaped(client):
    title = 'A "quoted" <script>alert(1)</script> title & more'
    f.store(
        f.record("2611.00008", title=title, abstract='x < y and "z" > w', authors=['Ann "Q" <b>Ng</b>']),
        at=timezone.now() - timedelta(hours=1),
    )
    page = client.get("/papers/2611.00008/").content
    head = page.split(b"</head>")[0]
    assert b"<script>alert" not in head and b"<b>Ng" not in head
    item = connector_item(page)
    assert item["title"] == title
    assert item["abstractNote"] == 'x < y and "z" > w'
    assert item["creators"][0]["lastName"] == "<b>Ng</b>"


def test_the_cite_downloads_read_back_with_bibtexparser_and_rispy(client, accented_paper):
    bib = client.get(reverse("portal:paper_cite_bibtex", args=["0704.0496"]))
    assert bib["Content-Type"].startswith("application/x-bibtex")
    assert bib["Content-Disposition"] == 'attachment; filename="arXiv-0704.0496.bib"'
    library = bibtexparser.parse_string(
        bib.content.decode(), append_middleware=[middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()]
    )
    [entry] = library.entries
    assert entry["eprint"] == "0704.0496"
    assert entry["doi"] == "10.1103/PhysRevC.76.024609"
    assert [(a.last, a.first) for a in entry["author"]] == [
        (["Simenel"], ["Cédric"]),
        (["Chomaz"], ["Philippe"]),
        (["France"], ["Gilles", "De"]),
    ]
    ris = client.get(reverse("portal:paper_cite_ris", args=["0704.0496"]))
    assert ris["Content-Disposition"] == 'attachment; filename="arXiv-0704.0496.ris"'
    [entry] = rispy.loads(ris.content.decode())
    assert entry["type_of_reference"] == "UNPB"
    assert entry["authors"] == ["Simenel, Cédric", "Chomaz, Philippe", "France, Gilles De"]
    assert entry["title"].startswith("Fusion process studied")
    assert entry["doi"] == "10.1103/PhysRevC.76.024609"


def test_the_paper_page_links_its_cite_downloads_and_an_unknown_paper_has_none(client, accented_paper):
    page = html.fromstring(client.get("/papers/0704.0496/").content)
    assert page.xpath("//a[@data-cite='bibtex']/@href") == ["/papers/0704.0496/cite.bib"]
    assert page.xpath("//a[@data-cite='ris']/@href") == ["/papers/0704.0496/cite.ris"]
    assert client.get("/papers/0704.9999/cite.bib").status_code == 404
