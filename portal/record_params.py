"""The research record's filters as `/records/` and `/api/v1/me/records/` take
them from a query string: one reading for both, so that a value one refuses
the other refuses with the same words."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext as _

from accounts.records.models import Record, Tag
from accounts.records.selectors import MAX_QUERY_LENGTH, SORTS, RecordFilters
from harvest.filters import CATEGORY_CODE, not_a_category_code

MAX_PAGE = 10_000


def record_filters_from(
    params: Mapping[str, str], tags: list[tuple[Tag, int]]
) -> tuple[RecordFilters, int, dict[str, str]]:
    """The filters, the page number (1 where it was refused) and each refused
    parameter with why. `tags` are the user's own (record_counts().by_tag)."""
    errors: dict[str, str] = {}
    filters = RecordFilters()
    tag_name = params.get("tag", "").strip()
    if tag_name:
        found = [tag for tag, _count in tags if tag.name.casefold() == tag_name.casefold()]
        if found:
            filters.tag = found[0].pk
        else:
            errors["tag"] = _("You have no tag of this name.")
    state = params.get("state", "")
    if state and state not in Record.State.values:
        errors["state"] = _("Use to_read, reading or read.")
    filters.state = state if state in Record.State.values else None
    category = params.get("category", "").strip()
    if category and not CATEGORY_CODE.match(category):
        errors["category"] = not_a_category_code(category)
    else:
        filters.category = category or None
    filters.revised = params.get("revised", "") in ("1", "true", "on")
    filters.q = params.get("q", "").strip()
    if len(filters.q) > MAX_QUERY_LENGTH:
        errors["q"] = _("A search has at most %(n)d characters.") % {"n": MAX_QUERY_LENGTH}
    elif "\x00" in filters.q:
        errors["q"] = _("This text holds a character that cannot be stored (NUL).")
    sort = params.get("sort", "") or "saved"
    if sort in SORTS:
        filters.sort = sort
    else:
        errors["sort"] = _("Use saved, updated or title.")
    raw_page = params.get("page", "") or "1"
    if raw_page.isascii() and raw_page.isdigit() and 1 <= int(raw_page) <= MAX_PAGE:
        page = int(raw_page)
    else:
        page = 1
        errors["page"] = _("Give a page number from 1.")
    return filters, page, errors
