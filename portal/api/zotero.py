"""The signed-in user's Zotero link under /api/v1/me/zotero/: link a library
(PUT; the key is stored encrypted and never returned), choose the collection
(PATCH), unlink (DELETE), list the collections, ask for a sync or for a
topic follow seeded by a collection (POST, done by a task: 202). Thin views
over accounts.zotero's services and selectors; without a link, 404."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.zotero.models import ZoteroLink
from accounts.zotero.selectors import zotero_link_get, zotero_reports, zotero_synced_count
from accounts.zotero.services import (
    zotero_collection_choose,
    zotero_link_set,
    zotero_seed_request,
    zotero_sync_request,
    zotero_unlink,
)
from accounts.zotero.types import ZoteroLinkError
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.schema import ERROR_RESPONSES
from portal.api.serializers.zotero import (
    ZoteroCollectionListSerializer,
    ZoteroCollectionSerializer,
    ZoteroLinkSerializer,
    ZoteroLinkWriteSerializer,
)

NO_LINK = OpenApiResponse(description="You have not linked a Zotero library.")
LINK = OpenApiResponse(ZoteroLinkSerializer, description="Your Zotero link (never its key).")
QUEUED = OpenApiResponse(ZoteroLinkSerializer, description="Queued; your Zotero link as it is now.")
UNLINKED = OpenApiResponse(description="Unlinked.")
COLLECTIONS = OpenApiResponse(ZoteroCollectionListSerializer(many=True), description="The collections.")


def _own_link(request: Request) -> ZoteroLink:
    link = zotero_link_get(user=request.user)
    if link is None:
        raise NotFoundParameter({"zotero": [_("You have not linked a Zotero library.")]})
    return link


def _shown(request: Request, link: ZoteroLink, code: int = status.HTTP_200_OK) -> Response:
    link = zotero_link_get(user=request.user) or link
    context = {"reports": zotero_reports(link=link), "synced_items": zotero_synced_count(link=link)}
    return Response(ZoteroLinkSerializer(link, context=context).data, status=code)


def _valid(serializer_class, data) -> dict:
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        raise ParameterError({name: list(messages) for name, messages in serializer.errors.items()})
    return serializer.validated_data


def _service(fn, **kwargs):
    try:
        return fn(**kwargs)
    except ZoteroLinkError as error:
        raise ParameterError({error.field: [str(error)]}) from None


class ZoteroLinkView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_zotero_get",
        summary="Your Zotero link",
        description="The linked library, the chosen collection, the last sync, failures in words and reports "
        "(conflicts and who won, items that are not arXiv papers). The API key is never returned.",
        responses={200: LINK, 404: NO_LINK, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        return _shown(request, _own_link(request))

    @extend_schema(
        operation_id="me_zotero_link",
        summary="Link a Zotero library",
        description="Your Zotero user id or a group's id and an API key with write access. The key is stored "
        "encrypted and never shown again; the library's collections are listed by a background check.",
        request=ZoteroLinkWriteSerializer,
        responses={200: LINK, **ERROR_RESPONSES},
    )
    def put(self, request: Request) -> Response:
        data = _valid(ZoteroLinkWriteSerializer, request.data)
        link = _service(zotero_link_set, user=request.user, **data)
        return _shown(request, link)

    @extend_schema(
        operation_id="me_zotero_choose_collection",
        summary="Choose the collection",
        description="The collection your research record is kept in step with (one of `collections/`).",
        request=ZoteroCollectionSerializer,
        responses={200: LINK, 404: NO_LINK, **ERROR_RESPONSES},
    )
    def patch(self, request: Request) -> Response:
        _own_link(request)
        data = _valid(ZoteroCollectionSerializer, request.data)
        return _shown(request, _service(zotero_collection_choose, user=request.user, **data))

    @extend_schema(
        operation_id="me_zotero_unlink",
        summary="Unlink",
        description="Forget the library and its key; the items stay in Zotero.",
        responses={204: UNLINKED, 404: NO_LINK, **ERROR_RESPONSES},
    )
    def delete(self, request: Request) -> Response:
        _own_link(request)
        zotero_unlink(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ZoteroCollectionListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_zotero_collections",
        summary="The linked library's collections",
        description="As listed by the last check of the key (linking runs one).",
        responses={200: COLLECTIONS, 404: NO_LINK, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        link = _own_link(request)
        return Response([{"key": key, "name": name} for key, name in link.collections])


class ZoteroSyncView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_zotero_sync",
        summary="Sync now",
        description="Queue a sync of the chosen collection (pull, then push); its outcome shows in `me/zotero/`.",
        request=None,
        responses={202: QUEUED, 404: NO_LINK, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        _own_link(request)
        return _shown(request, _service(zotero_sync_request, user=request.user), status.HTTP_202_ACCEPTED)


class ZoteroSeedView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_zotero_seed",
        summary="Seed a topic follow from a collection",
        description="A topic follow whose example papers are the collection's arXiv papers the library holds "
        "(at most ten), made by a task; `seed_result` in `me/zotero/` says what was made.",
        request=ZoteroCollectionSerializer,
        responses={202: QUEUED, 404: NO_LINK, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        _own_link(request)
        data = _valid(ZoteroCollectionSerializer, request.data)
        return _shown(request, _service(zotero_seed_request, user=request.user, **data), status.HTTP_202_ACCEPTED)
