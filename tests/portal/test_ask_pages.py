"""The ask box and pages: where the box is and what it says when it cannot
answer, asking and the thread's page, the answer's markup made inert, the
rates, the budget, saving to the research record and deleting from /me/."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.records.models import Record
from accounts.records.services import record_save
from digests.models import Ask
from harvest.models import Paper
from tests.accounts.conftest import cards
from tests.digests.ask_library import labels_in, store_library

pytestmark = pytest.mark.django_db
FLAKY = {"1906.00673", "2005.06826", "2101.09077", "2302.09330", "2004.05150"}


@pytest.fixture
def library(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    return store_library(FLAKY)


def post_question(client: Client, text: str = "What causes flaky tests?", **fields):
    return client.post(reverse("portal:ask"), {"question": text, **fields})


@pytest.mark.parametrize("name", ["portal:overview", "portal:paper_list", "portal:trail"])
def test_the_box_is_on_the_overview_the_library_and_the_trail(name, reader_client, fake_llm):
    page = reader_client.get(reverse(name)).content.decode()
    assert "data-ask-box" in page and f'action="{reverse("portal:ask")}"' in page
    assert 'name="question"' in page
    chosen = "follows" if name == "portal:trail" else "library"  # the trail asks within the follows first
    assert f'<option value="{chosen}" selected>' in page


def test_without_a_key_the_box_says_it_is_off_and_only_staff_read_how_to_switch_it_on(client, reader_client, settings):
    settings.ANTHROPIC_API_KEY = ""
    for visitor in (client, reader_client):
        page = visitor.get(reverse("portal:overview")).content.decode()
        missing = page.split("data-ask-missing>", 1)[1].split("</p>", 1)[0]
        assert missing == "AI 问答未开启" and 'name="question"' not in page
        assert "ANTHROPIC_API_KEY" not in page
    User.objects.create_user("ops", password="x", is_staff=True)
    client.login(username="ops", password="x")
    page = client.get(reverse("portal:overview")).content.decode()
    assert "data-ask-operator" in page and "ANTHROPIC_API_KEY" in page


def test_a_visitor_is_asked_to_sign_in_unless_asking_is_open(client, fake_llm, library, settings):
    assert "data-ask-missing" in client.get(reverse("portal:overview")).content.decode()
    assert post_question(client).status_code == 403 and fake_llm.message_requests() == []
    settings.PAPERTRAIL_ASK_ANONYMOUS = True
    response = post_question(client)
    assert response.status_code == 200 and "data-answer" in response.content.decode()
    assert Ask.objects.get().user is None


def test_asking_leads_to_the_thread_with_the_answer_its_citations_and_the_papers(reader_client, fake_llm, library):
    response = post_question(reader_client)
    asked = Ask.objects.get()
    assert response.status_code == 302 and response.url == reverse("portal:ask_detail", args=[asked.pk])
    page = reader_client.get(response.url).content.decode()
    (sent,) = fake_llm.message_requests()
    first, number = labels_in(sent)[0]
    assert f'href="/papers/{first}/#v{number}"' in page  # inline and listed citations link to the version
    assert page.count('class="paper-card"') == len(FLAKY)  # every paper drawn on, as compact cards
    assert "What causes flaky tests?" in page and 'data-action="save-answer"' in page


def test_the_answers_markup_is_inert_and_its_markdown_and_tex_are_kept(reader_client, fake_llm, library):
    def hostile(params):
        arxiv_id, number = labels_in(params)[0]
        return {
            "synthesis": "**Bold** <script>alert(1)</script> <img src=x onerror=alert(2)> $x^2$",
            "points": [
                {
                    "text": '[click](javascript:alert(3)) <a href="http://evil.example">x</a> '
                    f"[arXiv:{arxiv_id} v{number}]",
                    "citations": [{"arxiv_id": arxiv_id, "version": number}],
                }
            ],
        }

    fake_llm.reading_for = hostile
    page = reader_client.get(post_question(reader_client).url).content.decode()
    assert "<strong>Bold</strong>" in page and "$x^2$" in page
    answer = page[page.index('<article class="ask-answer"') : page.index("</article>")]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in answer and "<script" not in answer
    assert "<img" not in answer and 'href="javascript' not in answer and "evil.example" not in answer


def test_the_rate_per_user_and_per_address_refuses_with_retry_after(
    reader_client, other_client, fake_llm, library, settings
):
    settings.PAPERTRAIL_ASK_USER_RATE = "2/hour"
    settings.PAPERTRAIL_ASK_ADDRESS_RATE = "3/hour"
    assert [post_question(reader_client, f"Flaky tests {n}?").status_code for n in range(3)] == [302, 302, 429]
    refused = post_question(reader_client, "Flaky tests again?")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    # Another account from the same address: one question left for the address.
    assert [post_question(other_client, f"Flaky {n}?").status_code for n in range(2)] == [302, 429]
    assert Ask.objects.count() == 3


def test_a_spent_budget_is_a_polite_refusal(reader_client, fake_llm, library, settings):
    settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD = 0.0001
    response = post_question(reader_client)
    assert response.status_code == 503
    assert "budget is spent" in response.content.decode() or "预算" in response.content.decode()
    assert fake_llm.message_requests() == [] and not Ask.objects.exists()


def test_a_bad_filter_is_a_400_naming_it(reader_client, fake_llm, library):
    response = post_question(reader_client, category="not a code!")
    assert response.status_code == 400 and "category" in response.content.decode()
    assert fake_llm.message_requests() == []


def test_scope_my_follows_asks_within_the_trail(reader, reader_client, fake_llm, library):
    follow_create(user=reader, kind="query", value={"q": "flaky"}, name="flaky")
    trail = set(
        Paper.objects.filter(pk__in=[card.paper_id for card in cards(reader)]).values_list("arxiv_id", flat=True)
    )
    assert trail and trail < set(library)
    assert post_question(reader_client, scope="follows").status_code == 302
    (sent,) = fake_llm.message_requests()
    assert {arxiv_id for arxiv_id, _ in labels_in(sent)} == trail


def test_scope_my_research_record_asks_within_it(reader, reader_client, fake_llm, library):
    for arxiv_id in ("2004.05150", "1906.00673"):
        record_save(user=reader, paper=library[arxiv_id])
    assert post_question(reader_client, scope="record").status_code == 302
    (sent,) = fake_llm.message_requests()
    assert {arxiv_id for arxiv_id, _ in labels_in(sent)} == {"2004.05150", "1906.00673"}
    assert post_question(Client(), scope="record").status_code == 403  # a visitor has no record


def test_saving_the_answer_puts_each_cited_paper_in_the_record_with_the_answer_as_its_note(
    reader, reader_client, fake_llm, library
):
    asked_url = post_question(reader_client).url
    asked = Ask.objects.get()
    response = reader_client.post(reverse("portal:ask_save", args=[asked.pk]))
    assert response.status_code == 302
    cited = [c["arxiv_id"] for p in asked.answer["points"] for c in p["citations"]]
    records = Record.objects.filter(user=reader).select_related("paper")
    assert sorted(r.paper.arxiv_id for r in records) == sorted(cited)
    note = records.get(paper__arxiv_id=cited[0]).note
    assert "What causes flaky tests?" in note and f"[arXiv:{cited[0]} v1]" in note
    assert reader_client.get(asked_url).status_code == 200


def test_questions_are_listed_on_me_and_deletable_by_their_owner_only(reader_client, other_client, fake_llm, library):
    post_question(reader_client)
    asked = Ask.objects.get()
    assert f'data-ask-item="{asked.pk}"' in reader_client.get(reverse("accounts:me")).content.decode()
    assert other_client.get(reverse("portal:ask_detail", args=[asked.pk])).status_code == 404
    assert other_client.post(reverse("portal:ask_delete", args=[asked.pk])).status_code == 404
    assert Ask.objects.filter(pk=asked.pk).exists()
    assert reader_client.post(reverse("portal:ask_delete", args=[asked.pk])).status_code == 302
    assert not Ask.objects.exists()


def test_a_follow_up_of_another_users_question_is_404(reader_client, fake_llm, library):
    post_question(reader_client)
    other = User.objects.create_user("third", password="x")
    client = Client()
    client.force_login(other)
    response = post_question(client, "And then?", thread=Ask.objects.get().pk)
    assert response.status_code == 404 and len(fake_llm.message_requests()) == 1


def test_the_paper_page_asks_about_the_paper(reader_client, fake_llm, library):
    page = reader_client.get(reverse("portal:paper_detail", args=["1906.00673"])).content.decode()
    assert 'name="paper" value="1906.00673"' in page
    response = post_question(reader_client, "What does it find?", paper="1906.00673")
    assert response.status_code == 302
    (sent,) = fake_llm.message_requests()
    assert labels_in(sent) == [("1906.00673", 1)]


def test_the_thread_page_reads_a_fixed_number_of_queries(
    reader_client, fake_llm, library, django_assert_max_num_queries
):
    url = post_question(reader_client).url
    for n in range(2):
        post_question(reader_client, f"And what about number {n}?", thread=Ask.objects.order_by("id").first().pk)
    with django_assert_max_num_queries(16):
        response = reader_client.get(url)
    assert response.status_code == 200 and response.content.decode().count('data-answer="synthesis"') == 3


def test_a_citation_inside_a_links_title_stays_text_of_the_attribute(reader_client, fake_llm, library):
    def titled(params):
        arxiv_id, number = labels_in(params)[0]
        cite = f"[arXiv:{arxiv_id} v{number}]"
        return {
            "synthesis": f'See [the paper](/papers/{arxiv_id}/ "read {cite} first") and {cite}.',
            "points": [],
        }

    fake_llm.reading_for = titled
    page = reader_client.get(post_question(reader_client).url).content.decode()
    synthesis = page[
        page.index('data-answer="synthesis"') : page.index("</div>", page.index('data-answer="synthesis"'))
    ]
    (sent,) = fake_llm.message_requests()
    arxiv_id, number = labels_in(sent)[0]
    assert f'title="read [arXiv:{arxiv_id} v{number}] first"' in synthesis
    assert synthesis.count('class="citation"') == 1
