"""`/api/v1/me/records/export/` and `/api/v1/me/records/import/`: the
signed-in user's research record as a BibTeX, RIS, CSL-JSON or full JSON
file, and an import of a reference manager's file or a list of ids. Only
ever the caller's own record: neither route takes a user or record id."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import UnsupportedMediaType
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.records.selectors import tag_get
from accounts.records.services import records_import_file, records_import_ids
from accounts.records.types import EXPORT_FORMATS, RecordImportError
from portal.api.errors import ParameterError
from portal.api.schema import ERROR_RESPONSES
from portal.record_files import export_response, import_result_data, read_upload, selected_ids

MAX_IDS = 10_000


class FormatIsAFileFormat(DefaultContentNegotiation):
    """`format` names the export's file format here, not a DRF renderer, and
    the answer is always the one JSON renderer (errors) or a file."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ImportFileSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A BibTeX, RIS or CSL-JSON file, or a text file of ids; UTF-8.")


class ImportIdsSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=serializers.CharField(max_length=500, trim_whitespace=True),
        max_length=MAX_IDS,
        allow_empty=False,
        help_text="arXiv ids (any version, old-style too), arXiv URLs or DOIs.",
    )


class ImportEntrySerializer(serializers.Serializer):
    label = serializers.CharField(help_text="The entry's key, the id as given, or `line N` for a malformed one.")
    outcome = serializers.ChoiceField(
        choices=["matched", "added", "unmatched"],
        help_text="matched: in the library; added: looked up on arXiv and added to it; unmatched: see `reason`.",
    )
    reason = serializers.CharField(help_text="How it was matched and what happened to the record, or why not.")
    arxiv_id = serializers.CharField(
        allow_blank=True, help_text="The paper's arXiv id; for unmatched, as the entry gave it."
    )
    title = serializers.CharField(allow_blank=True, help_text="The paper's title; for unmatched, as the entry gave it.")


class ImportCountsSerializer(serializers.Serializer):
    matched = serializers.IntegerField(help_text="Entries matched to a library paper.")
    added = serializers.IntegerField(help_text="Entries whose paper was looked up on arXiv and added to the library.")
    unmatched = serializers.IntegerField(help_text="Entries not matched, malformed ones included.")


class ImportResultSerializer(serializers.Serializer):
    format = serializers.ChoiceField(
        choices=["bibtex", "ris", "csljson", "ids"], help_text="The format the file was read as."
    )
    saved = serializers.IntegerField(help_text="Records created or given new tags by this import.")
    counts = ImportCountsSerializer(help_text="Entries per outcome.")
    entries = ImportEntrySerializer(many=True, help_text="Every entry in the file's order, malformed ones last.")


EXPORTED = "The file (a download): BibTeX, RIS, CSL-JSON items or all of your data as JSON, as `format` asks."
EXPORT_PARAMETERS = [
    OpenApiParameter(
        "format",
        OpenApiTypes.STR,
        enum=list(EXPORT_FORMATS),
        description="bibtex (arXiv's @misc entries), ris, csljson, or json (all of your data). Default bibtex.",
    ),
    OpenApiParameter("tag", OpenApiTypes.STR, description="Only the records with this tag of yours (any case)."),
    OpenApiParameter("ids", OpenApiTypes.STR, description="Only these saved papers: arXiv ids, comma-separated."),
]


class RecordExportView(APIView):
    permission_classes = [IsAuthenticated]
    content_negotiation_class = FormatIsAFileFormat

    @extend_schema(
        operation_id="me_records_export",
        summary="Export your research record",
        description="Your saved papers as a file, newest saved first: BibTeX as arXiv's own export writes it, RIS, "
        "CSL-JSON, or a JSON document of all your data (records with state stamps, notes and tags; tags; "
        "follows; exclusions; trail read marks; `tag` and `ids` narrow its records only).",
        parameters=EXPORT_PARAMETERS,
        responses={
            (200, "application/x-bibtex"): OpenApiResponse(OpenApiTypes.STR, description=EXPORTED),
            (200, "application/x-research-info-systems"): OpenApiResponse(OpenApiTypes.STR, description=EXPORTED),
            (200, "application/vnd.citationstyles.csl+json"): OpenApiResponse(OpenApiTypes.ANY, description=EXPORTED),
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description=EXPORTED),
            **ERROR_RESPONSES,
        },
    )
    def get(self, request: Request) -> HttpResponse:
        kind = request.query_params.get("format", "bibtex").strip() or "bibtex"
        if kind not in EXPORT_FORMATS:
            raise ParameterError({"format": [_("Use one of: %(formats)s.") % {"formats": ", ".join(EXPORT_FORMATS)}]})
        tag = None
        name = request.query_params.get("tag", "").strip()
        if name:
            tag = tag_get(user=request.user, name=name)
            if tag is None:
                raise ParameterError({"tag": [_("You have no tag of this name.")]})
        try:
            ids = selected_ids(request.query_params.get("ids", ""))
        except ValueError as exc:
            raise ParameterError({"ids": [str(exc)]}) from None
        return export_response(request.user, kind, tag, ids)


class RecordImportView(APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, JSONParser]

    @extend_schema(
        operation_id="me_records_import",
        summary="Import into your research record",
        description="A BibTeX, RIS or CSL-JSON file (Zotero, Mendeley, Google Scholar exports) as multipart `file`, "
        'or `{"ids": [...]}` of arXiv ids, arXiv URLs or DOIs. Each entry is matched by arXiv id, then DOI, then '
        "exact title; papers the library lacks but with an arXiv id are looked up on arXiv and added. The file's "
        "tags are added to the records'; importing the same file again changes nothing. A malformed entry is "
        "reported as unmatched and the rest are imported. Errors name `file` (too large, not UTF-8, no known "
        "format) or `ids`.",
        request={"multipart/form-data": ImportFileSerializer, "application/json": ImportIdsSerializer},
        responses={
            200: OpenApiResponse(ImportResultSerializer, description="What became of each entry."),
            **ERROR_RESPONSES,
        },
    )
    def post(self, request: Request) -> Response:
        try:
            request.data  # noqa: B018 (parse now, so that an unknown body type is a 400 naming the input)
        except UnsupportedMediaType:
            raise ParameterError(
                {"file": [_('Send a file as multipart/form-data, or {"ids": [...]} as JSON.')]}
            ) from None
        try:
            if request.content_type.startswith("multipart/"):
                body = ImportFileSerializer(data=request.data)
                body.is_valid(raise_exception=True)
                upload = body.validated_data["file"]
                result = records_import_file(user=request.user, data=read_upload(upload), filename=upload.name)
            else:
                if not isinstance(request.data, dict):
                    raise ParameterError({"ids": [_('Send {"ids": [...]} as JSON, or a file as multipart.')]})
                body = ImportIdsSerializer(data=request.data)
                body.is_valid(raise_exception=True)
                result = records_import_ids(user=request.user, ids=body.validated_data["ids"])
        except RecordImportError as exc:
            raise ParameterError({exc.field: [str(exc)]}) from None
        return Response(import_result_data(result))
