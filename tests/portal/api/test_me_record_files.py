"""/api/v1/me/records/export/ and /api/v1/me/records/import/: the caller's own
record as files, imports of files and id lists, errors naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest
import rispy

from accounts.models import User
from accounts.records.models import Record
from accounts.records.services import record_save
from harvest.models import Paper
from tests.accounts.conftest import harvest, record

pytestmark = pytest.mark.django_db
EXPORT = "/api/v1/me/records/export/"
IMPORT = "/api/v1/me/records/import/"
FIXTURES = Path(__file__).parent.parent.parent / "fixtures" / "records"


@pytest.fixture
def api(client_api, token):
    client_api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client_api


@pytest.fixture
def saved(user):
    harvest(
        record("2611.00001", title="Attention at Scale: Sparse Mixtures for Long Contexts"),
        record("2611.00002", title="Second"),
        record("hep-th/9901001", title="String theory and noncommutative geometry"),
    )
    papers = {paper.arxiv_id: paper for paper in Paper.objects.all()}
    record_save(user=user, paper=papers["2611.00001"], tags=["Sparse"])
    record_save(user=user, paper=papers["hep-th/9901001"])
    other = User.objects.create_user("other", password="x")
    record_save(user=other, paper=papers["2611.00002"], tags=["Sparse"], note="other's")
    return papers


def test_export_in_each_format_holds_only_the_callers_records(api, saved):
    bib = api.get(EXPORT, {"format": "bibtex"})
    assert bib.status_code == 200 and bib["Content-Type"].startswith("application/x-bibtex")
    assert bib["Content-Disposition"] == 'attachment; filename="papertrail-records.bib"'
    entries = bibtexparser.parse_string(bib.content.decode()).entries
    assert {entry["eprint"] for entry in entries} == {"2611.00001", "hep-th/9901001"}

    ris = api.get(EXPORT, {"format": "ris", "tag": "sparse"})
    assert [entry["accession_number"] for entry in rispy.loads(ris.content.decode())] == ["arXiv:2611.00001"]
    assert ris["Content-Disposition"] == 'attachment; filename="papertrail-records-sparse.ris"'

    csl = api.get(EXPORT, {"format": "csljson", "ids": "hep-th/9901001v2"})
    assert [item["number"] for item in json.loads(csl.content)] == ["arXiv:hep-th/9901001"]

    data = api.get(EXPORT, {"format": "json"})
    assert data["Content-Type"].startswith("application/json")
    assert {row["paper"] for row in json.loads(data.content)["records"]} == {"2611.00001", "hep-th/9901001"}
    assert "other's" not in data.content.decode()


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"format": "docx"}, "format"),
        ({"tag": "nope"}, "tag"),
        ({"tag": "no\x00pe"}, "tag"),
        ({"ids": "2611.00001,garbage"}, "ids"),
    ],
)
def test_export_errors_name_the_parameter(api, saved, params, field):
    response = api.get(EXPORT, params)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]


def test_import_a_file_then_the_same_file_again(api, user, saved):
    upload = FIXTURES / "tricky.bib"
    with upload.open("rb") as handle:
        first = api.post(IMPORT, {"file": handle}, format="multipart")

    assert first.status_code == 200
    body = first.json()
    assert body["format"] == "bibtex"
    assert body["counts"] == {"matched": 3, "added": 0, "unmatched": 3}
    assert {entry["arxiv_id"] for entry in body["entries"] if entry["outcome"] == "matched"} == {
        "2611.00001",
        "2611.00002",
        "hep-th/9901001",
    }
    with upload.open("rb") as handle:
        again = api.post(IMPORT, {"file": handle}, format="multipart").json()
    assert again["saved"] == 0 and again["counts"] == body["counts"]


def test_import_a_list_of_ids(api, user, saved):
    response = api.post(IMPORT, {"ids": ["2611.00002v1", "https://arxiv.org/abs/2611.00001", "x"]}, format="json")

    assert response.status_code == 200
    assert [(e["label"], e["outcome"]) for e in response.json()["entries"]] == [
        ("2611.00002v1", "matched"),
        ("https://arxiv.org/abs/2611.00001", "matched"),
        ("x", "unmatched"),
    ]
    assert Record.objects.filter(user=user, paper__arxiv_id="2611.00002").exists()


def test_import_errors_name_the_field(api, saved, settings):
    assert list(api.post(IMPORT, {"ids": []}, format="json").json()["errors"]) == ["ids"]
    assert list(api.post(IMPORT, {}, format="json").json()["errors"]) == ["ids"]
    # A body of a type the import does not read is a 400 naming the input, not a 415.
    plain = api.generic("POST", IMPORT, "2611.00001", content_type="text/plain")
    assert plain.status_code == 400 and list(plain.json()["errors"]) == ["file"]
    settings.RECORDS_IMPORT_MAX_BYTES = 1024
    with (FIXTURES / "zotero.bib").open("rb") as handle:
        response = api.post(IMPORT, {"file": handle}, format="multipart")
    assert response.status_code == 400 and list(response.json()["errors"]) == ["file"]
    assert "1,024" in response.json()["errors"]["file"][0]


def test_anonymous_callers_are_refused(client_api, saved):
    assert client_api.get(EXPORT).status_code in (401, 403)
    assert client_api.post(IMPORT, {"ids": ["2611.00001"]}, format="json").status_code in (401, 403)
