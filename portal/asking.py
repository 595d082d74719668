"""What the ask page and the ask API share: the question's fields, the
scope's papers, the thread and paper it names, and what each refusal says.
Validation errors name the parameter at fault."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.records.selectors import record_papers
from accounts.trail.selectors import trail_papers
from digests.ask.retrieval import FilterError
from digests.ask.selectors import ask_get
from digests.ask.services import MAX_QUESTION_LENGTH, AskRefused, Question, ask_answer
from digests.models import Ask
from digests.selectors import ask_configured, ask_missing_setting
from harvest.models import Paper
from portal.arxiv_ids import PaperNotFound, requested_paper

SCOPE_LIBRARY, SCOPE_FOLLOWS, SCOPE_RECORD = "library", "follows", "record"
SCOPE_CHOICES = [
    (SCOPE_LIBRARY, gettext_lazy("the whole library")),
    (SCOPE_FOLLOWS, gettext_lazy("my follows (my trail)")),
    (SCOPE_RECORD, gettext_lazy("my research record")),
]


class AskForm(forms.Form):
    """The ask box and page (the API takes the same names as JSON)."""

    question = forms.CharField(max_length=MAX_QUESTION_LENGTH, label=gettext_lazy("Question"))
    category = forms.CharField(required=False, max_length=400, label=gettext_lazy("Categories"))
    since = forms.CharField(required=False, max_length=10, label=gettext_lazy("From (Beijing date)"))
    until = forms.CharField(required=False, max_length=10, label=gettext_lazy("Until (Beijing date)"))
    ai = forms.ChoiceField(
        required=False,
        choices=[("", gettext_lazy("any")), ("1", gettext_lazy("AI-related only")), ("0", gettext_lazy("not AI"))],
        label=gettext_lazy("AI-related"),
    )
    scope = forms.ChoiceField(required=False, choices=SCOPE_CHOICES, label=gettext_lazy("Ask within"))
    thread = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    paper = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    def clean_question(self) -> str:
        text = " ".join(self.cleaned_data["question"].split())
        if not text:
            raise forms.ValidationError(_("Write a question."))
        return text


class AskInputError(ValueError):
    """A field that cannot be used; `errors` maps it to its messages; `status` 400 or 404."""

    def __init__(self, errors: dict[str, list[str]], *, status: int = 400):
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))
        self.errors = errors
        self.status = status


def labelled_errors(form: forms.Form, errors: dict[str, list[str]]) -> list[str]:
    """Each field's messages, the field named as the ask form labels it."""
    return [
        _("%(field)s: %(message)s")
        % {"field": form.fields[name].label if name in form.fields else name, "message": " ".join(messages)}
        for name, messages in errors.items()
    ]


def may_ask(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False) or settings.PAPERTRAIL_ASK_ANONYMOUS)


def box_state(user: Any) -> dict[str, Any]:
    """What the ask box needs to know (no query): whether it can answer, and if
    not, why; how to switch asking on is said to staff only."""
    signed_in = bool(getattr(user, "is_authenticated", False))
    missing = operator_hint = ""
    if not ask_configured():
        missing = _("AI Q&A is not switched on.")
        if getattr(user, "is_staff", False):
            operator_hint = _(
                "To switch it on, set %(setting)s in the site's environment and restart the web server "
                "and the worker (docs/ask.md, docs/configuration.md)."
            ) % {"setting": ask_missing_setting()}
    elif not may_ask(user):
        missing = _("Sign in to ask the library.")
    return {
        "ask_missing": missing,
        "ask_operator_hint": operator_hint,
        "ask_needs_sign_in": bool(missing) and ask_configured() and not signed_in,
        "ask_signed_in": signed_in,
    }


def question_from(user: Any, data: dict[str, Any]) -> Question:
    """The Question of cleaned fields: the scope's papers, the asker's own
    thread (404 for another's) and the paper it is about (404 if unknown)."""
    scope = data.get("scope") or SCOPE_LIBRARY
    signed_in = bool(getattr(user, "is_authenticated", False))
    if scope != SCOPE_LIBRARY and not signed_in:
        raise AskInputError({"scope": [_("Sign in to ask within your follows or research record.")]})
    within = None
    if scope == SCOPE_FOLLOWS:
        within = Paper.objects.filter(pk__in=trail_papers(user=user))
    elif scope == SCOPE_RECORD:
        within = Paper.objects.filter(pk__in=record_papers(user=user))
    thread = None
    if data.get("thread"):
        thread = ask_get(user=user, ask_id=data["thread"])
        if thread is None:
            raise AskInputError({"thread": [_("You have no question with this id.")]}, status=404)
    paper = None
    if data.get("paper"):
        try:
            detail, _version = requested_paper(str(data["paper"]))
        except PaperNotFound as exc:
            raise AskInputError({"paper": [exc.message]}, status=400 if exc.malformed else 404) from None
        paper = detail.paper
    categories = data.get("category") or []
    if isinstance(categories, str):
        categories = [code for code in categories.replace(",", " ").split() if code]
    filters = {
        "category": categories,
        "since": str(data.get("since") or ""),
        "until": str(data.get("until") or ""),
        "ai": data.get("ai") if data.get("ai") not in (None, "") else None,
        "scope": scope,
    }
    filters = {name: value for name, value in filters.items() if value not in (None, "", [])}
    return Question(text=data["question"], filters=filters, within=within, thread=thread, paper=paper)


def answer(user: Any, data: dict[str, Any]) -> Ask:
    """Ask; raises AskInputError or AskRefused."""
    question = question_from(user, data)
    try:
        return ask_answer(user=user, question=question)
    except FilterError as exc:
        raise AskInputError(exc.errors) from None


# HTTP status of each refusal, for the API and the page.
REFUSAL_STATUS = {
    "not_configured": 503,
    "paused": 503,
    "budget": 503,
    "unavailable": 503,
    "busy": 429,
    "timeout": 504,
    "failed": 502,
    "invalid_reply": 502,
    "no_papers": 422,
}


def refusal_message(refused: AskRefused) -> str:
    messages = {
        "not_configured": _("AI Q&A is not switched on."),
        "paused": _("AI answers are paused by the site: %(reason)s") % {"reason": refused.detail},
        "budget": _("Today's AI budget is spent, sorry. Ask again tomorrow (Beijing time)."),
        "unavailable": _("The AI service cannot be reached just now. Try again in a few minutes."),
        "busy": _("The AI service is busy. Try again in a minute."),
        "timeout": _("The AI service took too long to answer. Try again, perhaps with a narrower question."),
        "failed": _("The AI service refused the question (%(detail)s).") % {"detail": refused.detail},
        "invalid_reply": _("The AI service gave no usable answer. Try again."),
        "no_papers": _("No paper in the library matches the question and the filters."),
    }
    return messages.get(refused.code, refused.detail)
