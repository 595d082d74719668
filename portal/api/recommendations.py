"""The signed-in user's recommendations under /api/v1/me/recommendations/:
the same papers, order and reasons as the trail's Recommended tab, and "not
interested" on one. Another user's recommendation is a 404."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.recommend.models import Recommendation
from accounts.recommend.selectors import ratings_for_papers, recommendations_for_user, recommender_status
from accounts.recommend.services import recommendation_not_interested
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.me import MAX_ID, OWN_NOT_FOUND
from portal.api.schema import ERROR_RESPONSES
from portal.api.serializers.recommendations import NotInterestedResultSerializer, RecommendationPageSerializer
from portal.selectors import paper_cards

MAX_LIMIT = 100


def _int_param(request: Request, name: str, *, default: int | None, lowest: int, highest: int) -> int | None:
    raw = request.query_params.get(name, "")
    if raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()) or not lowest <= int(raw) <= highest:
        raise ParameterError(
            {name: [_("Give a whole number from %(low)d to %(high)d.") % {"low": lowest, "high": highest}]}
        )
    return int(raw)


class RecommendationListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_recommendations_list",
        summary="Your recommendations",
        description="Papers of the recommendation window like the ones you saved, best first, that you have not "
        "saved, dismissed, refused or opened; each with the saved papers it is closest to and the terms that weigh "
        "most. Below the minimum of saves `ready` is false and `results` is empty.",
        parameters=[
            OpenApiParameter("tag", OpenApiTypes.INT, description="The model of one of your tags (per-tag models)."),
            OpenApiParameter("limit", OpenApiTypes.INT, description=f"How many (1 to {MAX_LIMIT}, default 20)."),
        ],
        responses={
            200: OpenApiResponse(RecommendationPageSerializer, description="Your recommendations."),
            **ERROR_RESPONSES,
        },
    )
    def get(self, request: Request) -> Response:
        status = recommender_status(request.user)
        limit = _int_param(request, "limit", default=20, lowest=1, highest=MAX_LIMIT)
        tag_id = _int_param(request, "tag", default=None, lowest=0, highest=MAX_ID)
        if tag_id is not None and tag_id not in {tag.pk for tag in status.tags}:
            raise ParameterError({"tag": [_("None of your tags has a model with this id.")]})
        entries = recommendations_for_user(request.user, limit, tag_id=tag_id) if status.ready else []
        cards = {card.paper.pk: card for card in paper_cards([entry.paper for entry in entries])}
        data = {"ready": status.ready, "saves": status.saves, "min_saves": status.min_saves}
        data.update(trained_at=status.trained_at, per_tag=status.per_tag, results=entries)
        context = {"cards": cards, "ratings": ratings_for_papers(user=request.user, paper_ids=list(cards))}
        return Response(RecommendationPageSerializer(data, context=context).data)


class RecommendationNotInterestedView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_recommendation_not_interested",
        summary="Not interested in a recommendation",
        description="The paper leaves your recommendations for good and counts against papers like it at the "
        "next training (a few seconds later).",
        parameters=[
            OpenApiParameter(
                "recommendation_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="One of your recommendations."
            )
        ],
        request=None,
        responses={
            200: OpenApiResponse(NotInterestedResultSerializer, description="Done."),
            **ERROR_RESPONSES,
            404: OWN_NOT_FOUND,
        },
    )
    def post(self, request: Request, recommendation_id: int) -> Response:
        found = None
        if recommendation_id <= MAX_ID:
            found = Recommendation.objects.filter(user=request.user, pk=recommendation_id).first()
        if found is None:
            raise NotFoundParameter({"recommendation_id": [_("You have no recommendation with this id.")]})
        recommendation_not_interested(user=request.user, recommendation=found)
        return Response(NotInterestedResultSerializer({"id": recommendation_id, "not_interested": True}).data)
