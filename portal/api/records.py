"""The signed-in user's research record under /api/v1/me/records/ and their
tags under /api/v1/me/tags/: thin views over accounts' record selectors and
services. A paper the user has not saved is a 404 naming `arxiv_id`, the
same answer whoever else saved it."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.records.models import Record
from accounts.records.selectors import SORTS, RecordFilters, record_counts, record_get, record_page
from accounts.records.services import RecordError, record_remove, record_save
from harvest.models import Paper
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.me import OWN_NOT_FOUND, bool_param
from portal.api.own_papers import library_paper, numbered_page, own_arxiv_id_parameter
from portal.api.pagination import PAGE_SIZE_PARAMETER, page_size_from
from portal.api.schema import ERROR_RESPONSES, NOT_FOUND_RESPONSE
from portal.api.serializers.records import (
    RecordChangeSerializer,
    RecordPageSerializer,
    RecordSerializer,
    RecordWriteSerializer,
    TagListSerializer,
)
from portal.record_params import record_filters_from

RECORD_ARXIV_ID = own_arxiv_id_parameter(
    "The arXiv id of a paper you saved (`2611.13545`, `hep-th/9901001`; a version suffix is ignored)."
)
RECORD_PARAMETERS = [
    OpenApiParameter("tag", OpenApiTypes.STR, description="Only records with this tag of yours (its name)."),
    OpenApiParameter("state", OpenApiTypes.STR, enum=Record.State.values, description="Only records in this state."),
    OpenApiParameter("category", OpenApiTypes.STR, description="Only papers listed in this category (cs.LG)."),
    OpenApiParameter("revised", OpenApiTypes.BOOL, description="1: only papers revised since you last read them."),
    OpenApiParameter(
        "q", OpenApiTypes.STR, description="Search your notes and the papers' titles and abstracts (200 characters)."
    ),
    OpenApiParameter("sort", OpenApiTypes.STR, enum=list(SORTS), description="saved (default), updated or title."),
    OpenApiParameter("page", OpenApiTypes.INT, description="Page number, from 1."),
    PAGE_SIZE_PARAMETER,
]


def _own_record(request: Request, arxiv_id: str) -> tuple[Paper, Record]:
    paper = library_paper(arxiv_id, "arxiv_id")
    record = record_get(user=request.user, paper_id=paper.pk)
    if record is None:
        raise NotFoundParameter({"arxiv_id": [_("You have not saved this paper.")]})
    return paper, record


def _data(request: Request, user, paper_id: int) -> dict:
    record = record_get(user=user, paper_id=paper_id)
    return RecordSerializer(record, context={"request": request}).data


def _save(request: Request, paper: Paper, data: dict) -> tuple[Record, bool]:
    try:
        return record_save(
            user=request.user,
            paper=paper,
            state=data.get("state"),
            tags=data.get("tags"),
            note=data.get("note"),
        )
    except RecordError as exc:
        raise ParameterError({exc.field: [str(exc)]}) from None


def _filters(request: Request) -> tuple[RecordFilters, int]:
    filters, page, refused = record_filters_from(request.query_params, record_counts(user=request.user).by_tag)
    if refused:
        raise ParameterError({name: [message] for name, message in refused.items()})
    filters.revised = bool_param(request, "revised", False)
    return filters, page


class RecordListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_records_list",
        summary="Your research record",
        description="The papers you saved with their state, tags and note, filtered and sorted as on /records/. "
        "Numbered pages: follow `next`.",
        parameters=RECORD_PARAMETERS,
        responses={200: OpenApiResponse(RecordPageSerializer, description="A page of records."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        filters, page = _filters(request)
        size = page_size_from(request)
        rows, total = record_page(user=request.user, filters=filters, page=page, size=size)
        body = numbered_page(request, page=page, size=size, total=total, results=rows)
        return Response(RecordPageSerializer(body, context={"request": request}).data)

    @extend_schema(
        operation_id="me_records_create",
        summary="Save a paper",
        description="Save a paper to your record with an optional state, tags and note. Saving a paper already "
        "saved updates its record (201 when new, 200 when updated).",
        request=RecordWriteSerializer,
        responses={
            201: OpenApiResponse(RecordSerializer, description="Saved."),
            200: OpenApiResponse(RecordSerializer, description="Already saved: updated."),
            **ERROR_RESPONSES,
            404: OpenApiResponse(NOT_FOUND_RESPONSE.response, description="The library has no such paper (`paper`)."),
        },
    )
    def post(self, request: Request) -> Response:
        body = RecordWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        paper = library_paper(body.validated_data["paper"], "paper")
        _record, created = _save(request, paper, body.validated_data)
        return Response(
            _data(request, request.user, paper.pk), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


class RecordDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_records_retrieve",
        summary="Your record of one paper",
        description="Your record of a paper you saved: state and when each was set, tags, note, last read "
        "version; 404 for a paper you have not saved.",
        parameters=[RECORD_ARXIV_ID],
        responses={
            200: OpenApiResponse(RecordSerializer, description="The record."),
            **ERROR_RESPONSES,
            404: OWN_NOT_FOUND,
        },
    )
    def get(self, request: Request, arxiv_id: str) -> Response:
        _saved, record = _own_record(request, arxiv_id)
        return Response(RecordSerializer(record, context={"request": request}).data)

    @extend_schema(
        operation_id="me_records_partial_update",
        summary="Change your record of a paper",
        description="Change any of state, tags (replaces them) and note.",
        parameters=[RECORD_ARXIV_ID],
        request=RecordChangeSerializer,
        responses={
            200: OpenApiResponse(RecordSerializer, description="The changed record."),
            **ERROR_RESPONSES,
            404: OWN_NOT_FOUND,
        },
    )
    def patch(self, request: Request, arxiv_id: str) -> Response:
        paper, _record = _own_record(request, arxiv_id)
        body = RecordChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        _save(request, paper, body.validated_data)
        return Response(_data(request, request.user, paper.pk))

    @extend_schema(
        operation_id="me_records_destroy",
        summary="Unsave a paper",
        description="Remove the record with its note and tag links (the tags stay).",
        parameters=[RECORD_ARXIV_ID],
        responses={204: OpenApiResponse(description="Removed."), **ERROR_RESPONSES, 404: OWN_NOT_FOUND},
    )
    def delete(self, request: Request, arxiv_id: str) -> Response:
        paper, _record = _own_record(request, arxiv_id)
        record_remove(user=request.user, paper=paper)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TagListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_tags_list",
        summary="Your tags",
        description="Every tag of yours with how many records carry it, and your records per state.",
        responses={200: OpenApiResponse(TagListSerializer, description="Your tags."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        counts = record_counts(user=request.user)
        body = {
            "results": [{"id": tag.pk, "name": tag.name, "count": count} for tag, count in counts.by_tag],
            "by_state": counts.by_state,
            "total": counts.total,
        }
        return Response(TagListSerializer(body).data)
