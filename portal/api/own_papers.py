"""What the endpoints over a user's own papers share (/api/v1/me/records/,
/api/v1/me/ratings/): the paper a request names, the path parameter that names
it, and a page of numbered results with its links."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request
from rest_framework.utils.urls import remove_query_param, replace_query_param

from harvest.models import Paper
from portal.api.errors import NotFoundParameter, ParameterError
from portal.arxiv_ids import PaperNotFound, requested_paper


def own_arxiv_id_parameter(description: str) -> OpenApiParameter:
    """The `arxiv_id` path parameter, described for one endpoint."""
    return OpenApiParameter("arxiv_id", OpenApiTypes.STR, OpenApiParameter.PATH, description=description)


def library_paper(arxiv_id: str, field: str) -> Paper:
    """The library's paper of `arxiv_id` (a version suffix ignored); a
    malformed id is a 400 and an unknown one a 404, each naming `field`."""
    try:
        detail, _version = requested_paper(arxiv_id)
    except PaperNotFound as exc:
        raise (ParameterError if exc.malformed else NotFoundParameter)({field: [exc.message]}) from None
    return detail.paper


def numbered_page(request: Request, *, page: int, size: int, total: int, results: Any) -> dict:
    """A page body: the count, links to the next and previous pages, the results."""
    here = request.build_absolute_uri()
    previous = None
    if page > 1:
        previous = replace_query_param(here, "page", page - 1) if page > 2 else remove_query_param(here, "page")
    return {
        "count": total,
        "next": replace_query_param(here, "page", page + 1) if page * size < total else None,
        "previous": previous,
        "results": results,
    }
