"""`/records/export/` and `/records/import/`: the signed-in user's research
record as a file for a reference manager, and an import of one (or of a
pasted list of arXiv ids, arXiv URLs and DOIs) with a page of what became of
each entry. The /records/ page itself is portal/views/records.py."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.records.selectors import export_choices, tag_get
from accounts.records.services import records_import_file
from accounts.records.types import ADDED, EXPORT_FORMATS, MATCHED, UNMATCHED, RecordImportError
from portal.record_files import export_response, read_upload, selected_ids


def _page(request: HttpRequest, template: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    response = render(request, template, context, status=status)
    add_never_cache_headers(response)
    return response


@login_required
@require_http_methods(["GET", "HEAD"])
def records_export(request: HttpRequest) -> HttpResponse:
    """The choice of format and tag; with `format` given, the file itself."""
    total, tags = export_choices(user=request.user)
    given = {key: request.GET.get(key, "").strip() for key in ("format", "tag", "ids")}
    context: dict[str, Any] = {"formats": EXPORT_FORMATS, "tags": tags, "total": total, "given": given}
    if not given["format"]:
        return _page(request, "portal/records_export.html", context)
    errors = []
    if given["format"] not in EXPORT_FORMATS:
        errors.append(("format", _("Choose one of the formats listed.")))
    tag = tag_get(user=request.user, name=given["tag"]) if given["tag"] else None
    if given["tag"] and tag is None:
        errors.append(("tag", _("You have no tag of this name.")))
    try:
        ids = selected_ids(given["ids"])
    except ValueError as exc:
        errors.append(("ids", str(exc)))
    if errors:
        return _page(request, "portal/records_export.html", {**context, "errors": errors}, status=400)
    return export_response(request.user, given["format"], tag, ids)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def records_import(request: HttpRequest) -> HttpResponse:
    """The upload and paste form; a POST answers with the result page."""
    if request.method != "POST":
        return _page(request, "portal/records_import.html", {})
    upload = request.FILES.get("file")
    pasted = request.POST.get("text", "")
    try:
        if upload is not None:
            result = records_import_file(user=request.user, data=read_upload(upload), filename=upload.name)
        elif pasted.strip():
            result = records_import_file(user=request.user, data=pasted.encode("utf-8"), filename="")
        else:
            raise RecordImportError("file", _("Choose a file, or paste ids or a file's text."))
    except RecordImportError as exc:
        context = {"errors": [(exc.field, str(exc))], "text": pasted}
        return _page(request, "portal/records_import.html", context, status=400)
    context = {
        "result": result,
        "groups": [(outcome, result.of(outcome)) for outcome in (ADDED, MATCHED, UNMATCHED)],
        "counts": {outcome: result.count(outcome) for outcome in (MATCHED, ADDED, UNMATCHED)},
    }
    return _page(request, "portal/records_import_result.html", context)
