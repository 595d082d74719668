"""/api/v1/…, included by papertrail/urls.py under "api/v1/". Anything else
under it is a JSON 404, never an HTML page."""

from django.urls import path, re_path

from portal.api import (
    ask,
    channels,
    group_channels,
    group_trail,
    groups,
    me,
    picks,
    ratings,
    recommendations,
    record_files,
    records,
    trail,
    views,
    zotero,
)
from portal.api.errors import json_not_found

app_name = "api"
urlpatterns = [
    path("papers/", views.PaperListView.as_view(), name="paper_list"),
    # <path:> so that old-style ids (hep-th/9901001) and malformed ids reach the
    # view, which answers with a JSON error naming arxiv_id.
    # Before the detail's <path:>, which would take "…/similar" for an id.
    re_path(r"^papers/(?P<arxiv_id>\S+)/similar/$", views.SimilarPapersView.as_view(), name="paper_similar"),
    path("papers/<path:arxiv_id>/", views.PaperDetailView.as_view(), name="paper_detail"),
    path("stats/", views.StatsView.as_view(), name="stats"),
    path("briefings/<str:kind>/", views.BriefingView.as_view(), name="briefing"),
    path("sources/", views.SourcesView.as_view(), name="sources"),
    path("ask/", ask.AskView.as_view(), name="ask"),
    path("me/", views.MeView.as_view(), name="me"),
    path("me/asks/", ask.MyAskListView.as_view(), name="ask_list"),
    path("me/asks/<int:ask_id>/", ask.MyAskDetailView.as_view(), name="ask_detail"),
    path("me/channels/", channels.ChannelListView.as_view(), name="channel_list"),
    path("me/channels/<int:channel_id>/", channels.ChannelDetailView.as_view(), name="channel_detail"),
    path("me/channels/<int:channel_id>/test/", channels.ChannelTestView.as_view(), name="channel_test"),
    path("me/follows/", me.FollowListView.as_view(), name="follow_list"),
    path("me/zotero/", zotero.ZoteroLinkView.as_view(), name="zotero"),
    path("me/zotero/collections/", zotero.ZoteroCollectionListView.as_view(), name="zotero_collections"),
    path("me/zotero/sync/", zotero.ZoteroSyncView.as_view(), name="zotero_sync"),
    path("me/zotero/seed/", zotero.ZoteroSeedView.as_view(), name="zotero_seed"),
    path("me/follows/preview/", me.FollowPreviewView.as_view(), name="follow_preview"),
    path("me/follows/<int:follow_id>/", me.FollowDetailView.as_view(), name="follow_detail"),
    path("me/records/", records.RecordListView.as_view(), name="record_list"),
    # Export and import come before me/records/<arxiv_id>/: an
    # old-style id path would otherwise swallow "export" and "import".
    path("me/records/export/", record_files.RecordExportView.as_view(), name="records_export"),
    path("me/records/import/", record_files.RecordImportView.as_view(), name="records_import"),
    # Any other id; <path:>-like so that old-style ids and malformed ones
    # reach the view, which names arxiv_id in its error.
    re_path(
        r"^me/records/(?P<arxiv_id>(?!(?:export|import)/$)[^\s]+)/$",
        records.RecordDetailView.as_view(),
        name="record_detail",
    ),
    path("me/tags/", records.TagListView.as_view(), name="tag_list"),
    path("me/ratings/", ratings.RatingListView.as_view(), name="rating_list"),
    # <path:>-like, as the records' detail: old-style and malformed ids reach the view.
    re_path(r"^me/ratings/(?P<arxiv_id>[^\s]+)/$", ratings.RatingDetailView.as_view(), name="rating_detail"),
    path("me/picks/", picks.PickListView.as_view(), name="picks"),
    path("me/trail/", trail.TrailView.as_view(), name="trail"),
    path("me/trail/read/", trail.TrailReadView.as_view(), name="trail_read"),
    path("me/trail/<int:item_id>/dismiss/", trail.TrailDismissView.as_view(), name="trail_dismiss"),
    path("me/trail/<int:item_id>/undismiss/", trail.TrailUndismissView.as_view(), name="trail_undismiss"),
    path("me/recommendations/", recommendations.RecommendationListView.as_view(), name="recommendation_list"),
    path(
        "me/recommendations/<int:recommendation_id>/not-interested/",
        recommendations.RecommendationNotInterestedView.as_view(),
        name="recommendation_not_interested",
    ),
    path("groups/", groups.GroupListView.as_view(), name="group_list"),
    path("groups/join/", groups.JoinView.as_view(), name="group_join"),
    path("groups/<int:group_id>/", groups.GroupDetailView.as_view(), name="group_detail"),
    path("groups/<int:group_id>/members/", groups.MemberListView.as_view(), name="group_members"),
    path("groups/<int:group_id>/members/<int:member_id>/", groups.MemberDetailView.as_view(), name="group_member"),
    path("groups/<int:group_id>/invites/", groups.InviteListView.as_view(), name="group_invites"),
    path("groups/<int:group_id>/invites/<int:invite_id>/", groups.InviteDetailView.as_view(), name="group_invite"),
    path("groups/<int:group_id>/follows/", group_trail.GroupFollowListView.as_view(), name="group_follows"),
    path(
        "groups/<int:group_id>/follows/<int:group_follow_id>/",
        group_trail.GroupFollowDetailView.as_view(),
        name="group_follow",
    ),
    path("groups/<int:group_id>/trail/", group_trail.GroupTrailView.as_view(), name="group_trail"),
    path("groups/<int:group_id>/trail/read/", group_trail.GroupTrailReadView.as_view(), name="group_trail_read"),
    path("groups/<int:group_id>/channels/", group_channels.GroupChannelListView.as_view(), name="group_channels"),
    path(
        "groups/<int:group_id>/channels/<int:group_channel_id>/",
        group_channels.GroupChannelDetailView.as_view(),
        name="group_channel",
    ),
    path(
        "groups/<int:group_id>/channels/<int:group_channel_id>/test/",
        group_channels.GroupChannelTestView.as_view(),
        name="group_channel_test",
    ),
    # [\s\S], not ".": a path holding a newline (%0A) must not slip past to the HTML 404.
    re_path(r"^[\s\S]*$", json_not_found, name="not_found"),
]
