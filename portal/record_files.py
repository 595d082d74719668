"""What the record export and import pages and the API share: the selection
parameter, the download's file name and the import result as plain data."""

from __future__ import annotations

import json
import re

from django.conf import settings
from django.http import HttpResponse
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.records.models import Tag
from accounts.records.selectors import export_citations, export_data
from accounts.records.types import (
    ADDED,
    CONTENT_TYPES,
    MATCHED,
    SUFFIXES,
    UNMATCHED,
    ImportResult,
    RecordImportError,
    arxiv_id_of,
)

MAX_SELECTED = 10_000


def selected_ids(raw: str) -> list[str] | None:
    """`ids=2611.00001,hep-th/9901001` as arXiv ids without version, None when
    not given; ValueError naming the first bad one."""
    values = [value for value in re.split(r"[\s,]+", raw.strip()) if value]
    if not values:
        return None
    if len(values) > MAX_SELECTED:
        raise ValueError(_("At most %(count)d ids.") % {"count": MAX_SELECTED})
    ids = []
    for value in values:
        arxiv_id = arxiv_id_of(value)
        if not arxiv_id:
            raise ValueError(_("%(value)s is not an arXiv id.") % {"value": value[:80]})
        ids.append(arxiv_id)
    return ids


def export_filename(tag: Tag | None, suffix: str) -> str:
    name = "papertrail-records"
    if tag is not None:
        slug = re.sub(r"[^A-Za-z0-9]+", "-", tag.name).strip("-").lower()
        name += f"-{slug or tag.pk}"
    return f"{name}.{suffix}"


def import_result_data(result: ImportResult) -> dict:
    return {
        "format": result.format,
        "saved": result.saved,
        "counts": {outcome: result.count(outcome) for outcome in (MATCHED, ADDED, UNMATCHED)},
        "entries": [
            {
                "label": entry.label,
                "outcome": entry.outcome,
                "reason": entry.reason,
                "arxiv_id": entry.arxiv_id,
                "title": entry.title,
            }
            for entry in result.entries
        ],
    }


def export_response(user: User, kind: str, tag: Tag | None, ids: list[str] | None) -> HttpResponse:
    """The export as a download (the page and the API answer alike)."""
    if kind == "json":
        body = json.dumps(export_data(user=user, tag=tag, arxiv_ids=ids), ensure_ascii=False) + "\n"
    else:
        body = export_citations(user=user, format=kind, tag=tag, arxiv_ids=ids)
    response = HttpResponse(body.encode("utf-8"), content_type=CONTENT_TYPES[kind])
    response["Content-Disposition"] = f'attachment; filename="{export_filename(tag, SUFFIXES[kind])}"'
    response["Cache-Control"] = "private, no-store"
    return response


def read_upload(upload) -> bytes:
    """An uploaded file's bytes, refused before they are read when the file
    is over the import limit."""
    limit = settings.RECORDS_IMPORT_MAX_BYTES
    if upload.size > limit:
        message = _("the file is %(size)s bytes; the limit is %(limit)s bytes")
        raise RecordImportError("file", message % {"size": f"{upload.size:,}", "limit": f"{limit:,}"})
    return upload.read()
