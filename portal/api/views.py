"""API views: thin, read-only, over the portal's filters, selectors and statistics."""

from __future__ import annotations

from dataclasses import replace

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.alerts.selectors import feed_links
from accounts.follows.models import Follow
from accounts.models import ApiToken
from accounts.trail.selectors import trail_unread_counts
from digests.selectors import llm_status
from digests.tasks import search_translation
from harvest.completeness import announcement_completeness, announcement_due
from harvest.filters import PaperFilterSet
from harvest.hybrid import KEYWORD
from harvest.search_floor import close_count, splits_by_closeness
from harvest.selectors import source_progress_list
from portal.api.errors import NotFoundParameter, ParameterError, form_errors
from portal.api.pagination import CURSOR_PARAMETER, PAGE_SIZE_PARAMETER, KeysetPagination, SearchPagination
from portal.api.parameters import PAPER_FILTER_PARAMETERS
from portal.api.schema import ERROR_RESPONSES, NOT_FOUND_RESPONSE
from portal.api.serializers.papers import (
    PaperDetailSerializer,
    SearchPaperSerializer,
    SimilarPapersSerializer,
)
from portal.api.serializers.site import (
    BriefingPageSerializer,
    MeSerializer,
    SourcesSerializer,
    StatsSerializer,
)
from portal.arxiv_ids import PaperNotFound, requested_paper
from portal.selectors import (
    BRIEFING_KINDS,
    BRIEFING_SORT,
    briefing_cards,
    briefing_papers,
    paper_cards,
    similar_paper_cards,
)
from portal.stats import overview_stats_cached
from portal.stats.overview import window_counts
from portal.stats.windows import Window, WindowError, current_window, parse_window_end, window_ending

END_PARAMETER = OpenApiParameter(
    "end",
    {"type": "string", "maxLength": 40},
    description="End of a past 24-hour window in Beijing time, `YYYY-MM-DDTHH:MM[:SS]`, or a Beijing date "
    "`YYYY-MM-DD` for the window covering that whole day. Omit it for the current window.",
)
KIND_PARAMETER = OpenApiParameter(
    "kind",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    enum=list(BRIEFING_KINDS),
    description="Which number: `new` (new papers), `ai` (new AI-related papers), `revisions` (new versions of "
    "papers already in the library) or `readings` (new AI guided readings).",
)
ARXIV_ID_PARAMETER = OpenApiParameter(
    "arxiv_id",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="An arXiv identifier with or without version suffix: `2611.13545`, `2611.13545v2`, old-style "
    "`hep-th/9901001` or `math.GT/0309136v1`.",
    examples=[OpenApiExample("new-style", value="2611.13545"), OpenApiExample("old-style", value="hep-th/9901001")],
)


def window_from(request: Request) -> tuple[Window, bool]:
    """(window, is_current) from `?end=`."""
    end_text = request.query_params.get("end", "").strip()
    if not end_text:
        return current_window(), True
    try:
        return window_ending(parse_window_end(end_text, now=timezone.now())), False
    except WindowError as exc:
        raise ParameterError({"end": [str(exc)]}) from None


def window_data(window: Window) -> dict:
    return {"start": window.start, "end": window.end, "end_param": window.end_param}


