"""The answer page's section citations: with arXiv's HTML of 2501.11120v1 cut
into passages, an answer citing one of its sections links the citation (in
the text and in the list) to arXiv's HTML of that version at the section's
anchor, through PAPERTRAIL_ARXIV_HTML_URL, in both languages; a section no
given passage bears is said to be removed; the API gives each section's
address."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from digests.models import Ask
from tests.digests.ask_library import store_library
from tests.digests.test_ask_passages import QUESTION, citing_sections, passages_in
from tests.harvest.fulltext_passages import ARXIV_ID, store_fixture_paper

pytestmark = pytest.mark.django_db
FLAKY = {"1906.00673", "2005.06826", "2101.09077"}


@pytest.fixture
def library(settings, tmp_path, monkeypatch):
    settings.VAR_DIR = tmp_path
    settings.PAPERTRAIL_ARXIV_HTML_URL = "https://mirror.example.org/html"
    store_library(FLAKY)
    return store_fixture_paper(monkeypatch)


REMOVED = {
    "en": "4 section citations not among the passages given removed",
    "zh-hans": "已移除 4 条不在所给段落中的章节引用",
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_cited_section_links_to_arxivs_html_at_its_anchor(reader, reader_client, fake_llm, library, language):
    fake_llm.reading_for = citing_sections
    reader.language = language  # the signed-in reader's own language
    reader.save(update_fields=["language"])
    response = reader_client.post(reverse("portal:ask"), {"question": QUESTION})
    page = reader_client.get(response.url).content.decode()
    (sent,) = fake_llm.message_requests()
    _, _, section, _ = passages_in(sent)[0]
    asked = Ask.objects.get()
    anchor = asked.answer["passages"][0]["anchor"]
    url = f"https://mirror.example.org/html/{ARXIV_ID}v1#{anchor}"
    answer = page[page.index('<article class="ask-answer"') : page.index("</article>")]
    # Inline, in the synthesis and the first point, and in the point's list of citations.
    inline = re.findall(rf'<a class="citation" href="([^"]+)" data-section="{re.escape(section)}">', answer)
    assert inline == [url, url]
    listed = f'<a class="citation citation--section" href="{url}" data-section="{section}"'
    assert listed in answer and f">§{section}</a>" in answer
    # The citation whose section was removed links to the paper's version here.
    assert f'href="/papers/{ARXIV_ID}/#v1">[arXiv:{ARXIV_ID} v1]</a>' in answer
    assert REMOVED[language] in answer
    assert ("在 arXiv 上查看此章节" if language == "zh-hans" else "This section on arXiv") in answer


def test_the_api_gives_each_cited_sections_address(reader_client, fake_llm, library):
    fake_llm.reading_for = citing_sections
    body = reader_client.post("/api/v1/ask/", {"question": QUESTION}, content_type="application/json").json()
    first = body["answer"]["points"][0]["citations"][0]
    assert first["section"] and first["url"].startswith(f"https://mirror.example.org/html/{ARXIV_ID}v1#S")
    assert body["usage"]["dropped_sections"] == 4
    assert "anchor" not in first  # the address, not the stored parts of it
