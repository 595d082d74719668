"""The signed-in user's ratings under /api/v1/me/ratings/: thumbs up or down
on a paper (POST), undone by DELETE, listed by GET; thin views over the
recommender's services and selectors. A paper the user has not rated is a
404 naming `arxiv_id`, whoever else rated it."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.recommend.models import Rating
from accounts.recommend.selectors import rating_get, rating_list
from accounts.recommend.services import RATING_WORDS, rating_clear, rating_set
from harvest.models import Paper
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.me import OWN_NOT_FOUND
from portal.api.own_papers import library_paper, numbered_page, own_arxiv_id_parameter
from portal.api.pagination import PAGE_SIZE_PARAMETER, page_size_from
from portal.api.schema import ERROR_RESPONSES, NOT_FOUND_RESPONSE
from portal.api.serializers.ratings import RatingPageSerializer, RatingSerializer, RatingWriteSerializer

MAX_PAGE = 100_000
RATING_ARXIV_ID = own_arxiv_id_parameter(
    "The arXiv id of a paper you rated (`2611.13545`, `hep-th/9901001`; a version suffix is ignored)."
)


def _page_number(request: Request) -> int:
    raw = request.query_params.get("page", "")
    if raw == "":
        return 1
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_PAGE:
        raise ParameterError(
            {"page": [_("Give a whole number from %(low)d to %(high)d.") % {"low": 1, "high": MAX_PAGE}]}
        )
    return int(raw)


def _own_rating(request: Request, arxiv_id: str) -> tuple[Paper, Rating]:
    paper = library_paper(arxiv_id, "arxiv_id")
    rating = rating_get(user=request.user, paper_id=paper.pk)
    if rating is None:
        raise NotFoundParameter({"arxiv_id": [_("You have not rated this paper.")]})
    return paper, rating


class RatingListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_ratings_list",
        summary="Your ratings",
        description="The papers you rated thumbs up or down, the latest change first. Numbered pages: follow `next`.",
        parameters=[
            OpenApiParameter("value", OpenApiTypes.STR, enum=list(RATING_WORDS), description="Only ups or only downs."),
            OpenApiParameter("page", OpenApiTypes.INT, description="Page number, from 1."),
            PAGE_SIZE_PARAMETER,
        ],
        responses={200: OpenApiResponse(RatingPageSerializer, description="A page of ratings."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        word = request.query_params.get("value", "")
        if word and word not in RATING_WORDS:
            raise ParameterError({"value": [_("Use up or down.")]})
        page, size = _page_number(request), page_size_from(request)
        rows = rating_list(user=request.user, value=RATING_WORDS[word] if word else None)
        total = rows.count()
        body = numbered_page(
            request, page=page, size=size, total=total, results=list(rows[(page - 1) * size : page * size])
        )
        return Response(RatingPageSerializer(body, context={"request": request}).data)

    @extend_schema(
        operation_id="me_ratings_create",
        summary="Rate a paper",
        description="Thumbs up (more like this) or down (less like this) on a paper: explicit training data for "
        "your recommendations, which are retrained a few seconds later. Rating a paper again replaces its rating "
        "(201 when new, 200 otherwise); DELETE undoes it. “Not interested” on a recommendation stays the "
        "stronger no.",
        request=RatingWriteSerializer,
        responses={
            201: OpenApiResponse(RatingSerializer, description="Rated."),
            200: OpenApiResponse(RatingSerializer, description="Already rated: the rating now has this value."),
            **ERROR_RESPONSES,
            404: OpenApiResponse(NOT_FOUND_RESPONSE.response, description="The library has no such paper (`paper`)."),
        },
    )
    def post(self, request: Request) -> Response:
        body = RatingWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        paper = library_paper(body.validated_data["paper"], "paper")
        rating, created = rating_set(user=request.user, paper=paper, value=RATING_WORDS[body.validated_data["value"]])
        rating.paper = paper
        data = RatingSerializer(rating, context={"request": request}).data
        return Response(data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class RatingDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_ratings_retrieve",
        summary="Your rating of one paper",
        description="Your thumbs up or down on a paper; 404 for a paper you have not rated.",
        parameters=[RATING_ARXIV_ID],
        responses={
            200: OpenApiResponse(RatingSerializer, description="The rating."),
            **ERROR_RESPONSES,
            404: OWN_NOT_FOUND,
        },
    )
    def get(self, request: Request, arxiv_id: str) -> Response:
        _rated, rating = _own_rating(request, arxiv_id)
        return Response(RatingSerializer(rating, context={"request": request}).data)

    @extend_schema(
        operation_id="me_ratings_destroy",
        summary="Undo a rating",
        description="Remove your thumbs up or down on a paper; your recommendations are retrained without it.",
        parameters=[RATING_ARXIV_ID],
        responses={204: OpenApiResponse(description="Removed."), **ERROR_RESPONSES, 404: OWN_NOT_FOUND},
    )
    def delete(self, request: Request, arxiv_id: str) -> Response:
        paper, _rating = _own_rating(request, arxiv_id)
        rating_clear(user=request.user, paper=paper)
        return Response(status=status.HTTP_204_NO_CONTENT)
