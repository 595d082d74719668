"""Lab groups under /api/v1/groups/: the caller's groups, a group's members
and invitation links, and joining by a link. A group the caller is not in is
a 404, the same answer as an id that names nothing; what only its owner may
do (rename, delete, members, invites, follows) is a 403 for a member. The
group's follows and trail are in portal/api/group_trail.py."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.groups.models import Membership
from accounts.groups.selectors import group_list, invite_link_token, invite_list, member_list, membership_get
from accounts.groups.services import (
    group_create,
    group_delete,
    group_leave,
    group_rename,
    invite_accept,
    invite_create,
    invite_revoke,
    member_remove,
)
from accounts.groups.types import InviteInvalid
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.me import MAX_ID
from portal.api.schema import ERROR_RESPONSES, NOT_FOUND_RESPONSE
from portal.api.serializers.groups import (
    GroupListSerializer,
    GroupSerializer,
    GroupWriteSerializer,
    InviteListSerializer,
    InviteSerializer,
    InviteWriteSerializer,
    JoinSerializer,
    MemberListSerializer,
)

GROUP_ID_PARAMETER = OpenApiParameter(
    "group_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The id of a group you are in."
)
GROUP_NOT_FOUND = OpenApiResponse(NOT_FOUND_RESPONSE.response, description="You are in no group with this id.")
GROUP_RESPONSES = {
    **ERROR_RESPONSES,
    403: OpenApiResponse(description="Only the group's owner may."),
    404: GROUP_NOT_FOUND,
}


def member_of(request: Request, group_id: int) -> Membership:
    """The caller's membership of this group, or a 404 naming group_id."""
    membership = membership_get(user=request.user, group_id=group_id) if group_id <= MAX_ID else None
    if membership is None:
        raise NotFoundParameter({"group_id": [_("You are in no group with this id.")]})
    return membership


def owner_of(request: Request, group_id: int) -> Membership:
    """As member_of, and a 403 for a member who is not the owner."""
    membership = member_of(request, group_id)
    if membership.role != Membership.Role.OWNER:
        raise PermissionDenied(_("Only the group's owner may do this."))
    return membership


def _named(error: ValidationError) -> ParameterError:
    return ParameterError({key: list(messages) for key, messages in error.message_dict.items()})


def _invite_data(request: Request, invite) -> dict:
    token = invite_link_token(invite)
    return {
        "id": invite.pk,
        "token": token,
        "url": request.build_absolute_uri(f"/groups/join/{token}/"),
        "created_at": invite.created_at,
        "expires_at": invite.expires_at,
        "uses": invite.uses,
    }


class GroupListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_list",
        summary="Your lab groups",
        description="The groups you own or are a member of, with your role in each.",
        responses={200: OpenApiResponse(GroupListSerializer, description="Your groups."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        memberships = group_list(user=request.user)
        return Response(GroupListSerializer({"count": len(memberships), "results": memberships}).data)

    @extend_schema(
        operation_id="groups_create",
        summary="Make a lab group",
        description="A new group owned by you; invite others with an invitation link. Errors name `name`.",
        request=GroupWriteSerializer,
        responses={201: OpenApiResponse(GroupSerializer, description="The new group."), **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        body = GroupWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            group = group_create(owner=request.user, name=body.validated_data["name"])
        except ValidationError as error:
            raise _named(error) from None
        membership = membership_get(user=request.user, group_id=group.pk)
        return Response(GroupSerializer(membership).data, status=status.HTTP_201_CREATED)


class GroupDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_retrieve",
        summary="One of your groups",
        description="The group, with your role in it; 404 for a group you are not in.",
        parameters=[GROUP_ID_PARAMETER],
        responses={200: OpenApiResponse(GroupSerializer, description="The group."), **GROUP_RESPONSES},
    )
    def get(self, request: Request, group_id: int) -> Response:
        return Response(GroupSerializer(member_of(request, group_id)).data)

    @extend_schema(
        operation_id="groups_rename",
        summary="Rename a group (its owner)",
        description="Its owner gives the group a new name; a member gets 403. Errors name `name`.",
        parameters=[GROUP_ID_PARAMETER],
        request=GroupWriteSerializer,
        responses={200: OpenApiResponse(GroupSerializer, description="The group."), **GROUP_RESPONSES},
    )
    def patch(self, request: Request, group_id: int) -> Response:
        membership = owner_of(request, group_id)
        body = GroupWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            group_rename(group=membership.group, name=body.validated_data["name"])
        except ValidationError as error:
            raise _named(error) from None
        return Response(GroupSerializer(membership).data)

    @extend_schema(
        operation_id="groups_delete",
        summary="Delete a group (its owner)",
        description="The group goes with its follows, its trail's marks and its invitation links.",
        parameters=[GROUP_ID_PARAMETER],
        responses={204: None, **GROUP_RESPONSES},
    )
    def delete(self, request: Request, group_id: int) -> Response:
        group_delete(group=owner_of(request, group_id).group)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemberListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_members_list",
        summary="A group's members",
        description="Every member of the group with their role, the owner first; members only.",
        parameters=[GROUP_ID_PARAMETER],
        responses={200: OpenApiResponse(MemberListSerializer, description="The members."), **GROUP_RESPONSES},
    )
    def get(self, request: Request, group_id: int) -> Response:
        members = member_list(group=member_of(request, group_id).group)
        return Response(MemberListSerializer({"count": len(members), "results": members}).data)


class MemberDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_members_remove",
        summary="Leave a group, or remove a member (its owner)",
        description="Your own user id: you leave (the owner cannot). Another member's: the owner removes them; "
        "their access ends at once.",
        parameters=[
            GROUP_ID_PARAMETER,
            OpenApiParameter("member_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="A member's user id."),
        ],
        responses={204: None, **GROUP_RESPONSES},
    )
    def delete(self, request: Request, group_id: int, member_id: int) -> Response:
        membership = member_of(request, group_id)
        if member_id == request.user.pk:
            try:
                group_leave(membership=membership)
            except ValidationError as error:
                raise _named(error) from None
            return Response(status=status.HTTP_204_NO_CONTENT)
        owner_of(request, group_id)
        if member_id > MAX_ID or not member_remove(group=membership.group, user_id=member_id):
            raise NotFoundParameter({"member_id": [_("No member of this group has this id.")]})
        return Response(status=status.HTTP_204_NO_CONTENT)


class InviteListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_invites_list",
        summary="A group's invitation links (its owner)",
        description="The group's invitation links that still hold, newest first; its owner only.",
        parameters=[GROUP_ID_PARAMETER],
        responses={200: OpenApiResponse(InviteListSerializer, description="Links that still hold."), **GROUP_RESPONSES},
    )
    def get(self, request: Request, group_id: int) -> Response:
        invites = [_invite_data(request, i) for i in invite_list(group=owner_of(request, group_id).group)]
        return Response(InviteListSerializer({"count": len(invites), "results": invites}).data)

    @extend_schema(
        operation_id="groups_invites_create",
        summary="Make an invitation link (its owner)",
        description="Whoever signs in and opens the link (or posts its token to /api/v1/groups/join/) joins, "
        "until it expires (`days`) or is revoked.",
        parameters=[GROUP_ID_PARAMETER],
        request=InviteWriteSerializer,
        responses={201: OpenApiResponse(InviteSerializer, description="The new link."), **GROUP_RESPONSES},
    )
    def post(self, request: Request, group_id: int) -> Response:
        membership = owner_of(request, group_id)
        body = InviteWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            invite, _token = invite_create(group=membership.group, by=request.user, days=body.validated_data["days"])
        except ValidationError as error:
            raise _named(error) from None
        return Response(InviteSerializer(_invite_data(request, invite)).data, status=status.HTTP_201_CREATED)


class InviteDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_invites_revoke",
        summary="Revoke an invitation link (its owner)",
        description="The link stops working at once; those who joined through it stay.",
        parameters=[
            GROUP_ID_PARAMETER,
            OpenApiParameter("invite_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The invite's id."),
        ],
        responses={204: None, **GROUP_RESPONSES},
    )
    def delete(self, request: Request, group_id: int, invite_id: int) -> Response:
        membership = owner_of(request, group_id)
        if invite_id > MAX_ID or not invite_revoke(group=membership.group, invite_id=invite_id):
            raise NotFoundParameter({"invite_id": [_("This group has no open invite with this id.")]})
        return Response(status=status.HTTP_204_NO_CONTENT)


class JoinView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_join",
        summary="Join a group by its invitation link",
        description="A link that has expired, was revoked or was altered is a 400 naming `token`.",
        request=JoinSerializer,
        responses={200: OpenApiResponse(GroupSerializer, description="The group you are in."), **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        body = JoinSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            membership = invite_accept(user=request.user, token=body.validated_data["token"])
        except InviteInvalid:
            raise ParameterError(
                {"token": [_("This invitation link has expired, was revoked or is not valid.")]}
            ) from None
        return Response(GroupSerializer(membership).data)
