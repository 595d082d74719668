"""The private Atom feeds, `/feeds/<secret>/trail.atom` and
`/feeds/<secret>/follows/<id>.atom`, built with Django's syndication
framework. The secret in the path is the only credential (feed readers send
no cookies), so an unknown or rotated secret, or a follow that is not the
secret's user's, is a plain 404. Entry ids are per (paper, version), so a
reader shows each version once however often it polls."""

from __future__ import annotations

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import get_template
from django.urls import reverse
from django.utils import translation
from django.utils.cache import get_conditional_response
from django.utils.feedgenerator import Atom1Feed
from django.utils.http import http_date
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from accounts.alerts.selectors import absolute, feed_entries, feed_state
from accounts.alerts.types import FeedEntry, FeedState


def _host() -> str:
    return settings.SITE_URL.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0] or "localhost"


class AtomWithAuthors(Atom1Feed):
    """Atom 1.0 with one <author> per paper author (the framework writes one)."""

    def add_item_elements(self, handler, item) -> None:
        super().add_item_elements(handler, item)
        for name in item.get("more_authors", ()):
            handler.startElement("author", {})
            handler.addQuickElement("name", name)
            handler.endElement("author")


# Rendered without the request: the framework's description_template would
# run every context processor once per entry.
_ENTRY = get_template("portal/feed_entry.html")
_BADGE = get_template("portal/_version_badge_label.html")


class TrailFeed(Feed):
    feed_type = AtomWithAuthors

    def get_object(self, request: HttpRequest, state: FeedState) -> FeedState:
        return state

    def title(self, state: FeedState) -> str:
        if state.follow is not None:
            return _("%(site)s: %(follow)s") % {"site": settings.SITE_NAME, "follow": state.follow.name}
        return _("%(site)s: the trail of %(user)s") % {"site": settings.SITE_NAME, "user": state.user.get_username()}

    def link(self, state: FeedState) -> str:
        if state.follow is not None:
            return absolute(reverse("portal:trail") + f"?follow={state.follow.pk}")
        return absolute(reverse("portal:trail"))

    def subtitle(self, state: FeedState) -> str:
        return _("New papers and revisions matched by your follows.")

    def feed_guid(self, state: FeedState) -> str:
        scope = f"follow/{state.follow.pk}" if state.follow is not None else f"user/{state.user.pk}"
        return f"tag:{_host()},2026:trail/{scope}"

    def author_name(self, state: FeedState) -> str:
        return settings.SITE_NAME

    def items(self, state: FeedState) -> list[FeedEntry]:
        return feed_entries(state)

    def item_title(self, entry: FeedEntry) -> str:
        # The badge every page gives this version (archival, new, revision), not the trail's event kind.
        badge = _BADGE.render({"badge": entry.badge}).strip() if entry.badge else f"v{entry.version_number}"
        return f"[{badge}] {' '.join(entry.paper.title.split())}"

    def item_description(self, entry: FeedEntry) -> str:
        return _ENTRY.render({"obj": entry})

    def item_link(self, entry: FeedEntry) -> str:
        return absolute(reverse("portal:paper_detail", kwargs={"arxiv_id": entry.paper.arxiv_id}))

    def item_guid(self, entry: FeedEntry) -> str:
        return f"tag:{_host()},2026:arxiv/{entry.paper.arxiv_id}v{entry.version_number}"

    item_guid_is_permalink = False

    def item_author_name(self, entry: FeedEntry) -> str | None:
        return entry.paper.authors[0] if entry.paper.authors else None

    def item_extra_kwargs(self, entry: FeedEntry) -> dict:
        return {"more_authors": entry.paper.authors[1:]}

    def item_categories(self, entry: FeedEntry) -> list[str]:
        return list(entry.paper.categories)

    def item_pubdate(self, entry: FeedEntry):
        return entry.event_at

    def item_updateddate(self, entry: FeedEntry):
        return entry.event_at


_feed = TrailFeed()


def _serve(request: HttpRequest, secret: str, follow_id: int | None) -> HttpResponse:
    state = feed_state(secret=secret, follow_id=follow_id, size=settings.FEED_ENTRIES)
    if state is None:
        raise Http404("No such feed.")
    modified = int(state.last_modified.timestamp()) if state.last_modified else None
    response = get_conditional_response(request, etag=state.etag, last_modified=modified)
    if response is None:
        with translation.override(state.user.language):
            response = _feed(request, state=state)
    response["ETag"] = state.etag
    if modified is not None:
        response["Last-Modified"] = http_date(modified)
    # The URL is a credential: no shared cache may keep it; readers revalidate.
    response["Cache-Control"] = "private, no-cache"
    response["X-Robots-Tag"] = "noindex"
    return response


@require_GET
def trail_feed(request: HttpRequest, secret: str) -> HttpResponse:
    return _serve(request, secret, None)


@require_GET
def follow_feed(request: HttpRequest, secret: str, follow_id: int) -> HttpResponse:
    return _serve(request, secret, follow_id)