class PaperListView(GenericAPIView):
    pagination_class = SearchPagination
    serializer_class = SearchPaperSerializer
    sort: str | None = None

    @extend_schema(
        operation_id="papers_list",
        summary="List papers",
        description="The library, with the filters and sorts of the /papers/ page. Cursor-paginated: follow "
        "`next`. No total count is computed.",
        parameters=[*PAPER_FILTER_PARAMETERS, CURSOR_PARAMETER, PAGE_SIZE_PARAMETER],
        responses={
            200: OpenApiResponse(SearchPaperSerializer(many=True), description="A page of papers."),
            **ERROR_RESPONSES,
        },
    )
    def get(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        # As on the page: a stored LLM translation of a Chinese query is fused like its gloss.
        translation = search_translation(query) if query and request.query_params.get("mode") != KEYWORD else None
        filterset = PaperFilterSet(
            request.query_params, request=request, renderings=[translation] if translation else ()
        )
        if not filterset.is_valid():
            raise ParameterError(form_errors(filterset.form.errors))
        self.sort = filterset.chosen_sort
        page = self.paginate_queryset(filterset.qs)
        splits = splits_by_closeness(page)
        self.paginator.close_count = close_count(filterset.qs) if splits else None
        cards = SearchPaperSerializer(paper_cards(page), many=True, context={"splits_by_closeness": splits})
        return self.get_paginated_response(cards.data)


class PaperDetailView(APIView):
    @extend_schema(
        operation_id="papers_retrieve",
        summary="One paper",
        description="A paper with every version, what changed between consecutive versions and the AI guided "
        "reading of each version. A version suffix must name a known version.",
        parameters=[ARXIV_ID_PARAMETER],
        responses={
            200: OpenApiResponse(PaperDetailSerializer, description="The paper."),
            **ERROR_RESPONSES,
            404: NOT_FOUND_RESPONSE,
        },
    )
    def get(self, request: Request, arxiv_id: str) -> Response:
        try:
            detail, version = requested_paper(arxiv_id)
        except PaperNotFound as exc:
            raise (ParameterError if exc.malformed else NotFoundParameter)({"arxiv_id": [exc.message]}) from None
        return Response(PaperDetailSerializer(detail, context={"requested_version": version}).data)


class SimilarPapersView(APIView):
    @extend_schema(
        operation_id="papers_similar",
        summary="Papers similar to one paper",
        description="The ten papers whose embeddings are nearest this paper's (title and the abstract's lead, "
        "in a multilingual model), each with its similarity and the AI guided reading of its latest version when "
        "there is one. Empty until the paper is embedded (minutes after it is harvested).",
        parameters=[ARXIV_ID_PARAMETER],
        responses={
            200: OpenApiResponse(SimilarPapersSerializer, description="The similar papers."),
            **ERROR_RESPONSES,
            404: NOT_FOUND_RESPONSE,
        },
    )
    def get(self, request: Request, arxiv_id: str) -> Response:
        try:
            detail, _version = requested_paper(arxiv_id)
        except PaperNotFound as exc:
            raise (ParameterError if exc.malformed else NotFoundParameter)({"arxiv_id": [exc.message]}) from None
        return Response(SimilarPapersSerializer({"results": similar_paper_cards(detail.paper)}).data)


def briefing_links(request: Request, counts, window: Window, is_current: bool) -> list[dict]:
    suffix = "" if is_current else f"?end={window.end_param}"
    numbers = {
        "new": counts.new_papers,
        "ai": counts.new_ai,
        "revisions": counts.revisions,
        "readings": counts.new_readings,
    }
    return [
        {"kind": kind, "count": numbers[kind], "url": request.build_absolute_uri(f"/api/v1/briefings/{kind}/{suffix}")}
        for kind in BRIEFING_KINDS
    ]


class StatsView(APIView):
    @extend_schema(
        operation_id="stats_retrieve",
        summary="Overview numbers",
        description="The overview's numbers: the four counts of a 24-hour window with its bounds, the freshness "
        "times and the totals, as the / page shows them. Current numbers are refreshed every minute "
        "(`computed_at` says when). "
        "An empty check is not a failure; newly included papers may be historical; readings count per version.",
        parameters=[END_PARAMETER],
        responses={200: OpenApiResponse(StatsSerializer, description="The numbers."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        window, is_current = window_from(request)
        stats = overview_stats_cached()
        counts = stats.counts if is_current else window_counts(window)
        if is_current:
            window = stats.window
        data = {
            "window": window_data(window),
            "counts": counts,
            "briefings": briefing_links(request, counts, window, is_current),
            # Current, but for whether the requested window held an announcement.
            "freshness": replace(
                stats.freshness, announcement_in_window=announcement_due(start=window.start, end=window.end)
            ),
            "totals": stats.totals,
            "failing_sources": stats.failing_sources,
            "daily": stats.chart,
            "computed_at": stats.computed_at,
        }
        return Response(StatsSerializer(data).data)


class BriefingView(GenericAPIView):
    pagination_class = KeysetPagination
    sort: str | None = None

    @extend_schema(
        operation_id="briefings_retrieve",
        summary="Papers behind one number",
        description="Exactly the papers counted by one overview number, for the current window or a past one "
        "(`end`). Cursor-paginated: follow `next`.",
        parameters=[KIND_PARAMETER, END_PARAMETER, CURSOR_PARAMETER, PAGE_SIZE_PARAMETER],
        responses={
            200: OpenApiResponse(BriefingPageSerializer, description="A page of the briefing."),
            **ERROR_RESPONSES,
            404: NOT_FOUND_RESPONSE,
        },
    )
    def get(self, request: Request, kind: str) -> Response:
        if kind not in BRIEFING_KINDS:
            raise NotFoundParameter(
                {"kind": [_("There is no such briefing; use one of %(kinds)s.") % {"kinds": ", ".join(BRIEFING_KINDS)}]}
            )
        window, _is_current = window_from(request)
        self.sort = BRIEFING_SORT[kind]
        page = self.paginate_queryset(briefing_papers(kind=kind, window=window))
        # Papers, not versions: a paper revised twice in the window is listed once.
        count = briefing_papers(kind=kind, window=window).count()
        data = {
            "kind": kind,
            "window": window_data(window),
            "count": count,
            "next": self.paginator.get_next_link(),
            "results": briefing_cards(kind=kind, window=window, papers=page),
        }
        return Response(BriefingPageSerializer(data).data)


class SourcesView(APIView):
    @extend_schema(
        operation_id="sources_list",
        summary="Source progress and health",
        description="Every source with its schedule, latest check, next run, checkpoint and the last 24 hours, "
        "the state of writing AI guided readings, and the completeness of each of the last 14 announcement days "
        "(listed by arXiv, held, missing, behind), as the /sources/ page shows them.",
        responses={200: OpenApiResponse(SourcesSerializer, description="Every source."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        progress = source_progress_list()
        data = {
            "sources": progress,
            "any_failing": any(item.is_failing for item in progress),
            "guided_readings": llm_status(),
            "completeness": announcement_completeness(),
        }
        return Response(SourcesSerializer(data, context={"request": request}).data)


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_retrieve",
        summary="Who am I",
        description="The signed-in user, how this request was authenticated, and how many follows and unread "
        "trail cards the user has; 401 without credentials. Useful to check that a token works.",
        responses={200: OpenApiResponse(MeSerializer, description="The signed-in user."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        token = request.auth if isinstance(request.auth, ApiToken) else None
        return Response(
            MeSerializer(
                {
                    "username": request.user.get_username(),
                    "authenticated_by": "token" if token else "session",
                    "token_name": token.name if token else None,
                    "follows": Follow.objects.filter(user=request.user).count(),
                    "unread": trail_unread_counts(user=request.user).total,
                    "feeds": feed_links(user=request.user),
                }
            ).data
        )
