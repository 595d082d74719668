"""/records/export/ and /records/import/: signed-in only, the download in
each format, errors naming the field, and the import result page."""

from __future__ import annotations

from pathlib import Path

import bibtexparser
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import User
from accounts.records.models import Record
from accounts.records.services import record_save
from harvest.models import Paper
from tests.accounts.conftest import harvest, record

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent.parent / "fixtures" / "records"
EXPORT, IMPORT = "/records/export/", "/records/import/"


@pytest.fixture
def reader(db):
    user = User.objects.create_user("reader", password="x")
    harvest(
        record("2611.00001", title="Attention at Scale: Sparse Mixtures for Long Contexts"),
        record("hep-th/9901001", title="String theory and noncommutative geometry"),
    )
    record_save(user=user, paper=Paper.objects.get(arxiv_id="2611.00001"), tags=["Sparse <b>x</b>"])
    return user


@pytest.fixture
def signed_in(client, reader):
    client.force_login(reader)
    return client


def speaks(user, language: str) -> None:
    """A signed-in reader's pages are in the language saved with the account."""
    User.objects.filter(pk=user.pk).update(language=language)


def test_both_pages_send_anonymous_visitors_to_sign_in(client):
    for url in (EXPORT, IMPORT):
        response = client.get(url)
        assert response.status_code == 302 and response.url.endswith(f"?next={url}")
    assert client.post(IMPORT, {"text": "2611.00001"}).status_code == 302


def test_the_export_page_lists_formats_and_tags_in_both_languages(signed_in, reader):
    speaks(reader, "en")
    page = signed_in.get(EXPORT).content.decode()
    assert "Export my research record" in page and "1 saved paper." in page
    assert "Sparse &lt;b&gt;x&lt;/b&gt; (1)" in page and "<b>x</b>" not in page
    speaks(reader, "zh-hans")
    chinese = signed_in.get(EXPORT).content.decode()
    assert "导出我的研究记录" in chinese and "已保存 1 篇论文。" in chinese


def test_the_export_page_downloads_the_file(signed_in):
    response = signed_in.get(EXPORT, {"format": "bibtex", "tag": "sparse <B>x</b>"})

    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="papertrail-records-sparse-b-x-b.bib"'
    [entry] = bibtexparser.parse_string(response.content.decode()).entries
    assert entry["eprint"] == "2611.00001"


def test_export_errors_are_shown_on_the_page(signed_in):
    response = signed_in.get(EXPORT, {"format": "docx", "tag": "missing"})
    assert response.status_code == 400
    page = response.content.decode()
    assert 'data-field="format"' in page and 'data-field="tag"' in page


def test_importing_a_file_shows_each_entry_with_its_reason(signed_in, reader, settings):
    settings.RECORDS_IMPORT_MAX_LOOKUPS = 0  # the file's paper the library lacks is not looked up here
    speaks(reader, "en")
    upload = SimpleUploadedFile("zotero.ris", (FIXTURES / "zotero.ris").read_bytes())
    response = signed_in.post(IMPORT, {"file": upload})

    assert response.status_code == 200
    page = response.content.decode()
    assert "Import result" in page
    assert 'data-outcome="matched"' in page and 'data-outcome="unmatched"' in page
    assert "arXiv id 2611.00001; tags added" in page
    assert Record.objects.filter(user=reader).count() == 1


def test_pasted_ids_are_imported_and_the_result_is_in_chinese(signed_in, reader):
    response = signed_in.post(IMPORT, {"text": "hep-th/9901001v1\nnonsense"})

    page = response.content.decode()
    assert "导入结果" in page and "arXiv 编号 hep-th/9901001；已保存" in page
    assert "条目格式有误" in page
    assert Record.objects.filter(user=reader, paper__arxiv_id="hep-th/9901001").exists()


def test_an_import_error_is_shown_with_the_form(signed_in, reader, settings):
    speaks(reader, "en")
    settings.RECORDS_IMPORT_MAX_BYTES = 1024
    upload = SimpleUploadedFile("big.bib", b"%" * 5000)
    response = signed_in.post(IMPORT, {"file": upload})
    assert response.status_code == 400
    assert "the limit is 1,024 bytes" in response.content.decode()
    empty = signed_in.post(IMPORT, {"text": "  "})
    assert empty.status_code == 400 and "Choose a file" in empty.content.decode()


def test_what_an_imported_file_says_is_shown_as_text(signed_in):
    text = "@misc{x<b>y, title={<img src=x onerror=alert(1)>}}\n<script>alert(2)</script>"
    page = signed_in.post(IMPORT, {"text": text}).content.decode()
    assert "<img src=x" not in page and "<script>alert(2)" not in page and "x<b>y" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
