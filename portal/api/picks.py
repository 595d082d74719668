"""The signed-in user's picks under /api/v1/me/picks/: GET lists the latest
announcement day's papers in their categories, POST picks up to ten of them
(each a thumbs up that seeds the ranking; the others count for nothing).
Thin views over accounts.recommend.picks and services.picks_record."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.recommend.selectors import pick_day, pick_page
from accounts.recommend.services import picks_record
from accounts.recommend.types import MAX_PICKS, InvalidDay
from portal.api.errors import ParameterError
from portal.api.schema import ERROR_RESPONSES
from portal.api.serializers.picks import PickPageSerializer, PicksResultSerializer, PicksWriteSerializer
from portal.selectors import paper_cards


class PickListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_picks_list",
        summary="Papers of the day to pick from",
        description="The latest arXiv listing day's papers in your categories (your category follows; without "
        "any, the categories your research record lists most; without a record, computer science's most "
        f"popular papers), at most 48, taken in turn from each category. POST up to {MAX_PICKS} of them to seed "
        "your ranking.",
        parameters=[
            OpenApiParameter(
                "day", OpenApiTypes.DATE, description="An arXiv listing date (YYYY-MM-DD); the latest by default."
            )
        ],
        responses={200: OpenApiResponse(PickPageSerializer, description="The papers offered."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        try:
            day = pick_day(request.query_params.get("day", ""))
        except InvalidDay as error:
            raise ParameterError({"day": [str(error)]}) from None
        page = pick_page(user=request.user, day=day)
        cards = {card.paper.pk: card for card in paper_cards(page.papers)}
        results = [
            {
                "card": cards[paper.pk],
                "category": group.category,
                "picked": paper.pk in page.liked,
                "saved": paper.pk in page.saved,
            }
            for group in page.groups
            for paper in group.papers
        ]
        data = {
            "basis": page.basis,
            "categories": page.categories,
            "day": page.day,
            "latest": page.latest,
            "announced_at": page.announced_at,
            "max_picks": MAX_PICKS,
            "picks": page.picks,
            "results": results,
        }
        return Response(PickPageSerializer(data).data)

    @extend_schema(
        operation_id="me_picks_create",
        summary="Pick papers of the day",
        description=f"Pick 1 to {MAX_PICKS} of the papers GET offers: each counts as a thumbs up on the paper, "
        "and your ranking (the trail's order, recommendations) is retrained from them a few seconds later, "
        "even with no saved paper. The papers offered and not picked count for nothing. Picking a paper "
        "again changes nothing. 400 names `papers` for none, more than the maximum, or a paper not offered.",
        request=PicksWriteSerializer,
        responses={201: OpenApiResponse(PicksResultSerializer, description="Picked."), **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        body = PicksWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            day = pick_day(body.validated_data.get("day", ""))
        except InvalidDay as error:
            raise ParameterError({"day": [str(error)]}) from None
        try:
            result = picks_record(user=request.user, arxiv_ids=body.validated_data["papers"], day=day)
        except ValidationError as error:
            raise ParameterError(error.message_dict) from None
        data = {"picked": result.picked, "new": result.new, "picks": result.total}
        return Response(PicksResultSerializer(data).data, status=status.HTTP_201_CREATED)
