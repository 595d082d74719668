"""`POST /api/v1/ask/` (a question to the library, answered with citations
checked against the papers retrieved) and the asker's own questions under
`/api/v1/me/asks/`. Another user's question is a 404."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from digests.ask.selectors import ask_get, ask_list, ask_papers
from digests.ask.services import MAX_QUESTION_LENGTH, AskRefused, ask_delete
from digests.models import Ask
from harvest.fulltext.selectors import section_url
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.schema import ERROR_RESPONSES, ErrorSerializer
from portal.api.serializers.papers import PaperSerializer
from portal.api.throttling import ask_wait
from portal.asking import REFUSAL_STATUS, SCOPE_CHOICES, AskInputError, answer, refusal_message
from portal.selectors import paper_cards

ASK_ID_PARAMETER = OpenApiParameter(
    "ask_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The id of one of your questions."
)
MAX_ID = 2**63 - 1


class AskRequestSerializer(serializers.Serializer):
    question = serializers.CharField(max_length=MAX_QUESTION_LENGTH, help_text="The question, in Chinese or English.")
    category = serializers.ListField(
        child=serializers.CharField(max_length=40),
        required=False,
        max_length=20,
        help_text="Category codes or archives (cs.LG, cs); a paper in any of them may be retrieved.",
    )
    since = serializers.DateField(required=False, help_text="First Beijing day of the papers' update time.")
    until = serializers.DateField(required=False, help_text="Last Beijing day of the papers' update time.")
    ai = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="AI-related papers only (or none)."
    )
    scope = serializers.ChoiceField(
        choices=[value for value, _label in SCOPE_CHOICES],
        required=False,
        help_text="library (default), follows (the papers of your trail) or record (your research record).",
    )
    thread = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_ID, help_text="A follow-up: the id of your earlier question."
    )
    paper = serializers.CharField(
        required=False, max_length=64, help_text="Ask about this paper (arXiv id): its versions, changes and readings."
    )


class CitationSerializer(serializers.Serializer):
    arxiv_id = serializers.CharField(help_text="The arXiv id of a paper retrieved for the question.")
    version = serializers.IntegerField(help_text="The version that was in the context.")
    section = serializers.CharField(
        required=False, help_text='The section cited ("4.1"), one whose passages were in the context.'
    )
    url = serializers.CharField(
        required=False, help_text="arXiv's HTML of the version at the section's anchor (the PDF at its page)."
    )


class PointSerializer(serializers.Serializer):
    text = serializers.CharField(
        help_text="One claim, Markdown, with its citations inline as [arXiv:ID vN] or [arXiv:ID vN §S]."
    )
    citations = CitationSerializer(many=True, help_text="The papers it rests on (all among the retrieved ones).")


class AnswerSerializer(serializers.Serializer):
    synthesis = serializers.CharField(allow_blank=True, help_text="A short synthesis, Markdown.")
    points = PointSerializer(many=True, help_text="The points, each with its citations.")


class UsageSerializer(serializers.Serializer):
    input_tokens = serializers.IntegerField(help_text="Input tokens the API counted (0 when cached).")
    output_tokens = serializers.IntegerField(help_text="Output tokens the API counted (0 when cached).")
    cost_usd = serializers.DecimalField(max_digits=12, decimal_places=6, help_text="Paid from the daily budget.")
    cached = serializers.BooleanField(help_text="Answered from an identical earlier question over the same papers.")
    dropped_citations = serializers.IntegerField(help_text="Citations outside the retrieved papers, removed.")
    dropped_sections = serializers.IntegerField(
        help_text="Section citations not among the passages given, removed (the paper's citation stays)."
    )
    latency_ms = serializers.IntegerField(help_text="Time to answer, in milliseconds.")


class AskSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True, help_text="The question's id (null for a visitor's).")
    thread = serializers.IntegerField(allow_null=True, help_text="The thread's first question, for a follow-up.")
    question = serializers.CharField(help_text="The question as asked (spaces collapsed).")
    language = serializers.ChoiceField(choices=["zh", "en"], help_text="The question's language, and the answer's.")
    created_at = serializers.DateTimeField(help_text="When it was asked (UTC).")
    answer = AnswerSerializer(help_text="The answer: a synthesis and the points.")
    citations = CitationSerializer(many=True, help_text="Every citation of the answer, once each.")
    retrieved = CitationSerializer(many=True, help_text="The papers put in the context, best first.")
    usage = UsageSerializer(help_text="Tokens, cost, cache and citation check of this answer.")


class AskResponseSerializer(AskSerializer):
    papers = PaperSerializer(many=True, help_text="The papers drawn on, as in /api/v1/papers/.")


def _shown(citation: dict[str, Any]) -> dict[str, Any]:
    shown = {"arxiv_id": citation["arxiv_id"], "version": citation["version"]}
    if citation.get("section"):
        url = section_url(
            arxiv_id=citation["arxiv_id"],
            version=int(citation["version"]),
            anchor=citation.get("anchor", ""),
            page=citation.get("page"),
        )
        shown |= {"section": citation["section"], "url": url}
    return shown


def ask_data(asked: Ask, *, papers: bool) -> dict[str, Any]:
    points = [
        {"text": point["text"], "citations": [_shown(c) for c in point["citations"]]}
        for point in asked.answer.get("points", [])
    ]
    citations: list[dict[str, Any]] = []
    for point in points:
        for citation in point["citations"]:
            if citation not in citations:
                citations.append(citation)
    data = {
        "id": asked.pk if asked.user_id else None,
        "thread": asked.thread_id,
        "question": asked.question,
        "language": asked.language,
        "created_at": asked.created_at,
        "answer": {"synthesis": asked.answer.get("synthesis", ""), "points": points},
        "citations": citations,
        "retrieved": asked.retrieved,
        "usage": {
            "input_tokens": asked.input_tokens,
            "output_tokens": asked.output_tokens,
            "cost_usd": asked.cost_usd,
            "cached": asked.cached,
            "dropped_citations": asked.dropped_citations,
            "dropped_sections": asked.answer.get("dropped_sections", 0),
            "latency_ms": asked.latency_ms,
        },
    }
    out = AskSerializer(data).data
    if papers:
        out["papers"] = PaperSerializer(paper_cards(ask_papers(asked)), many=True).data
    return out


class MayAsk(BasePermission):
    """Signed in, unless PAPERTRAIL_ASK_ANONYMOUS opens asking to visitors."""

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated) or settings.PAPERTRAIL_ASK_ANONYMOUS


class AskRefusedError(exceptions.APIException):
    def __init__(self, refused: AskRefused):
        self.status_code = REFUSAL_STATUS[refused.code]
        if refused.retry_after is not None:
            self.wait = refused.retry_after
        super().__init__(detail=refusal_message(refused), code=refused.code)


REFUSALS = {
    403: OpenApiResponse(ErrorSerializer, description="Asking needs a signed-in user on this site."),
    404: OpenApiResponse(ErrorSerializer, description="`thread` names none of your questions, or `paper` no paper."),
    422: OpenApiResponse(ErrorSerializer, description="No paper matches the question and filters (`no_papers`)."),
    429: OpenApiResponse(
        ErrorSerializer, description="Too many questions, or the AI service is busy; retry after `Retry-After`."
    ),
    502: OpenApiResponse(ErrorSerializer, description="The AI service refused or gave no usable answer."),
    503: OpenApiResponse(
        ErrorSerializer,
        description="No answer can be written now: no API key configured (`not_configured`), today's budget spent "
        "(`budget`), answers paused (`paused`) or the AI service unreachable (`unavailable`).",
    ),
    504: OpenApiResponse(ErrorSerializer, description="The AI service took too long (`timeout`)."),
}


class AskView(APIView):
    permission_classes = [MayAsk]

    @extend_schema(
        operation_id="ask_create",
        summary="Ask the library",
        description="A question in Chinese or English, answered in its language from the papers the library's "
        "hybrid search ranks first for it (PAPERTRAIL_ASK_TOP_K, under the optional filters and scope), or from "
        "one paper's versions with `paper`. Every citation is checked against the retrieved papers; any other is "
        "removed and counted in `usage.dropped_citations`. Paid from the daily AI budget; an identical question "
        "over the same papers is answered from the cache.",
        request=AskRequestSerializer,
        responses={
            201: OpenApiResponse(AskResponseSerializer, description="The answer."),
            **ERROR_RESPONSES,
            **REFUSALS,
        },
    )
    def post(self, request: Request) -> Response:
        body = AskRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        wait = ask_wait(request)
        if wait is not None:
            raise exceptions.Throttled(wait=wait)
        data = dict(body.validated_data)
        for name in ("since", "until"):
            if data.get(name):
                data[name] = data[name].isoformat()
        try:
            asked = answer(request.user, data)
        except AskInputError as exc:
            raise (NotFoundParameter if exc.status == 404 else ParameterError)(exc.errors) from None
        except AskRefused as exc:
            raise AskRefusedError(exc) from None
        return Response(ask_data(asked, papers=True), status=status.HTTP_201_CREATED)


class MyAskListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_asks_list",
        summary="Your questions",
        description="Your questions and their answers, newest first (at most 100).",
        responses={200: OpenApiResponse(AskSerializer(many=True), description="Your questions."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        return Response([ask_data(asked, papers=False) for asked in ask_list(user=request.user)[:100]])


class MyAskDetailView(APIView):
    permission_classes = [IsAuthenticated]

    def _own(self, request: Request, ask_id: int) -> Ask:
        found = ask_get(user=request.user, ask_id=ask_id) if ask_id <= MAX_ID else None
        if found is None:
            raise NotFoundParameter({"ask_id": ["You have no question with this id."]})
        return found

    @extend_schema(
        operation_id="me_asks_retrieve",
        summary="One of your questions",
        description="One of your questions with its answer and the papers it drew on, as in /api/v1/papers/.",
        parameters=[ASK_ID_PARAMETER],
        responses={
            200: OpenApiResponse(AskResponseSerializer, description="The question and answer."),
            **ERROR_RESPONSES,
            404: REFUSALS[404],
        },
    )
    def get(self, request: Request, ask_id: int) -> Response:
        return Response(ask_data(self._own(request, ask_id), papers=True))

    @extend_schema(
        operation_id="me_asks_destroy",
        summary="Delete one of your questions",
        description="A thread's first question takes its follow-ups with it.",
        parameters=[ASK_ID_PARAMETER],
        responses={204: OpenApiResponse(description="Deleted."), **ERROR_RESPONSES, 404: REFUSALS[404]},
    )
    def delete(self, request: Request, ask_id: int) -> Response:
        ask_delete(user=request.user, ask_id=self._own(request, ask_id).pk)
        return Response(status=status.HTTP_204_NO_CONTENT)
