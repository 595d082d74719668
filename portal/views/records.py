"""`/records/`: a signed-in user's research record (filters, sorts, counts,
bulk actions, their tags), and saving a paper from any card or the paper page
(`/papers/<arXiv id>/record/`), answered with the controls' fragment for htmx
and with a redirect back otherwise."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from accounts.records.models import Record, Tag
from accounts.records.selectors import record_counts, record_get, record_page, render_note
from accounts.records.services import (
    RecordError,
    record_remove,
    record_save,
    records_add_tag,
    records_remove,
    records_set_state,
    tag_delete,
    tag_merge,
    tag_rename,
)
from harvest.models import Paper
from portal.arxiv_ids import PaperNotFound, requested_paper
from portal.record_params import record_filters_from

RECORDS_PAGE = 20
_TAG_SEPARATORS = re.compile("[,;\uff0c\uff1b\u3001]")  # and their full-width forms, and the enumeration comma 、


def split_tags(text: str) -> list[str]:
    """Tags as typed: separated by commas (either width) or semicolons."""
    return [name for name in _TAG_SEPARATORS.split(text or "") if name.strip()]


def state_labels() -> dict[str, str]:
    return {"to_read": _("to read"), "reading": _("reading"), "read": _("read")}


def _next(request: HttpRequest, fallback: str) -> str:
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return fallback


def controls_context(request: HttpRequest, paper: Paper, record: Record | None, *, full: bool) -> dict[str, Any]:
    return {
        "paper": paper,
        "record": record,
        "signed_in": request.user.is_authenticated,
        "full": full,
        "next": request.POST.get("next") or request.get_full_path(),
        "note_html": render_note(record.note) if full and record is not None else "",
    }


# Each form's fields as the page labels them, to name a refused one; the
# API keeps the parameter names its clients send.
RECORD_LABELS = {
    "state": gettext_lazy("Reading state"),
    "tags": gettext_lazy("Tags"),
    "note": gettext_lazy("Private note (Markdown, TeX in $…$)"),
}
BULK_LABELS = {
    "record": gettext_lazy("Select"),
    "bulk": gettext_lazy("Action"),
    "tag": gettext_lazy("Tag"),
    "state": gettext_lazy("State"),
}
TAG_EDIT_LABELS = {"tag": gettext_lazy("Tag"), "name": gettext_lazy("New name"), "into": gettext_lazy("Merge into")}


def _labelled(labels: dict, field: str, message: str) -> str:
    return _("%(field)s: %(message)s") % {"field": labels.get(field, field), "message": message}


@login_required
@require_POST
def record_save_view(request: HttpRequest, arxiv_id: str) -> HttpResponse:
    """Save, update (state, tags, note) or remove the user's record of a paper."""
    try:
        detail, _version = requested_paper(arxiv_id)
    except PaperNotFound as exc:
        raise Http404(exc.message) from None
    paper = detail.paper
    action = request.POST.get("action", "update")
    full = request.POST.get("full") == "1"
    error = ""
    if action == "remove":
        record_remove(user=request.user, paper=paper)
    elif action in ("save", "update"):
        try:
            record_save(
                user=request.user,
                paper=paper,
                state=request.POST.get("state") or None,
                tags=split_tags(request.POST["tags"]) if "tags" in request.POST else None,
                note=request.POST.get("note"),
            )
        except RecordError as exc:
            error = _labelled(RECORD_LABELS, exc.field, str(exc))
    else:
        error = "action: " + _("Use save, update or remove.")
    if request.headers.get("HX-Request") != "true":
        if error:
            messages.error(request, error)
        return redirect(_next(request, reverse("portal:paper_detail", args=[paper.arxiv_id])))
    context = controls_context(request, paper, record_get(user=request.user, paper_id=paper.pk), full=full)
    # htmx swaps only successful answers: a refused change is shown in the fragment.
    response = render(request, "portal/_record_controls.html", {**context, "error": error})
    add_never_cache_headers(response)
    return response


# The list's filters as its form labels them, to name a refused one.
RECORD_FILTER_LABELS = {
    "q": gettext_lazy("Search my notes, titles and abstracts"),
    "tag": gettext_lazy("Tag"),
    "state": gettext_lazy("Reading state"),
    "category": gettext_lazy("Category"),
    "sort": gettext_lazy("Sort by"),
    "page": gettext_lazy("Pages"),
}


