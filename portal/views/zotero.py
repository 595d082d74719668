"""The Zotero section of /me/: link a library, choose the collection, sync
now, seed a topic follow, unlink. Each is a POST that calls one service and
comes back to /me/#zotero with a message; nothing here talks to Zotero."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.zotero.selectors import zotero_link_get, zotero_reports, zotero_synced_count
from accounts.zotero.services import (
    zotero_collection_choose,
    zotero_link_set,
    zotero_seed_request,
    zotero_sync_request,
    zotero_unlink,
)
from accounts.zotero.types import ZoteroLinkError


def zotero_context(user) -> dict:
    """What /me/ shows of the link (never the key)."""
    link = zotero_link_get(user=user)
    if link is None:
        return {"zotero": None}
    return {
        "zotero": link,
        "zotero_reports": zotero_reports(link=link),
        "zotero_synced": zotero_synced_count(link=link),
    }


def _back() -> HttpResponse:
    response = redirect("accounts:me")
    response["Location"] += "#zotero"
    return response


def _run(request: HttpRequest, fn: Callable, done: str, **kwargs) -> HttpResponse:
    try:
        fn(user=request.user, **kwargs)
    except ZoteroLinkError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, done)
    return _back()


@login_required
@require_POST
def link(request: HttpRequest) -> HttpResponse:
    return _run(
        request,
        zotero_link_set,
        _("Zotero library linked. Its collections are being listed; choose one below."),
        library_type=request.POST.get("library_type", "user"),
        library_id=request.POST.get("library_id", ""),
        api_key=request.POST.get("api_key", ""),
    )


@login_required
@require_POST
def collection(request: HttpRequest) -> HttpResponse:
    return _run(
        request,
        zotero_collection_choose,
        _("Collection chosen: the first sync has started."),
        collection_key=request.POST.get("collection_key", ""),
    )


@login_required
@require_POST
def sync(request: HttpRequest) -> HttpResponse:
    return _run(request, zotero_sync_request, _("A sync has started."))


@login_required
@require_POST
def seed(request: HttpRequest) -> HttpResponse:
    return _run(
        request,
        zotero_seed_request,
        _("Reading the collection to make a topic follow."),
        collection_key=request.POST.get("collection_key", ""),
    )


@login_required
@require_POST
def unlink(request: HttpRequest) -> HttpResponse:
    zotero_unlink(user=request.user)
    messages.success(request, _("Zotero library unlinked. Its items stay in Zotero."))
    return _back()
