"""Cursor pagination of paper lists for the API, over the portal's keyset pages
(harvest/views/pagination.py): the same orders as the pages, a page found from
the last row of the previous one, so papers inserted meanwhile neither shift
nor repeat what a client has already read; no count of the whole table.

The cursor is opaque: clients follow `next` until it is null."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter
from rest_framework.pagination import BasePagination
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from harvest.filters import SORT_UPDATED
from portal.api.errors import ParameterError
from portal.pagination import CursorError, Page, keyset_page

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_CURSOR_LENGTH = 512

CURSOR_PARAMETER = OpenApiParameter(
    "cursor",
    {"type": "string", "maxLength": MAX_CURSOR_LENGTH},
    description="Opaque position from the `next` link of the previous page; omit it for the first page. "
    "A cursor belongs to the sort it was made for.",
)
PAGE_SIZE_PARAMETER = OpenApiParameter(
    "page_size",
    {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
    description=f"Papers per page, 1 to {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE}).",
)


def page_size_from(request) -> int:
    raw = request.query_params.get("page_size", "")
    if raw == "":
        return DEFAULT_PAGE_SIZE
    if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= MAX_PAGE_SIZE:
        raise ParameterError({"page_size": [_("Use a whole number from 1 to %(max)d.") % {"max": MAX_PAGE_SIZE}]})
    return int(raw)


def cursor_from(request) -> str | None:
    raw = request.query_params.get("cursor", "")
    if len(raw) > MAX_CURSOR_LENGTH:
        raise ParameterError({"cursor": [_("This page link is damaged; start again from the first page.")]})
    return raw or None


class KeysetPagination(BasePagination):
    """Pages a paper queryset in the order of `view.sort` (default: version update time)."""

    page: Page | None = None

    def paginate_queryset(self, queryset, request, view=None):
        sort = getattr(view, "sort", None) or SORT_UPDATED
        size = page_size_from(request)
        cursor = cursor_from(request)
        try:
            self.page = keyset_page(queryset, sort=sort, cursor=cursor, size=size)
        except CursorError as exc:
            raise ParameterError({"cursor": [str(exc)]}) from None
        self.request = request
        return self.page.papers

    def get_next_link(self) -> str | None:
        if self.page is None or self.page.next_cursor is None:
            return None
        return replace_query_param(self.request.build_absolute_uri(), "cursor", self.page.next_cursor)

    def get_paginated_response(self, data):
        return Response({"next": self.get_next_link(), "results": data})

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["next", "results"],
            "properties": {
                "next": {
                    "type": "string",
                    "format": "uri",
                    "nullable": True,
                    "description": "The next page, or null on the last page.",
                },
                "results": {**schema, "description": "The papers on this page."},
            },
        }

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": "cursor",
                "in": "query",
                "required": False,
                "description": CURSOR_PARAMETER.description,
                "schema": {"type": "string", "maxLength": MAX_CURSOR_LENGTH},
            },
            {
                "name": "page_size",
                "in": "query",
                "required": False,
                "description": PAGE_SIZE_PARAMETER.description,
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
            },
        ]


class SearchPagination(KeysetPagination):
    """The library's pages, with how many papers are close to a semantic or
    hybrid search's query (harvest/search_floor.py); null otherwise."""

    close_count: int | None = None

    def get_paginated_response(self, data):
        return Response({"next": self.get_next_link(), "close_count": self.close_count, "results": data})

    def get_paginated_response_schema(self, schema):
        wrapped = super().get_paginated_response_schema(schema)
        wrapped["properties"]["close_count"] = {
            "type": "integer",
            "nullable": True,
            "description": "With `q` in the semantic or hybrid mode: how many papers are close to the query (they "
            "come first in the relevance order, each with `close` true; the rest are the nearest others, "
            "nothing closer). Null for the keyword mode or without `q`.",
        }
        return wrapped
