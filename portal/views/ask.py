"""`/ask/`: a question to the library and its answer; `/ask/<id>/` the
asker's thread (follow-ups, the papers drawn on, saving to the research
record, deleting). Every question page is its owner's alone (404 otherwise)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.records.services import RecordError, record_note_append
from digests.ask.prompt import answer_as_text
from digests.ask.selectors import ask_get, ask_papers, cited_arxiv_ids, thread_of
from digests.ask.services import AskRefused, ask_delete
from digests.models import Ask
from harvest.fulltext.models import FullText
from harvest.fulltext.services import request_latest_full_texts
from harvest.models import Paper
from portal.api.throttling import ask_wait
from portal.asking import (
    REFUSAL_STATUS,
    AskForm,
    AskInputError,
    answer,
    box_state,
    labelled_errors,
    may_ask,
    refusal_message,
)
from portal.selectors import attach_records, paper_cards


def _render(request: HttpRequest, template: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    response = render(request, template, {**box_state(request.user), **context}, status=status)
    add_never_cache_headers(response)
    return response


@require_http_methods(["GET", "HEAD", "POST"])
def ask(request: HttpRequest) -> HttpResponse:
    """GET: the form (its question prefilled from ?question=). POST: ask;
    the asker is sent to the thread's page, a visitor shown the answer here."""
    if request.method != "POST":
        form = AskForm(initial={"question": request.GET.get("question", "")[:1000]})
        return _render(request, "portal/ask.html", {"form": form})
    form = AskForm(request.POST)
    if not may_ask(request.user):
        return _render(request, "portal/ask.html", {"form": form, "errors": [_("Sign in to ask the library.")]}, 403)
    if not form.is_valid():
        errors = labelled_errors(form, form.errors)
        return _render(request, "portal/ask.html", {"form": form, "errors": errors}, 400)
    wait = ask_wait(request)
    if wait is not None:
        message = _("Too many questions: ask again in %(n)d seconds.") % {"n": int(wait) + 1}
        response = _render(request, "portal/ask.html", {"form": form, "errors": [message]}, 429)
        response["Retry-After"] = str(int(wait) + 1)
        return response
    try:
        asked = answer(request.user, form.cleaned_data)
    except AskInputError as exc:
        errors = labelled_errors(form, exc.errors)
        return _render(request, "portal/ask.html", {"form": form, "errors": errors}, exc.status)
    except AskRefused as exc:
        response = _render(
            request, "portal/ask.html", {"form": form, "errors": [refusal_message(exc)]}, REFUSAL_STATUS[exc.code]
        )
        if exc.retry_after is not None:
            response["Retry-After"] = str(int(exc.retry_after) + 1)
        return response
    # The papers an answer cites are read whole next (harvest/fulltext/).
    cited = Paper.objects.filter(arxiv_id__in=cited_arxiv_ids(asked)).values_list("id", flat=True)
    request_latest_full_texts(paper_ids=list(cited), reason=FullText.Reason.ASKED)
    if asked.user_id is None:
        return _render(request, "portal/ask_detail.html", _thread_context(request, [asked]))
    return redirect("portal:ask_detail", ask_id=asked.thread_id or asked.pk)


def _thread_context(request: HttpRequest, thread: list[Ask]) -> dict[str, Any]:
    last = thread[-1]
    cards = paper_cards(ask_papers(last))
    if request.user.is_authenticated:
        attach_records(cards, request.user)
    return {
        "thread": thread,
        "root": thread[0],
        "last": last,
        "cards": cards,
        "follow_up": AskForm(initial={"thread": thread[0].pk}),
    }


@login_required
@require_http_methods(["GET", "HEAD"])
def ask_detail(request: HttpRequest, ask_id: int) -> HttpResponse:
    found = ask_get(user=request.user, ask_id=ask_id)
    if found is None:
        raise Http404(_("You have no question with this id."))
    return _render(request, "portal/ask_detail.html", _thread_context(request, thread_of(found)))


@login_required
@require_POST
def ask_delete_view(request: HttpRequest, ask_id: int) -> HttpResponse:
    if not ask_delete(user=request.user, ask_id=ask_id):
        raise Http404(_("You have no question with this id."))
    messages.success(request, _("The question and its answer are deleted."))
    return redirect("accounts:me")


def note_text(asked: Ask, arxiv_id: str) -> str:
    """The note saved with a cited paper: the question, the synthesis and the
    points that cite this paper, each with its citations."""
    points = [
        point for point in asked.answer.get("points", []) if any(c["arxiv_id"] == arxiv_id for c in point["citations"])
    ]
    lines = [
        f"**{_('Asked the library')}:** {asked.question}",
        answer_as_text({"synthesis": asked.answer.get("synthesis", ""), "points": points}),
    ]
    return "\n\n".join(lines)


@login_required
@require_POST
def ask_save(request: HttpRequest, ask_id: int) -> HttpResponse:
    """Save the answer to the research record: every cited paper, with the
    answer's parts that cite it added to the paper's note."""
    found = ask_get(user=request.user, ask_id=ask_id)
    if found is None:
        raise Http404(_("You have no question with this id."))
    cited = cited_arxiv_ids(found)
    papers = Paper.objects.in_bulk(cited, field_name="arxiv_id")
    saved = 0
    for arxiv_id in cited:
        if arxiv_id not in papers:
            continue
        try:
            record_note_append(user=request.user, paper=papers[arxiv_id], text=note_text(found, arxiv_id))
        except RecordError as exc:
            messages.error(request, f"{arxiv_id}: {exc}")
            continue
        saved += 1
    if saved:
        messages.success(
            request, _("Saved to your research record with the answer as a note: %(n)d papers.") % {"n": saved}
        )
    else:
        messages.info(request, _("The answer cites no paper, so nothing was saved."))
    return redirect("portal:ask_detail", ask_id=found.thread_id or found.pk)
