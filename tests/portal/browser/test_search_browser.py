"""Search by meaning in a real browser, in both languages: a Chinese query
typed into the library's box finds the English paper first, and the paper
page lists its similar papers; no console errors."""

import pytest
from django.utils import timezone

from harvest.embeddings.services import embed_papers
from harvest.search_index import index_pending_papers
from tests import factories as f
from tests.harvest.test_embeddings import _fields, real_papers
from tests.portal.browser.conftest import browser_page, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PAPERS = ("2108.10257", "2111.09881", "2306.06721", "1906.00673", "0704.0361")
TEXTS = {
    "zh": {"similar": "相似论文", "mode": "检索方式"},
    "en": {"similar": "Similar papers", "mode": "Search by"},
}


@pytest.fixture
def library(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    papers = real_papers(PAPERS)
    f.store(*(f.record(arxiv_id, **_fields(arxiv_id, paper)) for arxiv_id, paper in papers.items()), at=timezone.now())
    index_pending_papers()
    embed_papers()


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_chinese_query_finds_the_english_paper_and_its_page_lists_similar_ones(live_server, library, language):
    with browser_page() as (page, watch):
        page.goto(f"{live_server.url}/papers/")
        if language == "en":
            page.get_by_role("button", name="English").click()
            page.wait_for_load_state("load")
        assert TEXTS[language]["mode"] in page.locator("form.filters").inner_text()
        page.fill("#f-q", "差分隐私 条件独立性检验")  # differential privacy, conditional independence testing
        page.locator("#f-q").press("Enter")
        page.wait_for_load_state("load")
        first = page.locator(".paper-card__title").first
        assert "Differentially Private Conditional Independence Testing" in first.inner_text()
        screenshot(page, f"search-chinese-{language}")

        page.goto(f"{live_server.url}/papers/2108.10257/")
        section = page.locator("#similar")
        assert TEXTS[language]["similar"] in section.inner_text()
        items = section.locator("[data-similar]")
        assert items.count() == len(PAPERS) - 1
        assert items.first.get_attribute("data-similar") == "2111.09881"  # the other restoration transformer
        items.first.locator("a").click()
        page.wait_for_load_state("load")
        assert page.url.endswith("/papers/2111.09881/")
        screenshot(page, f"similar-papers-{language}")
        assert watch.console_errors == [] and watch.page_errors == []