@login_required
@require_GET
def records(request: HttpRequest) -> HttpResponse:
    counts = record_counts(user=request.user)
    filters, page, refused = record_filters_from(request.GET, counts.by_tag)
    errors = [_labelled(RECORD_FILTER_LABELS, name, message) for name, message in refused.items()]
    context: dict[str, Any] = {
        "counts": counts,
        "filters": filters,
        "state_labels": state_labels(),
        "state_rows": [(state, label, counts.by_state[state]) for state, label in state_labels().items()],
        "sorts": (("saved", _("saved time")), ("updated", _("paper updated")), ("title", _("title"))),
        "tags": [tag for tag, _count in counts.by_tag],
        "entries": [],
        "params": request.GET,
    }
    if errors:
        response = render(request, "portal/records.html", {**context, "errors": errors}, status=400)
        add_never_cache_headers(response)
        return response
    # Rows, not full cards: the list is for finding and sorting one's papers
    # (a full card with abstract, picks and reading cost 3-5 ms each to render).
    rows, total = record_page(user=request.user, filters=filters, page=page, size=RECORDS_PAGE)
    for row in rows:  # the note as the paper's page renders it: Markdown, TeX for KaTeX, sanitised
        row.note_html = render_note(row.note)
    context.update(
        entries=rows,
        total=total,
        page=page,
        previous_page=page - 1 if page > 1 else None,
        next_page=page + 1 if page * RECORDS_PAGE < total else None,
    )
    response = render(request, "portal/records.html", context)
    add_never_cache_headers(response)
    return response


@login_required
@require_POST
def records_bulk(request: HttpRequest) -> HttpResponse:
    """Tag, set the state of, or remove the selected records (the user's own only)."""
    ids = [int(pk) for pk in request.POST.getlist("record") if pk.isdecimal() and len(pk) < 19]
    action = request.POST.get("bulk", "")
    back = _next(request, "/records/")
    if not ids:
        messages.error(request, _labelled(BULK_LABELS, "record", _("Select at least one paper.")))
        return redirect(back)
    try:
        if action == "tag":
            done = records_add_tag(user=request.user, record_ids=ids, name=request.POST.get("tag", ""))
        elif action == "state":
            done = records_set_state(user=request.user, record_ids=ids, state=request.POST.get("state", ""))
        elif action == "remove":
            done = records_remove(user=request.user, record_ids=ids)
        else:
            messages.error(request, _labelled(BULK_LABELS, "bulk", _("Use tag, state or remove.")))
            return redirect(back)
    except RecordError as exc:
        messages.error(request, _labelled(BULK_LABELS, exc.field, str(exc)))
        return redirect(back)
    messages.success(request, _("%(count)d changed.") % {"count": done})
    return redirect(back)


@login_required
@require_POST
def tag_edit(request: HttpRequest) -> HttpResponse:
    """Rename one of the user's tags, merge it into another, or delete it
    (one form for all the tags: a form per tag made the page heavy)."""
    raw = request.POST.get("tag", "")
    tag = Tag.objects.filter(user=request.user, pk=int(raw)).first() if raw.isdecimal() and len(raw) < 19 else None
    if tag is None:
        raise Http404(_("No such tag."))
    action = request.POST.get("action", "")
    try:
        if action == "rename":
            tag_rename(user=request.user, tag_id=tag.pk, name=request.POST.get("name", ""))
        elif action == "merge":
            into = request.POST.get("into", "")
            if not into.isdecimal() or len(into) > 18:
                raise RecordError("into", _("Choose the tag to merge into."))
            tag_merge(user=request.user, tag_id=tag.pk, into_id=int(into))
        elif action == "delete":
            tag_delete(user=request.user, tag_id=tag.pk)
        else:
            raise RecordError("action", _("Use rename, merge or delete."))
    except RecordError as exc:
        messages.error(request, _labelled(TAG_EDIT_LABELS, exc.field, str(exc)))
    else:
        messages.success(request, _("Your tags are updated."))
    return redirect(_next(request, "/records/"))
