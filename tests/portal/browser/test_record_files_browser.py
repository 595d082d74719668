"""A researcher in a real browser, in both languages: exports the saved
papers (set up with record_save) as BibTeX and RIS from /records/export/,
then imports both files back into another account from /records/import/
and reads the result page, with no console error."""

from __future__ import annotations

from datetime import timedelta

import bibtexparser
import pytest
import rispy
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts.models import User
from accounts.records.models import Record
from accounts.records.services import record_save
from harvest.models import Paper
from tests import factories as f
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "zh-hans": {"title": "导出我的研究记录", "result": "导入结果", "matched": "在论文库中匹配到", "saved": "已保存"},
    "en": {
        "title": "Export my research record",
        "result": "Import result",
        "matched": "Matched in the library",
        "saved": "saved",
    },
}
PAPERS = {
    "2611.00101": "Diffusion policies for legged robots",
    "2611.00102": "Robot grasping with {braces} & 50% less",
    "hep-th/9901001": "Über strings",
}


@pytest.fixture
def accounts():
    """The exporting researcher with three saved papers and two tags, and a
    second researcher who imports the files."""
    f.store(
        *(
            f.record(arxiv_id, title=title, authors=["Jürgen Müller", "Ada Lovelace"])
            for arxiv_id, title in PAPERS.items()
        ),
        at=timezone.now() - timedelta(days=2),
    )
    owner = User.objects.create_user("owner", password="x")
    for arxiv_id in PAPERS:
        tags = ["robots"] if arxiv_id.startswith("2611") else ["strings"]
        record_save(user=owner, paper=Paper.objects.get(arxiv_id=arxiv_id), state="reading", tags=tags)
    reader = User.objects.create_user("reader", password="x")
    cookies = {}
    for user in (owner, reader):
        client = Client()
        client.force_login(user)
        cookies[user.username] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return cookies


def _sign_in(page, base: str, cookie: str, language: str) -> None:
    page.context.clear_cookies()
    page.context.add_cookies(
        [
            {"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base},
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base},
        ]
    )


def _download(page, format_value: str, tmp_path) -> str:
    page.check(f"input[name=format][value={format_value}]")
    with page.expect_download() as caught:
        page.click("#export-form button[type=submit]")
    path = tmp_path / caught.value.suggested_filename
    caught.value.save_as(path)
    return path


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_export_then_import_both_files_in_the_browser(live_server, accounts, language, tmp_path):
    texts = TEXTS[language]
    base = live_server.url
    in_thread(lambda: User.objects.update(language=language))
    with browser_page() as (page, watch):
        _sign_in(page, base, accounts["owner"], language)
        page.goto(f"{base}/records/export/")
        assert page.locator("h1").inner_text() == texts["title"]
        screenshot(page, f"records-export-{language}")
        bib = _download(page, "bibtex", tmp_path)
        assert bib.name == "papertrail-records.bib"
        entries = bibtexparser.parse_file(str(bib)).entries
        assert {entry["eprint"] for entry in entries} == set(PAPERS)
        assert all(entry["author"] == "Jürgen Müller and Ada Lovelace" for entry in entries)
        page.select_option("#e-tag", "robots")
        ris = _download(page, "ris", tmp_path)
        assert ris.name == "papertrail-records-robots.ris"
        assert {e["accession_number"] for e in rispy.loads(ris.read_text())} == {"arXiv:2611.00101", "arXiv:2611.00102"}

        _sign_in(page, base, accounts["reader"], language)
        for path, expected in ((bib, 3), (ris, 2)):
            page.goto(f"{base}/records/import/")
            page.set_input_files("#i-file", str(path))
            page.click("#import-form button[type=submit]")
            page.wait_for_selector("#import-result")
            assert page.locator("h1").inner_text() == texts["result"]
            matched = page.locator("table[data-outcome=matched] tbody tr")
            assert matched.count() == expected
            assert texts["matched"] in page.locator("#import-result").inner_text()
            screenshot(page, f"records-import-{path.suffix[1:]}-{language}")
        assert texts["saved"] in matched.first.inner_text()
        watch.assert_clean()

    imported = in_thread(
        lambda: {
            record.paper.arxiv_id: sorted(record.tags.values_list("name", flat=True))
            for record in Record.objects.filter(user__username="reader").select_related("paper")
        }
    )
    assert imported == {"2611.00101": ["robots"], "2611.00102": ["robots"], "hep-th/9901001": ["strings"]}
